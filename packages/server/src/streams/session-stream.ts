// One session's stream: its events numbered in the order the stream first saw them, the history
// and live frames built from them, and the subscribers it sends to. `streams.ts` opens, feeds and
// closes these.
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import type { HistoryTail, TranscriptItem, WireRunState } from '@cairn/protocol';
import { sameItem, type Transcript, type TranscriptEvent } from '@cairn/transcript';
import type { Loaded } from '../reader/catalog.js';
import type { LiveDelta } from '../reader/live-transcript.js';
import { runStateOf } from '../reader/run-state.js';
import { inSlices } from '../reader/slices.js';
import {
  addItemsByEvent,
  type EventItems,
  eventItems,
  FrameBuilder,
  itemsByEvent,
  type StreamFrame,
} from './frames.js';
import { type HistoryChunking, HistoryChunks, type HistoryOf } from './history-chunks.js';

export interface Subscriber {
  send(frame: object): void;
}

export class SessionStream {
  /** Events in the order the stream first saw them, each as the latest read has it; an event's seq
   * is `base` plus its index here. */
  private log: TranscriptEvent[] = [];
  /** Where each event id stands in the log; made when first asked for (see `fill`). */
  private logIndex: Map<string, number> | undefined = new Map();
  /** The seq of the first event of the current numbering. */
  private base: number;
  loaded!: Loaded;
  private items: EventItems = new Map();
  readonly subs = new Set<Subscriber>();
  /** Subscribers whose history is still going out, with their live frames held until it ends. */
  readonly held = new Map<Subscriber, StreamFrame[]>();
  /** Subscribers that asked for only the end of a long history, with how much of it. */
  readonly tails = new Map<Subscriber, HistoryTail>();
  busy = false;
  lingerTimer: NodeJS.Timeout | undefined;
  /** The builder of the live frames and how many events of the log it has framed; it carries on
   * from append to append, so that framing an append costs what the append holds. */
  private live: LiveBuilder | undefined;
  /** The frames the live builder made for the log's latest events, oldest first: event
   * `recentFrom + k`'s at `k`. A client resuming after a seq among them is answered from here. */
  private recent: StreamFrame[][] = [];
  private recentFrom = 0;
  /** The latest history's chunk frames, made once for all its subscribers; a newer history (or
   * numbering) replaces them, and they go with the stream. */
  private history: HistoryChunks | undefined;

  /** A stream with nothing taken yet: `fill` takes its first transcript. */
  constructor(
    readonly key: string,
    readonly agent: string,
    readonly sid: string,
    busy: boolean,
    base: number,
  ) {
    this.base = base;
    this.busy = busy;
  }

  /**
   * Takes the first transcript as `take` does, a slice at a time, letting others in between. A read
   * meanwhile extends the transcript's event list and the lanes' items in place, and its change is
   * taken after this (see `Streams.early`): so only what they held at the start is taken here.
   */
  async fill(loaded: Loaded, slice: number): Promise<void> {
    this.loaded = loaded;
    const lanes = loaded.lanes.map((lane) => ({
      lane: { ...lane },
      count: lane.classification.items.length,
    }));
    const events = loaded.transcript.events;
    const eventCount = events.length;
    for (const { lane, count } of lanes)
      await inSlices(count, slice, (from, end) => addItemsByEvent(this.items, lane, from, end));
    // The events of one transcript have distinct ids: they are logged in order, and the index of the
    // log is made only when a later transcript is taken, so that a session only read holds none.
    const fresh = this.log.length === 0;
    if (fresh) this.logIndex = undefined;
    await inSlices(eventCount, slice, (from, end) => {
      for (let i = from; i < end; i++) {
        if (fresh && this.logIndex === undefined) this.log.push(events[i]!);
        else this.logEvent(events[i]!);
      }
    });
  }

  get lastSeq(): number {
    return this.base + this.log.length - 1;
  }

  /** The lowest `after_seq` a client may resume from: the seq of this numbering's empty history. */
  get firstResumable(): number {
    return this.base - 1;
  }

  /** Numbers `loaded` afresh, past every seq this stream has sent (see `nextBase`). */
  reset(loaded: Loaded): void {
    this.dropLive();
    this.history = undefined;
    this.base = nextBase(this.lastSeq);
    this.log = [];
    this.logIndex = new Map();
    this.take(loaded);
  }

