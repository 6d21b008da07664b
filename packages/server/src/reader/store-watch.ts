// Notices on the folders holding SQLite stores (OpenCode's family): a write to a store or to its
// write-ahead log names the store whose sessions to stamp again; its other files (the shared-memory
// index, a rollback journal) and the folder's other files say nothing of sessions.
import { statSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { isStoreFileName, storeSessionPath, storeSessionStamps } from '@cairn/transcript';
import type { FileStamp } from './source-files.js';

/** Files SQLite keeps beside a store that change with it: its log, and ones that tell nothing. */
const LOG = '-wal';
const SIDE_FILES = ['-shm', '-journal'];

/**
 * The store a noticed path stands for (the store itself or its log), 'other' for another file of a
 * folder that holds stores (nothing to look at), undefined for a path outside those folders.
 */
export function storeNoticed(path: string, storeFolders: readonly string[]): string | 'other' | undefined {
  if (!storeFolders.includes(dirname(path))) return undefined;
  const name = basename(path);
  if (isStoreFileName(name)) return path;
  if (name.endsWith(LOG) && isStoreFileName(name.slice(0, -LOG.length))) return path.slice(0, -LOG.length);
  if (SIDE_FILES.some((s) => name.endsWith(s) && isStoreFileName(name.slice(0, -s.length)))) return 'other';
  // Sessions stand under `storage/`, watched on its own; anything else here holds none.
  return name === 'storage' ? undefined : 'other';
}

/** Each session of one store under its own name, stamped by its rows; throws when the store cannot be read. */
export async function storeStamps(db: string): Promise<Map<string, FileStamp>> {
  const found = new Map<string, FileStamp>();
  for (const [id, st] of await storeSessionStamps(db)) found.set(storeSessionPath(db, id), st);
  return found;
}

/**
 * The size and modification time of a store and its log, as one string: what a write by the agent
 * moves. A reader's open changes the log's attributes alone, which this leaves out.
 */
export function storeFilesStamp(db: string): string {
  return [db, `${db}${LOG}`]
    .map((f) => {
      const st = statSync(f, { throwIfNoEntry: false });
      return st ? `${st.size}:${st.mtimeMs}` : '-';
    })
    .join('|');
}
