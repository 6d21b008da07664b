// The files of one session: the main file, then its subagents' files.
import type { AdapterContext } from '../../adapter.js';
import { err, ok, type Result, readFailed, type SessionReadError, sessionNotFound } from '../../result.js';
import { readHeadInfo } from './head.js';
import { dirName } from './paths.js';
import { isMissing, subagentFiles } from './session-dirs.js';

export async function geminiSessionFiles(
  ctx: AdapterContext,
  path: string,
): Promise<Result<string[], SessionReadError>> {
  let size: number;
  let head: Uint8Array;
  try {
    const stat = await ctx.platform.fs.stat(path);
    if (!stat.isFile) return err(readFailed(path, new Error('not a file')));
    size = stat.size;
    head = await ctx.readHead(path);
  } catch (cause) {
    return err(isMissing(cause) ? sessionNotFound(path) : readFailed(path, cause));
  }
  const info = readHeadInfo(path, head, size <= head.length);
  if (!info.ok) return info;
  const sessionId = info.value.meta.sessionId;
  if (sessionId === undefined || sessionId === '') return ok([path]);
  return ok([path, ...(await subagentFiles(ctx, dirName(path), sessionId))]);
}
