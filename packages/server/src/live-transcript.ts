// A followed session kept up to date as its files grow: each read translates only the records the
// files gained, and extends the items of every lane, their search documents and the summary,
// rather than reading the session again. A read the translation cannot continue (a file written
// anew, a record that changes earlier ones beyond a patch) starts over, and says so.
import {
  IncrementalItems,
  type LoadTranscriptError,
  openSession,
  type Result,
  type SessionPlatform,
  type SessionSummaryWithPrompts,
  SummaryFold,
  type Transcript,
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

  constructor(private readonly agent: string) {
    this.tally = new ListingTally(agent);
  }

  /** Reads what the session's files gained since the last read (all of them the first time). */
  async read(platform: SessionPlatform, path: string): Promise<Result<Transcript, LoadTranscriptError>> {
    const opened = await openSession(platform, { agent: this.agent, path });
    if (!opened.ok) return opened;
    this.translator ??= new Translator(opened.value.adapter);
    const pushed = this.translator.push(opened.value.files);
    if (!pushed.ok) {
      this.forget();
      return pushed;
    }
    const t = this.translator.snapshot();
    const change = this.items.update(t, pushed.value);
    this.fold.update(t, pushed.value);
    const fresh = pushed.value.rewritten || change.reread.size > 0;

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
    this.tally.update(t, fresh ? undefined : [...pushed.value.added, ...pushed.value.updated], lanes);
    this.delta = fresh ? undefined : { added: pushed.value.added, newItems, docs };
    return { ok: true, value: t };
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
