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
   * other items (after a rewrite, every lane). A lane whose items only changed fields (a spawning
   * call's brief learned its subagent) is not among them. */
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
  /** What of the lanes the classifiers read: who spawned whom, and titles. */
  private laneShape = '';
  /** Each spawning event's lane as the classifiers know it (its id and title). */
  private spawns = new Map<string, string>();

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
    const byLane = new Map<string, TranscriptEvent[]>();
    const allOf = (id: string): TranscriptEvent[] => {
      if (byLane.size === 0) for (const [lane, list] of eventsByLane(t.events)) byLane.set(lane, list);
      return byLane.get(id) ?? [];
    };
    if (delta.rewritten) {
      this.lanes.clear();
      this.laneShape = shapeOf(t);
      this.spawns = spawnsOf(t);
      for (const lane of lanesOf(t)) {
        this.start(t, lane, allOf(lane.id));
        reread.add(lane.id);
      }
      return { reread, firstNew };
    }
    const again = this.learnLanes(t, delta);
    const added = eventsByLane(delta.added);
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
      if (again.has(lane.id)) {
        // Most often only fields of the lane's items change: a lane whose earlier items are still
        // the same items, with new ones after them, counts as extended, not read again.
        const old = s.classification.items;
        this.start(t, lane, allOf(lane.id));
        const now = this.lanes.get(lane.id)!.classification.items;
        if (startsWithItems(now, old)) firstNew.set(lane.id, old.length);
        else reread.add(lane.id);
        continue;
      }
      if (events.length === 0 && !changed.has(lane.id)) continue;
      // Before a lane's first time, its items take the session's start, which later lanes can move;
      // a summary arriving after a compaction was read can make that compaction's item another.
      const untimed = !s.timed;
      const lateSummary = s.sawCompaction && events.some(isCompactSummary);
      if (untimed || lateSummary || changed.has(lane.id)) {
        this.start(t, lane, allOf(lane.id));
        reread.add(lane.id);
        continue;
      }
      firstNew.set(lane.id, s.classification.items.length);
      this.feed(s, events);
    }
    return { reread, firstNew };
  }

  /**
   * When the lanes changed (a subagent's file appeared, a spawn or a title came to light), every
   * classifier takes them for what comes next, and a spawning call already read is brought up to
   * date in place. Answers the lanes that must be classified again from their first event: one
   * whose spawning call cannot be patched so, one that became or stopped being the main lane, and
   * one whose items still wait for a time, which the new lane may move.
   */
  private learnLanes(t: Transcript, delta: TranscriptDelta): Set<string> {
    const again = new Set<string>();
    const shape = shapeOf(t);
    if (shape === this.laneShape) return again;
    this.laneShape = shape;
    const spawns = spawnsOf(t);
    const moved = new Set<string>();
    for (const [id, lane] of spawns) if (this.spawns.get(id) !== lane) moved.add(id);
    for (const id of this.spawns.keys()) if (!spawns.has(id)) moved.add(id);
    this.spawns = spawns;
    const present = new Set<string>();
    for (const lane of lanesOf(t)) {
      present.add(lane.id);
      const s = this.lanes.get(lane.id);
      if (!s) continue;
      if (s.isMain !== (lane.parentId === undefined) || !s.timed) again.add(lane.id);
      else {
        s.classifier.learnLanes(t, lane);
        s.classification = s.classifier.result();
      }
    }
    for (const id of this.lanes.keys()) if (!present.has(id)) this.lanes.delete(id);
    if (moved.size === 0) return again;
    const fresh = new Set(delta.added);
    for (const e of t.events) {
      if (!moved.has(e.id) || fresh.has(e) || again.has(e.agentId)) continue;
      const s = this.lanes.get(e.agentId);
      if (s && (e.kind !== 'tool_call' || !s.classifier.relink(e))) again.add(e.agentId);
    }
    return again;
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

function spawnsOf(t: Transcript): Map<string, string> {
  const out = new Map<string, string>();
  for (const lane of t.agents)
    if (lane.spawnEventId !== undefined) out.set(lane.spawnEventId, JSON.stringify([lane.id, lane.title]));
  return out;
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
