// Per-session streams (`session:<agent>:<sid>`): the history first, then what each append adds, in
// spectral's frames, numbered so that a client resuming after the last number it saw gets no gap and
// no repeat.
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import { getHeapStatistics } from 'node:v8';
import type { TranscriptItem, WireRunState } from '@cairn/protocol';
import { sameItem, type Transcript, type TranscriptEvent } from '@cairn/transcript';
import type { Catalog, Loaded, TranscriptChange } from './catalog.js';
import { addItemsByEvent, FrameBuilder, itemsByEvent, type StreamFrame } from './frames.js';
import { headItems } from './head-items.js';
import { type HistoryChunking, HistoryChunks, type HistoryOf } from './history-chunks.js';
import type { LiveDelta } from './live-transcript.js';
import { runStateOf } from './run-state.js';
import { inSlices } from './slices.js';

export interface Subscriber {
  send(frame: object): void;
}

export interface StreamsOptions {
  readonly instance: string;
  /** A history whose JSON is longer than this goes in chunks. */
  readonly inlineHistoryBytes?: number;
  /** Items per history chunk. */
  readonly chunkItems?: number;
  /** A chunk whose JSON is longer than this travels gzipped, in base64. */
  readonly gzipChunkBytes?: number;
  /** How long a stream outlives its last subscriber, so a reconnect resumes against the same numbers. */
  readonly lingerMs?: number;
  /** The largest session (its files' bytes) a stream is opened for. */
  readonly maxOpenBytes?: number;
  /** Items, then events, a new stream takes between two turns of the event loop. */
  readonly fillSlice?: number;
}

/**
 * A followed session's transcript, items and frames are held in memory, at about four times its
 * bytes (a 300 MB rollout peaks near 1.2 GB, most of it heap), and running out of heap aborts the
 * daemon for everybody. So a session opens only when an eighth of the heap's limit holds it: 512 MB
 * under the usual 4 GB, which leaves room for a few such sessions at once.
 */
export const defaultMaxOpenBytes = (): number => Math.floor(getHeapStatistics().heap_size_limit / 8);

