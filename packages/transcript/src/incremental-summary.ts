// A growing transcript's summary, kept by taking each push's new and changed events instead of
// folding every event again. Gives what foldTranscript gives for the same transcript.
import type { TranscriptDelta } from './incremental.js';
import type {
  SessionSummaryWithPrompts,
  Transcript,
  TranscriptEvent,
  TranscriptEventOf,
  Usage,
} from './model.js';
import { foldTranscript, isPrompt } from './summary.js';
import { SummaryTally } from './tally.js';

export class SummaryFold {
  private main: string | undefined;
  private first: number | undefined;
  private last: number | undefined;
  private turns = 0;
  private failedTools = 0;
  private compactions = 0;
  private readonly prompts: string[] = [];
  /** Every request, with the usage it was counted with; main-lane ones in order for the context shape. */
  private readonly counted = new Map<TranscriptEventOf<'request'>, Usage | undefined>();
  private readonly mainRequests: TranscriptEventOf<'request'>[] = [];
  /** The main lane's input tokens per request with usage, in order: the context shape before it is
   * downsampled. Kept as requests come; made again only when one gains or loses its usage. */
  private shapeValues: number[] = [];
  private shapeAt = new Map<TranscriptEventOf<'request'>, number>();
  private shapeStale = false;
  private readonly totals = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  /** Requests counted and let go of (see forget). */
  private forgottenRequests = 0;
  /** How many of the shape's first values are those of requests let go of. */
  private frozenShape = 0;
  /** The fold had to be taken whole: a change it does not follow event by event. */
  private whole = true;
  /** Times the fold was taken again from the transcript's whole event list (the first push included):
   * a reader that lets go of events cannot allow one after its first push. */
  refolds = 0;

  /** Takes what a push did to `t`. */
  update(t: Transcript, delta: TranscriptDelta): void {
    const main = t.agents.find((a) => a.parentId === undefined)?.id;
    // A prompt or a tool result read differently after the fact, or another main lane: fold again.
    // A message found to be a prompt after the last one counted is one more; any other change to a
    // message or a result is folded again.
    const latePrompts = delta.revised.filter(
      (e) => isPrompt(e, main) && !this.counted.has(e as never) && e.seq > (this.lastPromptSeq ?? -1),
    );
    const refold =
      delta.rewritten ||
      main !== this.main ||
      delta.revised.some(
        (e) => (e.kind === 'user' || e.kind === 'tool_result') && !latePrompts.includes(e),
      ) ||
      latePrompts.some((p) => delta.added.some((e) => isPrompt(e, main) && e.seq < p.seq)) ||
      delta.added.some((e) => e.kind === 'user' && e.agentId === main && e.seq < (this.lastPromptSeq ?? -1));
    if (refold) {
      this.refolds++;
      this.reset(main);
      this.add(t.events);
      return;
    }
    this.add([...latePrompts, ...delta.added].sort((a, b) => a.seq - b.seq));
    for (const e of delta.revised) if (e.kind === 'request') this.recount(e);
  }

  summary(t: Transcript): SessionSummaryWithPrompts {
    if (this.whole) return foldTranscript(t, { prompts: true });
    const tally = new SummaryTally();
    tally.time(this.first);
    tally.time(this.last);
    tally.turns = this.turns;
    tally.failedTools = this.failedTools;
    tally.compactions = this.compactions;
    tally.request(this.totals, false);
    tally.requests = this.counted.size + this.forgottenRequests;
    tally.useShape(this.shape());
    const summary: SessionSummaryWithPrompts = tally.summary(t.capabilities, t.agents.length - 1);
    summary.prompts = [...this.prompts];
    return summary;
  }

  private lastPromptSeq: number | undefined;

