// The items of a session's main lane handed out as the session is read a part at a time, each once
// nothing later in the session can change it, as a dump of the same selection would hold them. A
// call waits for its result (the call names it, and a Markdown dump draws the two together), and the
// items after it wait behind it, so the order is the dump's. Whatever a part could still change is
// held: the lane's latest events until the next part (a record the one after it reads differently),
// and the items behind an open call. Where a later part changes an item already handed out, which
// reading ahead a little cannot rule out, the answer is 'whole': the caller reads the session whole.
//
// The lane may be a subagent's (`agent_id`), and the items may be bounded by record (`since_uuid`,
// `until_uuid`): an item is kept from the lane's first event of the lower bound's record to its last
// event of the upper bound's. The first is known when it is read; the last only once no later event
// of the record can come, so the items after the latest one read wait, until another comes or the
// session ends. A bound or lane the session never names answers 'whole', for the whole read's error.
import type { TranscriptItem } from '@cairn/protocol';
import type { TranscriptDelta } from './incremental.js';
import { Classifier, findLane, idHash, mainLaneOf } from './items/classify.js';
import { isOfRecord } from './items/dump.js';
import type { Selection } from './items/select.js';
import { toolTypeName } from './items/tool-fields.js';
import type { Lane, Transcript, TranscriptEvent, TranscriptEventOf } from './model.js';

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

/** Whose items, and between which records (inclusive), as a dump's arguments ask. */
export interface ItemBounds extends ItemTimes {
  readonly agent_id?: string | undefined;
  readonly since_uuid?: string | undefined;
  readonly until_uuid?: string | undefined;
}

/**
 * The lane's latest events left for the next part to classify with. A record can change how the
 * ones just before it read (a message its successor shows to be a prompt, a compaction whose summary
 * follows it): reading a little ahead gives those the reading a whole read gives them.
 */
const HOLD_EVENTS = 256;

/**
 * Answered calls the classifier keeps once their items are handed out: a result or a hook naming
 * one comes soon after it. Naming an older one is noticed, and the session is read whole.
 */
const KEPT_CALLS = 2048;

/**
 * Items waiting behind an open call beyond which the oldest goes out anyway. A call that is never
 * answered would otherwise hold the rest of the session in memory; one answered later still is
 * noticed, and the session read whole.
 */
const MAX_WAITING = 4000;

interface Waiting {
  readonly item: TranscriptItem;
  /** Its selection and times keep it, and it is at or after the lower bound. */
  readonly selected: boolean;
  /** Its event's place in the lane, for the upper bound. */
  readonly place: number;
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
  /** Each lane event's place in the lane, counted as they are read. */
  private readonly places = new WeakMap<TranscriptEvent, number>();
  private placesGiven = 0;
  /** The place of the lane's first event of the lower bound's record, once read. */
  private sinceAt: number | undefined;
  /** The place of the lane's latest event of the upper bound's record read so far. */
  private untilAt: number | undefined;
  /** Items past the latest event of the upper bound's record were let go of as left out: one more
   * such event would have kept them. */
  private cutShort = false;
  /** The session's end was read: nothing waits for a later record any more. */
  private ended = false;
  /** An event of the upper bound's record came after `cutShort`. */
  private lateBound = false;
  private takes = 0;
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
  /** Hashes of the ids of the calls classified (a false match only looks for the call); the spawning
   * ones and the latest two parts' kept whole, for relinking. */
  private readonly callIds = new Set<number>();
  private spawningCalls = new Map<string, TranscriptEventOf<'tool_call'>>();
  private recentCalls = new Map<string, TranscriptEventOf<'tool_call'>>();
  private olderCalls = new Map<string, TranscriptEventOf<'tool_call'>>();
  /** Items kept per type, in the order types were first met. */
  readonly entries: Record<string, number> = {};
  /** Why the last take answered 'whole'. */
  why: string | undefined;

  constructor(
    private readonly selection: Selection,
    private readonly times: ItemBounds = {},
  ) {}

  /** The lane whose items these are: a subagent's may come to light only in a later part. */
  private subjectOf(t: Transcript) {
    return this.times.agent_id === undefined ? mainLaneOf(t) : findLane(t, this.times.agent_id);
  }

  /** Whether an event may be of the subagent asked for, before its lane is known. */
  private mayBeSubject(e: TranscriptEvent): boolean {
    const id = this.times.agent_id;
    return id !== undefined && (e.agentId === id || `agent-${e.agentId}` === id);
  }