class SessionStream {
  /** Events in the order the stream first saw them, each as the latest read has it; an event's seq
   * is `base` plus its index here. */
  private log: TranscriptEvent[] = [];
  /** Where each event id stands in the log. */
  private logIndex = new Map<string, number>();
  /** The seq of the first event of the current numbering. */
  private base: number;
  loaded!: Loaded;
  private items = new Map<string, TranscriptItem[]>();
  readonly subs = new Set<Subscriber>();
  /** Subscribers whose history is still going out, with their live frames held until it ends. */
  readonly held = new Map<Subscriber, StreamFrame[]>();
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
    await inSlices(eventCount, slice, (from, end) => {
      for (let i = from; i < end; i++) this.logEvent(events[i]!);
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
  extension(loaded: Loaded): Map<string, TranscriptItem[]> | undefined {
    const items = itemsByEvent(loaded.lanes);
    const events = new Set(loaded.transcript.events.map((e) => e.id));
    for (const { id } of this.log) {
      if (!events.has(id) || !sameItems(this.items.get(id), items.get(id))) return undefined;
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
    for (; live.framed < end; live.framed++) {
      const seq = this.base + live.framed;
      const frames = live.builder.frames(this.log[live.framed]!, seq);
      this.keepRecent(live.framed, frames);
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

/** Every session stream of the server, fed by the catalog's changes. */
export class Streams {
  private readonly streams = new Map<string, SessionStream>();
  private readonly opening = new Map<string, Promise<SessionStream | string>>();
  /** Changes to sessions whose stream is still filling, to be taken once it is. */
  private readonly early = new Map<string, TranscriptChange[]>();
  /** The last seq of each stream that lingered out, so that its reopening numbers past it. */
  private readonly retiredSeq = new Map<string, number>();
  private readonly stopListening: () => void;
  private readonly busyTimer: NodeJS.Timeout;

  constructor(
    private readonly catalog: Catalog,
    private readonly options: StreamsOptions,
  ) {
    this.stopListening = catalog.onTranscript((change) => this.onChange(change));
    // A turn whose files went quiet ends by the clock, with no write to say so.
    this.busyTimer = setInterval(() => this.recheckBusy(), 5_000);
    this.busyTimer.unref();
  }

  close(): void {
    this.stopListening();
    clearInterval(this.busyTimer);
    for (const s of this.streams.values()) {
      clearTimeout(s.lingerTimer);
      this.catalog.unfollow(s.key);
    }
    this.streams.clear();
  }

  /**
   * Subscribes to a session. Without `afterSeq` (or with one this numbering of the stream does not
   * hold: a seq from before the file was replaced, or one never reached) the subscriber gets the whole
   * history first; with it, only what came after.
   */
  async subscribe(key: string, sub: Subscriber, afterSeq?: number): Promise<boolean> {
    const opening = this.open(key);
    if (afterSeq === undefined) await this.sendHead(key, sub);
    const stream = await opening;
    if (typeof stream === 'string') {
      // Said to the subscriber, who would otherwise wait for a history that never comes.
      const sid = this.catalog.get(key)?.sid ?? key;
      sub.send({ type: 'error', session_id: sid, seq: -1, message: stream });
      return false;
    }
    clearTimeout(stream.lingerTimer);
    stream.lingerTimer = undefined;
    stream.subs.add(sub);
    const resume = afterSeq !== undefined && afterSeq >= stream.firstResumable && afterSeq <= stream.lastSeq;
    if (resume) {
      for (const f of stream.framesAfter(afterSeq)) sub.send(f);
      sub.send(this.runStateFrame(stream));
    } else await this.sendReady(stream, sub);
    return true;
  }

  /**
   * While a long session's stream is still opening (its first read takes seconds), the first items of
   * its main file go out on their own, so that the subscriber draws a first screen meanwhile. Not
   * when the stream opened first: its history is as quick.
   */
  private async sendHead(key: string, sub: Subscriber): Promise<void> {
    const entry = this.catalog.get(key);
    if (!entry || this.streams.has(key)) return;
    try {
      const bytes = await this.catalog.sessionBytes(key);
      // One too large to open says so at once instead (see `open`).
      if (bytes < HEAD_PREVIEW_MIN_BYTES || bytes > (this.options.maxOpenBytes ?? defaultMaxOpenBytes()))
        return;
      const items = await headItems(this.catalog.platform(), entry.agent, entry.head.path);
      if (!items || items.length === 0 || this.streams.has(key)) return;
      sub.send({ type: 'transcript_head', session_id: entry.sid, seq: -1, sessionId: entry.sid, items });
    } catch {
      // A preview that cannot be read is no loss: the history follows.
    }
  }

  unsubscribe(key: string, sub: Subscriber): boolean {
    const stream = this.streams.get(key);
    if (!stream?.subs.delete(sub)) return false;
    if (stream.subs.size === 0) {
      stream.lingerTimer = setTimeout(() => {
        if (stream.subs.size > 0) return;
        this.streams.delete(key);
        // Unfollowed, the files may be replaced unseen: the next opening cannot resume this numbering.
        this.retiredSeq.set(key, stream.lastSeq);
        this.catalog.unfollow(key);
      }, this.options.lingerMs ?? 60_000);
      stream.lingerTimer.unref();
    }
    return true;
  }

  /** Drops a subscriber from every stream (its connection closed). */
  drop(sub: Subscriber): void {
    for (const [key, stream] of this.streams) if (stream.subs.has(sub)) this.unsubscribe(key, sub);
  }

  /** The session's stream, or why it cannot be opened. */
  private async open(key: string): Promise<SessionStream | string> {
    const existing = this.streams.get(key);
    if (existing) return existing;
    let pending = this.opening.get(key);
    if (!pending) {
      pending = (async () => {
        const entry = this.catalog.get(key);
        if (!entry) return 'the session is gone';
        const bytes = await this.catalog.sessionBytes(key);
        const limit = this.options.maxOpenBytes ?? defaultMaxOpenBytes();
        if (bytes > limit) return tooLarge(bytes, limit, this.options.maxOpenBytes === undefined);
        let loaded: Loaded | undefined;
        try {
          loaded = await this.catalog.follow(key);
        } catch (cause) {
          this.catalog.unfollow(key);
          return `the session could not be read: ${cause instanceof Error ? cause.message : String(cause)}`;
        }
        const latest = this.catalog.latestOf(key) ?? loaded;
        if (!latest) {
          this.catalog.unfollow(key);
          return `the session could not be opened${entry.error ? `: ${entry.error}` : ''}`;
        }
        const retired = this.retiredSeq.get(key);
        const base = retired === undefined ? 0 : nextBase(retired);
        const stream = new SessionStream(key, entry.agent, entry.sid, this.catalog.busy(entry), base);
        // What the catalog reads while the stream fills comes after `latest`: it waits, in order.
        const early: TranscriptChange[] = [];
        this.early.set(key, early);
        try {
          await stream.fill(latest, this.options.fillSlice ?? FILL_SLICE);
        } finally {
          this.early.delete(key);
        }
        this.streams.set(key, stream);
        for (const change of early) this.onChange(change);
        primeAside(stream);
        return stream;
      })().finally(() => this.opening.delete(key));
      this.opening.set(key, pending);
    }
    return pending;
  }

  private onChange(change: TranscriptChange): void {
    const stream = this.streams.get(change.key);
    if (!stream) {
      this.early.get(change.key)?.push(change);
      return;
    }
    const entry = this.catalog.get(change.key);
    const busy = entry ? this.catalog.busy(entry) : false;
    // What was streamed no longer holds: every subscriber starts again from the history.
    // A read on from the last one only adds (a change to what was streamed makes the read start over).
    const items = change.replaced || change.delta ? undefined : stream.extension(change);
    if (change.replaced || (!change.delta && !items)) {
      stream.reset(change);
      stream.busy = busy;
      // Each catch is only the last guard of the daemon, which an unhandled rejection would end.
      for (const sub of stream.subs) this.sendReady(stream, sub).catch(() => undefined);
      primeAside(stream);
      return;
    }
    const before = change.delta ? stream.append(change, change.delta) : stream.take(change, items);
    if (stream.lastSeq > before && stream.subs.size > 0) {
      const frames = stream.liveFramesAfter(before);
      for (const sub of stream.subs) for (const f of frames) deliver(stream, sub, f);
    }
    if (busy !== stream.busy) {
      stream.busy = busy;
      this.broadcastRunState(stream);
    }
  }

  private recheckBusy(): void {
    for (const stream of this.streams.values()) {
      const entry = this.catalog.get(stream.key);
      const busy = entry ? this.catalog.busy(entry) : false;
      if (busy === stream.busy) continue;
      stream.busy = busy;
      this.broadcastRunState(stream);
    }
  }

  private broadcastRunState(stream: SessionStream): void {
    for (const sub of stream.subs) deliver(stream, sub, this.runStateFrame(stream));
  }

  private runStateFrame(stream: SessionStream): StreamFrame {
    return {
      type: 'run_state',
      session_id: stream.sid,
      seq: stream.lastSeq,
      sessionId: stream.sid,
      runState: stream.runState(),
    };
  }

  private chunking(): HistoryChunking {
    const per = this.options.chunkItems ?? 1000;
    return {
      per,
      // The first chunk is a screenful or so, to be drawn while the larger ones after it travel.
      first: Math.min(per, FIRST_CHUNK_ITEMS),
      inlineBytes: this.options.inlineHistoryBytes ?? 256 * 1024,
      gzipBytes: this.options.gzipChunkBytes ?? 64 * 1024,
    };
  }

  /**
   * `transcript_ready`, or for a long history `transcript_ready_start`, its chunks and `transcript_ready_end`.
   * A long history goes out a chunk at a time, compressed off the daemon's thread, so that others
   * are answered meanwhile; the subscriber's live frames wait for its end, and a newer history (the
   * stream numbered again) or leaving the stream ends it.
   */
  private async sendReady(stream: SessionStream, sub: Subscriber): Promise<void> {
    const items = stream.historyItems();
    const seq = stream.lastSeq;
    const common = {
      session_id: stream.sid,
      seq,
      sessionId: stream.sid,
      agent: stream.agent,
      instance: this.options.instance,
      totalMessageCount: items.length,
      loadedMessageCount: items.length,
      hasEarlierMessages: false,
      currentTurn: null,
      contextWindowUsed: contextWindowUsed(stream.transcript),
      contextWindowMax: null,
      runState: stream.runState(),
    };
    const history = stream.historyChunks({ sid: stream.sid, seq, items }, this.chunking());
    if (history.fitsInline()) {
      sub.send({ type: 'transcript_ready', ...common, history: items });
      return;
    }
    const held: StreamFrame[] = [];
    stream.held.set(sub, held);
    const current = () => stream.held.get(sub) === held && stream.subs.has(sub);
    try {
      sub.send({
        type: 'transcript_ready_start',
        ...common,
        totalChunks: history.chunks.length,
        totalMessages: items.length,
      });
      // A few chunks are gzipped on the pool while the next ones are serialized here; they go out in
      // order. Each chunk is made once for every subscriber of this history (see HistoryChunks).
      const pending: Promise<StreamFrame>[] = [];
      const sendOldest = async (): Promise<boolean> => {
        const frame = await pending.shift()!;
        // Subscribers arriving together find their chunks made at once: each lets the others (and
        // every other client) in between two of its sends, rather than sending its whole history.
        await setImmediate();
        if (!current()) return false;
        sub.send(frame);
        return true;
      };
      for (const index of history.chunks.keys()) {
        pending.push(history.frame(index));
        if (pending.length >= CHUNKS_AHEAD && !(await sendOldest())) return;
      }
      while (pending.length > 0) if (!(await sendOldest())) return;
      sub.send({
        type: 'transcript_ready_end',
        session_id: stream.sid,
        seq,
        sessionId: stream.sid,
        totalMessages: items.length,
      });
    } finally {
      if (stream.held.get(sub) === held) {
        stream.held.delete(sub);
        if (stream.subs.has(sub)) for (const f of held) sub.send(f);
      }
    }
  }
}

/**
 * Where a new numbering starts after one whose last seq was `lastSeq`: two past it, so that even an
 * empty history's seq (one past) is one no earlier frame carried. A client's `after_seq` from the old
 * numbering then never passes for one of the new, and it gets the history again.
 */
const nextBase = (lastSeq: number): number => lastSeq + 2;

/** Items of a long history's first chunk. */
const FIRST_CHUNK_ITEMS = 200;

/** A session whose main file is longer than this is previewed by its head while it is first read. */
const HEAD_PREVIEW_MIN_BYTES = 2 * 1024 * 1024;

/** History chunks being gzipped at once while a long history goes out. */
const CHUNKS_AHEAD = 4;

/** Primes a stream's live builder beside other work; a failure shows again at the next append,
 * which frames the rest of the log itself. */
const primeAside = (stream: SessionStream): void => {
  stream.prime().catch(() => undefined);
};

/** Sends a live frame, or holds it while the subscriber's history is still going out. */
function deliver(stream: SessionStream, sub: Subscriber, frame: StreamFrame): void {
  const held = stream.held.get(sub);
  if (held) held.push(frame);
  else sub.send(frame);
}

/** How many of the latest events' frames a stream keeps for clients that resume (at least). */
const RECENT_EVENTS = 10_000;
/** Events the live builder frames between two turns of the event loop while it primes. */
const PRIME_SLICE = 5_000;
/** Items, then events, a new stream takes between two turns of the event loop. */
const FILL_SLICE = 5_000;
/** How long priming waits before it looks again whether the histories have gone out. */
const PRIME_WAIT_MS = 20;

const megabytes = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/**
 * Why a session of `bytes` is not opened under `limit`; when the limit comes from the heap's, the
 * heap (in whole GB) a daemon would need to open it, since its limit is an eighth of that.
 */
export function tooLarge(bytes: number, limit: number, fromHeap: boolean): string {
  const why = `the session is ${megabytes(bytes)}, more than the ${megabytes(limit)} this daemon can hold in memory to show it; its summary, search and dumps still work`;
  if (!fromHeap) return why;
  const heapMb = Math.ceil((bytes * 8) / 1024 ** 3) * 1024;
  return `${why}. A daemon started with NODE_OPTIONS=--max-old-space-size=${heapMb} can open it, if the machine has the memory`;
}

/** Whether two lists of an event's items are the same items (their fields aside). */
const sameItems = (a: readonly TranscriptItem[] = [], b: readonly TranscriptItem[] = []): boolean =>
  a.length === b.length && a.every((x, i) => sameItem(x, b[i]!));

/** The input tokens of the main lane's last request: what the context held then. */
function contextWindowUsed(t: Transcript): number | null {
  const main = t.agents.find((a) => a.parentId === undefined)?.id;
  for (let i = t.events.length - 1; i >= 0; i--) {
    const e = t.events[i]!;
    if (e.kind === 'request' && e.agentId === main && e.payload.usage) return e.payload.usage.inputTokens;
  }
  return null;
}