  private reset(main: string | undefined): void {
    this.main = main;
    this.first = this.last = undefined;
    this.turns = this.failedTools = this.compactions = 0;
    this.prompts.length = 0;
    this.counted.clear();
    this.mainRequests.length = 0;
    this.shapeValues = [];
    this.shapeAt.clear();
    this.shapeStale = false;
    this.forgottenRequests = 0;
    this.frozenShape = 0;
    this.totals.inputTokens = this.totals.outputTokens = 0;
    this.totals.cacheReadTokens = this.totals.cacheWriteTokens = 0;
    this.lastPromptSeq = undefined;
    this.whole = false;
  }

  private add(events: readonly TranscriptEvent[]): void {
    for (const e of events) {
      if (e.timestamp !== undefined) {
        if (this.first === undefined || e.timestamp < this.first) this.first = e.timestamp;
        if (this.last === undefined || e.timestamp > this.last) this.last = e.timestamp;
      }
      if (isPrompt(e, this.main)) {
        this.turns++;
        this.prompts.push(e.payload.text);
        this.lastPromptSeq = e.seq;
      } else if (e.kind === 'tool_result' && e.payload.isError) this.failedTools++;
      else if (e.kind === 'compaction') this.compactions++;
      else if (e.kind === 'request') {
        const u = e.payload.usage;
        this.counted.set(e, u && { ...u });
        if (u) this.addUsage(u, 1);
        if (e.agentId === this.main) {
          this.mainRequests.push(e);
          if (u && !this.shapeStale) {
            this.shapeAt.set(e, this.shapeValues.length);
            this.shapeValues.push(u.inputTokens);
          }
        }
      }
    }
  }

  /**
   * Lets go of requests no later record will change, the earliest first: their counts stay, the
   * references go. A fold of a session read a part at a time keeps only those a later part may
   * still fill in.
   */
  forget(events: readonly TranscriptEvent[]): void {
    if (this.shapeStale) this.shape();
    let forgotten = false;
    for (const e of events) {
      if (e.kind !== 'request' || !this.counted.has(e)) continue;
      this.counted.delete(e);
      this.forgottenRequests++;
      forgotten = true;
      const at = this.shapeAt.get(e);
      if (at === undefined) continue;
      this.shapeAt.delete(e);
      // The main lane's requests are forgotten in order: their values are the shape's first ones.
      this.frozenShape = Math.max(this.frozenShape, at + 1);
    }
    if (!forgotten) return;
    const kept = this.mainRequests.filter((r) => this.counted.has(r));
    this.mainRequests.length = 0;
    for (const r of kept) this.mainRequests.push(r);
  }

  /** Counts a request's usage as it is now, in place of what it was counted with. */
  private recount(e: TranscriptEventOf<'request'>): void {
    if (!this.counted.has(e)) return;
    const before = this.counted.get(e);
    const now = e.payload.usage;
    if (before) this.addUsage(before, -1);
    if (now) this.addUsage(now, 1);
    this.counted.set(e, now && { ...now });
    const at = this.shapeAt.get(e);
    if (at !== undefined && now) this.shapeValues[at] = now.inputTokens;
    else if (e.agentId === this.main && (at !== undefined || now)) this.shapeStale = true;
  }

  private shape(): readonly number[] {
    if (this.shapeStale) {
      this.shapeValues = this.shapeValues.slice(0, this.frozenShape);
      this.shapeAt.clear();
      for (const r of this.mainRequests) {
        const u = r.payload.usage;
        if (!u) continue;
        this.shapeAt.set(r, this.shapeValues.length);
        this.shapeValues.push(u.inputTokens);
      }
      this.shapeStale = false;
    }
    return this.shapeValues;
  }

  private addUsage(u: Usage, sign: number): void {
    this.totals.inputTokens += sign * u.inputTokens;
    this.totals.outputTokens += sign * u.outputTokens;
    this.totals.cacheReadTokens += sign * (u.cacheReadTokens ?? 0);
    this.totals.cacheWriteTokens += sign * (u.cacheWriteTokens ?? 0);
  }
}
