// The window a long session's reader keeps of its own lane: a run of pages around what the view
// shows, read with `transcript_items_read` as the view comes near an edge, or afresh where the view
// jumps to (the ends, a link, a search hit), and trimmed on the far side so that the page never holds
// more than a few thousand items however long the session. The timeline draws the positions the
// window does not hold as placeholders (see GapRow).
import type { OpArgs, PositionKind } from '@cairn/protocol';
import { shownItem } from '../display.js';
import type { Connection } from '../rpc.js';
import type { Item } from '../timeline/item.js';
import { MAIN_LANE, type Timeline } from '../timeline/model.js';

/** Items per page read. */
export const WINDOW_PAGE = 500;
/** Pages held at most. */
export const WINDOW_PAGES = 8;
/** A session's own lane longer than this is held as a window; a shorter one comes whole, costing
 * the page no more than a window would (and find, counts and keys then see all of it at once). */
export const WINDOW_MIN_ITEMS = WINDOW_PAGES * WINDOW_PAGE;

/** The item types the reader asks for: every one, attachments included (the view decides). */
const TYPES = ['message', 'thinking', 'notice', 'system', 'hook', 'tool'];

export type Positions = Readonly<Record<PositionKind, readonly number[]>>;

export class LaneWindow {
  /** The items held, the first at position `base` of the lane, each made visible once as it came
   * (bidi and invisible characters), so that moving the window costs no more than the pages read. */
  private items: Item[] = [];
  private base = 0;
  /** Items in the whole lane, as the server counts them. */
  total: number;
  /** A read in flight: one at a time, the next asked for once it is in. */
  private reading: Promise<void> | undefined;
  /** Counts jumps: a page read for an earlier place is left aside when it comes. */
  private jumps = 0;
  private positionsRead: { total: number; value: Promise<Positions> } | undefined;
  /** The read of the page around a record, while it is on its way. */
  private aroundRead: { uuid: string; answer: Promise<boolean | undefined> } | undefined;
  private stopped = false;

  constructor(
    private readonly conn: Connection,
    private readonly agent: string,
    private readonly sid: string,
    private readonly timeline: Timeline,
    total: number,
    private readonly onError: (message: string) => void,
  ) {
    this.total = total;
  }

  /** The positions held: `[from, to)`. */
  get from(): number {
    return this.base;
  }
  get to(): number {
    return this.base + this.items.length;
  }
  get busy(): boolean {
    return this.reading !== undefined;
  }

  stop(): void {
    this.stopped = true;
  }

  /** Holds `items` at `base` (the tail a stream sent, or a page read), dropping what was held. */
  hold(items: readonly Item[], base: number, total = this.total): void {
    this.items = items.map(shownItem);
    this.base = base;
    this.total = total;
    this.draw();
  }

  /** Drops what is held without drawing (the timeline keeps showing it until a page takes its place). */
  forget(total: number): void {
    this.items = [];
    this.base = 0;
    this.total = total;
  }

  /** An item the agent appended: held when the window reaches the end, else only counted. */
  appended(item: Item): void {
    const atEnd = this.to === this.total;
    this.total++;
    if (atEnd) {
      const shown = shownItem(item);
      this.items.push(shown);
      this.timeline.appendShown(MAIN_LANE, [shown]);
      // A window that grew past its size at the tail sheds a page at its start.
      if (this.items.length > (WINDOW_PAGES + 1) * WINDOW_PAGE) this.trim('start');
    }
    this.timeline.setWindowTotal(this.total);
  }

  /**
   * Makes sure positions `[from, to)` (what the view shows, or is about to) are held: the page next to
   * the window on that side when they are near it, else a page read afresh around them. Answers
   * whether a read began.
   */
  need(from: number, to: number): boolean {
    if (this.reading || this.stopped) return false;
    const lo = Math.max(0, from);
    const hi = Math.min(this.total, to);
    if (lo >= hi) return false;
    const margin = WINDOW_PAGE / 4;
    if (lo >= this.base && hi <= this.to) {
      // Held: read on ahead when the view is near an edge the lane goes on past.
      if (hi > this.to - margin && this.to < this.total) return this.extend('end');
      if (lo < this.base + margin && this.base > 0) return this.extend('start');
      return false;
    }
    const near = hi > this.base - WINDOW_PAGE && lo < this.to + WINDOW_PAGE;
    if (near && this.items.length > 0) return this.extend(lo < this.base ? 'start' : 'end');
    const middle = Math.floor((lo + hi) / 2);
    return this.readAt(Math.max(0, Math.min(this.total - WINDOW_PAGE, middle - WINDOW_PAGE / 2)));
  }

  /** Reads the page holding position `at` (unless held), in place of the window. */
  show(at: number): Promise<void> {
    if (at >= this.base && at < this.to) return Promise.resolve();
    const start = Math.max(0, Math.min(this.total - WINDOW_PAGE, at - WINDOW_PAGE / 2));
    this.readAt(start);
    return this.reading ?? Promise.resolve();
  }

