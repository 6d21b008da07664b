// Which model a session ran and how long it was worked on. The model is the main lane's: a session
// whose main agent ran one model and whose subagents made more requests on a cheaper one is still
// the first model's session, with the others shown as a mix. Time is told twice: wall-clock (first
// to last record) and active (the time spent in turns), because a session resumed days later has a
// wall-clock span that says nothing about the work in it.
import type { Transcript, TranscriptEvent } from './model.js';
import { isPrompt } from './summary.js';

/** One model's requests and tokens across a session; `inputTokens` includes cache reads and writes. */
export interface ModelShare {
  model: string;
  requests: number;
  /** Of `requests`, those made on the main lane. */
  mainRequests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
}

export interface ModelAndTime {
  /** The model of the main lane (the one it made the most requests with); when the main lane made
   * none, the model of the most requests on any lane. Absent when no request names a model. */
  model?: string;
  /** Every model, `model` first, then by requests. */
  models: ModelShare[];
  /** Reasoning tokens over every lane; absent when no request records them. */
  reasoningTokens?: number;
  /** Time spent in turns: from each prompt to the last record of its turn. Absent without a timed prompt. */
  activeMs?: number;
  /** First record to last. */
  wallMs?: number;
}

// Records that mark no work of a turn: bookkeeping and injected context, written when the person
// comes back (a resumed session's notes, the context an agent adds before the next prompt), would
// otherwise stretch the turn before them over the whole pause.
const marksNoWork = (e: TranscriptEvent): boolean =>
  e.kind === 'system' || e.kind === 'unknown' || (e.kind === 'user' && e.payload.synthetic === true);

export function modelAndTime(t: Transcript): ModelAndTime {
  const main = t.agents.find((a) => a.parentId === undefined)?.id;
  const byModel = new Map<string, ModelShare>();
  let reasoning: number | undefined;
  let first: number | undefined;
  let last: number | undefined;
  const clock = new TurnClock(main);
  for (const e of t.events) {
    const at = e.timestamp;
    if (at !== undefined) {
      if (first === undefined || at < first) first = at;
      if (last === undefined || at > last) last = at;
    }
    clock.add(e);
    if (e.kind !== 'request') continue;
    const { model, usage } = e.payload;
    if (usage?.reasoningTokens !== undefined) reasoning = (reasoning ?? 0) + usage.reasoningTokens;
    if (model === undefined) continue;
    let share = byModel.get(model);
    if (!share) {
      share = {
        model,
        requests: 0,
        mainRequests: 0,
        inputTokens: 0,
        outputTokens: 0,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
      };
      byModel.set(model, share);
    }
    share.requests++;
    if (e.agentId === main) share.mainRequests++;
    if (!usage) continue;
    share.inputTokens += usage.inputTokens;
    share.outputTokens += usage.outputTokens;
    share.cacheReadTokens += usage.cacheReadTokens ?? 0;
    share.cacheWriteTokens += usage.cacheWriteTokens ?? 0;
    share.reasoningTokens += usage.reasoningTokens ?? 0;
  }
  const out: ModelAndTime = { models: rankModels([...byModel.values()]) };
  if (out.models[0]) out.model = out.models[0].model;
  if (reasoning !== undefined) out.reasoningTokens = reasoning;
  if (first !== undefined && last !== undefined) out.wallMs = last - first;
  const active = clock.activeMs;
  if (active !== undefined) out.activeMs = active;
  return out;
}

/**
 * The main lane's model first, then the rest by requests. A model that used no tokens (a
 * placeholder some agents write for replies they made up themselves) leads only when no other can.
 */
function rankModels(models: ModelShare[]): ModelShare[] {
  const used = (m: ModelShare) => (m.inputTokens + m.outputTokens > 0 ? 1 : 0);
  return models.sort(
    (a, b) =>
      used(b) - used(a) ||
      b.mainRequests - a.mainRequests ||
      b.requests - a.requests ||
      a.model.localeCompare(b.model),
  );
}

/**
 * Active time, kept up to date as records come: the sum over turns of the time from the prompt to
 * the last working record before the next prompt, on every lane. Lanes are kept one after another
 * (a subagent's records come after the main lane's), so each record is placed in its turn by time,
 * not by order. Taking in a record again (one changed in place) changes nothing.
 */
export class TurnClock {
  /** Prompt times, ascending, and the last working record's time of each turn. */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  private readonly prompts = new WeakSet<TranscriptEvent>();

  constructor(private readonly mainLane: string | undefined) {}

  add(e: TranscriptEvent): void {
    const at = e.timestamp;
    if (at === undefined) return;
    if (isPrompt(e, this.mainLane)) {
      if (this.prompts.has(e)) return;
      this.prompts.add(e);
      const i = this.starts.length === 0 || at < this.starts[0]! ? 0 : lastAtOrBefore(this.starts, at) + 1;
      this.starts.splice(i, 0, at);
      // A prompt that arrives after records later than it takes over the part of its predecessor's
      // turn that follows it; the records themselves are not kept to split that turn exactly.
      const before = i > 0 ? this.ends[i - 1]! : at;
      this.ends.splice(i, 0, Math.max(at, before));
      if (i > 0 && before > at) this.ends[i - 1] = at;
      return;
    }
    if (this.starts.length === 0 || at < this.starts[0]! || marksNoWork(e)) return;
    const turn = lastAtOrBefore(this.starts, at);
    if (at > this.ends[turn]!) this.ends[turn] = at;
  }

  /** Undefined until a prompt with a time was seen. */
  get activeMs(): number | undefined {
    if (this.starts.length === 0) return undefined;
    let total = 0;
    for (const [i, start] of this.starts.entries()) total += this.ends[i]! - start;
    return total;
  }
}

/** Index of the last value in ascending `sorted` that is at most `at` (sorted[0] <= at). */
function lastAtOrBefore(sorted: readonly number[], at: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (sorted[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}