  /**
   * The items of each event of a newer transcript, when it only adds to this one: every event
   * already streamed is still there and still makes the same items. An adapter may read a record
   * differently once later ones arrive (Codex writes some messages twice and keeps one); then what
   * was streamed no longer holds, and this answers undefined.
   */
  extension(loaded: Loaded): EventItems | undefined {
    const items = itemsByEvent(loaded.lanes);
    const events = new Set(loaded.transcript.events.map((e) => e.id));
    for (const { id } of this.log) {
      if (!events.has(id) || !sameItems(eventItems(this.items, id), eventItems(items, id))) return undefined;
    }
    return items;
  }

  /**
   * Takes a newer transcript that extends this one (see `extension`), with its items by event;
   * answers the seq before the first new event. The live builder goes on: what it framed still holds.
   */
  take(loaded: Loaded, items = itemsByEvent(loaded.lanes)): number {
    const before = this.lastSeq;
    this.loaded = loaded;
    this.items = items;
    const from = this.log.length;
    // Every event streamed before is still there: each is replaced by its latest read.
    for (const e of loaded.transcript.events) this.logEvent(e);
    this.live?.builder.useItems(items);
    this.live?.builder.extend(this.transcript, this.log.slice(from));
    return before;
  }

  /** Takes what a read on from the last one added (see LiveDelta); answers the seq before the first new event. */
  append(loaded: Loaded, delta: LiveDelta): number {
    const before = this.lastSeq;
    this.loaded = loaded;
    for (const [lane, from] of delta.newItems) addItemsByEvent(this.items, lane, from);
    for (const e of delta.added) this.logEvent(e);
    this.live?.builder.extend(this.transcript, delta.added);
    return before;
  }

  private logEvent(e: TranscriptEvent): void {
    this.logIndex ??= new Map(this.log.map((logged, i) => [logged.id, i]));
    const index = this.logIndex.get(e.id);
    if (index !== undefined) this.log[index] = e;
    else {
      this.logIndex.set(e.id, this.log.length);
      this.log.push(e);
    }
  }

  /**
   * Makes the live builder now, so that the first append after a history costs no more than the
   * rest. It frames a long log a slice at a time, letting others in between, and waits while a
   * history goes out, which a subscriber is waiting for; an append meanwhile carries on from where
   * it got to, and a new numbering ends it.
   */
  async prime(): Promise<void> {
    this.live ??= this.newLiveBuilder();
    const live = this.live;
    // A long transcript's events are learned a slice at a time too (appends meanwhile are learned
    // as they come: the builder takes events in any order).
    while (this.live === live && live.learned < this.transcript.events.length) {
      this.learn(live, live.learned + PRIME_SLICE);
      await setImmediate();
    }
    while (this.live === live && live.framed < this.log.length) {
      if (this.held.size > 0) {
        await sleep(PRIME_WAIT_MS);
        continue;
      }
      this.frameLog(this.lastSeq, Math.min(this.log.length, live.framed + PRIME_SLICE));
      await setImmediate();
    }
  }

  /** The frames of the events after `afterSeq` as the live builder makes them, carrying on from the
   * events it framed before (made first by framing the log from the start). */
  liveFramesAfter(afterSeq: number): StreamFrame[] {
    this.liveBuilder();
    return this.frameLog(afterSeq, this.log.length);
  }

  private dropLive(): void {
    this.live = undefined;
    this.recent = [];
    this.recentFrom = 0;
  }

  /** The live builder, every event of the transcript learned. */
  private liveBuilder(): LiveBuilder {
    this.live ??= this.newLiveBuilder();
    this.learn(this.live, Number.POSITIVE_INFINITY);
    return this.live;
  }

  private newLiveBuilder(): LiveBuilder {
    return { builder: new FrameBuilder(this.transcript, this.sid, this.items, false), framed: 0, learned: 0 };
  }

  /** Has the live builder learn the transcript's events on to index `end`. */
  private learn(live: LiveBuilder, end: number): void {
    const events = this.transcript.events;
    if (live.learned >= events.length) return;
    const to = Math.min(end, events.length);
    live.builder.extend(this.transcript, events.slice(live.learned, to));
    live.learned = to;
  }

