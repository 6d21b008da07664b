// Per-session streams (`session:<agent>:<sid>`): the history first, then what each append adds, in
// spectral's frames, numbered so that a client resuming after the last number it saw gets no gap and
// no repeat.
import { setImmediate } from 'node:timers/promises';
import { getHeapStatistics } from 'node:v8';
import type { HistoryTail } from '@cairn/protocol';
import type { Transcript } from '@cairn/transcript';
import type { Catalog, Loaded, TranscriptChange } from '../reader/catalog.js';
import { edgeItems, itemsAround } from '../reader/head-items.js';
import type { StreamFrame } from './frames.js';
import type { HistoryChunking } from './history-chunks.js';
import { nextBase, SessionStream, type Subscriber } from './session-stream.js';

export type { Subscriber } from './session-stream.js';

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
   * history first (or, with `history` a tail, only the end of a long one); with it, only what came
   * after.
   */
  async subscribe(
    key: string,
    sub: Subscriber,
    afterSeq?: number,
    history: 'all' | HistoryTail = 'all',
  ): Promise<boolean> {
    const opening = this.open(key);
    if (afterSeq === undefined) await this.sendHead(key, sub, history);
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
    // Kept for the histories sent again when the session is numbered afresh.
    if (history === 'all') stream.tails.delete(sub);
    else stream.tails.set(sub, history);
    const resume = afterSeq !== undefined && afterSeq >= stream.firstResumable && afterSeq <= stream.lastSeq;
    if (resume) {
      for (const f of stream.framesAfter(afterSeq)) sub.send(f);
      sub.send(this.runStateFrame(stream));
    } else await this.sendReady(stream, sub);
    return true;
  }

  /**
   * While a long session's stream is still opening (its first read takes seconds), the first items of
   * its main file go out on their own, so that the subscriber draws a first screen meanwhile; to one
   * that asked for the history's tail, the last items, read from the file's end, and to one that
   * asked for it around an item (a link), the items around that one. Not when the stream opened
   * first: its history is as quick.
   */
  private async sendHead(key: string, sub: Subscriber, history: 'all' | HistoryTail): Promise<void> {
    const entry = this.catalog.get(key);
    if (!entry || this.streams.has(key)) return;
    try {
      const bytes = await this.catalog.sessionBytes(key);
      // One too large to open says so at once instead (see `open`).
      if (bytes < HEAD_PREVIEW_MIN_BYTES || bytes > (this.options.maxOpenBytes ?? defaultMaxOpenBytes()))
        return;
      const platform = this.catalog.platform();
      const atEnd = history !== 'all' && history.tail > 0;
      const around = history !== 'all' ? history.around : undefined;
      // A link's item, when its record can be found; else the head, as for any other opening.
      const near = around && (await itemsAround(platform, entry.agent, entry.head.path, around));
      const edge = near ? 'around' : atEnd ? 'end' : undefined;
      const items =
        near || (await edgeItems(platform, entry.agent, entry.head.path, atEnd ? 'end' : 'start'));
      if (!items || items.length === 0 || this.streams.has(key)) return;
      sub.send({
        type: 'transcript_head',
        session_id: entry.sid,
        seq: -1,
        sessionId: entry.sid,
        items,
        ...(edge ? { edge } : {}),
      });
    } catch {
      // A preview that cannot be read is no loss: the history follows.
    }
  }

  unsubscribe(key: string, sub: Subscriber): boolean {
    const stream = this.streams.get(key);
    if (!stream?.subs.delete(sub)) return false;
    stream.tails.delete(sub);
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
    const tail = tailOf(items, stream.tails.get(sub));
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
    if (tail) {
      // The end of a long history, which the subscriber asked for instead of the whole: it is short.
      sub.send({
        type: 'transcript_ready',
        ...common,
        loadedMessageCount: tail.length,
        hasEarlierMessages: true,
        history: tail,
      });
      return;
    }
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

/** The last items of a history longer than the subscriber wants whole, or undefined for the whole. */
function tailOf<T>(items: readonly T[], want: HistoryTail | undefined): T[] | undefined {
  if (!want || items.length <= Math.max(want.tail, want.whole_up_to ?? 0)) return undefined;
  return want.tail === 0 ? [] : items.slice(-want.tail);
}

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

/** Items, then events, a new stream takes between two turns of the event loop. */
const FILL_SLICE = 5_000;

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

/** The input tokens of the main lane's last request: what the context held then. */
function contextWindowUsed(t: Transcript): number | null {
  const main = t.agents.find((a) => a.parentId === undefined)?.id;
  for (let i = t.events.length - 1; i >= 0; i--) {
    const e = t.events[i]!;
    if (e.kind === 'request' && e.agentId === main && e.payload.usage) return e.payload.usage.inputTokens;
  }
  return null;
}
