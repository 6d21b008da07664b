// The items of a session's main lane handed out as the session is read a part at a time, each once
// nothing later in the session can change it, as a dump of the same selection would hold them. A
// call waits for its result (the call names it, and a Markdown dump draws the two together), and the
// items after it wait behind it, so the order is the dump's. Whatever a part could still change is
// held: the lane's latest events until the next part (a record the one after it reads differently),
// and the items behind an open call. Where a later part changes an item already handed out, which
// reading ahead a little cannot rule out, the answer is 'whole': the caller reads the session whole.
import type { TranscriptItem } from '@cairn/protocol';
import type { TranscriptDelta } from './incremental.js';
import { Classifier, mainLaneOf } from './items/classify.js';
import type { Selection } from './items/select.js';
import { toolTypeName } from './items/tool-fields.js';
import type { Transcript, TranscriptEvent, TranscriptEventOf } from './model.js';

export interface SettledItem {
  /** As the dump holds it: a call whose result the dump does not hold no longer names it. */
  readonly item: TranscriptItem;
  /** The result the dump holds for this call, which a Markdown dump draws under it. */
  readonly result?: TranscriptItem;
}

/** The times a dump is bounded by, inclusive, as `since_at` and `until_at` ask. */
export interface ItemTimes {
  readonly since_at?: number | undefined;
  readonly until_at?: number | undefined;
}

/**
 * The lane's latest events left for the next part to classify with. A record can change how the
 * ones just before it read (a message its successor shows to be a prompt, a compaction whose summary
 * follows it): reading a little ahead gives those the reading a whole read gives them.
 */
const HOLD_EVENTS = 256;

/**
 * Items waiting behind an open call beyond which the oldest goes out anyway. A call that is never
 * answered would otherwise hold the rest of the session in memory; one answered later still is
 * noticed, and the session read whole.
 */
const MAX_WAITING = 4000;

interface Waiting {
  readonly item: TranscriptItem;
  readonly kept: boolean;
}

/** An item handed out that a later part could still change, with what to compare it by. */
interface Watched {
  readonly item: TranscriptItem;
  /** Its JSON when handed out, for a brief or an answer a lane coming to light may rewrite. */
  readonly json?: string;
}

type Fields = Record<string, unknown>;

const isCompactSummary = (e: TranscriptEvent): e is TranscriptEventOf<'user'> =>
  e.kind === 'user' && (e.payload.origin === 'compact_summary' || e.payload.origin === 'history_checkpoint');

/** Whether an item may still change when a later event comes: a call (or a subagent's brief)
 * waiting for its result. */
function isOpen(item: TranscriptItem): boolean {
  const f = item as Fields;
  if (f.role !== 'use' || f.result_item !== undefined) return false;
  if (item.type === 'message:sub:out') return true;
  return item.type.startsWith('tool:') && typeof f.tool_use_id === 'string' && f.tool_use_id !== '';
}

export class SettledItems {
  private classifier: Classifier | undefined;
  private laneId: string | undefined;
  /** The lane's events not yet classified, oldest first. */
  private held: TranscriptEvent[] = [];
  private readonly heldSet = new Set<TranscriptEvent>();
  private timed = false;
  /** Items classified and not yet handed out, in order, from `head`. */
  private waiting: Waiting[] = [];
  private head = 0;
  private readonly waitingByUuid = new Map<string, Waiting>();
  private readonly watched: Watched[] = [];
  /** The summaries that compactions classified so far are shown by: a later summary found in one
   * changes its item. */
  private readonly summaries: string[] = [];
  private laneShape = '';
  /** Each spawning event's lane as last taken (its id and title). */
  private spawns = new Map<string, string>();
  /** Ids of the calls classified; the spawning ones and the latest two parts' kept whole, for relinking. */
  private readonly callIds = new Set<string>();
  private spawningCalls = new Map<string, TranscriptEventOf<'tool_call'>>();
  private recentCalls = new Map<string, TranscriptEventOf<'tool_call'>>();
  private olderCalls = new Map<string, TranscriptEventOf<'tool_call'>>();
  /** Items kept per type, in the order types were first met. */
  readonly entries: Record<string, number> = {};
  /** Why the last take answered 'whole'. */
  why: string | undefined;

  constructor(
    private readonly selection: Selection,
    private readonly times: ItemTimes = {},
  ) {}

  /**
   * Takes what a push did to `t` (`last` for the push that read the session's end) and answers the
   * items settled since the last take, in order; 'whole' when a read in parts cannot give what a
   * whole read gives.
   */
  take(t: Transcript, delta: TranscriptDelta, last: boolean): SettledItem[] | 'whole' {
    const main = mainLaneOf(t);
    if (this.laneId === undefined) this.laneId = main.id;
    else if (delta.rewritten || main.id !== this.laneId) return this.whole('the translation started over');
    const laneId = this.laneId;
    // An event already classified now reads differently: its item, and the turn count after it, may too.
    for (const e of delta.revised)
      if (e.agentId === laneId && e.kind !== 'request' && !this.heldSet.has(e))
        return this.whole(`event ${e.id} read differently after its item was made`);
    if (!this.learnLanes(t)) return this.whole('a call already read spawned a lane that came to light later');

    for (const e of delta.added) {
      if (e.agentId !== laneId) continue;
      this.held.push(e);
      this.heldSet.add(e);
    }
    // Before the lane's first time, its items take the time of its first dated event, wherever that is.
    if (!this.timed) this.timed = this.held.some((e) => e.timestamp !== undefined);
    if (this.timed || last) {
      const n = last ? this.held.length : this.held.length - HOLD_EVENTS;
      if (n > 0 && !this.classify(t, this.held.splice(0, n)))
        return this.whole('a compaction summary came after its compaction was read');
    }
    if (!this.unchanged()) return this.whole('an item already handed out changed');
    return this.settled(last);
  }

