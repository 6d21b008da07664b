// The files of one pi session: its one JSONL file (a fork is a session of its own).
import type { AdapterContext } from '../../adapter.js';
import { err, ok, type Result, readFailed, type SessionReadError, sessionNotFound } from '../../result.js';
import { isMissing } from '../gemini-cli/session-dirs.js';

export async function piSessionFiles(
  ctx: AdapterContext,
  path: string,
): Promise<Result<string[], SessionReadError>> {
  try {
    const stat = await ctx.platform.fs.stat(path);
    if (!stat.isFile) return err(readFailed(path, new Error('not a file')));
  } catch (cause) {
    return err(isMissing(cause) ? sessionNotFound(path) : readFailed(path, cause));
  }
  return ok([path]);
}
