// What several adapters do alike: a session kept in one file, the times its events span, and the
// capabilities its events show (a count whose records are absent stays absent, never 0).
import type { AdapterContext } from '../adapter.js';
import { CAPABILITIES, type Capability, type TranscriptEvent, type TranscriptSession } from '../model.js';
import { err, ok, type Result, readFailed, type SessionReadError, sessionNotFound } from '../result.js';
import { isMissing } from './gemini-cli/session-dirs.js';

/** A session that is one file: that file, when it is one. */
export async function oneFileSession(
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

/** Sets the session's start and end from the earliest and latest times its events carry. */
export function spanEvents(session: TranscriptSession, events: readonly TranscriptEvent[]): void {
  let first: number | undefined;
  let last: number | undefined;
  for (const e of events) {
    if (e.timestamp === undefined) continue;
    if (first === undefined || e.timestamp < first) first = e.timestamp;
    if (last === undefined || e.timestamp > last) last = e.timestamp;
  }
  if (first !== undefined) session.startedAt = first;
  if (last !== undefined) session.endedAt = last;
}

/** The capabilities the events show (requests, usage, durations, reasoning, compaction), with
 * `also`, in the contract's order. */
export function shownCapabilities(
  events: readonly TranscriptEvent[],
  also: Iterable<Capability> = [],
): Capability[] {
  const seen = new Set<Capability>(also);
  for (const e of events) {
    if (e.kind === 'request') {
      seen.add('requests');
      if (e.payload.usage) seen.add('usage');
    } else if (e.kind === 'reasoning') seen.add('reasoning');
    else if (e.kind === 'compaction') seen.add('compaction');
    if (e.timestamp !== undefined) seen.add('durations');
  }
  return CAPABILITIES.filter((c) => seen.has(c));
}
