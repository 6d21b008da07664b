// A session's items as they arrive: the history in chunks, then what the agent appends, into one
// Timeline. Subagent lanes are read on demand. A reconnect resumes after the last frame seen.
import type { OpArgs } from '@cairn/protocol';
import type { Connection, Reply } from '../rpc.js';
import { type Item, str } from '../timeline/item.js';
import { MAIN_LANE, type Timeline } from '../timeline/model.js';
import { type Checked, checkItems, checkTopicFrame } from '../wire-check.js';
import { chunkItems, inlineItems } from './history.js';

/** Every item type, attachments included: the view decides what to hide. */
export const ALL_TYPES = ['message', 'thinking', 'notice', 'system', 'hook', 'tool'];

// The first page is small so the first screen comes quickly; later pages are large.
const FIRST_PAGE = 400;
const PAGE = 4000;

export interface FeedState {
  /** The whole history is in. */
  readonly loaded: boolean;
  /** Items the history holds, when the server said. */
  readonly total: number | undefined;
  /** The agent is in the middle of a turn, as far as its files show. */
  readonly busy: boolean;
  readonly error: string | undefined;
  /** Milliseconds from start to the first items shown, for the record. */
  readonly firstItemsMs: number | undefined;
}

type Frame = Record<string, unknown>;

/** Resolves after the browser had a chance to paint. */
const nextFrame = (): Promise<void> =>
  new Promise((resolve) => {
    if (document.hidden) setTimeout(resolve, 0);
    else requestAnimationFrame(() => setTimeout(resolve, 0));
  });

export class SessionFeed {
  state: FeedState = {
    loaded: false,
    total: undefined,
    busy: false,
    error: undefined,
    firstItemsMs: undefined,
  };
  private readonly listeners = new Set<() => void>();
  private unsubscribe: (() => void) | undefined;
  private queue: Promise<void> = Promise.resolve();
  private lastSeq: number | undefined;
  private lastCursor: string | undefined;
  private stopped = false;
  private readonly started = performance.now();
  private readonly laneLoads = new Map<string, Promise<void>>();

  constructor(
    private readonly conn: Connection,
    readonly agent: string,
    readonly sid: string,
    readonly timeline: Timeline,
  ) {}

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private set(patch: Partial<FeedState>): void {
    this.state = { ...this.state, ...patch };
    for (const l of this.listeners) l();
  }

  start(): void {
    // Marks for measuring how soon a session shows (read by the browser tests and the bench).
    performance.mark('cairn:session-open');
    this.timeline.setStatus(MAIN_LANE, 'loading');
    this.follow(`session:${this.agent}:${this.sid}`, () => {
      // No session stream: read the history by pages, then follow what is appended after it.
      void this.readPages(MAIN_LANE).then(() => {
        this.set({ loaded: true });
        if (!this.stopped) this.follow(`transcript_items:${this.sid}`, () => {});
      });
    });
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe?.();
  }

  /** Subscribes to a topic carrying the session's frames; when the server refuses it, `fallback`. */
  private follow(topic: string, fallback: () => void): void {
    const sid = this.sid;
    let answered = false;
    const unsubscribe = this.conn.subscribe({
      topic,
      resume: () => {
        if (this.lastCursor !== undefined) return { cursor: this.lastCursor };
        if (this.lastSeq !== undefined) return { after_seq: this.lastSeq };
        return {};
      },
      accepts: (f) => f.session_id === sid || f.sessionId === sid,
      onFrame: (f) => this.enqueue(() => this.frame(f)),
      onSubscribed: (reply: Reply<unknown>) => {
        if (answered) return;
        answered = true;
        if (reply.ok) return;
        unsubscribe();
        if (this.unsubscribe === unsubscribe) this.unsubscribe = undefined;
        fallback();
      },
    });
    this.unsubscribe = unsubscribe;
  }

  private enqueue(work: () => Promise<void> | void): void {
    this.queue = this.queue.then(work).catch((e: unknown) => {
      this.set({ error: e instanceof Error ? e.message : String(e) });
    });
  }

