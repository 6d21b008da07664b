// A session's items as they arrive: the history in chunks, then what the agent appends, into one
// Timeline. Subagent lanes are read on demand. A reconnect resumes after the last frame seen.
import { type OpArgs, type SessionStreamFrame, sessionTopic } from '@cairn/protocol';
import type { Connection, Reply } from '../rpc.js';
import type { Item } from '../timeline/item.js';
import { MAIN_LANE, type Timeline } from '../timeline/model.js';
import { type Checked, checkItems, checkStreamFrame } from '../wire-check.js';
import { unzipJson } from './history.js';
import { RedrawPace } from './redraw-pace.js';
import { lastSeqAfter } from './resume.js';
import { LaneWindow, WINDOW_MIN_ITEMS, WINDOW_PAGE } from './window.js';
import { yieldToPage } from './yield-to-page.js';

/** Every item type, attachments included: the view decides what to hide. */
export const ALL_TYPES = ['message', 'thinking', 'notice', 'system', 'hook', 'tool'];

// The first page is small so the first screen comes quickly; later pages are large.
const FIRST_PAGE = 400;
const PAGE = 4000;
/** The page a reader opened away from the session's start (at its tail, or at a linked item) is
 * shown first, while the history streams in from the start. */
const OPENING_PAGE = 600;
/** A history shorter than this is in as quickly as the page would be: it is not worth the request. */
const OPENING_PAGE_MIN_HISTORY = 2 * OPENING_PAGE;

/** Where the reader opens when not at the session's start: the first screen it asks for. */
export type Opening = { readonly tail: true } | { readonly uuid: string };

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
  /** The session's own lane shows a preview (`transcript_head`) until the history comes: rows to
   * read, not to link to (a preview read from the file's end names its items by the part read). */
  readonly preview: boolean;
}

/** Resolves after the browser had a chance to paint. */
const nextFrame = (): Promise<void> =>
  new Promise((resolve) => {
    // A hidden tab paints no frames (nor does a feed outside a page).
    if (typeof document === 'undefined' || document.hidden) setTimeout(resolve, 0);
    else requestAnimationFrame(() => setTimeout(resolve, 0));
  });

export class SessionFeed {
  state: FeedState = {
    loaded: false,
    total: undefined,
    busy: false,
    error: undefined,
    firstItemsMs: undefined,
    preview: false,
  };
  private readonly listeners = new Set<() => void>();
  private unsubscribe: (() => void) | undefined;
  private queue: Promise<void> = Promise.resolve();
  private lastSeq: number | undefined;
  private stopped = false;
  private readonly started = performance.now();
  private readonly laneLoads = new Map<string, Promise<void>>();
  /** The main lane holds a preview (`transcript_head`), not yet the history. */
  private get preview(): boolean {
    return this.state.preview;
  }
  private set preview(on: boolean) {
    if (this.state.preview !== on) this.set({ preview: on });
  }
  /** A history began while a preview was drawn: its first items replace the preview. */
  private replacing = false;
  /** History items received but not drawn yet: a long history is drawn now and then, not per chunk. */
  private gathered: Item[] = [];
  private pace = new RedrawPace();
  private opening: Opening | undefined;
  /** The opening page was asked for, or is drawn, in place of the history still streaming: the
   * history is gathered, not drawn, until it is whole, and then takes the page's place at once. */
  private openingPage: 'asked' | 'drawn' | undefined;
  /** Counts histories begun, so that a page answered for an earlier one is left aside. */
  private histories = 0;
  /** Settles once the opening page asked for is drawn, or known not to come. */
  private openingRead: Promise<void> = Promise.resolve();
  /** A long session's own lane, held as a window of pages around the view rather than whole. */
  window: LaneWindow | undefined;
  /** How much of a long history's end the stream sends: a page when the reader opens at the tail,
   * none when it opens elsewhere (that page is read instead). */
  private tail = 0;

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

  /** Starts reading; `opening` says where the reader opens when not at the session's start (its own
   * lane's tail, or one of its items), so that a long history shows that page first. */
  start(opening?: Opening): void {
    this.opening = opening;
    this.tail = opening && 'tail' in opening ? WINDOW_PAGE : 0;
    // Marks for measuring how soon a session shows (read by the browser tests and the bench).
    performance.mark('cairn:session-open');
    this.timeline.setStatus(MAIN_LANE, 'loading');
    this.follow();
  }

