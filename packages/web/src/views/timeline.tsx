// A session's timeline: a virtualized list of rows, keyboard navigation between prompts and errors,
// deep links that land on one item, and a live tail that follows new items unless you scrolled away.

import type { SessionSearchHit } from '@cairn/protocol';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useChanges, useServices } from '../context.js';
import { FindBar } from '../find/find-bar.js';
import { useFind } from '../find/use-find.js';
import { WholeSessionFind } from '../find/whole-session.js';
import { formatCount, formatDay, localDay } from '../format.js';
import { type ItemRef, sessionHref } from '../route.js';
import type { SessionFeed } from '../session/feed.js';
import { failedCallsText, type SessionNumbers } from '../session/numbers.js';
import type { Positions } from '../session/window.js';
import { useSearchHighlight } from '../sessions/search-landing.js';
import { outgoingLinks } from '../timeline/link-markers.js';
import {
  GAP_SPAN,
  type GapRow,
  type ItemRow,
  itemKey,
  MAIN_LANE,
  type Row,
  type Rows,
  type Timeline,
} from '../timeline/model.js';
import { useVirtualizer } from '../virtual.js';
import type { FoldState } from './fold.js';
import { ItemRowView, LaneEdgeView, LinkMarkerView, type RowContext } from './rows.js';
import { useSessionLinks } from './use-session-links.js';
import { useWarmMarkdown } from './warm-rows.js';

const KEYS: [string, string][] = [
  ['j / k', 'next / previous prompt'],
  ['] / [', 'next / previous failed tool call'],
  ['f', 'follow the live tail'],
  ['g / G', 'first / last item'],
  ['h', 'show or hide hidden records'],
  ['Ctrl+F or /', 'find in this session'],
  ['?', 'keys'],
];

/** Where the reader was in a timeline, kept by the session view while another tab is shown. */
export interface TimelinePosition {
  saved?: { key: string; within: number; machinery: boolean; follow: boolean };
}

/** The rows that open a new local day (the first row included), with the instant that dates them. */
function dayStarts(rows: readonly Row[]): Map<number, number> {
  const starts = new Map<number, number>();
  let day: number | undefined;
  rows.forEach((row, i) => {
    if (row.kind !== 'item' || !Number.isFinite(row.item.at)) return;
    const d = localDay(row.item.at);
    if (Number.isNaN(d) || d === day) return;
    day = d;
    starts.set(i, row.item.at);
  });
  return starts;
}

/** Keys with which the browser itself scrolls the list. */
const SCROLL_KEYS = new Set(['ArrowUp', 'ArrowDown', 'PageUp', 'PageDown', 'Home', 'End', ' ']);
// A day divider's height, added to the estimate of the row it opens.
const DIVIDER_PX = 30;
/** How long a landed item is held at the top while the rows around it settle, at most. */
const PIN_MS = 10_000;
/** The height a position not held yet takes in a windowed timeline: its placeholder is drawn at
 * exactly this, so that the list does not move as it is drawn. */
const GAP_ITEM_PX = 32;

function estimate(row: Row | undefined): number {
  if (!row) return 40;
  if (row.kind === 'gap') return (row.to - row.from) * GAP_ITEM_PX;
  if (row.kind !== 'item') return 34;
  const t = row.item.type;
  if (t === 'message:user:in') return 90;
  if (t === 'message:user:out') return 120;
  if (t === 'message:sub:out') return 90;
  if (t === 'system:compact') return 70;
  return 36;
}

/** The row that draws position `at` of a windowed session's own lane: its item's row (or the next
 * item's, for one hidden), or the placeholder standing for it. */
function rowAt(view: Rows, at: number): number | undefined {
  const w = view.window;
  if (!w) return undefined;
  if (at < w.from) return Math.floor(at / GAP_SPAN);
  if (at >= w.to) return w.afterRow + Math.floor(at / GAP_SPAN) - Math.floor(w.to / GAP_SPAN);
  for (let p = at; p < w.to; p++) {
    const row = view.rowOf.get(itemKey(MAIN_LANE, p));
    if (row !== undefined) return row;
  }
  return w.afterRow;
}

/** Stands for a count not known yet: no number rather than a wrong one. */
const PENDING = '–';

