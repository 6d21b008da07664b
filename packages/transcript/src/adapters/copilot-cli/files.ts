// The files of one Copilot CLI session: its one events file. `workspace.yaml` beside it is read
// by the listing for the title; it is rewritten in place, so it is not one of the session's
// append-only files.
import type { AdapterContext } from '../../adapter.js';
import { err, ok, type Result, readFailed, type SessionReadError, sessionNotFound } from '../../result.js';
import { isMissing } from '../gemini-cli/session-dirs.js';

export async function copilotSessionFiles(
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