  /** The item the reader opens on, until the history came. */
  private aroundOpening(): { around?: string } {
    return this.opening && 'uuid' in this.opening ? { around: this.opening.uuid } : {};
  }

  stop(): void {
    this.stopped = true;
    this.window?.stop();
    this.unsubscribe?.();
  }

  /** Subscribes to the session's stream; a reconnect resumes after the last frame seen. */
  private follow(): void {
    const sid = this.sid;
    const unsubscribe = this.conn.subscribe({
      topic: sessionTopic(this.agent, this.sid),
      // A long session's history comes as its end only (or none): the reader holds a window of it.
      resume: () => ({
        // A link's item: the preview sent while the stream opens is the part of the session around it.
        history: { tail: this.tail, whole_up_to: WINDOW_MIN_ITEMS, ...this.aroundOpening() },
        ...(this.lastSeq === undefined ? {} : { after_seq: this.lastSeq }),
      }),
      accepts: (f) => f.session_id === sid,
      onFrame: (f) => this.enqueue(() => this.frame(f)),
      onSubscribed: (reply: Reply<unknown>) => {
        if (reply.ok) return;
        unsubscribe();
        if (this.unsubscribe === unsubscribe) this.unsubscribe = undefined;
        this.timeline.setStatus(MAIN_LANE, 'error', reply.error.message);
        this.set({ error: reply.error.message });
      },
    });
    this.unsubscribe = unsubscribe;
  }

  private enqueue(work: () => Promise<void> | void): void {
    this.queue = this.queue.then(work).catch((e: unknown) => {
      this.set({ error: e instanceof Error ? e.message : String(e) });
    });
  }

  private async frame(raw: Record<string, unknown>): Promise<void> {
    if (this.stopped) return;
    const checked = checkStreamFrame(raw);
    if (!checked.ok) {
      this.refuse(checked);
      return;
    }
    const f = raw as unknown as SessionStreamFrame;
    // The stream could not be opened: no seq of it was reached.
    if (f.type === 'error') {
      this.set({ error: f.message });
      return;
    }
    // A preview of a long session's first items (or, when it opens at the tail, its last) while the
    // server reads the rest: drawn at once, replaced by the history. Its seq is no place to resume from.
    if (f.type === 'transcript_head') {
      if (this.timeline.items(MAIN_LANE).length > 0) return;
      this.add(MAIN_LANE, f.items);
      this.preview = true;
      return;
    }
    this.lastSeq = lastSeqAfter(this.lastSeq, f);
    switch (f.type) {
      case 'transcript_ready':
        performance.mark('cairn:history');
        if (f.hasEarlierMessages === true) {
          await this.beginWindow(f);
          return;
        }
        this.beginHistory(f);
        this.add(MAIN_LANE, f.history);
        this.endHistory();
        return;
      case 'transcript_ready_start':
        performance.mark('cairn:history');
        this.beginHistory(f);
        return;
      case 'transcript_chunk': {
        let items: Item[] = f.messages ?? [];
        if (f.encoding === 'gzip-base64' && f.payload !== undefined) {
          // Zipped items could not be checked with the frame; they are checked once unzipped.
          const unzipped = await unzipJson(f.payload);
          const inner: Checked = Array.isArray(unzipped)
            ? checkItems(unzipped)
            : { ok: false, message: 'a history chunk whose payload is no list of items', field: '/payload' };
          if (!inner.ok) {
            this.refuse(inner);
            return;
          }
          items = unzipped as Item[];
        }
        for (const item of items) this.gathered.push(item);
        if (
          this.openingPage !== undefined ||
          !this.pace.due(this.timeline.items(MAIN_LANE).length, this.gathered.length)
        ) {
          // The next chunk waits for a task of its own, so that the page scrolls and paints between two.
          await yieldToPage();
          return;
        }
        const startedAt = performance.now();
        this.drawGathered();
        // Let the page draw what it has before the next chunk, so the first screen comes first.
        await nextFrame();
        this.pace.drew(startedAt);
        return;
      }
      case 'transcript_ready_end':
        // The page asked for is drawn first even when the history was quicker: it costs little, and
        // the reader always sees the page they opened before the rest of the session around it.
        if (this.openingPage === 'asked') await this.openingRead;
        if (this.stopped) return;
        if (this.openingPage !== undefined) await this.replaceOpeningPage();
        else this.drawGathered();
        this.endHistory();
        return;
      case 'run_state':
        this.set({ busy: f.runState.busy });
        return;
      default:
        if (!('item' in f) || f.item === undefined) return;
        if (this.window && (f.agent_id ?? MAIN_LANE) === MAIN_LANE) {
          this.window.appended(f.item);
          this.set({ total: this.window.total });
          return;
        }
        // The session's own items wait behind a history held back for the opening page.
        if (this.openingPage !== undefined && (f.agent_id ?? MAIN_LANE) === MAIN_LANE) {
          this.gathered.push(f.item);
          return;
        }
        // Anything after the history comes after what was gathered of it.
        if (this.openingPage === undefined) this.drawGathered();
        this.add(f.agent_id ?? MAIN_LANE, [f.item]);
    }
  }

