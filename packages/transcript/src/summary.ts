// Session numbers: the fold of a loaded transcript, or an adapter's fast pass giving the same.

import { finishTranscript } from './load.js';
import type {
  SessionSummaryWithPrompts,
  SessionTarget,
  Transcript,
  TranscriptEvent,
  TranscriptEventOf,
} from './model.js';
import { type OpenOptions, openSession } from './open.js';
import type { SessionPlatform } from './platform.js';
import { type LoadTranscriptError, ok, type Result } from './result.js';
import { SummaryTally } from './tally.js';

export interface SessionPromptsOptions {
  /** Keep at most this many prompts (the first ones). */
  readonly max?: number;
  /** Cut each prompt to this many characters. */
  readonly maxChars?: number;
}

export interface SummarizeSessionOptions extends OpenOptions {
  /** Also return the main lane's prompts. */
  readonly prompts?: SessionPromptsOptions | boolean;
}

const mainLane = (t: Transcript): string | undefined => t.agents.find((a) => a.parentId === undefined)?.id;

/** A user event on the main lane that the person typed: one turn. */
export const isPrompt = (
  e: TranscriptEvent,
  mainLaneId: string | undefined,
): e is TranscriptEventOf<'user'> => e.kind === 'user' && e.agentId === mainLaneId && !e.payload.synthetic;

/** The main lane's prompts, in order, by the prompt rule. */
export function sessionPrompts(t: Transcript, options: SessionPromptsOptions = {}): string[] {
  const main = mainLane(t);
  const prompts: string[] = [];
  for (const e of t.events) {
    if (!isPrompt(e, main)) continue;
    if (options.max !== undefined && prompts.length >= options.max) break;
    prompts.push(cutPrompt(e.payload.text, options.maxChars));
  }
  return prompts;
}

export const cutPrompt = (text: string, maxChars: number | undefined): string =>
  maxChars !== undefined && text.length > maxChars ? text.slice(0, maxChars) : text;

/** The summary of a loaded transcript. */
export function foldTranscript(
  t: Transcript,
  options: { prompts?: SessionPromptsOptions | boolean } = {},
): SessionSummaryWithPrompts {
  const main = mainLane(t);
  const tally = new SummaryTally();
  for (const e of t.events) {
    tally.time(e.timestamp);
    if (isPrompt(e, main)) tally.turns++;
    else if (e.kind === 'tool_result' && e.payload.isError) tally.failedTools++;
    else if (e.kind === 'compaction') tally.compactions++;
    else if (e.kind === 'request') tally.request(e.payload.usage, e.agentId === main);
  }
  const summary: SessionSummaryWithPrompts = tally.summary(t.capabilities, t.agents.length - 1);
  if (options.prompts) summary.prompts = sessionPrompts(t, options.prompts === true ? {} : options.prompts);
  return summary;
}

/**
 * The adapter's own summary pass when it has one, else foldTranscript of the loaded
 * transcript: the same numbers either way.
 */
export async function summarizeSession(
  platform: SessionPlatform,
  target: SessionTarget,
  options: SummarizeSessionOptions = {},
): Promise<Result<SessionSummaryWithPrompts, LoadTranscriptError>> {
  const opened = await openSession(platform, target, options);
  if (!opened.ok) return opened;
  const { adapter, files } = opened.value;
  const wantPrompts = options.prompts ? (options.prompts === true ? {} : options.prompts) : undefined;
  if (adapter.summarize) {
    const fast = adapter.summarize(files);
    if (!fast.ok) return fast;
    const summary = fast.value;
    if (!wantPrompts) delete summary.prompts;
    else if (summary.prompts) {
      const cut = summary.prompts.map((p) => cutPrompt(p, wantPrompts.maxChars));
      summary.prompts = wantPrompts.max !== undefined ? cut.slice(0, wantPrompts.max) : cut;
    }
    return ok(summary);
  }
  const translated = adapter.translate(files);
  if (!translated.ok) return translated;
  return ok(
    foldTranscript(finishTranscript(adapter.id, translated.value), { prompts: wantPrompts ?? false }),
  );
}