/** The positions of the session's own lane a row stands for, when it stands for any. */
function positionsOf(row: Row | undefined, base: number): [number, number] | undefined {
  if (row?.kind === 'gap') return [row.from, row.to];
  if (row?.kind === 'item' && row.lane === MAIN_LANE) return [base + row.index, base + row.index + 1];
  return undefined;
}

function useFolds(): [FoldState, number] {
  const [version, setVersion] = useState(0);
  const folds = useMemo<FoldState>(() => {
    const open = new Set<string>();
    return {
      isOpen: (key) => open.has(key),
      toggle: (key) => {
        if (!open.delete(key)) open.add(key);
        setVersion((v) => v + 1);
      },
      open: (key) => {
        if (open.has(key)) return;
        open.add(key);
        setVersion((v) => v + 1);
      },
    };
  }, []);
  return [folds, version];
}

export function TimelineView({
  feed,
  timeline,
  item,
  active,
  position,
  numbers,
  onFork,
}: {
  feed: SessionFeed;
  timeline: Timeline;
  item: ItemRef | undefined;
  active: boolean;
  position?: TimelinePosition;
  /** The session's counts over all its lanes, as the Summary and Dump tabs show them. */
  numbers?: SessionNumbers | undefined;
  /** Called with a prompt's item id when the reader asks to fork from it. */
  onFork?: ((uuid: string) => void) | undefined;
}) {
  useChanges(timeline);
  useChanges(feed);
  // Coming back from another tab takes up where the reader was, unless a link names an item.
  const [resume] = useState(() => (item === undefined ? position?.saved : undefined));
  const [machinery, setMachinery] = useState(resume?.machinery ?? false);
  const [follow, setFollow] = useState(resume ? resume.follow : active && item === undefined);
  // The session's head may arrive after the timeline: an active session starts following once known.
  const followChosen = useRef(false);
  useEffect(() => {
    if (active && item === undefined && !resume && !followChosen.current) setFollow(true);
  }, [active]);
  const chooseFollow = (on: boolean | ((f: boolean) => boolean)) => {
    followChosen.current = true;
    setFollow(on);
  };
  const [showKeys, setShowKeys] = useState(false);
  const [target, setTarget] = useState<string | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [folds, foldVersion] = useFolds();
  const scroller = useRef<HTMLDivElement>(null);
  const version = timeline.version;
  // Where the work went on from here (hand-offs and forks of this session), marked where it left.
  const links = useSessionLinks(feed.sid);
  const outgoing = useMemo(() => outgoingLinks(links, feed.sid), [links, feed.sid]);
  const view = useMemo(() => timeline.rows({ machinery, links: outgoing }), [version, machinery, outgoing]);
  const { rows } = view;
  const days = useMemo(() => dayStarts(rows), [rows]);

  // Stable while the rows are: the virtualizer recomputes every position when these change.
  const getItemKey = useCallback((i: number) => rows[i]?.key ?? i, [rows]);
  // Worked out once per rows: the virtualizer asks again for every row below each row it measures
  // (every one, in a long session, while it scrolls down from the top).
  const estimates = useMemo(() => {
    const sizes = new Float64Array(rows.length);
    for (let i = 0; i < rows.length; i++) sizes[i] = estimate(rows[i]) + (days.has(i) ? DIVIDER_PX : 0);
    return sizes;
  }, [rows, days]);
  const estimateSize = useCallback((i: number) => estimates[i] ?? estimate(undefined), [estimates]);
  const getScrollElement = useCallback(() => scroller.current, []);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement,
    estimateSize,
    getItemKey,
    overscan: 8,
  });

  const ctx = useMemo<RowContext>(
    () => ({
      agent: feed.agent,
      sid: feed.sid,
      folds,
      foldVersion,
      hrefOf: (row: ItemRow) =>
        sessionHref(feed.agent, feed.sid, 'timeline', timeline.refOf(row.lane, row.index)),
      toggleLane: (agentId, open) => (open ? feed.openLane(agentId) : feed.closeLane(agentId)),
      // A preview's items may be named by the part read: no fork from one.
      forkFrom: feed.state.preview ? undefined : onFork && ((item) => onFork(item.uuid)),
      preview: feed.state.preview,
    }),
    [feed, folds, foldVersion, onFork, feed.state.preview],
  );

  // --- following the live tail ---
  // New items are those appended to the session's own lane once its history is in; opening a lane
  // adds rows, not news.
  // A windowed lane counts what the server holds: pages read in or dropped are no news.
  const mainCount = timeline.windowed ?? timeline.items(MAIN_LANE).length;
  const seenMain = useRef(0);
  const [unseen, setUnseen] = useState(0);
  const historyIn = useRef(false);
  // Following holds the view at the end while the list grows, as new rows come and as the rows
  // drawn are measured (a slow page can take longer to settle than one scroll command waits).
  const totalSize = virtualizer.getTotalSize();
  useLayoutEffect(() => {
    const added = mainCount - seenMain.current;
    seenMain.current = mainCount;
    // What arrives with the history is not news, however it is chunked.
    const news = historyIn.current;
    historyIn.current = feed.state.loaded;
    if (rows.length === 0) return;
    if (follow) {
      virtualizer.scrollToEnd();
      setUnseen(0);
    } else if (added > 0 && news) {
      setUnseen((n) => n + added);
    }
  }, [mainCount, follow, feed.state.loaded, totalSize]);

  const lastTop = useRef(0);
  // When the person last moved the list themselves (wheel, touch, keys, the scroll bar held): the list
  // also moves on its own, as rows above the view are measured or the history takes a page's place.
  const handAt = useRef(Number.NEGATIVE_INFINITY);
  const held = useRef(false);
  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const touched = () => {
      handAt.current = performance.now();
      aims.current++;
    };
    const press = () => {
      held.current = true;
      touched();
    };
    const release = () => {
      held.current = false;
    };
    el.addEventListener('wheel', touched, { passive: true });
    el.addEventListener('touchmove', touched, { passive: true });
    // Any key ends an aim (the reader's keys start their own), but only those that scroll the
    // list count as moving it: after another (`f` itself), the moves that measuring rows makes in
    // the next second would be taken for the person's.
    const key = (e: KeyboardEvent) => {
      if (SCROLL_KEYS.has(e.key)) touched();
      else aims.current++;
    };
    el.addEventListener('pointerdown', press);
    window.addEventListener('pointerup', release);
    window.addEventListener('pointercancel', release);
    window.addEventListener('keydown', key);
    return () => {
      el.removeEventListener('wheel', touched);
      el.removeEventListener('touchmove', touched);
      el.removeEventListener('pointerdown', press);
      window.removeEventListener('pointerup', release);
      window.removeEventListener('pointercancel', release);
      window.removeEventListener('keydown', key);
    };
  }, []);
  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    const atEnd = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
    const byHand = held.current || performance.now() - handAt.current < 1000;
    // Scrolling up by hand stops following; coming back to the end starts it again.
    if (el.scrollTop < lastTop.current - 4 && !atEnd && byHand) chooseFollow(false);
    else if (atEnd && feed.state.loaded) {
      setUnseen(0);
    }
    lastTop.current = el.scrollTop;
    savePosition.current();
  }, [feed]);

  // --- keeping the reader's place for a return from another tab ---
  // The row at the top of the view, and how far into it the view starts.
  const topRow = (): { key: string; within: number } | undefined => {
    const offset = scroller.current?.scrollTop ?? 0;
    const top = virtualizer.getVirtualItems().find((v) => v.end > offset);
    const row = top === undefined ? undefined : rows[top.index];
    if (!top || !row) return undefined;
    return { key: row.key, within: offset - top.start };
  };
  // Whether rows keep their places since a deferred aim was taken: not once a page opened away from
  // the start was replaced by the whole history (every row then moves down).
  const samePlaces = (aimedAt: number) => timeline.baseOf(MAIN_LANE) === aimedAt;
  // Puts row `at` at the top of the view, `within` pixels into it. The rows drawn around it are
  // measured as they come, which moves it: aim each frame until it holds still (for a third of a
  // second at most), while the rows keep their places.
  // Counts aims: a newer one (a landing, a jump, the person's own scrolling) ends the one before.
  const aims = useRef(0);
  const holdAt = (at: number, within: number) => {
    const aimedAt = timeline.baseOf(MAIN_LANE);
    const mine = ++aims.current;
    let frames = 0;
    let still = 0;
    const aim = () => {
      if (!samePlaces(aimedAt) || aims.current !== mine) return;
      const start = virtualizer.getOffsetForIndex(at, 'start')?.[0];
      const el = scroller.current;
      if (start === undefined || !el) return;
      const want = start + within;
      if (Math.abs(el.scrollTop - want) <= 1) still++;
      else {
        still = 0;
        virtualizer.scrollToOffset(want);
      }
      if (still < 2 && ++frames < 20) requestAnimationFrame(aim);
    };
    virtualizer.scrollToIndex(at, { align: 'start' });
    requestAnimationFrame(aim);
  };
  // Where the view was at its last scroll, kept for the tab's return and for the page's replacement.
  const shown = useRef<{ key: string; within: number } | undefined>(undefined);
  // A ref, so the scroll handler (made once) reads this render's rows and choices.
  const savePosition = useRef(() => {});
  savePosition.current = () => {
    const top = topRow();
    if (!top) return;
    shown.current = top;
    if (position) position.saved = { ...top, machinery, follow };
  };
  const resumed = useRef(resume === undefined);
  useLayoutEffect(() => {
    if (resumed.current || !resume) return;
    const at = rows.findIndex((r) => r.key === resume.key);
    if (at === -1) return;
    resumed.current = true;
    if (resume.follow) return;
    holdAt(at, resume.within);
  }, [rows]);

  // --- a page opened away from the start, replaced by the whole history around it ---
  // Its rows keep their keys, but not their places in the list: the row that was at the top of the
  // view is put back there before the page is painted, so the reader sees no jump.
  const base = timeline.baseOf(MAIN_LANE);
  const lastBase = useRef(base);
  // The row at the top as the last commit left it (a scroll event may not have told it yet).
  const committedTop = useRef<{ key: string; within: number } | undefined>(undefined);
  const lastPreview = useRef(feed.state.preview);
  useLayoutEffect(() => {
    const was = lastBase.current;
    lastBase.current = base;
    const wasPreview = lastPreview.current;
    lastPreview.current = feed.state.preview;
    const top = committedTop.current ?? shown.current;
    // A preview's rows count from its own first item, not the history's (one read around a link's
    // item, or at the file's end): no row of the history is sure to be the one it showed. A link
    // lands on its item by its id instead, a tail by following.
    if (was === base || follow || !top || goal.current || wasPreview) return;
    // A placeholder at the top stands for positions that may be rows now: the one it was at is put back.
    if (top.key.startsWith('~') && view.window) {
      const at = Number(top.key.slice(1)) + Math.floor(top.within / GAP_ITEM_PX);
      const row = rowAt(view, at);
      if (row === undefined) return;
      const gap = rows[row];
      holdAt(row, gap?.kind === 'gap' ? (at - gap.from) * GAP_ITEM_PX + (top.within % GAP_ITEM_PX) : 0);
      return;
    }
    const at = view.rowOf.get(top.key) ?? rows.findIndex((r) => r.key === top.key);
    if (at === undefined || at === -1) return;
    holdAt(at, top.within);
  }, [rows]);
  // The saved place changes with the hidden-records and follow choices too, not only with scrolling.
  useEffect(() => savePosition.current(), [machinery, follow]);

  // --- holding a landed item at the top ---
  // Sizes settle for a while after a landing: the rows around the item are drawn and measured (over
  // many frames on a busy machine), rows below it grow the list past where the item's start could
  // not yet be scrolled to, and the virtualizer's own aim gives up after five seconds. Any of these
  // left the item away from the top. Each time the virtualizer draws, the item is put back at the
  // top if it moved, until the person does anything, another aim comes, following starts, the rows
  // are replaced (a history in a preview's place lands by itself), or a few seconds pass.
  const pinned = useRef<
    { key: string; at: number; mine: number; aimedAt: number; preview: boolean; since: number } | undefined
  >(undefined);
  const actedAt = useRef(Number.NEGATIVE_INFINITY);
  useEffect(() => {
    const acted = () => {
      actedAt.current = performance.now();
    };
    const options = { capture: true, passive: true };
    for (const type of ['pointerdown', 'keydown', 'wheel', 'touchstart'])
      window.addEventListener(type, acted, options);
    return () => {
      for (const type of ['pointerdown', 'keydown', 'wheel', 'touchstart'])
        window.removeEventListener(type, acted, options);
    };
  }, []);
  useLayoutEffect(() => {
    const pin = pinned.current;
    if (!pin) return;
    const over =
      aims.current !== pin.mine ||
      follow ||
      actedAt.current >= pin.since ||
      performance.now() - pin.since > PIN_MS ||
      !samePlaces(pin.aimedAt) ||
      pin.preview !== feed.state.preview ||
      rows[pin.at]?.key !== pin.key;
    if (over) {
      pinned.current = undefined;
      return;
    }
    const el = scroller.current;
    const start = virtualizer.getOffsetForIndex(pin.at, 'start')?.[0];
    if (el && start !== undefined && Math.abs(el.scrollTop - start) > 1) virtualizer.scrollToOffset(start);
  });

  // --- landing on an item from the URL ---
  const landed = useRef<string | undefined>(undefined);
  const askedAround = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!item) return;
    const want = `${item.lane ?? ''}|${item.uuid}|${item.type ?? ''}|${item.nth ?? 0}`;
    if (landed.current === want) return;
    if (item.lane && !timeline.isOpen(item.lane)) {
      feed.openLane(item.lane);
      return;
    }
    // A lane without a spawn in the items is drawn after all of them, so its place is known only
    // once the history is in.
    if (item.lane && !feed.state.loaded) return;
    const found = timeline.find(item);
    if (!found && feed.window && !item.lane) {
      // A windowed session reads the linked item's page first; not there, it is not in the session.
      if (askedAround.current === want) return;
      askedAround.current = want;
      feed.window.around(item.uuid).then((there) => {
        // Held (it lands as the rows change), or left aside for a later jump: only false says absent.
        if (there !== false) return;
        setNotice('The linked item is not in this session any more.');
        landed.current = want;
      });
      return;
    }
    if (!found) {
      const laneDone = item.lane ? timeline.status(item.lane) !== 'loading' : feed.state.loaded;
      if (laneDone && feed.state.loaded) {
        setNotice('The linked item is not in this session any more.');
        landed.current = want;
      }
      return;
    }
    const key = timeline.keyOf(found.lane, found.index);
    const at = view.rowOf.get(key);
    if (at === undefined) {
      // A hidden record: show hidden records so it has a row.
      if (!machinery) setMachinery(true);
      else {
        setNotice('The linked item has no row in this timeline.');
        landed.current = want;
      }
      return;
    }
    // On a preview (the part of a long session around the item, while the history is read) the view
    // lands, and lands again on the history's row when it takes the preview's place.
    if (!feed.state.preview) landed.current = want;
    chooseFollow(false);
    setNotice(undefined);
    const row = rows[at]!;
    // Where the view is, before the scroll that puts it there says so: the history may take the
    // page's place first.
    shown.current = { key: row.key, within: 0 };
    setTarget(row.key);
    folds.open(`${row.key}:body`);
    // The item's start, not its middle: a tall item centred would land mid-content.
    const mine = ++aims.current;
    virtualizer.scrollToIndex(at, { align: 'start' });
    pinned.current = {
      key: row.key,
      at,
      mine,
      aimedAt: timeline.baseOf(MAIN_LANE),
      preview: feed.state.preview,
      since: performance.now(),
    };
  }, [item, version, machinery, feed.state.loaded, feed.state.preview]);

  // The words a search link came with, marked in the item it landed on.
  useSearchHighlight(scroller, item?.query, `${target}|${version}|${foldVersion}`);

  // --- find in session ---
  const find = useFind({
    rows,
    scroller,
    virtualizer,
    show: (index) => {
      const row = rows[index];
      if (!row) return;
      chooseFollow(false);
      setTarget(row.key);
      folds.open(`${row.key}:body`);
    },
  });

  // --- a windowed session: the pages around the view, and jumps to positions it does not hold ---
  const windowed = view.window;
  // A jump waiting for its page: the position to land on once it is held.
  const goal = useRef<number | undefined>(undefined);
  const latest = useRef({ view, rows });
  latest.current = { view, rows };
  const goTo = (at: number) => {
    const w = feed.window;
    if (!w) return;
    goal.current = at;
    void w.show(at);
    landGoal();
  };
  const landGoal = () => {
    const at = goal.current;
    const { view: v, rows: r } = latest.current;
    if (at === undefined || !v.window || at < v.window.from || at >= v.window.to) return;
    goal.current = undefined;
    const index = rowAt(v, at);
    if (index === undefined) return;
    setTarget(r[index]?.key);
    holdAt(index, 0);
  };
  useLayoutEffect(() => landGoal(), [rows]);
  // What the view shows (with the rows drawn around it) is read in as it comes near.
  const drawn = virtualizer.getVirtualItems();
  const firstDrawn = drawn[0]?.index;
  const lastDrawn = drawn[drawn.length - 1]?.index;
  useEffect(() => {
    const w = feed.window;
    const el = scroller.current;
    if (!w || !windowed || !el || firstDrawn === undefined) return;
    // Where the list is now, in these rows: the range drawn may still be that of the rows before a
    // jump (the scroll that follows one is told a frame later).
    const top = virtualizer.getVirtualItemForOffset(el.scrollTop)?.index;
    const bottom = virtualizer.getVirtualItemForOffset(el.scrollTop + el.clientHeight)?.index;
    if (top === undefined || bottom === undefined) return;
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
    for (let i = Math.max(0, top - 4); i <= Math.min(rows.length - 1, bottom + 4); i++) {
      const span = positionsOf(rows[i], windowed.from);
      if (!span) continue;
      lo = Math.min(lo, span[0]);
      hi = Math.max(hi, span[1]);
    }
    if (goal.current !== undefined) {
      lo = goal.current;
      hi = goal.current + 1;
    }
    if (lo < hi) w.need(lo, hi);
  }, [firstDrawn, lastDrawn, version]);
  // Where the prompts and failures of the whole session are, for the counts and the keys.
  const [positions, setPositions] = useState<Positions | undefined>(undefined);
  const total = timeline.windowed;
  useEffect(() => {
    if (total === undefined || !feed.window) return;
    let current = true;
    feed.window.positions().then(
      (p) => current && setPositions(p),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [total === undefined, Math.floor((total ?? 0) / 50)]);
  /** Steps to the next (or previous) of `kind` in the whole session, from row `here`. */
  const stepTo = (kind: 'prompt' | 'error', here: number, forward: boolean) => {
    feed.window
      ?.positions()
      .then((p) => {
        const v = latest.current.view;
        const list = p[kind];
        const at = forward
          ? list.find((x) => (rowAt(v, x) ?? -1) > here)
          : [...list].reverse().find((x) => (rowAt(v, x) ?? Number.POSITIVE_INFINITY) < here);
        if (at !== undefined) {
          chooseFollow(false);
          goTo(at);
        }
      })
      .catch(() => undefined);
  };

  // A hit of the whole session's search lands as a link to its item does (its page read first).
  const { conn } = useServices();
  const landOnHit = (hit: SessionSearchHit) => {
    const ref = {
      uuid: hit.item_uuid,
      type: hit.item_type,
      query: find.bar.query,
      ...(hit.agent_id ? { lane: hit.agent_id } : {}),
    };
    location.hash = sessionHref(feed.agent, feed.sid, 'timeline', ref);
  };

  // --- keyboard ---
  const jump = (index: number | undefined) => {
    if (index === undefined) return;
    chooseFollow(index === rows.length - 1 && follow);
    setTarget(rows[index]?.key);
    virtualizer.scrollToIndex(index, { align: 'start' });
  };
  const topIndex = (): number => {
    const offset = virtualizer.scrollOffset ?? 0;
    const first = virtualizer.getVirtualItems().find((v) => v.end > offset + 8);
    return first?.index ?? 0;
  };
  const current = (): number => {
    const t = target === undefined ? -1 : rows.findIndex((r) => r.key === target);
    const top = topIndex();
    // The row last jumped to counts while it is still on screen.
    if (t >= 0 && virtualizer.getVirtualItems().some((v) => v.index === t)) return t;
    return top;
  };
  // Swapped in as each render commits, not after paint: a key pressed in between would step
  // from the target before last.
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const tag = (e.target as HTMLElement | null)?.tagName;
      if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT') return;
      const here = current();
      if (feed.window && windowed) {
        const step: Record<string, () => void> = {
          j: () => stepTo('prompt', here, true),
          k: () => stepTo('prompt', here, false),
          ']': () => stepTo('error', here, true),
          '[': () => stepTo('error', here, false),
          g: () => {
            chooseFollow(false);
            goTo(0);
          },
          G: () => goTo(windowed.total - 1),
        };
        const act = step[e.key];
        if (act) {
          act();
          e.preventDefault();
          return;
        }
      }
      switch (e.key) {
        case 'j':
          jump(view.prompts.find((i) => i > here));
          break;
        case 'k':
          jump([...view.prompts].reverse().find((i) => i < here));
          break;
        case ']':
          jump(view.errors.find((i) => i > here));
          break;
        case '[':
          jump([...view.errors].reverse().find((i) => i < here));
          break;
        case 'f':
          chooseFollow((f) => !f);
          break;
        case 'g':
          jump(0);
          break;
        case 'G':
          jump(rows.length - 1);
          break;
        case 'h':
          setMachinery((m) => !m);
          break;
        case '?':
          setShowKeys((s) => !s);
          break;
        default:
          return;
      }
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  });

  // Last of the layout effects: what the anchoring above reads at the next change of rows.
  useLayoutEffect(() => {
    committedTop.current = topRow();
  });

  const items = virtualizer.getVirtualItems();
  useWarmMarkdown(rows, items[0]?.index, items[items.length - 1]?.index);
  const mainStatus = timeline.status(MAIN_LANE);
  const { state } = feed;
  // The session's own counts, or undefined until they are the whole session's: a long session's come
  // from the server's positions; another's are those drawn once its history is in. Before then the
  // items drawn are a preview or a part, and their count would be a wrong number.
  const prompts = windowed ? positions?.prompt.length : state.loaded ? view.prompts.length : undefined;
  const failures = windowed ? positions?.error.length : state.loaded ? view.errors.length : undefined;

  return (
    <div
      class="timeline-view"
      data-held={timeline.items(MAIN_LANE).length}
      data-window={windowed ? `${windowed.from}-${windowed.to}/${windowed.total}` : undefined}
    >
      <div class="toolbar" role="toolbar" aria-label="Timeline">
        <span
          class="muted small status-line"
          data-loaded={state.loaded ? 'yes' : 'no'}
          title={
            windowed
              ? `${formatCount(windowed.to - windowed.from)} of them read in around the view`
              : undefined
          }
        >
          {state.error
            ? `Could not read this session: ${state.error}`
            : state.loaded
              ? `${formatCount(mainCount)} items`
              : `reading… ${formatCount(mainCount)}${state.total ? ` of ${formatCount(state.total)}` : ''} items`}
          {state.busy && <span class="busy"> · agent working</span>}
        </span>
        {mainStatus === 'loading' && <span class="spinner" aria-hidden="true" />}
        <span class="spacer" />
        <span
          class="muted small toolbar-counts"
          data-counted={prompts === undefined ? 'no' : 'yes'}
          title={
            failures === undefined
              ? 'counting the whole session…'
              : `] and [ step through the ${formatCount(failures)} failed calls and errors ${windowed ? 'of the session' : 'drawn here'}`
          }
        >
          {prompts === undefined ? PENDING : formatCount(prompts)} prompts ·{' '}
          <span class="failed-count">
            {failedCallsText(numbers?.failedTools) ??
              (failures === undefined
                ? `${PENDING} failed calls`
                : `${formatCount(failures)} failed calls${windowed ? '' : ' shown'}`)}
          </span>
        </span>
        <label
          class="check hidden-records"
          // A long session's count is of the items read in around the view, not of the whole session.
          title={windowed ? 'counted in the items read in around the view' : undefined}
        >
          <input
            type="checkbox"
            checked={machinery}
            onChange={(e) => setMachinery(e.currentTarget.checked)}
          />
          hidden records
          {view.machineryHidden > 0
            ? ` (${formatCount(view.machineryHidden)}${windowed ? ' here' : ''})`
            : ''}
        </label>
        <button
          type="button"
          class={`follow ${follow ? 'on' : ''}`}
          aria-pressed={follow}
          onClick={() => chooseFollow(!follow)}
          title="keep the newest item in view (f)"
        >
          {follow ? '● following' : '○ follow'}
        </button>
        <button
          type="button"
          class="find-open"
          onClick={find.show}
          aria-label="Find in this session"
          title="Find in this session (Ctrl+F or /)"
        >
          Find
        </button>
        <button
          type="button"
          class="link small keys-button"
          onClick={() => setShowKeys(!showKeys)}
          aria-expanded={showKeys}
        >
          keys
        </button>
      </div>
      {find.open && <FindBar {...find.bar} />}
      {find.open && windowed && (
        <WholeSessionFind
          conn={conn}
          agent={feed.agent}
          sid={feed.sid}
          query={find.bar.query}
          held={windowed.to - windowed.from}
          total={windowed.total}
          onLand={landOnHit}
        />
      )}
      {showKeys && (
        <dl class="keys" aria-label="Keyboard shortcuts">
          {KEYS.map(([k, v]) => (
            <div key={k}>
              <dt>
                <kbd>{k}</kbd>
              </dt>
              <dd>{v}</dd>
            </div>
          ))}
        </dl>
      )}
      {notice && <p class="notice-bar">{notice}</p>}
      <div class="timeline-scroll" ref={scroller} onScroll={onScroll} tabIndex={-1}>
        <div
          class={`timeline-inner${virtualizer.isScrolling ? ' scrolling' : ''}`}
          style={{ height: `${virtualizer.getTotalSize()}px` }}
        >
          {items.map((v) => {
            const row = rows[v.index]!;
            return (
              <div
                key={row.key}
                class="vrow"
                data-index={v.index}
                ref={virtualizer.measureElement}
                style={{ transform: `translateY(${v.start}px)` }}
              >
                {days.has(v.index) && <DayDivider at={days.get(v.index)!} />}
                {row.kind === 'item' ? (
                  <ItemRowView row={row} ctx={ctx} target={row.key === target} />
                ) : row.kind === 'gap' ? (
                  <GapView row={row} total={windowed?.total} />
                ) : row.kind === 'link' ? (
                  <LinkMarkerView row={row} />
                ) : (
                  <LaneEdgeView row={row} ctx={ctx} />
                )}
              </div>
            );
          })}
        </div>
      </div>
      {!follow && unseen > 0 && (
        <button
          type="button"
          class="unseen"
          onClick={() => {
            chooseFollow(true);
            setUnseen(0);
          }}
        >
          ↓ {unseen} new
        </button>
      )}
      <p class="keys-line muted small">
        <kbd>j</kbd>/<kbd>k</kbd> prompts · <kbd>]</kbd>/<kbd>[</kbd> failed calls · <kbd>f</kbd> follow ·{' '}
        <kbd>?</kbd> all keys
      </p>
    </div>
  );
}

/** The local date as YYYY-MM-DD, for a machine-readable `<time>`. */
const isoDay = (at: number): string => {
  const d = localDay(at);
  return `${Math.floor(d / 10_000)}-${String(Math.floor(d / 100) % 100).padStart(2, '0')}-${String(d % 100).padStart(2, '0')}`;
};

/** Positions not held yet: as tall as their estimate, so the list keeps still when they are read in. */
function GapView({ row, total }: { row: GapRow; total: number | undefined }) {
  return (
    <div class="gap-row muted small" style={{ height: `${(row.to - row.from) * GAP_ITEM_PX}px` }}>
      items {formatCount(row.from + 1)}–{formatCount(row.to)}
      {total === undefined ? '' : ` of ${formatCount(total)}`} · reading…
    </div>
  );
}

function DayDivider({ at }: { at: number }) {
  return (
    <div class="day-divider">
      <time dateTime={isoDay(at)}>{formatDay(at)}</time>
    </div>
  );
}