  /**
   * Takes what a push did to `t` (`last` for the push that read the session's end) and answers the
   * items settled since the last take, in order; 'whole' when a read in parts cannot give what a
   * whole read gives. `reading` names the file whose later parts are still to come: the lane's
   * events from files read whole already wait for nothing (a subagent's file, read with the first
   * part); all of them wait when it is not given.
   */
  take(t: Transcript, delta: TranscriptDelta, last: boolean, reading?: string): SettledItem[] | 'whole' {
    if (this.takes++ > 0 && delta.rewritten) return this.whole('the translation started over');
    this.ended = last;
    const subject = this.subjectOf(t);
    if (this.laneId !== undefined && subject?.id !== this.laneId) return this.whole('the lane read changed');
    // An event already classified now reads differently: its item, and the turn count after it, may too.
    for (const e of delta.revised)
      if (
        (e.agentId === (subject?.id ?? this.laneId) || this.mayBeSubject(e)) &&
        e.kind !== 'request' &&
        !this.heldSet.has(e)
      )
        return this.whole(`event ${e.id} read differently after its item was made`);
    if (!subject) {
      // A subagent whose lane is not known yet: its events wait for it.
      if (last) return this.whole(`no subagent '${this.times.agent_id}' in the session`);
      for (const e of delta.added) if (this.mayBeSubject(e)) this.hold(e);
      return [];
    }
    if (this.laneId === undefined) {
      this.laneId = subject.id;
      // Events held for a lane not known then are its own, or another's that looked like it.
      const mine = this.held.filter((e) => e.agentId === subject.id);
      this.held = [];
      this.heldSet.clear();
      for (const e of mine) this.hold(e);
    }
    const laneId = this.laneId;
    if (!this.learnLanes(t, subject))
      return this.whole('a call already read spawned a lane that came to light later');

    for (const e of delta.added) if (e.agentId === laneId) this.hold(e);
    // Before the lane's first time, its items take the time of its first dated event, wherever that is.
    if (!this.timed) this.timed = this.held.some((e) => e.timestamp !== undefined);
    if (this.timed || last) {
      const growing = reading === undefined || this.held.some((e) => e.source.file === reading);
      const n = last || !growing ? this.held.length : this.held.length - HOLD_EVENTS;
      const unlike = n > 0 ? this.classify(t, subject, this.held.splice(0, n)) : undefined;
      if (unlike !== undefined) return this.whole(unlike);
    }
    if (this.cutShort && this.lateBound)
      return this.whole("the upper bound's record came again after items past it were left out");
    if (!this.unchanged()) return this.whole('an item already handed out changed');
    if (last && this.times.since_uuid !== undefined && this.sinceAt === undefined)
      return this.whole(`no record '${this.times.since_uuid}' in the lane`);
    if (last && this.times.until_uuid !== undefined && this.untilAt === undefined)
      return this.whole(`no record '${this.times.until_uuid}' in the lane`);
    return this.settled(last);
  }

  /** Keeps an event for classifying later; once the lane is known, gives it its place in the lane
   * and notes whether it is of a bound's record. */
  private hold(e: TranscriptEvent): void {
    this.held.push(e);
    this.heldSet.add(e);
    if (this.laneId === undefined) return;
    const place = this.placesGiven++;
    this.places.set(e, place);
    const { since_uuid, until_uuid } = this.times;
    if (since_uuid !== undefined && this.sinceAt === undefined && isOfRecord(e.id, since_uuid))
      this.sinceAt = place;
    if (until_uuid !== undefined && isOfRecord(e.id, until_uuid)) {
      if (this.cutShort) this.lateBound = true;
      this.untilAt = place;
    }
  }

  private whole(why: string): 'whole' {
    this.why = why;
    return 'whole';
  }

