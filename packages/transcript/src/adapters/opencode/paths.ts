// How a session kept in an OpenCode-family SQLite store is named: `<db file>#<session id>`. The
// store holds every session in one file, while the library and the server know a session by its
// main file, so each session gets a name of its own that still says which file holds it.
import { isWireId } from '../../values.js';

const MARK = '#';

export const storeSessionPath = (db: string, id: string): string => `${db}${MARK}${id}`;

/** The store and session a path names, when it names a session in a store. */
export function splitStorePath(path: string): { db: string; id: string } | undefined {
  const at = path.lastIndexOf(MARK);
  if (at <= 0) return undefined;
  const db = path.slice(0, at);
  const id = path.slice(at + 1);
  if (!db.endsWith('.db') || !isWireId(id)) return undefined;
  return { db, id };
}

/** The files SQLite keeps a store in: the database and its write-ahead log. */
export const storeFiles = (db: string): string[] => [db, `${db}-wal`];

const SEPARATOR = /[\\/]/;

/** A path's segments, whichever separator the platform uses. */
export const segments = (path: string): string[] => path.split(SEPARATOR);

/** The last segment (asked of every store path a load names: no array of segments made). */
export const baseName = (path: string): string =>
  path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);

/** The table a file of the JSON tree (`storage/{session,message,part}/…`) stands for. */
export function treeTable(path: string): 'session' | 'message' | 'part' | undefined {
  const parts = segments(path);
  // The folder right under `storage`: session/<project>/<id>.json, message/<sid>/<id>.json,
  // part/<mid>/<id>.json (or part/<id>.json in some older trees).
  for (let i = parts.length - 2; i >= 0 && i >= parts.length - 4; i--) {
    const name = parts[i];
    if ((name === 'session' || name === 'message' || name === 'part') && parts[i - 1] === 'storage')
      return name;
  }
  return undefined;
}

/** The names the OpenCode family gives its data folders and stores. */
export const STORE_FAMILY: readonly string[] = ['opencode', 'kilo'];

/** A store's file name: `<name>.db`, or `<name>-<channel>.db` for a channel build. */
export const storeFileName = (name: string): RegExp => new RegExp(`^${name}(-[A-Za-z0-9_-]+)?\\.db$`);

/** Whether a file name is that of a store of one of the family. */
export const isStoreFileName = (file: string): boolean =>
  STORE_FAMILY.some((n) => storeFileName(n).test(file));
