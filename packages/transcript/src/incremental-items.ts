// The items of every lane of a growing transcript, extended as events arrive rather than read
// again: each lane keeps its classifier, which takes the lane's new events where it stopped.
import type { TranscriptItem } from '@cairn/protocol';
import type { TranscriptDelta } from './incremental.js';
import { type Classification, Classifier, mainLaneOf } from './items/classify.js';
import type { Lane, Transcript, TranscriptEvent } from './model.js';

export interface LaneClassification {
  /** The lane's id; `isMain` tells the session's main lane. */
  readonly laneId: string;
  readonly isMain: boolean;
  readonly classification: Classification;
}

/** What one update did to the items. */
export interface ItemsChange {
  /** Lanes whose earlier items may have changed: classified again from their first event into
   * other items (after a rewrite, every lane). A lane classified again into the same items, only
   * their fields changed, is not among them. */
  readonly reread: ReadonlySet<string>;
  /** Per lane, the index of its first new item (its item count before the update). */
  readonly firstNew: ReadonlyMap<string, number>;
}

interface LaneState {
  classifier: Classifier;
  classification: Classification;
  isMain: boolean;
  /** Whether any of the lane's events carried a time: before one does, item times wait for it. */
  timed: boolean;
  sawCompaction: boolean;
}

export class IncrementalItems {
  private readonly lanes = new Map<string, LaneState>();
  /** What of the lanes the classifiers read when they started: who spawned whom, and titles. */
  private laneShape = '';

  /** The lanes in the transcript's order (main first), with their items. */
  all(t: Transcript): LaneClassification[] {
    const out: LaneClassification[] = [];
    for (const lane of lanesOf(t)) {
      const s = this.lanes.get(lane.id);
      if (s) out.push({ laneId: lane.id, isMain: s.isMain, classification: s.classification });
    }
    return out;
  }

  /** Takes what a push did to `t`. */
  update(t: Transcript, delta: TranscriptDelta): ItemsChange {
    const reread = new Set<string>();
    const firstNew = new Map<string, number>();
    const shape = shapeOf(t);
    // A lane whose spawn or title came to light changes items of the lane that spawned it (and
    // of the call's twin): every lane starts again, as when the session was rewritten. Most often
    // (a subagent's file appeared) only fields of those items change: a lane whose earlier items
    // are still the same items, with new ones after them, counts as extended, not read again.
    if (delta.rewritten || shape !== this.laneShape) {
      const before = delta.rewritten ? undefined : new Map(this.lanes);
      this.lanes.clear();
      this.laneShape = shape;
      const byLane = eventsByLane(t.events);
      for (const lane of lanesOf(t)) {
        this.start(t, lane, byLane.get(lane.id) ?? []);
        const old = before?.get(lane.id)?.classification.items;
        const now = this.lanes.get(lane.id)!.classification.items;
        if (before && !old) firstNew.set(lane.id, 0);
        else if (old && startsWithItems(now, old)) firstNew.set(lane.id, old.length);
        else reread.add(lane.id);
      }
      return { reread, firstNew };
    }
    const added = eventsByLane(delta.added);
    const byLane = new Map<string, TranscriptEvent[]>();
    // A message or a result read differently after the fact (a Codex message found to be a prompt)
    // changes its item and those after it: its lane is read again. A mere mark (a compaction's
    // shadow) changes no item.
    const changed = new Set(
      delta.revised.filter((e) => e.kind === 'user' || e.kind === 'tool_result').map((e) => e.agentId),
    );
    for (const lane of lanesOf(t)) {
      const s = this.lanes.get(lane.id);
      const events = added.get(lane.id) ?? [];
      if (!s) {
        // A lane seen for the first time: every item of it is new.
        this.start(t, lane, events);
        firstNew.set(lane.id, 0);
        continue;
      }
      if (events.length === 0 && !changed.has(lane.id)) continue;
      // Before a lane's first time, its items take the session's start, which later lanes can move;
      // a summary arriving after a compaction was read can make that compaction's item another.
      const untimed = !s.timed;
      const lateSummary = s.sawCompaction && events.some(isCompactSummary);
      if (untimed || lateSummary || changed.has(lane.id)) {
        if (byLane.size === 0) for (const [id, list] of eventsByLane(t.events)) byLane.set(id, list);
        this.start(t, lane, byLane.get(lane.id) ?? []);
        reread.add(lane.id);
        continue;
      }
      firstNew.set(lane.id, s.classification.items.length);
      this.feed(s, events);
    }
    return { reread, firstNew };
  }

  private start(t: Transcript, lane: Lane, events: TranscriptEvent[]): void {
    const isMain = lane.parentId === undefined;
    const classifier = new Classifier(t, lane, isMain);
    const s: LaneState = {
      classifier,
      classification: classifier.result(),
      isMain,
      timed: false,
      sawCompaction: false,
    };
    this.lanes.set(lane.id, s);
    if (events.length > 0) this.feed(s, events);
  }

  private feed(s: LaneState, events: readonly TranscriptEvent[]): void {
    s.classifier.push(events);
    s.classification = s.classifier.result();
    if (!s.timed) s.timed = events.some((e) => e.timestamp !== undefined);
    if (!s.sawCompaction) s.sawCompaction = events.some((e) => e.kind === 'compaction');
  }
}

/** Whether two items are the same item, their fields aside: the same uuid, type and role. */
export function sameItem(a: TranscriptItem, b: TranscriptItem): boolean {
  return a.uuid === b.uuid && a.type === b.type && roleOf(a) === roleOf(b);
}

const roleOf = (item: TranscriptItem): string | undefined => (item as { role?: string }).role;

/** Whether `items` begin with the same items as `earlier`. */
const startsWithItems = (items: readonly TranscriptItem[], earlier: readonly TranscriptItem[]): boolean =>
  items.length >= earlier.length && earlier.every((e, k) => sameItem(items[k]!, e));

const isCompactSummary = (e: TranscriptEvent): boolean =>
  e.kind === 'user' && (e.payload.origin === 'compact_summary' || e.payload.origin === 'history_checkpoint');

/** The lanes items are read for: the main lane first, then the subagents, as laneItems does. */
function lanesOf(t: Transcript): Lane[] {
  if (t.agents.length > 0) return t.agents;
  return [mainLaneOf(t)];
}

function shapeOf(t: Transcript): string {
  const main = mainLaneOf(t);
  return [
    main.id,
    ...t.agents.map((a) => `${a.id}\u0001${a.parentId}\u0001${a.spawnEventId}\u0001${a.title}`),
  ].join('\u0000');
}

function eventsByLane(events: readonly TranscriptEvent[]): Map<string, TranscriptEvent[]> {
  const out = new Map<string, TranscriptEvent[]>();
  for (const e of events) {
    const list = out.get(e.agentId);
    if (list) list.push(e);
    else out.set(e.agentId, [e]);
  }
  return out;
}
