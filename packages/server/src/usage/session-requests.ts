// A session's requests as the usage reports count them, taken from the transcript an index read
// made anyway: the index keeps them, so that a report never reads the session again.
import type { Transcript, TranscriptDelta, TranscriptEvent } from '@cairn/transcript';
import type { UsageRequest } from '../indexing/index-db.js';

/**
 * Every request with a time, a model and tokens, in the transcript's order: what the library's
 * `requests` task hands the CLI. Requests without input or output tokens count in no report and
 * are left out.
 */
export function sessionRequests(t: Transcript): UsageRequest[] {
  const out: UsageRequest[] = [];
  for (const e of t.events) {
    const r = usageRequest(e);
    if (r) out.push(r);
  }
  return out;
}

/** The event as a request the reports count, or undefined. */
export function usageRequest(e: TranscriptEvent): UsageRequest | undefined {
  if (e.kind !== 'request' || e.timestamp === undefined) return undefined;
  const { model, usage } = e.payload;
  if (model === undefined || usage === undefined) return undefined;
  if (usage.inputTokens + usage.outputTokens === 0) return undefined;
  return { at: e.timestamp, model, usage };
}

/**
 * A growing transcript's requests, kept from read to read: a read that goes on from the last one
 * costs what it changed (the events from its `from` on, and those it revised in place), not a walk
 * of every event, which at every append of a long session would cost what the session holds.
 */
export class RequestsTally {
  private list: UsageRequest[] = [];
  /** Each request's event: its index among the transcript's events, and its id. */
  private eventAt: number[] = [];
  private eventIds: string[] = [];
  /** The index among the transcript's events of each request's event, by event id. */
  private readonly byId = new Map<string, number>();

  /** Takes a read: `delta` when it went on from the last one, undefined when it read from the start. */
  update(t: Transcript, delta: TranscriptDelta | undefined): void {
    const from = delta === undefined || delta.rewritten ? 0 : delta.from;
    // The requests of events from `from` on are taken again below; those before it kept their place.
    this.cut(lowerBound(this.eventAt, from));
    for (const e of from > 0 ? delta!.updated : []) this.revise(t.events, e, from);
    for (let i = from; i < t.events.length; i++) {
      const e = t.events[i]!;
      const r = usageRequest(e);
      if (!r) continue;
      this.byId.set(e.id, i);
      this.list.push(r);
      this.eventAt.push(i);
      this.eventIds.push(e.id);
    }
  }

  /** The requests, in the transcript's order (what `sessionRequests` of the same transcript gives). */
  requests(): UsageRequest[] {
    return this.list;
  }

  /** An event before `from` changed in place: it may count now, no longer, or otherwise. */
  private revise(events: readonly TranscriptEvent[], e: TranscriptEvent, from: number): void {
    const r = usageRequest(e);
    let index = this.byId.get(e.id);
    if (index === undefined) {
      if (!r) return;
      index = placeOf(events, e, from);
      if (index === undefined || index >= from) return;
    }
    const at = lowerBound(this.eventAt, index);
    const held = this.eventIds[at] === e.id;
    if (held && r) this.list[at] = r;
    else if (held) {
      this.list.splice(at, 1);
      this.eventAt.splice(at, 1);
      this.eventIds.splice(at, 1);
      this.byId.delete(e.id);
    } else if (r) {
      this.list.splice(at, 0, r);
      this.eventAt.splice(at, 0, index);
      this.eventIds.splice(at, 0, e.id);
      this.byId.set(e.id, index);
    }
  }

  private cut(at: number): void {
    for (let k = at; k < this.eventIds.length; k++) this.byId.delete(this.eventIds[k]!);
    this.list.length = at;
    this.eventAt.length = at;
    this.eventIds.length = at;
  }
}

/** The first position in ascending `xs` whose value is at least `x`. */
function lowerBound(xs: readonly number[], x: number): number {
  let [lo, hi] = [0, xs.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (xs[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The index of `e` among `events`: looked for in the read's new part first (short), then from
 * `from` back, where the events a read revises mostly are. */
function placeOf(events: readonly TranscriptEvent[], e: TranscriptEvent, from: number): number | undefined {
  for (let i = from; i < events.length; i++) if (events[i]!.id === e.id) return i;
  for (let i = Math.min(from, events.length) - 1; i >= 0; i--) if (events[i]!.id === e.id) return i;
  return undefined;
}