  /** Reads the page around the record `uuid`, in place of the window. Answers true once it is held,
   * false when the session's own lane has no such record, and undefined when another jump took the
   * window elsewhere before the page came (which says nothing of the record). Asked again for the
   * same record while its page is on its way, it answers with that read: the feed opening on a link
   * and the view landing on it ask for the same page, and neither may leave the other's aside. */
  around(uuid: string): Promise<boolean | undefined> {
    if (this.aroundRead?.uuid === uuid) return this.aroundRead.answer;
    const jump = ++this.jumps;
    // A record not in the session's own lane is no error of the window's: the caller says so.
    const answer = this.page({ around_uuid: uuid, limit: WINDOW_PAGE }, true)
      .then((reply) => {
        if (jump !== this.jumps) return undefined;
        if (!reply || reply.items.length === 0) return false;
        this.hold(reply.items, reply.offset, reply.total);
        return true;
      })
      .finally(() => {
        if (this.aroundRead === asked) this.aroundRead = undefined;
      });
    const asked = { uuid, answer };
    this.aroundRead = asked;
    this.track(answer.then(() => undefined));
    return answer;
  }

  /** Where the prompts and failures sit in the whole lane; read again once the lane has grown. */
  positions(): Promise<Positions> {
    if (this.positionsRead?.total !== this.total) {
      const value = this.conn
        .request('transcript_items_read', {
          sid: this.sid,
          agent: this.agent,
          types: TYPES,
          limit: 1,
          positions_of: ['prompt', 'error'],
        } as OpArgs<'transcript_items_read'>)
        .then((reply) => {
          if (!reply.ok) throw new Error(reply.error.message);
          return { prompt: reply.value.positions?.prompt ?? [], error: reply.value.positions?.error ?? [] };
        });
      this.positionsRead = { total: this.total, value };
    }
    return this.positionsRead.value;
  }

  private extend(side: 'start' | 'end'): boolean {
    const jump = this.jumps;
    const from = side === 'start' ? Math.max(0, this.base - WINDOW_PAGE) : this.to;
    const to = side === 'start' ? this.base : Math.min(this.total, this.to + WINDOW_PAGE);
    if (from >= to) return false;
    this.track(
      this.page({ offset: from, limit: to - from }).then((reply) => {
        // The window moved meanwhile (a jump): this page no longer borders it.
        if (
          !reply ||
          jump !== this.jumps ||
          (side === 'start' ? reply.offset + reply.items.length !== this.base : from !== this.to)
        )
          return;
        const page = reply.items.map(shownItem);
        this.total = Math.max(this.total, reply.total);
        if (side === 'start') {
          this.items = [...page, ...this.items];
          this.base = reply.offset;
        } else if (this.items.length + page.length <= WINDOW_PAGES * WINDOW_PAGE) {
          // Read on at the end with nothing to drop: added to the rows drawn, not drawn afresh.
          this.items.push(...page);
          this.timeline.appendShown(MAIN_LANE, page);
          this.timeline.setWindowTotal(this.total);
          return;
        } else this.items.push(...page);
        if (this.items.length > WINDOW_PAGES * WINDOW_PAGE)
          this.trim(side === 'start' ? 'end' : 'start', false);
        this.draw();
      }),
    );
    return true;
  }

  private readAt(start: number): boolean {
    const jump = ++this.jumps;
    this.track(
      this.page({ offset: start, limit: WINDOW_PAGE }).then((reply) => {
        if (reply && jump === this.jumps) this.hold(reply.items, reply.offset, reply.total);
      }),
    );
    return true;
  }

  /** Drops pages from one side until the window is its size again. */
  private trim(side: 'start' | 'end', draw = true): void {
    const over = this.items.length - WINDOW_PAGES * WINDOW_PAGE;
    if (over <= 0) return;
    if (side === 'start') {
      this.items = this.items.slice(over);
      this.base += over;
    } else this.items.length -= over;
    if (draw) this.draw();
  }

  private track(read: Promise<void>): void {
    const done = read.finally(() => {
      if (this.reading === done) this.reading = undefined;
      // The view asks again for what it still lacks once the timeline changed.
      this.timeline.touch();
    });
    this.reading = done;
  }

  private async page(
    where: Record<string, unknown>,
    quiet = false,
  ): Promise<{ items: Item[]; offset: number; total: number } | undefined> {
    const reply = await this.conn.request('transcript_items_read', {
      sid: this.sid,
      agent: this.agent,
      types: TYPES,
      ...where,
    } as OpArgs<'transcript_items_read'>);
    if (this.stopped) return undefined;
    if (!reply.ok) {
      if (!quiet) this.onError(reply.error.message);
      return undefined;
    }
    return { items: reply.value.items as Item[], offset: reply.value.offset ?? 0, total: reply.value.total };
  }

  private draw(): void {
    this.timeline.replaceLane(MAIN_LANE, this.items, this.base, true);
    this.timeline.setWindowTotal(this.total);
  }
}
