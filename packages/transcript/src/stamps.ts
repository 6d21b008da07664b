// What a session's files were when a read of them began, so that a caller keeping what the read
// gave (a cache of summaries) can tell later whether the files are still the ones it read.
import { splitStorePath, storeFiles } from './adapters/opencode/paths.js';
import type { SessionTarget } from './model.js';
import { findSession } from './open.js';
import type { SessionPlatform } from './platform.js';

/**
 * One of a session's files by its size and modification time; a file that cannot be stat'ed has
 * none. (The server's FileStamp, which adds the inode, is a stamp of its own.)
 */
export interface SessionFileStamp {
  path: string;
  size: number;
  mtimeMs: number;
}

/**
 * The stamps of the session's files, or undefined when its files cannot be found (a read then
 * says why). Taken before the files are read, a change during the read shows at the next look.
 */
export async function sessionStamps(
  platform: SessionPlatform,
  target: SessionTarget,
): Promise<SessionFileStamp[] | undefined> {
  const found = await findSession(platform, target);
  return found.ok ? fileStamps(platform, found.value.paths) : undefined;
}

/** The stamps of those of `paths` that can be stat'ed, in their order. */
export async function fileStamps(
  platform: SessionPlatform,
  paths: readonly string[],
): Promise<SessionFileStamp[]> {
  // A session in a SQLite store changes when the store's files do.
  paths = paths.flatMap((path) => {
    const store = splitStorePath(path);
    return store ? storeFiles(store.db) : [path];
  });
  const stats = await Promise.all(paths.map((path) => platform.fs.stat(path).catch(() => undefined)));
  return paths.flatMap((path, i) => {
    const s = stats[i];
    return s ? [{ path, size: s.size, mtimeMs: s.mtimeMs }] : [];
  });
}