  /** The end of a long history (or none of it), with its totals: the session's own lane is held as a
   * window from here on, beginning with the page the reader opens on. */
  private async beginWindow(f: Extract<SessionStreamFrame, { type: 'transcript_ready' }>): Promise<void> {
    const total = f.totalMessageCount ?? f.history.length;
    const was = this.window?.from;
    this.window ??= new LaneWindow(this.conn, this.agent, this.sid, this.timeline, total, (message) =>
      this.set({ error: message }),
    );
    const window = this.window;
    this.replacing = false;
    this.set({ total });
    if (f.runState) this.set({ busy: f.runState.busy });
    const opening = this.opening;
    this.opening = undefined;
    if (f.history.length > 0) window.hold(f.history, total - f.history.length, total);
    else {
      window.forget(total);
      // A link lands on its page; else the reader opens at the start (or, when the history was sent
      // again, where it was).
      const found = opening && 'uuid' in opening ? await window.around(opening.uuid) : false;
      // Not when another jump (the view landing on the same link, say) holds the window already.
      if (found === false) await window.show(was ?? 0);
    }
    // What is drawn now is the window's: a preview (the part around a link's item, say) stayed drawn,
    // and said so, until a page of the window took its place.
    this.preview = false;
    if (this.stopped) return;
    this.timeline.setStatus(MAIN_LANE, 'ready');
    this.set({ loaded: true, total: window.total });
    if (this.state.firstItemsMs === undefined) this.firstItems();
  }

  private beginHistory(
    f: Extract<SessionStreamFrame, { type: 'transcript_ready' | 'transcript_ready_start' }>,
  ): void {
    // A history is always the whole of it: a resumed stream sends only what was missed, and sends a
    // history again only when the file was replaced. A preview stays drawn until the history's first
    // items take its place, so the page never shows an empty timeline between the two.
    this.gathered = [];
    this.pace = new RedrawPace();
    this.histories++;
    this.openingPage = undefined;
    if (this.preview) this.replacing = true;
    else if (this.timeline.items(MAIN_LANE).length > 0) {
      // Read anew from scratch: the subagent lanes open are read again too (a read still on its way
      // belongs to the history before and is left aside).
      this.timeline.clear();
      this.laneLoads.clear();
      for (const lane of this.timeline.openLanes()) this.openLane(lane);
    }
    this.timeline.setStatus(MAIN_LANE, 'loading');
    const total = f.type === 'transcript_ready_start' ? f.totalMessages : f.history.length;
    this.set({ total });
    if (f.runState) this.set({ busy: f.runState.busy });
    // Asked once the history begins, not before: the daemon has then read the session, and the page
    // costs it a slice of what it holds rather than a second read of the files.
    const opening = this.opening;
    this.opening = undefined;
    if (opening && f.type === 'transcript_ready_start' && total >= OPENING_PAGE_MIN_HISTORY)
      this.openingRead = this.readOpeningPage(opening, total).catch((e: unknown) => {
        this.openingPage = undefined;
        this.set({ error: e instanceof Error ? e.message : String(e) });
      });
  }