  private whole(why: string): 'whole' {
    this.why = why;
    return 'whole';
  }

  /** Classifies the next events of the lane and queues their items; false when an item handed out is
   * changed by them. */
  private classify(t: Transcript, events: TranscriptEvent[]): boolean {
    for (const e of events) this.heldSet.delete(e);
    for (const e of events) {
      if (!isCompactSummary(e) || e.payload.text === '') continue;
      const text = e.payload.text;
      if (this.summaries.some((s) => s.includes(text))) return false;
    }
    this.classifier ??= new Classifier(t, mainLaneOf(t), true);
    this.classifier.push(events);
    const { items: made, sources } = this.classifier.result();
    made.forEach((item, i) => {
      // A compaction shown by its summary: a summary found in it later would have made it a bare note.
      const e = sources[i]!;
      if (e.kind === 'compaction' && e.payload.summary && (item as Fields).text === e.payload.summary)
        this.summaries.push(e.payload.summary);
    });
    for (const item of made) {
      const kept =
        this.selection.keeps(item.type) &&
        (this.times.since_at === undefined || item.at >= this.times.since_at) &&
        (this.times.until_at === undefined || item.at <= this.times.until_at);
      if (kept) this.entries[item.type] = (this.entries[item.type] ?? 0) + 1;
      const w: Waiting = { item, kept };
      this.waiting.push(w);
      this.waitingByUuid.set(item.uuid, w);
    }
    this.classifier.letGo();
    this.olderCalls = this.recentCalls;
    this.recentCalls = new Map();
    for (const e of events) {
      if (e.kind !== 'tool_call') continue;
      this.callIds.add(e.id);
      this.recentCalls.set(e.id, e);
      if (toolTypeName(e.payload.name) === 'Agent') this.spawningCalls.set(e.id, e);
    }
    return true;
  }

  /**
   * When the session's lanes changed (a subagent came to light), the classifier takes them, and a
   * spawning call it already read is brought up to date in place, as a whole read would have read
   * it. False when that cannot be done: a call read long ago, or one that now makes other items.
   */
  private learnLanes(t: Transcript): boolean {
    const spawns = new Map<string, string>();
    for (const lane of t.agents)
      if (lane.spawnEventId !== undefined)
        spawns.set(lane.spawnEventId, JSON.stringify([lane.id, lane.title]));
    const shape = [mainLaneOf(t).id, ...spawns.entries()].join('\u0000');
    const before = this.spawns;
    this.spawns = spawns;
    if (shape === this.laneShape) return true;
    this.laneShape = shape;
    if (!this.classifier) return true;
    this.classifier.learnLanes(t, mainLaneOf(t));
    const moved = new Set<string>();
    for (const [id, lane] of spawns) if (before.get(id) !== lane) moved.add(id);
    for (const id of before.keys()) if (!spawns.has(id)) moved.add(id);
    for (const id of moved) {
      if (!this.callIds.has(id)) continue;
      const call = this.spawningCalls.get(id) ?? this.recentCalls.get(id) ?? this.olderCalls.get(id);
      if (!call || !this.classifier.relink(call)) return false;
    }
    return true;
  }

  /** Whether every item handed out that could change is still as it was handed out. */
  private unchanged(): boolean {
    for (const w of this.watched) {
      if (w.json !== undefined ? JSON.stringify(w.item) !== w.json : !isOpen(w.item)) return false;
    }
    return true;
  }

  /** The items at the head of the queue that nothing can change any more (all of them at the end). */
  private settled(last: boolean): SettledItem[] {
    const out: SettledItem[] = [];
    while (this.head < this.waiting.length) {
      const w = this.waiting[this.head]!;
      // An item the dump leaves out goes out of the queue open or not: nothing of it is written.
      const open = w.kept && isOpen(w.item);
      if (open && !last && this.waiting.length - this.head <= MAX_WAITING) break;
      this.head++;
      if (this.waitingByUuid.get(w.item.uuid) === w) this.waitingByUuid.delete(w.item.uuid);
      if (!w.kept) continue;
      const item = w.item;
      if (item.type.startsWith('message:sub:')) this.watched.push({ item, json: JSON.stringify(item) });
      else if (open && !last) this.watched.push({ item });
      out.push(this.asDumped(item));
    }
    // The handed-out part of the queue let go of now and then, not at every item.
    if (this.head > 1024 && this.head * 2 > this.waiting.length) {
      this.waiting = this.waiting.slice(this.head);
      this.head = 0;
    }
    return out;
  }

  /** The item as the dump holds it, with the result it names when the dump holds that too. */
  private asDumped(item: TranscriptItem): SettledItem {
    const link = (item as Fields).result_item;
    if (typeof link !== 'string') return { item };
    // A result always comes after its call, so it is still waiting when the call goes out.
    const result = this.waitingByUuid.get(link);
    if (result?.kept) return { item, result: result.item };
    const { result_item: _gone, ...rest } = item as TranscriptItem & { result_item?: string };
    return { item: rest as TranscriptItem };
  }
}
