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

/** A folder's rollout files (plain form preferred) and subfolders, in name order. */
async function readFolder(
  ctx: AdapterContext,
  dir: string,
): Promise<{ rollouts: string[]; folders: string[] } | ListFailure | undefined> {
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
  return { rollouts, folders };
}

/** Every rollout under a Codex home, or a failure for a folder that could not be read. */
export async function* rolloutPaths(ctx: AdapterContext, home: string): AsyncGenerator<string | ListFailure> {
  const { join } = ctx.platform;
  const live = new Set<string>();
  const stack = [join(home, 'sessions')];
  while (stack.length > 0) {
    ctx.signal?.throwIfAborted();
    const dir = stack.pop()!;
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
    // Reversed onto the stack so that folders come out in name order.
    for (const sub of [...folder.folders].reverse()) stack.push(join(dir, sub));
  }
  const archived = join(home, 'archived_sessions');
  const folder = await readFolder(ctx, archived);
  if (folder === undefined) return;
  if ('ref' in folder) {
    yield folder;
    return;
  }
  for (const name of folder.rollouts) if (!live.has(plainName(name))) yield join(archived, name);
}

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
