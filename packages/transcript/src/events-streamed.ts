// A session's events handed out while it is still being read, a part of its main file at a time, each
// once nothing later in the session can change how it reads: its place in the order, its payload, and
// whether a compaction removed it from the model's context (`shadowedBy`). The events handed out are
// those a whole read gives, in its order, so a printer of them prints the whole read's lines.
//
// What can still change an event once read, and how it is waited for:
// - its place: only the main file grows from part to part (the other files are read whole with the
//   first), and a file's new events land after its earlier ones, so the events up to the main file's
//   latest one keep their place;
// - its shadow: a compaction marks the events before it. The rest of the main file is looked through
//   for the bytes every compaction record holds; while one may still come, the main file's events it
//   would mark wait (the events since the last compaction), and when none can, they all go out;
// - its payload, by a record soon after it (a request's usage filled in by the next line of the same
//   message, a message a later record shows to be a prompt): the latest events wait for the next part.
// A change to an event already handed out, which this cannot rule out, answers 'whole': the caller
// reads the session whole and goes on after the events it already has.
import type { SessionTarget, Transcript, TranscriptEvent, TranscriptEventKind } from './model.js';
import type { SessionPlatform } from './platform.js';
import { type LoadTranscriptError, ok, type Result } from './result.js';
import { placed, readsWhole, type SessionPartsOptions, sessionParts } from './session-parts.js';

/**
 * The latest events left for the next part: a record can change how one shortly before it reads
 * (the next line of the same message, the record that shows a message to be a prompt).
 */
const HOLD_EVENTS = 256;

/** How an agent's compactions are found ahead and which events they mark. */
interface Compactions {
  /**
   * Bytes one of which every record that makes or completes a compaction holds. Finding one where
   * there is no compaction only holds events longer.
   */
  readonly marks: readonly string[];
  /** The kinds of event a compaction marks; every kind when not given. */
  readonly marked?: ReadonlySet<TranscriptEventKind>;
}

/**
 * By agent: a Claude Code boundary and the summary after it (flagged, or known by its opening words),
 * which mark every event before them; a Codex `compacted` or `context_compacted` record, which marks
 * the messages, reasoning and calls since the last one. An agent not named here is taken to have a
 * compaction still to come until its session's end.
 */
const COMPACTIONS: Readonly<Record<string, Compactions>> = {
  'claude-code': {
    marks: [
      'compact_boundary',
      'isCompactSummary',
      'This session is being continued from a previous conversation',
    ],
  },
  codex: {
    marks: ['compacted'],
    marked: new Set(['user', 'assistant', 'reasoning', 'tool_call', 'tool_result']),
  },
};

/** Bytes of the main file looked through at a time for a compaction still to come. */
const SCAN_BYTES = 4 * 1024 * 1024;

export interface StreamEventsOptions extends SessionPartsOptions {
  /** Called after each part's events: a printer puts them out rather than waiting for a full batch. */
  readonly afterPart?: () => void | Promise<void>;
}

export interface StreamedEvents {
  /** Events handed out: the first of the whole read's events, in its order. */
  readonly events: number;
  /** The records that produced no event; counted only when the whole session was read here. */
  readonly skipped: number;
  /** The session must be read whole to go on after the events handed out. */
  readonly whole: boolean;
  /** Why, when `whole`. */
  readonly why?: string;
}

/**
 * The session's events, each handed to `onEvent` with the transcript so far (its lanes are those of
 * the whole read) as soon as nothing later can change it. Expected failures are values; an abort
 * rejects with `signal.reason`.
 */
export async function streamEvents(
  platform: SessionPlatform,
  target: SessionTarget,
  onEvent: (t: Transcript, e: TranscriptEvent) => void | Promise<void>,
  options: StreamEventsOptions = {},
): Promise<Result<StreamedEvents, LoadTranscriptError>> {
  /** Events handed out: the transcript's first ones. */
  let out = 0;
  /** Events the translation let go of (all handed out): the list's first event is this one. */
  let base = 0;
  let ahead: MarkScan | undefined;
  const whole = (why: string) => ok({ events: out, skipped: 0, whole: true, why });
  for await (const step of sessionParts(platform, target, options)) {
    if (readsWhole(step)) return whole(step.whole);
    if (!step.ok) return step;
    const { t, delta, first, last, main } = step.value;
    const compactions = COMPACTIONS[step.value.agent];
    if (first && compactions && !last) ahead = new MarkScan(platform, main, compactions.marks);
    if (base + delta.from < out) return whole(`event ${base + delta.from} moved after it was handed out`);
    for (const e of delta.updated)
      if (e.seq < out) return whole(`event ${e.id} changed after it was handed out`);
    // Indexes in the list as the translation holds it now.
    const events = t.events;
    let settled = events.length;
    if (!last) {
      settled = Math.min(placed(events, main), events.length - HOLD_EVENTS);
      const marked = compactions?.marked;
      // While a compaction may still come, the events it would mark wait for it.
      if (!ahead || (await ahead.mayComeAfter(step.value.read, options.signal)))
        for (let i = out - base; i < settled; i++) {
          const e = events[i]!;
          if (e.shadowedBy === undefined && e.source.file === main && (!marked || marked.has(e.kind))) {
            settled = i;
            break;
          }
        }
    }
    for (; out - base < settled; out++) await onEvent(t, events[out - base]!);
    await options.afterPart?.();
    if (last) return ok({ events: out, skipped: t.skipped.length, whole: false });
    // What is handed out is done with, where the translation can let go of it.
    if (step.value.letGo(out - base)) base = out;
  }
  return whole('the session ended before its last part');
}

/**
 * Where in a file a compaction record may be, found by looking ahead of the reader only as far as the
 * next one: each line holding one of the marks' bytes counts as one.
 */
class MarkScan {
  /** Offsets of marks found at or after where the reader last was, in order. */
  private found: number[] = [];
  /** Bytes of the file looked through. */
  private scanned = 0;
  private ended = false;
  private buffer: Uint8Array | undefined;
  private readonly needles: Buffer[];
  private readonly overlap: number;

  constructor(
    private readonly platform: SessionPlatform,
    private readonly path: string,
    marks: readonly string[],
  ) {
    this.needles = marks.map((m) => Buffer.from(m));
    this.overlap = Math.max(...this.needles.map((n) => n.length)) - 1;
  }

  /** Whether a mark is at or after `offset` (the start of a line). */
  async mayComeAfter(offset: number, signal?: AbortSignal): Promise<boolean> {
    while (this.found.length > 0 && this.found[0]! < offset) this.found.shift();
    if (this.found.length > 0) return true;
    this.scanned = Math.max(this.scanned, offset);
    while (!this.ended) {
      signal?.throwIfAborted();
      const want = SCAN_BYTES + this.overlap;
      const into = this.buffer && this.buffer.length >= want ? this.buffer : undefined;
      const data = await this.platform.fs.readRange(this.path, this.scanned, want, into);
      if (!into && data.length === want) this.buffer = data;
      const view = Buffer.from(data.buffer, data.byteOffset, data.length);
      let first = -1;
      for (const needle of this.needles) {
        const at = view.indexOf(needle);
        if (at !== -1 && (first === -1 || at < first)) first = at;
      }
      if (first !== -1) {
        this.found.push(this.scanned + first);
        this.scanned += first + 1;
        return true;
      }
      if (data.length < want) this.ended = true;
      // The last bytes are looked through again with the next, for a mark that straddles the two.
      else this.scanned += data.length - this.overlap;
    }
    return false;
  }
}
