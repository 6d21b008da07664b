// What several adapters do alike: a session kept in one file, read for the listing; the times its
// events span; and the capabilities its events show (a count whose records are absent stays
// absent, never 0).
import { type ActivityFile, sessionLastActivity } from '../activity.js';
import type { AdapterContext, ListFailure, SessionAdapter } from '../adapter.js';
import { CAPABILITIES, type Capability, type TranscriptEvent, type TranscriptSession } from '../model.js';
import {
  err,
  ok,
  type Result,
  readFailed,
  type SessionReadError,
  sessionNotFound,
  type UnknownFormatGeneration,
} from '../result.js';
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

/** A listed session file as read for its head: its size, first bytes and what they say. */
export interface ListedFile<T> {
  readonly file: ActivityFile & { readonly head: Uint8Array };
  readonly info: T;
}

/**
 * Reads a session file's first bytes for the listing and parses them with `readHead` (told whether
 * the bytes are the whole file); a file that cannot be read or parsed is a listing failure.
 */
export async function readListedFile<T>(
  ctx: AdapterContext,
  path: string,
  readHead: (path: string, head: Uint8Array, complete: boolean) => Result<T, UnknownFormatGeneration>,
): Promise<Result<ListedFile<T>, ListFailure>> {
  let file: ActivityFile & { head: Uint8Array };
  try {
    const stat = await ctx.platform.fs.stat(path);
    file = { path, size: stat.size, mtimeMs: stat.mtimeMs, head: await ctx.readHead(path) };
  } catch (cause) {
    return err({ ref: path, error: readFailed(path, cause) });
  }
  const info = readHead(path, file.head, file.size <= file.head.length);
  return info.ok ? ok({ file, info: info.value }) : err({ ref: path, error: info.error });
}

/** The session's last activity over its files, or a listing failure naming `path`. */
export async function listedLastActivity(
  ctx: AdapterContext,
  lastRecordAt: SessionAdapter['lastRecordAt'],
  path: string,
  files: readonly ActivityFile[],
): Promise<Result<number | undefined, ListFailure>> {
  try {
    return ok(await sessionLastActivity(ctx, { lastRecordAt }, files));
  } catch (cause) {
    return err({ ref: path, error: readFailed(path, cause) });
  }
}
