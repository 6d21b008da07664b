// What a session's timeline holds: the items of each lane (the session's own, and every subagent
// lane opened in place), calls paired with their results, and the flat list of rows a virtualized
// list draws. Pure: no DOM, no network.
import { isPromptItem, type SessionLink } from '@cairn/protocol';
import { shownItem } from '../display.js';
import type { ItemRef } from '../route.js';
import {
  type Item,
  isCompactionBoundary,
  isErrorResult,
  isMachinery,
  isResult,
  isUse,
  spawnedAgent,
  str,
} from './item.js';
import { markerKey, markerPlaces } from './link-markers.js';

/** The session's own lane. */
export const MAIN_LANE = '';

export type LaneStatus = 'idle' | 'loading' | 'ready' | 'error';

/** The record an item was read from: items of one record may carry its uuid with a `#…` suffix. */
const recordOf = (uuid: string): string => {
  const hash = uuid.indexOf('#');
  return hash === -1 ? uuid : uuid.slice(0, hash);
};

function push(map: Map<string, number[]>, key: string, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

class Lane {
  readonly items: Item[] = [];
  /** Where the lane's first item sits in its whole history: a page read from the middle of a long
   * session starts past 0. Row keys count from the whole history's start, so a row keeps its key
   * (and its measured size, its open folds) when the page is replaced by the history around it. */
  base = 0;
  /** Each item's order among the lane's items of the same record and type, for exact pointers. */
  readonly nth: number[] = [];
  private readonly seenOf = new Map<string, number>();
  status: LaneStatus = 'idle';
  error: string | undefined;
  /** Call index → its result's index; and the results so folded into their call. */
  readonly resultOf = new Map<number, number>();
  readonly paired = new Set<number>();
  /** `message:sub:out` index → its `message:sub:in` answer. */
  readonly answerOf = new Map<number, number>();
  /** `message:sub:out` index → the `tool:Agent` call of the same record, drawn as one row with it. */
  readonly agentToolOf = new Map<number, number>();
  readonly hidden = new Set<number>();
  /** Call index → the hooks that ran around it, drawn on its row. */
  readonly hooksOf = new Map<number, number[]>();
  /** A compaction's boundary → the summary that replaced the context, drawn as one divider. */
  readonly summaryOf = new Map<number, number>();
  private readonly useByToolId = new Map<string, number>();
  private readonly useByUuidType = new Map<string, number>();
  private readonly subOutByUuid = new Map<string, number[]>();
  private readonly subOutByRecord = new Map<string, number[]>();
  private readonly agentUseByRecord = new Map<string, number>();

  constructor(readonly id: string) {}

  add(item: Item): void {
    const i = this.items.length;
    this.items.push(item);
    const same = `${item.uuid}|${item.type}`;
    const n = this.seenOf.get(same) ?? 0;
    this.seenOf.set(same, n + 1);
    this.nth.push(n);
    if (isUse(item)) this.addUse(item, i);
    else if (isResult(item)) this.addResult(item, i);
    else if (item.type.startsWith('hook:')) this.addHook(item, i);
    else if (item.type === 'system:compact') this.addCompaction(item, i);
  }

  private addHook(item: Item, i: number): void {
    const toolUseId = str(item, 'tool_use_id');
    const call = toolUseId === undefined ? undefined : this.useByToolId.get(toolUseId);
    if (call === undefined) return;
    const hooks = this.hooksOf.get(call);
    if (hooks) hooks.push(i);
    else this.hooksOf.set(call, [i]);
    this.paired.add(i);
  }

  // A compaction is read as its boundary ("context compacted (auto, …)") and, right after it, the
  // summary the agent continued from: one event, one divider.
  private addCompaction(item: Item, i: number): void {
    const prev = i - 1;
    const before = this.items[prev];
    if (
      before?.type === 'system:compact' &&
      isCompactionBoundary(before) &&
      !isCompactionBoundary(item) &&
      !this.summaryOf.has(prev)
    ) {
      this.summaryOf.set(prev, i);
      this.paired.add(i);
    }
  }

  private addUse(item: Item, i: number): void {
    const toolUseId = str(item, 'tool_use_id');
    if (toolUseId !== undefined && !this.useByToolId.has(toolUseId)) this.useByToolId.set(toolUseId, i);
    this.useByUuidType.set(`${item.uuid}|${item.type}`, i);
    // A spawn is read as a `tool:Agent` call and a `message:sub:out` from the same record; they are
    // drawn as one row.
    const record = recordOf(item.uuid);
    if (item.type === 'tool:Agent') {
      this.agentUseByRecord.set(record, i);
      const spawns = this.subOutByRecord.get(record);
      const spawn = spawns?.find((s) => !this.agentToolOf.has(s));
      if (spawn !== undefined) this.merge(spawn, i);
    } else if (item.type === 'message:sub:out') {
      push(this.subOutByUuid, item.uuid, i);
      push(this.subOutByRecord, record, i);
      const call = this.agentUseByRecord.get(record);
      if (call !== undefined && !this.hidden.has(call)) this.merge(i, call);
    }
  }

  private merge(spawn: number, call: number): void {
    this.agentToolOf.set(spawn, call);
    this.hidden.add(call);
    const result = this.resultOf.get(call);
    if (result !== undefined) this.hidden.add(result);
  }

  private addResult(item: Item, i: number): void {
    if (item.type === 'message:sub:in') {
      const parent = str(item, 'parent_item');
      const spawns = parent === undefined ? undefined : this.subOutByUuid.get(parent);
      if (!spawns) return;
      const agentId = str(item, 'agent_id');
      const open = spawns.filter((s) => !this.answerOf.has(s));
      const spawn =
        open.find((s) => agentId !== undefined && str(this.items[s]!, 'agent_id') === agentId) ?? open[0];
      if (spawn === undefined) return;
      this.answerOf.set(spawn, i);
      this.paired.add(i);
      return;
    }
    const toolUseId = str(item, 'tool_use_id');
    let call = toolUseId === undefined ? undefined : this.useByToolId.get(toolUseId);
    if (call === undefined) {
      const parent = str(item, 'parent_item');
      if (parent !== undefined) call = this.useByUuidType.get(`${parent}|${item.type}`);
    }
    if (call === undefined || this.resultOf.has(call)) return;
    this.resultOf.set(call, i);
    this.paired.add(i);
    if (this.hidden.has(call)) this.hidden.add(i);
  }
}

/** One entry per hook run: a hook recorded as started and later with its outcome is shown once, with
 * the outcome, where the start was. */
function hookRuns(hooks: readonly Item[]): Item[] {
  const out: Item[] = [];
  // Per hook name, the places of starts still waiting for their outcome, earliest first.
  const waiting = new Map<string, number[]>();
  for (const h of hooks) {
    const name = str(h, 'hook_name') ?? h.type;
    const queue = waiting.get(name) ?? [];
    if (str(h, 'status') === 'started') {
      queue.push(out.length);
      waiting.set(name, queue);
      out.push(h);
      continue;
    }
    const command = str(h, 'command');
    const k = queue.findIndex((at) => command === undefined || str(out[at]!, 'command') === command);
    if (k === -1) out.push(h);
    else out[queue.splice(k, 1)[0]!] = h;
  }
  return out;
}

export interface ItemRow {
  readonly kind: 'item';
  readonly key: string;
  readonly lane: string;
  readonly depth: number;
  /** The item's index in `items(lane)`; its key counts from the lane's whole history instead. */
  readonly index: number;
  readonly item: Item;
  /** The call's result, or a subagent spawn's answer. */
  readonly result: Item | undefined;
  /** For a subagent spawn: the `tool:Agent` call and result drawn with it. */
  readonly agentCall: Item | undefined;
  readonly agentResult: Item | undefined;
  /** The subagent lane this row can open. */
  readonly spawns: string | undefined;
  /** The hooks that ran around this call, in the order they ran. */
  readonly hooks: readonly Item[];
  readonly failed: boolean;
  readonly open: boolean;
}

export interface LaneEdgeRow {
  readonly kind: 'lane-start' | 'lane-end';
  readonly key: string;
  readonly lane: string;
  readonly depth: number;
  readonly status: LaneStatus;
  readonly error: string | undefined;
  readonly count: number;
}

/** Where the work went on from this session: a divider after the item it was handed off or forked
 * at. Not an item: it counts nowhere and find does not search it. */
export interface LinkMarkerRow {
  readonly kind: 'link';
  readonly key: string;
  readonly lane: string;
  readonly depth: number;
  readonly link: SessionLink;
}

/** Positions `[from, to)` of the session's own lane that a windowed timeline does not hold: drawn as
 * one placeholder of their estimated height, read in when they come near the view. */
export interface GapRow {
  readonly kind: 'gap';
  readonly key: string;
  readonly lane: string;
  readonly depth: 0;
  readonly from: number;
  readonly to: number;
}

export type Row = ItemRow | LaneEdgeRow | LinkMarkerRow | GapRow;

/** Positions one placeholder stands for at most: placeholders start at multiples of it, so that a
 * position's placeholder is found by arithmetic and keeps its key while the window moves. */
export const GAP_SPAN = 100;

export interface RowsOptions {
  /** Show `system:unknown` records and attachments. */
  readonly machinery: boolean;
  /** The links that carried this session's work to another, each marked where it left. */
  readonly links?: readonly SessionLink[];
}

export interface Rows {
  readonly rows: readonly Row[];
  /** Row indexes of the person's prompts on the session's own lane. */
  readonly prompts: readonly number[];
  /** Row indexes of failed tool calls and API errors. */
  readonly errors: readonly number[];
  /** Every item's key (`lane#position` in the lane's whole history) → the row that draws it (a folded
   * result → its call's row). */
  readonly rowOf: ReadonlyMap<string, number>;
  /** How many machinery records were left out. */
  readonly machineryHidden: number;
  /** For a windowed lane: the positions its items hold, of how many, and the row of its first
   * placeholder after them (placeholders before them are rows 0, 1, …). */
  readonly window?: {
    readonly from: number;
    readonly to: number;
    readonly total: number;
    readonly afterRow: number;
  };
}

const itemKey = (lane: string, index: number): string => `${lane}#${index}`;

export class Timeline {
  private readonly lanes = new Map<string, Lane>([[MAIN_LANE, new Lane(MAIN_LANE)]]);
  private readonly opened = new Set<string>();
  private readonly rowCache = new Map<string, ItemRow>();
  private readonly listeners = new Set<() => void>();
  /** Grows on every change, so views can memoize on it. */
  version = 0;
  /** How many items the session's own lane holds in all, when the timeline keeps only a window of
   * them (`base` on, `items` long); undefined when it holds every one. */
  private windowTotal: number | undefined;

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.version++;
    for (const l of this.listeners) l();
  }

  /** Tells the views to look again (a read they wait for has ended), nothing held having changed. */
  touch(): void {
    this.changed();
  }

  lane(id: string): Lane {
    let lane = this.lanes.get(id);
    if (!lane) {
      lane = new Lane(id);
      this.lanes.set(id, lane);
    }
    return lane;
  }

  items(lane = MAIN_LANE): readonly Item[] {
    return this.lane(lane).items;
  }

  append(lane: string, items: readonly Item[]): void {
    if (items.length === 0) return;
    const l = this.lane(lane);
    // What the page draws of an item is made visible here, once: bidi and other invisible characters.
    for (const item of items) l.add(shownItem(item));
    this.changed();
  }

  setStatus(lane: string, status: LaneStatus, error?: string): void {
    const l = this.lane(lane);
    l.status = status;
    l.error = error;
    this.changed();
  }

  status(lane = MAIN_LANE): LaneStatus {
    return this.lane(lane).status;
  }

  isOpen(lane: string): boolean {
    return this.opened.has(lane);
  }

  /** The subagent lanes open, in the order they were opened. */
  openLanes(): readonly string[] {
    return [...this.opened];
  }

  setOpen(lane: string, open: boolean): void {
    if (open === this.opened.has(lane)) return;
    if (open) this.opened.add(lane);
    else this.opened.delete(lane);
    this.changed();
  }

  /** Replaces one lane's items with `items`, the first of them at position `base` of its whole history,
   * in one change: the page never shows the lane empty in between. */
  replaceLane(id: string, items: readonly Item[], base: number, shown = false): void {
    const lane = new Lane(id);
    lane.base = base;
    this.lanes.set(id, lane);
    // A window's items are the same objects from move to move: their rows are kept (a row is used
    // again only for the same item), but not those of positions it let go.
    if (shown) this.pruneRows(id, base, base + items.length);
    else this.rowCache.clear();
    // Items already made visible (a window's, each made so once as it came) are taken as they are.
    for (const item of items) lane.add(shown ? item : shownItem(item));
    this.changed();
  }

  private pruneRows(lane: string, from: number, to: number): void {
    const prefix = `${lane}#`;
    for (const [key, row] of this.rowCache) {
      if (row.lane !== lane || !key.startsWith(prefix)) continue;
      const at = Number(key.slice(prefix.length));
      if (at < from || at >= to) this.rowCache.delete(key);
    }
  }

  /** Adds items already made visible at the end of a lane (see `replaceLane`). */
  appendShown(lane: string, items: readonly Item[]): void {
    if (items.length === 0) return;
    const l = this.lane(lane);
    for (const item of items) l.add(item);
    this.changed();
  }

  /** As `replaceLane`, for a long history: the lane is made off screen a slice at a time, `pause` in
   * between (so that the page scrolls and paints meanwhile), and put in place in one change. */
  async replaceLaneInSlices(
    id: string,
    items: readonly Item[],
    base: number,
    pause: () => Promise<void>,
    slice = 20_000,
  ): Promise<void> {
    const lane = new Lane(id);
    lane.base = base;
    for (let i = 0; i < items.length; i++) {
      lane.add(shownItem(items[i]!));
      if ((i + 1) % slice === 0) await pause();
    }
    this.lanes.set(id, lane);
    this.rowCache.clear();
    this.changed();
  }

  /** Keeps only a window of the session's own lane, out of `total` items in all (undefined: all). */
  setWindowTotal(total: number | undefined): void {
    if (total === this.windowTotal) return;
    this.windowTotal = total;
    this.changed();
  }

  /** The session's own lane's items in all, when only a window of them is held. */
  get windowed(): number | undefined {
    return this.windowTotal;
  }

  /** Where the lane's first item sits in its whole history. */
  baseOf(lane = MAIN_LANE): number {
    return this.lane(lane).base;
  }

  /** The row key of the lane's item at `index` (an index into `items(lane)`). */
  keyOf(lane: string, index: number): string {
    return itemKey(lane, this.lane(lane).base + index);
  }

  /** Drops one lane's items (a preview of the session's own, say), keeping the other lanes read. */
  clearLane(id: string): void {
    this.lanes.set(id, new Lane(id));
    this.rowCache.clear();
    this.changed();
  }

  /** Drops everything, for a reload from scratch. */
  clear(): void {
    this.lanes.clear();
    this.lanes.set(MAIN_LANE, new Lane(MAIN_LANE));
    this.rowCache.clear();
    this.changed();
  }

  rows(options: RowsOptions): Rows {
    const rows: Row[] = [];
    const prompts: number[] = [];
    const errors: number[] = [];
    const rowOf = new Map<string, number>();
    let machineryHidden = 0;
    // Markers sit on the session's own lane, after the item they were cut at whether or not that item
    // has a row of its own (a result folded into its call, a hidden record): after what came before.
    const markers = markerPlaces(
      this.lane(MAIN_LANE).items,
      options.links ?? [],
      this.windowTotal !== undefined,
    );
    const pushMarkers = (links: readonly SessionLink[] | undefined) => {
      for (const link of links ?? [])
        rows.push({ kind: 'link', key: markerKey(link), lane: MAIN_LANE, depth: 0, link });
    };
    const walk = (laneId: string, depth: number, seen: ReadonlySet<string>) => {
      const lane = this.lane(laneId);
      const marking = laneId === MAIN_LANE ? markers : undefined;
      lane.items.forEach((item, i) => {
        drawItem(lane, laneId, depth, seen, item, i);
        if (marking) pushMarkers(marking.get(i));
      });
    };
    const drawItem = (
      lane: Lane,
      laneId: string,
      depth: number,
      seen: ReadonlySet<string>,
      item: Item,
      i: number,
    ) => {
      if (lane.hidden.has(i) || lane.paired.has(i)) return;
      if (!options.machinery && isMachinery(item)) {
        machineryHidden++;
        return;
      }
      const row = this.itemRow(lane, i, depth);
      const at = rows.length;
      rows.push(row);
      const base = lane.base;
      rowOf.set(itemKey(laneId, base + i), at);
      for (const j of [lane.resultOf.get(i), lane.answerOf.get(i), lane.summaryOf.get(i)]) {
        if (j !== undefined) rowOf.set(itemKey(laneId, base + j), at);
      }
      for (const j of lane.hooksOf.get(i) ?? []) rowOf.set(itemKey(laneId, base + j), at);
      const call = lane.agentToolOf.get(i);
      if (call !== undefined) {
        rowOf.set(itemKey(laneId, base + call), at);
        const callResult = lane.resultOf.get(call);
        if (callResult !== undefined) rowOf.set(itemKey(laneId, base + callResult), at);
        for (const j of lane.hooksOf.get(call) ?? []) rowOf.set(itemKey(laneId, base + j), at);
      }
      if (depth === 0 && isPromptItem(item)) prompts.push(at);
      if (row.failed) errors.push(at);
      if (row.spawns !== undefined && row.open && !seen.has(row.spawns))
        openLane(row.spawns, depth + 1, seen);
    };
    const placed = new Set<string>();
    const openLane = (id: string, depth: number, seen: ReadonlySet<string>) => {
      placed.add(id);
      const sub = this.lane(id);
      const edge = { lane: id, depth, status: sub.status, error: sub.error, count: sub.items.length };
      rows.push({ kind: 'lane-start', key: `${id}^`, ...edge });
      walk(id, depth, new Set([...seen, id]));
      rows.push({ kind: 'lane-end', key: `${id}$`, ...edge });
    };
    const main = this.lane(MAIN_LANE);
    const total = this.windowTotal;
    const to = main.base + main.items.length;
    const pushGaps = (from: number, end: number) => {
      for (let at = from; at < end; at = (Math.floor(at / GAP_SPAN) + 1) * GAP_SPAN) {
        const stop = Math.min(end, (Math.floor(at / GAP_SPAN) + 1) * GAP_SPAN);
        rows.push({ kind: 'gap', key: `~${at}`, lane: MAIN_LANE, depth: 0, from: at, to: stop });
      }
    };
    if (total !== undefined) pushGaps(0, main.base);
    walk(MAIN_LANE, 0, new Set([MAIN_LANE]));
    const afterRow = rows.length;
    if (total !== undefined) pushGaps(to, total);
    // An open lane whose spawn is not among the items (a link into a subagent started before the
    // loaded range) is drawn after them, so what it holds can still be reached.
    for (const id of this.opened) if (!placed.has(id)) openLane(id, 1, new Set([MAIN_LANE]));
    // A link whose item is not among those read yet (or names none) is marked at the end.
    pushMarkers(markers?.get(Number.POSITIVE_INFINITY));
    const window = total === undefined ? undefined : { from: main.base, to, total, afterRow };
    return { rows, prompts, errors, rowOf, machineryHidden, ...(window ? { window } : {}) };
  }

  private itemRow(lane: Lane, i: number, depth: number): ItemRow {
    const item = lane.items[i]!;
    const resultIndex = lane.resultOf.get(i) ?? lane.answerOf.get(i) ?? lane.summaryOf.get(i);
    const result = resultIndex === undefined ? undefined : lane.items[resultIndex];
    const callIndex = lane.agentToolOf.get(i);
    const agentCall = callIndex === undefined ? undefined : lane.items[callIndex];
    const agentResultIndex = callIndex === undefined ? undefined : lane.resultOf.get(callIndex);
    const agentResult = agentResultIndex === undefined ? undefined : lane.items[agentResultIndex];
    const spawns = item.type === 'message:sub:out' ? spawnedAgent(item, result, agentResult) : undefined;
    const open = spawns !== undefined && this.opened.has(spawns);
    const failed =
      item.type === 'system:api-error' ||
      (result !== undefined && item.type.startsWith('tool:') && isErrorResult(result)) ||
      (agentResult !== undefined && isErrorResult(agentResult)) ||
      (isResult(item) && item.type.startsWith('tool:') && isErrorResult(item));
    // A spawn's row stands for its agent call too, so it carries that call's hooks.
    const hookIndexes =
      lane.hooksOf.get(i) ?? (callIndex === undefined ? undefined : lane.hooksOf.get(callIndex)) ?? [];
    const key = itemKey(lane.id, lane.base + i);
    const cached = this.rowCache.get(key);
    if (
      cached &&
      cached.item === item &&
      cached.index === i &&
      cached.result === result &&
      cached.agentCall === agentCall &&
      cached.agentResult === agentResult &&
      cached.depth === depth &&
      cached.open === open &&
      cached.spawns === spawns &&
      cached.hooks.length === hookIndexes.length
    ) {
      return cached;
    }
    const row: ItemRow = {
      kind: 'item',
      key,
      lane: lane.id,
      depth,
      index: i,
      item,
      result,
      agentCall,
      agentResult,
      spawns,
      hooks: hookRuns(hookIndexes.map((h) => lane.items[h]!)),
      failed,
      open,
    };
    this.rowCache.set(key, row);
    return row;
  }

  /** Where an item pointer lands: its lane and index, or undefined when no loaded item matches. */
  find(ref: ItemRef): { lane: string; index: number } | undefined {
    const lane = ref.lane ?? MAIN_LANE;
    const items = this.lane(lane).items;
    let nth = ref.nth ?? 0;
    let fallback: number | undefined;
    for (let i = 0; i < items.length; i++) {
      const item = items[i]!;
      if (item.uuid !== ref.uuid) continue;
      fallback ??= i;
      if (ref.type !== undefined && item.type !== ref.type) continue;
      if (nth-- === 0) return { lane, index: i };
    }
    // The record is there but not that exact item: land on the record.
    return fallback === undefined ? undefined : { lane, index: fallback };
  }

  /** The pointer that finds this item again. */
  refOf(lane: string, index: number): ItemRef | undefined {
    const l = this.lane(lane);
    const item = l.items[index];
    if (!item) return undefined;
    const nth = l.nth[index] ?? 0;
    const ref: ItemRef = { uuid: item.uuid, type: item.type };
    if (lane !== MAIN_LANE) ref.lane = lane;
    if (nth > 0) ref.nth = nth;
    return ref;
  }
}

export { itemKey };