  /** Frames the log on to index `end` with the live builder; answers the frames past `afterSeq`. */
  private frameLog(afterSeq: number, end: number): StreamFrame[] {
    const live = this.liveBuilder();
    const out: StreamFrame[] = [];
    // Frames of events further back than the kept window would only be trimmed from it later: they
    // are not kept at all, so that framing a long log leaves no trail of them for the collector.
    const keepFrom = this.log.length - RECENT_EVENTS;
    for (; live.framed < end; live.framed++) {
      const seq = this.base + live.framed;
      const frames = live.builder.frames(this.log[live.framed]!, seq);
      if (live.framed >= keepFrom) this.keepRecent(live.framed, frames);
      // The kept frames must run on without a gap to the newest.
      else if (this.recent.length > 0) this.recent = [];
      if (seq > afterSeq) out.push(...frames);
    }
    return out;
  }

  private keepRecent(index: number, frames: StreamFrame[]): void {
    if (this.recent.length === 0) this.recentFrom = index;
    this.recent.push(frames);
    // Trimmed a half at a time, so that keeping costs the same per event however long the log.
    if (this.recent.length >= 2 * RECENT_EVENTS) {
      const drop = this.recent.length - RECENT_EVENTS;
      this.recent.splice(0, drop);
      this.recentFrom += drop;
    }
  }

  get transcript(): Transcript {
    return this.loaded.transcript;
  }

  /** The chunk frames of `history`: those made for an earlier subscriber while it is the same. */
  historyChunks(history: HistoryOf, chunking: HistoryChunking): HistoryChunks {
    if (!this.history?.holds(history, chunking)) this.history = new HistoryChunks(history, chunking);
    return this.history;
  }

  /** The main lane's items: what the history shows. */
  historyItems(): TranscriptItem[] {
    return this.loaded.lanes.find((l) => l.agentId === undefined)?.classification.items ?? [];
  }

  /**
   * Spectral frames of the events after `afterSeq`, as a live stream sent them: the live builder's
   * own, framing on to the end of the log, when it kept those events' (a client back after a short
   * absence), else the whole log framed again, which costs what the log holds.
   */
  framesAfter(afterSeq: number): StreamFrame[] {
    const from = afterSeq + 1 - this.base;
    if (this.live) {
      this.frameLog(this.lastSeq, this.log.length);
      if (from >= this.recentFrom) return this.recent.slice(from - this.recentFrom).flat();
    }
    const builder = new FrameBuilder(this.transcript, this.sid, this.items);
    const out: StreamFrame[] = [];
    this.log.forEach((e, index) => {
      const seq = this.base + index;
      const frames = builder.frames(e, seq);
      if (seq > afterSeq) out.push(...frames);
    });
    return out;
  }

  runState(): WireRunState {
    return runStateOf(this.transcript, this.busy);
  }
}

/**
 * The builder of a stream's live frames: how many of the transcript's events it has learned (what
 * framing an event may need from later ones: its request, the request's last output) and how many
 * of the log's events it has framed.
 */
interface LiveBuilder {
  builder: FrameBuilder;
  framed: number;
  learned: number;
}

/**
 * Where a new numbering starts after one whose last seq was `lastSeq`: two past it, so that even an
 * empty history's seq (one past) is one no earlier frame carried. A client's `after_seq` from the old
 * numbering then never passes for one of the new, and it gets the history again.
 */
export const nextBase = (lastSeq: number): number => lastSeq + 2;

/** How many of the latest events' frames a stream keeps for clients that resume (at least). */
const RECENT_EVENTS = 10_000;
/** Events the live builder frames between two turns of the event loop while it primes. */
const PRIME_SLICE = 5_000;
/** How long priming waits before it looks again whether the histories have gone out. */
const PRIME_WAIT_MS = 20;

/** Whether two lists of an event's items are the same items (their fields aside). */
const sameItems = (a: readonly TranscriptItem[], b: readonly TranscriptItem[]): boolean =>
  a.length === b.length && a.every((x, i) => sameItem(x, b[i]!));