  private async frame(f: Frame): Promise<void> {
    if (this.stopped) return;
    if (typeof f.seq === 'number') this.lastSeq = Math.max(this.lastSeq ?? 0, f.seq);
    switch (f.type) {
      case 'session_ready':
        performance.mark('cairn:history');
        this.beginHistory(f);
        this.add(MAIN_LANE, inlineItems(f));
        this.endHistory();
        return;
      case 'session_ready_start':
        performance.mark('cairn:history');
        this.beginHistory(f);
        return;
      case 'history_chunk':
        this.add(MAIN_LANE, await chunkItems(f));
        // Let the page draw what it has before the next chunk, so the first screen comes first.
        await nextFrame();
        return;
      case 'session_ready_end':
        this.endHistory();
        return;
      case 'run_state': {
        const rs = f.runState ?? f.run_state;
        const busy = typeof rs === 'object' && rs !== null && (rs as Frame).busy === true;
        this.set({ busy });
        return;
      }
      default:
        break;
    }
    if (f.ev === 'topic') {
      const checked = checkTopicFrame(f);
      if (!checked.ok) {
        this.refuse(checked);
        return;
      }
      const data = f.data as Frame;
      if (typeof data.cursor === 'string') this.lastCursor = data.cursor;
      // A snapshot is the whole history (again, when the file was replaced).
      if (f.snapshot === true) this.beginHistory(f);
      this.add(typeof data.agent_id === 'string' ? data.agent_id : MAIN_LANE, inlineItems(data));
      if (f.snapshot === true) this.endHistory();
      return;
    }
    if (typeof f.cursor === 'string') this.lastCursor = f.cursor;
    const lane = str(f as Item, 'agent_id') ?? MAIN_LANE;
    this.add(lane, inlineItems(f));
  }

  private beginHistory(f: Frame): void {
    // A history is always the whole of it: a resumed stream sends only what was missed, and sends a
    // history again only when the file was replaced.
    if (this.timeline.items(MAIN_LANE).length > 0) this.timeline.clear();
    this.timeline.setStatus(MAIN_LANE, 'loading');
    const total =
      typeof f.totalMessages === 'number'
        ? f.totalMessages
        : typeof f.total === 'number'
          ? f.total
          : undefined;
    if (total !== undefined) this.set({ total });
    const rs = f.runState;
    if (typeof rs === 'object' && rs !== null) this.set({ busy: (rs as Frame).busy === true });
  }

  private endHistory(): void {
    this.timeline.setStatus(MAIN_LANE, 'ready');
    this.set({ loaded: true });
  }

  private refuse(checked: Extract<Checked, { ok: false }>): void {
    this.set({ error: `refused a frame that breaks the contract: ${checked.message}` });
  }

  private add(lane: string, items: Item[]): void {
    if (items.length === 0) return;
    const checked = checkItems(items);
    if (!checked.ok) {
      this.refuse(checked);
      return;
    }
    // A subagent lane nobody opened is read whole when it is opened.
    if (lane !== MAIN_LANE && this.timeline.status(lane) === 'idle') return;
    this.timeline.append(lane, items);
    if (this.state.firstItemsMs === undefined) this.firstItems();
  }

  private firstItems(): void {
    performance.mark('cairn:first-items');
    this.set({ firstItemsMs: performance.now() - this.started });
  }

  /** Reads a lane's items page by page (the session's own when the stream is unavailable). */
  private async readPages(lane: string): Promise<void> {
    this.timeline.setStatus(lane, 'loading');
    let cursor: string | undefined;
    let limit = FIRST_PAGE;
    for (;;) {
      const args: Record<string, unknown> = { sid: this.sid, agent: this.agent, types: ALL_TYPES, limit };
      if (lane !== MAIN_LANE) args.agent_id = lane;
      if (cursor !== undefined) args.cursor = cursor;
      const reply = await this.conn.request('transcript_items_read', args as OpArgs<'transcript_items_read'>);
      if (this.stopped) return;
      if (!reply.ok) {
        this.timeline.setStatus(lane, 'error', reply.error.message);
        if (lane === MAIN_LANE) this.set({ error: reply.error.message });
        return;
      }
      if (lane === MAIN_LANE && this.state.total === undefined) this.set({ total: reply.value.total });
      this.timeline.append(lane, reply.value.items);
      if (lane === MAIN_LANE && this.state.firstItemsMs === undefined) this.firstItems();
      cursor = reply.value.next_cursor;
      if (cursor === undefined) break;
      limit = PAGE;
      await nextFrame();
    }
    this.timeline.setStatus(lane, 'ready');
  }

  /** Opens a subagent lane in place, reading its items the first time. */
  openLane(agentId: string): void {
    this.timeline.setOpen(agentId, true);
    if (!this.laneLoads.has(agentId)) this.laneLoads.set(agentId, this.readPages(agentId));
  }

  closeLane(agentId: string): void {
    this.timeline.setOpen(agentId, false);
  }

  /** Resolves when the lane's items are in. */
  laneReady(agentId: string): Promise<void> {
    return this.laneLoads.get(agentId) ?? Promise.resolve();
  }
}
