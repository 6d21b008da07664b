// The running counts behind a SessionSummary. foldTranscript and the adapters' fast passes all
// count through this, so the rules for each number live in one place.
import type { Capability, SessionSummary, Usage } from './model.js';
import { downsampleMax } from './shape.js';

export class SummaryTally {
  turns = 0;
  failedTools = 0;
  requests = 0;
  compactions = 0;
  private inputTokens = 0;
  private outputTokens = 0;
  private cacheReadTokens = 0;
  private cacheWriteTokens = 0;
  private first: number | undefined;
  private last: number | undefined;
  /** Main-lane input tokens per request, in order. */
  private shape: number[] = [];

  /** A record's time, for the session's duration. */
  time(at: number | undefined): void {
    if (at === undefined) return;
    if (this.first === undefined || at < this.first) this.first = at;
    if (this.last === undefined || at > this.last) this.last = at;
  }

  request(usage: Usage | undefined, onMainLane: boolean): void {
    this.requests++;
    if (!usage) return;
    this.inputTokens += usage.inputTokens;
    this.outputTokens += usage.outputTokens;
    this.cacheReadTokens += usage.cacheReadTokens ?? 0;
    this.cacheWriteTokens += usage.cacheWriteTokens ?? 0;
    if (onMainLane) this.shape.push(usage.inputTokens);
  }

  /** Takes the main lane's input tokens per request as kept elsewhere, in place of those counted here. */
  useShape(values: readonly number[]): void {
    this.shape = values as number[];
  }

  /** The numbers; each one whose capability is missing is absent, never 0. */
  summary(capabilities: readonly Capability[], subagents: number): SessionSummary {
    const has = (c: Capability) => capabilities.includes(c);
    const s: SessionSummary = { failedTools: this.failedTools, turns: this.turns };
    if (has('requests')) s.requests = this.requests;
    if (has('usage')) {
      s.inputTokens = this.inputTokens;
      s.outputTokens = this.outputTokens;
      s.cacheReadTokens = this.cacheReadTokens;
      s.cacheWriteTokens = this.cacheWriteTokens;
      s.contextShape = downsampleMax(this.shape);
    }
    if (has('compaction')) s.compactions = this.compactions;
    if (has('subagents')) s.subagents = subagents;
    if (has('durations') && this.first !== undefined && this.last !== undefined)
      s.durationMs = this.last - this.first;
    return s;
  }
}
