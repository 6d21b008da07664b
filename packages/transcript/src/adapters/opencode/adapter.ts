// One adapter for the OpenCode family (OpenCode and its forks, such as Kilo), which keep the same
// store under their own names: `<data dir>/<name>.db` (channel builds `<name>-<channel>.db`) and
// the older JSON tree `<data dir>/storage/`. A session in the store is named
// `<db>#<sessionID>` (see paths.ts); a session of the tree by its session file.
import type { AdapterContext, ListEntry, SessionAdapter } from '../../adapter.js';
import type { SessionHead } from '../../model.js';
import type { SessionPlatform } from '../../platform.js';
import { err, ok, type Result, readFailed, type SessionReadError, sessionNotFound } from '../../result.js';
import { isWireId } from '../../values.js';
import { isObject, stringField } from '../gemini-cli/records.js';
import { isMissing } from '../gemini-cli/session-dirs.js';
import { baseName, segments, splitStorePath, storeFileName, storeSessionPath } from './paths.js';
import { listStoreSessions, storeHasSession } from './sqlite.js';
import { summarizeOpenCodeSession } from './summarize.js';
import { translateOpenCodeSession } from './translate.js';
import { jsonFiles, readJsonObject, subFolders, treeSessionFiles } from './tree.js';

export interface OpenCodeFamily {
  id: string;
  aliases: readonly string[];
  /** The data folder's and the database's name: `opencode`, `kilo`. */
  name: string;
  /** Variables naming data folders instead of `$XDG_DATA_HOME/<name>` (comma-separated lists). */
  dataDirVariables: readonly string[];
}