  /** Classifies the next events of the lane and queues their items; says why when they are not
   * those a whole read makes (an item handed out changed, a call forgotten was named). */
  private classify(t: Transcript, subject: Lane, events: TranscriptEvent[]): string | undefined {
    for (const e of events) this.heldSet.delete(e);
    const { since_uuid } = this.times;
    for (const e of events) {
      if (!isCompactSummary(e) || e.payload.text === '') continue;
      const text = e.payload.text;
      if (this.summaries.some((s) => s.includes(text)))
        return 'a compaction summary came after its compaction was read';
    }
    if (!this.classifier) {
      this.classifier = new Classifier(t, subject, this.times.agent_id === undefined);
      this.classifier.keepCalls(KEPT_CALLS);
    }
    this.classifier.push(events);
    if (this.classifier.stale !== undefined) return this.classifier.stale;
    const { items: made, sources } = this.classifier.result();
    made.forEach((item, i) => {
      // A compaction shown by its summary: a summary found in it later would have made it a bare note.
      const e = sources[i]!;
      if (e.kind === 'compaction' && e.payload.summary && (item as Fields).text === e.payload.summary)
        this.summaries.push(e.payload.summary);
      const place = this.places.get(e) ?? this.placesGiven;
      const selected =
        this.selection.keeps(item.type) &&
        (this.times.since_at === undefined || item.at >= this.times.since_at) &&
        (this.times.until_at === undefined || item.at <= this.times.until_at) &&
        (since_uuid === undefined || (this.sinceAt !== undefined && place >= this.sinceAt));
      const w: Waiting = { item, selected, place };
      this.waiting.push(w);
      this.waitingByUuid.set(item.uuid, w);
    });
    this.classifier.letGo();
    this.olderCalls = this.recentCalls;
    this.recentCalls = new Map();
    for (const e of events) {
      if (e.kind !== 'tool_call') continue;
      this.callIds.add(idHash(e.id));
      this.recentCalls.set(e.id, e);
      if (toolTypeName(e.payload.name) === 'Agent') this.spawningCalls.set(e.id, e);
    }
    return undefined;
  }

  /**
   * When the session's lanes changed (a subagent came to light), the classifier takes them, and a
   * spawning call it already read is brought up to date in place, as a whole read would have read
   * it. False when that cannot be done: a call read long ago, or one that now makes other items.
   */
  private learnLanes(t: Transcript, subject: Lane): boolean {
    const spawns = new Map<string, string>();
    for (const lane of t.agents)
      if (lane.spawnEventId !== undefined)
        spawns.set(lane.spawnEventId, JSON.stringify([lane.id, lane.title]));
    const shape = [subject.id, ...spawns.entries()].join('\u0000');
    const before = this.spawns;
    this.spawns = spawns;
    if (shape === this.laneShape) return true;
    this.laneShape = shape;
    if (!this.classifier) return true;
    this.classifier.learnLanes(t, subject);
    const moved = new Set<string>();
    for (const [id, lane] of spawns) if (before.get(id) !== lane) moved.add(id);
    for (const id of before.keys()) if (!spawns.has(id)) moved.add(id);
    for (const id of moved) {
      if (!this.callIds.has(idHash(id))) continue;
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
      const crowded = this.waiting.length - this.head > MAX_WAITING;
      let kept = this.keeps(w);
      if (kept === undefined) {
        // Past the latest event of the upper bound's record: it waits for another, or the end. Before
        // the first, nothing goes out however many wait: the record may not be there at all.
        if (!crowded || this.untilAt === undefined) break;
        this.cutShort = true;
        kept = false;
      }
      // An item the dump leaves out goes out of the queue open or not: nothing of it is written.
      const open = kept && isOpen(w.item);
      if (open && !last && !crowded) break;
      // A call whose result may yet be kept waits for that to be known: the dump's call names it.
      if (kept && !crowded && this.resultOpen(w.item)) break;
      this.head++;
      if (this.waitingByUuid.get(w.item.uuid) === w) this.waitingByUuid.delete(w.item.uuid);
      if (!kept) continue;
      const item = w.item;
      this.entries[item.type] = (this.entries[item.type] ?? 0) + 1;
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

  /**
   * Whether the dump keeps a waiting item; undefined while that hangs on an event of the upper
   * bound's record still to come.
   */
  private keeps(w: Waiting): boolean | undefined {
    if (!w.selected || this.times.until_uuid === undefined) return w.selected;
    if (this.untilAt !== undefined && w.place <= this.untilAt) return true;
    return this.ended ? false : undefined;
  }

  /** Whether the item names a result whose keeping is not known yet. */
  private resultOpen(item: TranscriptItem): boolean {
    const link = (item as Fields).result_item;
    const result = typeof link === 'string' ? this.waitingByUuid.get(link) : undefined;
    return result !== undefined && this.keeps(result) === undefined;
  }

  /** The item as the dump holds it, with the result it names when the dump holds that too. */
  private asDumped(item: TranscriptItem): SettledItem {
    const link = (item as Fields).result_item;
    if (typeof link !== 'string') return { item };
    // A result always comes after its call, so it is still waiting when the call goes out.
    const result = this.waitingByUuid.get(link);
    const kept = result && this.keeps(result);
    if (result && kept === undefined) this.cutShort = true;
    if (kept) return { item, result: result.item };
    const { result_item: _gone, ...rest } = item as TranscriptItem & { result_item?: string };
    return { item: rest as TranscriptItem };
  }
}
