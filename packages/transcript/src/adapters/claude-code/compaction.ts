// What a compaction removed from the model's context, and the summary that replaced it.
import type { TranscriptEvent, TranscriptEventOf } from '../../model.js';
import { rec, str } from './records.js';

/**
 * One lane's events in file order, fed as they are read: every event before a compaction gets
 * shadowedBy = that compaction, except the segment the compaction recorded as preserved (kept
 * until a later one). The compact summary that follows a boundary becomes the compaction's summary.
 */
export class Compactions {
  /** Events since the last compaction (and the segment it preserved): what the next one shadows. */
  private pending: TranscriptEvent[] = [];
  private open: TranscriptEventOf<'compaction'> | undefined;
  /**
   * Forgets the pending events before `seq`: a reader is done with them, and a compaction to come
   * leaves them as they are (a reader that needs its marks waits for it before letting go).
   */
  letGo(seq: number): void {
    let n = 0;
    while (n < this.pending.length && this.pending[n]!.seq < seq) n++;
    this.pending.splice(0, n);
  }

  /** Takes the lane's next events; answers the earlier ones it marked as shadowed, and the earlier
   * compaction whose summary it filled in. */
  add(events: readonly TranscriptEvent[]): { shadowed: TranscriptEvent[]; summarized: TranscriptEvent[] } {
    const shadowed: TranscriptEvent[] = [];
    const summarized: TranscriptEvent[] = [];
    for (const e of events) {
      if (e.kind === 'compaction') {
        const keep = preservedLines(e, this.pending);
        const kept: TranscriptEvent[] = [];
        for (const p of this.pending) {
          if (keep && p.source.line >= keep.from && p.source.line <= keep.to) kept.push(p);
          else {
            p.shadowedBy = e.id;
            shadowed.push(p);
          }
        }
        this.pending = kept;
        this.open = e;
      } else if (this.open && e.kind === 'user' && e.payload.origin === 'compact_summary') {
        if (this.open.payload.summary === undefined) {
          this.open.payload.summary = e.payload.text;
          if (!events.includes(this.open)) summarized.push(this.open);
        }
        this.open = undefined;
      }
      this.pending.push(e);
    }
    return { shadowed, summarized };
  }
}

/** The line range of a preserved segment, found by the uuids of its head and tail records. */
function preservedLines(
  c: TranscriptEventOf<'compaction'>,
  pending: readonly TranscriptEvent[],
): { from: number; to: number } | undefined {
  const segment = rec(c.payload.preservedSegment);
  const head = str(segment?.headUuid);
  const tail = str(segment?.tailUuid);
  if (head === undefined || tail === undefined) return undefined;
  const from = pending.find((e) => e.id === head)?.source.line;
  const to = pending.find((e) => e.id === tail)?.source.line;
  return from === undefined || to === undefined ? undefined : { from, to };
}
