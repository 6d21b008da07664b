// The error a driven turn ended on, read back from the agent's own session file: for an agent whose
// ACP adapter ends a failed turn as if it had answered, with nothing said (pi through pi-acp drops
// the provider's "429 You exceeded your current quota…"), while the agent's store keeps the words.
//
// A mark taken as the turn starts says where the file ended then; afterwards only the records past
// it are read and translated (behind the file's header, which the translation needs first), so an
// error of an earlier turn is never taken for this one's, and a long session is not read again.
// Read-only, like every reader. Only stores that are one append-only JSONL file opened by a header
// line can be read so; pi's is.
import { homedir } from 'node:os';
import { findAdapter } from './catalog.js';
import { listSessions } from './list.js';
import type { TranscriptEvent } from './model.js';
import type { SessionPlatform } from './platform.js';
import { nodePlatform } from './platform-node.js';

/** Agents whose session is one append-only JSONL file with a header line first. */
const HEADED_APPEND_ONLY: ReadonlySet<string> = new Set(['pi']);

/** Reads, once the turn has ended, the error its records end with; undefined when they end otherwise. */
export type TurnErrorCheck = () => Promise<string | undefined>;

/** A header is a short line; a first line longer than this is not read as one. */
const MAX_HEADER_BYTES = 64 * 1024;

/**
 * Marks where the session's file ends now (before a turn), and gives the check to run once the turn
 * has ended. A session whose file does not exist yet (pi writes it at its first answer) is marked at
 * its start. Throws only on an agent whose store cannot be read so.
 */
export async function markTurnErrors(
  platform: SessionPlatform,
  agent: string,
  sessionId: string,
): Promise<TurnErrorCheck> {
  const adapter = findAdapter(agent);
  if (!adapter || !HEADED_APPEND_ONLY.has(adapter.id)) {
    throw new Error(`the sessions of ${agent} cannot be read back a turn at a time`);
  }
  let path = await sessionPath(platform, adapter.id, sessionId);
  const from = path === undefined ? 0 : await sizeOf(platform, path);
  return async () => {
    path ??= await sessionPath(platform, adapter.id, sessionId);
    if (path === undefined) return undefined;
    const size = await sizeOf(platform, path);
    // Shorter than at the mark: the file was replaced, and nothing in it is known to be this turn's.
    if (size === undefined || from === undefined || size <= from) return undefined;
    const data =
      from === 0 ? await platform.fs.readRange(path, 0, size) : await headedTail(platform, path, from, size);
    if (data === undefined) return undefined;
    const translated = adapter.translate([{ path, data }]);
    return translated.ok ? endingError(translated.value.events) : undefined;
  };
}

/** {@link markTurnErrors} on this machine's files, the agent's homes found from the environment it runs with. */
export function markTurnErrorsOnNode(session: {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly agent: string;
  readonly sessionId: string;
}): Promise<TurnErrorCheck> {
  const platform = nodePlatform({ env: session.env, homeDir: session.env.HOME || homedir() });
  return markTurnErrors(platform, session.agent, session.sessionId);
}

/**
 * The error the records end with: the last of them, apart from the request each answer closes
 * with, is the provider's refusal. The header's own event stops the search, so an empty tail has none.
 */
function endingError(events: readonly TranscriptEvent[]): string | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i]!;
    if (event.kind === 'request') continue;
    return event.kind === 'system' && event.payload.type === 'api_error' ? event.payload.text : undefined;
  }
  return undefined;
}

/** Session files found before, by homes and id: a listing reads every session's head, once is enough. */
const foundPaths = new Map<string, string>();

async function sessionPath(platform: SessionPlatform, agent: string, sessionId: string) {
  const adapter = findAdapter(agent)!;
  const key = [...adapter.homes(platform), sessionId].join('\0');
  const known = foundPaths.get(key);
  if (known !== undefined && (await sizeOf(platform, known)) !== undefined) return known;
  foundPaths.delete(key);
  for await (const entry of listSessions(platform, { agent })) {
    if (!('error' in entry) && entry.id === sessionId) {
      foundPaths.set(key, entry.path);
      return entry.path;
    }
  }
  return undefined;
}

async function sizeOf(platform: SessionPlatform, path: string): Promise<number | undefined> {
  try {
    return (await platform.fs.stat(path)).size;
  } catch {
    return undefined;
  }
}

/** The file's bytes from `from` on, behind its first line (the header), or undefined without one. */
async function headedTail(platform: SessionPlatform, path: string, from: number, size: number) {
  const head = await platform.fs.readRange(path, 0, Math.min(from, MAX_HEADER_BYTES));
  const end = head.indexOf(10);
  if (end === -1) return undefined;
  const tail = await platform.fs.readRange(path, from, size - from);
  const data = new Uint8Array(end + 1 + tail.length);
  data.set(head.subarray(0, end + 1));
  data.set(tail, end + 1);
  return data;
}