export function openCodeFamilyAdapter(family: OpenCodeFamily): SessionAdapter {
  const dbName = storeFileName(family.name);
  const ours = (path: string): boolean => {
    const store = splitStorePath(path);
    if (store) return dbName.test(baseName(store.db));
    // A tree file under `<...>/<name>/storage/`; a tree elsewhere is OpenCode's (the first of the family).
    const parts = segments(path);
    const at = parts.lastIndexOf('storage');
    if (at < 0) return false;
    const folder = parts[at - 1];
    return folder === family.name || (family.name === 'opencode' && folder !== 'kilo');
  };

  const homes = (platform: Pick<SessionPlatform, 'env' | 'homeDir' | 'join'>): string[] => {
    const out: string[] = [];
    for (const v of family.dataDirVariables)
      for (const dir of (platform.env[v] ?? '').split(',').map((d) => d.trim()))
        if (dir !== '' && !out.includes(dir)) out.push(dir);
    const data = platform.env.XDG_DATA_HOME || platform.join(platform.homeDir, '.local', 'share');
    const home = platform.join(data, family.name);
    if (!out.includes(home)) out.push(home);
    return out;
  };

  async function* list(ctx: AdapterContext, home: string): AsyncGenerator<ListEntry> {
    const { fs, join } = ctx.platform;
    const inStore = new Set<string>();
    let names: string[] = [];
    try {
      names = (await fs.readdir(home))
        .filter((e) => e.isFile && dbName.test(e.name))
        .map((e) => e.name)
        .sort();
    } catch (cause) {
      if (!isMissing(cause)) yield { ref: home, error: readFailed(home, cause) };
      return;
    }
    for (const name of names) {
      ctx.signal?.throwIfAborted();
      const db = join(home, name);
      let rows: Awaited<ReturnType<typeof listStoreSessions>>;
      try {
        rows = await listStoreSessions(db);
      } catch (cause) {
        yield { ref: db, error: readFailed(db, cause) };
        continue;
      }
      for (const r of rows) {
        if (!isWireId(r.id)) continue;
        inStore.add(r.id);
        const path = storeSessionPath(db, r.id);
        const head: SessionHead = { agent: family.id, id: r.id, path, files: [path], size: 0 };
        if (r.directory !== undefined) head.cwd = r.directory;
        if (r.title !== undefined) head.title = r.title;
        if (r.created !== undefined) head.startedAt = Math.floor(r.created);
        if (r.updated !== undefined) head.lastActivityAt = Math.floor(r.updated);
        if (r.model !== undefined) head.model = r.model;
        yield head;
      }
    }
    // The JSON tree: sessions not (yet) in a store. A store migrated from it holds the same ids.
    const sessionRoot = join(home, 'storage', 'session');
    let projects: string[];
    try {
      projects = await subFolders(ctx, sessionRoot);
    } catch (cause) {
      yield { ref: sessionRoot, error: readFailed(sessionRoot, cause) };
      return;
    }
    for (const project of projects) {
      let files: string[];
      try {
        files = await jsonFiles(ctx, project);
      } catch (cause) {
        yield { ref: project, error: readFailed(project, cause) };
        continue;
      }
      for (const path of files) {
        ctx.signal?.throwIfAborted();
        const entry = await treeHead(ctx, family.id, path);
        if (entry === undefined) continue;
        if ('id' in entry && inStore.has(entry.id)) continue;
        yield entry;
      }
    }
  }

  async function sessionFiles(
    ctx: AdapterContext,
    path: string,
  ): Promise<Result<string[], SessionReadError>> {
    const store = splitStorePath(path);
    if (store) {
      if (!dbName.test(baseName(store.db))) return err(sessionNotFound(path));
      try {
        return (await storeHasSession(store.db, store.id)) ? ok([path]) : err(sessionNotFound(path));
      } catch (cause) {
        return err(
          isMissing(cause) || /unable to open|does not exist/i.test(String(cause))
            ? sessionNotFound(path)
            : readFailed(store.db, cause),
        );
      }
    }
    try {
      const stat = await ctx.platform.fs.stat(path);
      if (!stat.isFile) return err(readFailed(path, new Error('not a file')));
      return ok(await treeSessionFiles(ctx, path));
    } catch (cause) {
      return err(isMissing(cause) ? sessionNotFound(path) : readFailed(path, cause));
    }
  }

  const detect = (path: string, head: Uint8Array): boolean => {
    if (!ours(path)) return false;
    if (splitStorePath(path)) return true;
    if (!path.endsWith('.json')) return false;
    try {
      const v = JSON.parse(new TextDecoder().decode(head)) as unknown;
      return (
        isObject(v) && typeof v.id === 'string' && ('projectID' in v || 'directory' in v) && !('role' in v)
      );
    } catch {
      return false;
    }
  };

  return {
    id: family.id,
    aliases: family.aliases,
    // No system prompt, tool schemas or hooks are recorded.
    capabilities: ['requests', 'usage', 'durations', 'reasoning', 'compaction', 'subagents'],
    homes,
    detect,
    list,
    sessionFiles,
    translate: translateOpenCodeSession,
    // No line-fed pass: a store session comes as rows (a large store's database file is no lines to
    // stream), and a tree's files are small.
    summarize: summarizeOpenCodeSession,
  };
}

/** A tree session file as a listing head; undefined for a child session (a lane of its parent). */
async function treeHead(ctx: AdapterContext, agent: string, path: string): Promise<ListEntry | undefined> {
  let s: Awaited<ReturnType<typeof readJsonObject>>;
  let size: number;
  let mtime: number;
  try {
    const stat = await ctx.platform.fs.stat(path);
    size = stat.size;
    mtime = stat.mtimeMs;
    s = await readJsonObject(ctx, path);
  } catch (cause) {
    return { ref: path, error: readFailed(path, cause) };
  }
  const id = s ? stringField(s, 'id') : undefined;
  if (!s || id === undefined || !isWireId(id))
    return { ref: path, error: readFailed(path, new Error('not an OpenCode session file (no id)')) };
  if (stringField(s, 'parentID') !== undefined) return undefined;
  const head: SessionHead = { agent, id, path, files: [path], size };
  const cwd = stringField(s, 'directory');
  if (cwd !== undefined) head.cwd = cwd;
  const title = stringField(s, 'title');
  if (title !== undefined) head.title = title;
  const time = isObject(s.time) ? s.time : {};
  if (typeof time.created === 'number' && time.created >= 0) head.startedAt = Math.floor(time.created);
  const updated =
    typeof time.updated === 'number' && time.updated >= 0 ? Math.floor(time.updated) : undefined;
  head.lastActivityAt = updated ?? Math.floor(mtime);
  return head;
}
