// A followed session kept up to date as its files grow: each read translates only the records the
// files gained, and extends the items of every lane, their search documents and the summary,
// rather than reading the session again. A read the translation cannot continue (a file written
// anew, a record that changes earlier ones beyond a patch) starts over, and says so. A long
// session's first read goes in parts, so that the daemon answers others while it reads.
import { setImmediate } from 'node:timers/promises';
import {
  IncrementalItems,
  type LoadTranscriptError,
  lineParts,
  openSession,
  type Result,
  type SessionPlatform,
  type SessionSummaryWithPrompts,
  type SourceFile,
  SummaryFold,
  type Transcript,
  type TranscriptDelta,
  type TranscriptEvent,
  Translator,
} from '@cairn/transcript';
import type { IndexDoc } from './index-db.js';
import { type ListingFacts, ListingTally } from './listing.js';
import { ItemKeys, type LaneItems, laneDocs } from './search-docs.js';

/** What the last read added to what was known before it. */
export interface LiveDelta {
  /** New events, in transcript order. */
  readonly added: readonly TranscriptEvent[];
  /** Per lane, the index of its first new item. */
  readonly newItems: ReadonlyMap<LaneItems, number>;
  /** The search documents of the new items. */
  readonly docs: IndexDoc[];
}

export class LiveTranscript {
  /** The items of every lane, main first; kept and grown from read to read. */
  lanes: LaneItems[] = [];
  /** What the last read added, or undefined when it read the session from the start. */
  delta: LiveDelta | undefined;
  private translator: Translator | undefined;
  private items = new IncrementalItems();
  private fold = new SummaryFold();
  private readonly tally: ListingTally;
  private readonly keys = new Map<LaneItems, ItemKeys>();

  constructor(
    private readonly agent: string,
    /** Bytes of the main file each part of a first read takes. */
    private readonly partBytes = PART_BYTES,
  ) {
    this.tally = new ListingTally(agent);
  }

  /** Reads what the session's files gained since the last read (all of them the first time). */
  async read(platform: SessionPlatform, path: string): Promise<Result<Transcript, LoadTranscriptError>> {
    const opened = await openSession(platform, { agent: this.agent, path });
    if (!opened.ok) return opened;
    const { adapter, files } = opened.value;
    let fresh = false;
    if (!this.translator) {
      this.translator = new Translator(adapter);
      // A long session's first read goes in parts, letting the daemon answer others between them.
      const parts = lineParts(files, this.partBytes);
      for (const part of parts.slice(0, -1)) {
        const pushed = this.push(part);
        if (!pushed.ok) return pushed;
        await setImmediate();
      }
      // Whatever the parts were, this is the session's first read: every item is new.
      fresh = true;
    }
    const pushed = this.push(files);
    if (!pushed.ok) return pushed;
    const t = pushed.value.t;
    fresh ||= pushed.value.fresh;

    const before = new Map(this.lanes.map((l) => [l.agentId ?? '', l]));
    const lanes: LaneItems[] = [];
    const newItems = new Map<LaneItems, number>();
    const docs: IndexDoc[] = [];
    for (const c of this.items.all(t)) {
      const agentId = c.isMain ? undefined : c.laneId;
      let lane = fresh ? undefined : before.get(agentId ?? '');
      if (!lane) {
        lane = { agentId, classification: c.classification, keys: [] };
        this.keys.set(lane, new ItemKeys(agentId ?? ''));
      }
      lane.classification = c.classification;
      const from = lane.keys.length;
      this.keys.get(lane)!.extend(lane);
      if (!fresh && lane.keys.length > from) {
        newItems.set(lane, from);
        laneDocs(lane, from, docs);
      }
      lanes.push(lane);
    }
    for (const old of this.lanes) if (!lanes.includes(old)) this.keys.delete(old);
    this.lanes = lanes;
    const { added, updated } = pushed.value.delta;
    this.tally.update(t, fresh ? undefined : [...added, ...updated], lanes);
    this.delta = fresh ? undefined : { added, newItems, docs };
    return { ok: true, value: t };
  }

  /** Brings the translation, the items and the summary up to `files`; `fresh` when this read them
   * from the start rather than on from the last push. */
  private push(
    files: readonly SourceFile[],
  ): Result<{ t: Transcript; delta: TranscriptDelta; fresh: boolean }, LoadTranscriptError> {
    const pushed = this.translator!.push(files);
    if (!pushed.ok) {
      this.forget();
      return pushed;
    }
    const t = this.translator!.snapshot();
    const change = this.items.update(t, pushed.value);
    this.fold.update(t, pushed.value);
    return {
      ok: true,
      value: { t, delta: pushed.value, fresh: pushed.value.rewritten || change.reread.size > 0 },
    };
  }

  summary(t: Transcript): SessionSummaryWithPrompts {
    return this.fold.summary(t);
  }

  listing(t: Transcript): ListingFacts {
    return this.tally.facts(t);
  }

  private forget(): void {
    this.translator = undefined;
    this.items = new IncrementalItems();
    this.fold = new SummaryFold();
    this.lanes = [];
    this.keys.clear();
    this.delta = undefined;
  }
}

/** Bytes of a session's main file taken by each part of a first read: a few tenths of a second's work. */
const PART_BYTES = 4 * 1024 * 1024;
