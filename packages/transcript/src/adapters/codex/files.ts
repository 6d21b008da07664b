// Finding rollouts under a Codex home, and the files of one session.
//
// Rollouts live in `sessions/YYYY/MM/DD/` and, once archived, flat in `archived_sessions/`.
// Codex may compress an idle rollout to `.jsonl.zst`; when both forms exist the plain one is the
// live one. A rollout in `sessions/` wins over a same-named one in `archived_sessions/`.
import type { AdapterContext, ListFailure } from '../../adapter.js';
import { err, ok, type Result, readFailed, type SessionReadError, sessionNotFound } from '../../result.js';
import { ROLLOUT_NAME } from './detect.js';

const errorCode = (cause: unknown): unknown =>
  typeof cause === 'object' && cause !== null && 'code' in cause ? cause.code : undefined;

const plainName = (name: string): string => (name.endsWith('.zst') ? name.slice(0, -4) : name);

interface Folder {
  rollouts: string[];
  folders: string[];
  /** Rollout-named links that point nowhere. */
  broken: string[];
}

/** A folder's rollout files (plain form preferred) and subfolders, in name order. */
async function readFolder(ctx: AdapterContext, dir: string): Promise<Folder | ListFailure | undefined> {
  let entries: Awaited<ReturnType<AdapterContext['platform']['fs']['readdir']>>;
  try {
    entries = await ctx.platform.fs.readdir(dir);
  } catch (cause) {
    if (errorCode(cause) === 'ENOENT') return undefined;
    return { ref: dir, error: readFailed(dir, cause) };
  }
  const names = new Set(entries.filter((e) => e.isFile).map((e) => e.name));
  const rollouts = [...names]
    .filter((n) => ROLLOUT_NAME.test(n) && !(n.endsWith('.zst') && names.has(plainName(n))))
    .sort();
  const folders = entries
    .filter((e) => e.isDirectory)
    .map((e) => e.name)
    .sort();
  const broken = entries
    .filter((e) => e.isSymbolicLink && !e.isFile && !e.isDirectory && ROLLOUT_NAME.test(e.name))
    .map((e) => e.name)
    .sort();
  return { rollouts, folders, broken };
}

/** Folders deeper than this under `sessions/` are not walked: a guard for link chains without an end. */
const MAX_DEPTH = 12;

/** Every rollout under a Codex home, or a failure for a folder that could not be read. */
export async function* rolloutPaths(ctx: AdapterContext, home: string): AsyncGenerator<string | ListFailure> {
  const { join } = ctx.platform;
  const live = new Set<string>();
  // Linked folders are followed, wherever they point, each real folder once: a link back up the
  // tree would otherwise be walked forever.
  const seenReal = new Set<string>();
  const realOf = async (dir: string): Promise<string | undefined> => {
    try {
      return ctx.platform.fs.realpath ? await ctx.platform.fs.realpath(dir) : undefined;
    } catch {
      return undefined;
    }
  };
  const root = join(home, 'sessions');
  const rootReal = await realOf(root);
  if (rootReal !== undefined) seenReal.add(rootReal);
  const stack: { dir: string; depth: number }[] = [{ dir: root, depth: 0 }];
  while (stack.length > 0) {
    ctx.signal?.throwIfAborted();
    const { dir, depth } = stack.pop()!;
    const folder = await readFolder(ctx, dir);
    if (folder === undefined) continue;
    if ('ref' in folder) {
      yield folder;
      continue;
    }
    for (const name of folder.rollouts) {
      live.add(plainName(name));
      yield join(dir, name);
    }
    for (const name of folder.broken) yield brokenLink(join(dir, name));
    if (depth >= MAX_DEPTH) continue;
    const next: { dir: string; depth: number }[] = [];
    for (const sub of folder.folders) {
      const path = join(dir, sub);
      const real = await realOf(path);
      if (real !== undefined) {
        if (seenReal.has(real)) continue;
        seenReal.add(real);
      }
      next.push({ dir: path, depth: depth + 1 });
    }
    // Reversed onto the stack so that folders come out in name order.
    stack.push(...next.reverse());
  }
  const archived = join(home, 'archived_sessions');
  const folder = await readFolder(ctx, archived);
  if (folder === undefined) return;
  if ('ref' in folder) {
    yield folder;
    return;
  }
  for (const name of folder.rollouts) if (!live.has(plainName(name))) yield join(archived, name);
  for (const name of folder.broken) yield brokenLink(join(archived, name));
}

const brokenLink = (path: string): ListFailure => ({
  ref: path,
  error: readFailed(path, new Error('a symbolic link to nothing')),
});

/** A rollout is the whole session: its only file. */
export async function rolloutFiles(
  ctx: AdapterContext,
  path: string,
): Promise<Result<string[], SessionReadError>> {
  try {
    const stat = await ctx.platform.fs.stat(path);
    if (!stat.isFile) return err(readFailed(path, new Error('not a file')));
  } catch (cause) {
    return err(errorCode(cause) === 'ENOENT' ? sessionNotFound(path) : readFailed(path, cause));
  }
  return ok([path]);
}