  /** Reads the page the reader opens on and draws it in place of whatever is drawn (a preview of the
   * session's start), while the history keeps streaming in. */
  private async readOpeningPage(opening: Opening, total: number): Promise<void> {
    const history = this.histories;
    this.openingPage = 'asked';
    const args: Record<string, unknown> = {
      sid: this.sid,
      agent: this.agent,
      types: ALL_TYPES,
      limit: OPENING_PAGE,
    };
    if ('uuid' in opening) args.around_uuid = opening.uuid;
    else args.offset = Math.max(0, total - OPENING_PAGE);
    const reply = await this.conn.request('transcript_items_read', args as OpArgs<'transcript_items_read'>);
    // The history was whole first (or began again): it is drawn already, or will be.
    if (this.stopped || history !== this.histories || this.openingPage !== 'asked') return;
    if (!reply.ok || reply.value.items.length === 0) {
      // No page (a link to an item not in the session's own lane, say): the history is drawn as it
      // comes instead, beginning with what was gathered meanwhile.
      this.openingPage = undefined;
      this.enqueue(() => this.drawGathered());
      return;
    }
    this.openingPage = 'drawn';
    this.replacing = false;
    this.preview = false;
    this.timeline.replaceLane(MAIN_LANE, reply.value.items, reply.value.offset ?? 0);
    performance.mark('cairn:opening-page');
    if (this.state.firstItemsMs === undefined) this.firstItems();
  }

  /** The history is whole: it takes the opening page's place in one change. Its rows keep their keys
   * (they count from the history's start), so the view finds the row it showed among them. */
  private async replaceOpeningPage(): Promise<void> {
    const items = this.gathered;
    this.gathered = [];
    this.openingPage = undefined;
    this.replacing = false;
    this.preview = false;
    // Read into place a slice at a time: the page stays with the reader meanwhile.
    await this.timeline.replaceLaneInSlices(MAIN_LANE, items, 0, yieldToPage);
    performance.mark('cairn:history-drawn');
  }

  private endHistory(): void {
    // An empty history still takes the preview's place.
    if (this.replacing) this.timeline.clearLane(MAIN_LANE);
    this.replacing = false;
    this.preview = false;
    this.timeline.setStatus(MAIN_LANE, 'ready');
    this.set({ loaded: true });
  }

  /** Draws the history items gathered so far. The timeline holds only what is drawn, so that an item
   * found in it (a link's target) always has its row. */
  private drawGathered(): void {
    const items = this.gathered;
    if (items.length === 0) return;
    this.gathered = [];
    // Counted by the browser tests: a long history is drawn a few times, not once per chunk.
    performance.mark('cairn:history-drawn');
    this.add(MAIN_LANE, items);
  }

  private refuse(checked: Extract<Checked, { ok: false }>): void {
    this.set({ error: `refused a frame that breaks the contract: ${checked.message}` });
  }

  private add(lane: string, items: readonly Item[]): void {
    if (items.length === 0) return;
    // A subagent lane nobody opened is read whole when it is opened.
    if (lane !== MAIN_LANE && this.timeline.status(lane) === 'idle') return;
    if (lane === MAIN_LANE && this.replacing) {
      // The session's own items only: a subagent lane opened meanwhile (a link to one of its items)
      // keeps what it read.
      this.timeline.clearLane(MAIN_LANE);
      this.timeline.setStatus(MAIN_LANE, 'loading');
      this.replacing = false;
      this.preview = false;
    }
    this.timeline.append(lane, items);
    if (this.state.firstItemsMs === undefined) this.firstItems();
  }

  private firstItems(): void {
    performance.mark('cairn:first-items');
    this.set({ firstItemsMs: performance.now() - this.started });
  }

  /** Reads a lane's items page by page (the session's own when the stream is unavailable). */
  private async readPages(lane: string): Promise<void> {
    const history = this.histories;
    this.timeline.setStatus(lane, 'loading');
    let cursor: string | undefined;
    let limit = FIRST_PAGE;
    for (;;) {
      const args: Record<string, unknown> = { sid: this.sid, agent: this.agent, types: ALL_TYPES, limit };
      if (lane !== MAIN_LANE) args.agent_id = lane;
      if (cursor !== undefined) args.cursor = cursor;
      const reply = await this.conn.request('transcript_items_read', args as OpArgs<'transcript_items_read'>);
      if (this.stopped || history !== this.histories) return;
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
