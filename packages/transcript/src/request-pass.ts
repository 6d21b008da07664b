// A session's requests for the usage reports: by the agent's own request pass where it has one
// (no events built, only the few members a request needs read), else from the loaded transcript.
// Both give the same list, in the same order.
import { claudeRequests } from './adapters/claude-code/requests.js';
import { codexRequests } from './adapters/codex/requests.js';
import { copilotRequests } from './adapters/copilot-cli/requests.js';
import { geminiRequests } from './adapters/gemini-cli/requests.js';
import { piRequests } from './adapters/pi/requests.js';
import { qwenRequests } from './adapters/qwen-code/requests.js';
import { loadTranscript } from './load.js';
import type { SessionTarget, Transcript, Usage } from './model.js';
import { findSession, readSessionFiles } from './open.js';
import type { SessionPlatform } from './platform.js';
import { type LoadTranscriptError, ok, type Result } from './result.js';
import { type SessionFileStamp, sessionStamps } from './stamps.js';

/** Each request with a time, a model and tokens, the session's folder and title, and the files'
 * stamps taken before they were read (for a caller that keeps the requests). */
export interface SessionRequests {
  requests: { at: number; model: string; usage: Usage }[];
  cwd?: string;
  title?: string;
  stamps: SessionFileStamp[];
}

/** The agents whose request pass gives loadTranscript's requests without the events. */
const PASSES: Readonly<Record<string, typeof claudeRequests>> = {
  'claude-code': claudeRequests,
  codex: codexRequests,
  'copilot-cli': copilotRequests,
  'gemini-cli': geminiRequests,
  pi: piRequests,
  'qwen-code': qwenRequests,
};

/** The requests of a loaded transcript: what the pass must equal. */
export function transcriptRequests(t: Transcript): Omit<SessionRequests, 'stamps'> {
  const requests: SessionRequests['requests'] = [];
  for (const e of t.events) {
    if (e.kind !== 'request' || e.timestamp === undefined) continue;
    const { model, usage } = e.payload;
    if (model !== undefined && usage !== undefined) requests.push({ at: e.timestamp, model, usage });
  }
  const { cwd, title } = t.session;
  return { requests, ...(cwd !== undefined ? { cwd } : {}), ...(title !== undefined ? { title } : {}) };
}

/**
 * The requests of the session with loadTranscript, whatever its agent. `viaPass: false` reads
 * every session that way, for a caller that compares the two.
 */
export async function sessionRequestsRead(
  platform: SessionPlatform,
  target: SessionTarget,
  { viaPass = true }: { viaPass?: boolean } = {},
): Promise<Result<SessionRequests, LoadTranscriptError>> {
  // Stamped before the read, so that a file that grows meanwhile is read again next time.
  const stamps = (await sessionStamps(platform, target)) ?? [];
  if (viaPass) {
    const fast = await passRequests(platform, target);
    if (fast !== undefined) return ok({ ...fast, stamps });
  }
  const loaded = await loadTranscript(platform, target);
  if (!loaded.ok) return loaded;
  return ok({ ...transcriptRequests(loaded.value), stamps });
}

/**
 * The agent's request pass over the session's files; undefined when the agent has none, or when
 * the files or the pass leave the answer to the full load (which also says what failed).
 */
export async function passRequests(
  platform: SessionPlatform,
  target: SessionTarget,
): Promise<Omit<SessionRequests, 'stamps'> | undefined> {
  if (target.agent === undefined || PASSES[target.agent] === undefined) return undefined;
  const found = await findSession(platform, target);
  if (!found.ok) return undefined;
  const pass = PASSES[found.value.adapter.id];
  if (pass === undefined) return undefined;
  const files = await readSessionFiles(platform, found.value.paths);
  if (!files.ok) return undefined;
  const read = pass(files.value);
  return read === 'unsure' ? undefined : read;
}
