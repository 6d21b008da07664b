// A page of one lane's items, cut from the items the catalog already holds for the session (those a
// stream sends as its history), so that paging through a long session costs what a page holds
// rather than a dump of the whole session per page. Only a request with no bounds in time or by
// record takes this path: those cut by position in the events and are left to the dump.
import {
  isPromptItem,
  type PositionKind,
  type TranscriptItem,
  type TranscriptItemsReadArgs,
} from '@cairn/protocol';
import { findLane, isOfRecord, type Selection } from '@cairn/transcript';
import type { Loaded } from '../reader/catalog.js';

/** A lane's items as a selection keeps them, with what a reply says of them all. */
export interface SelectedLane {
  /** How many of the lane's items were read: a lane that grew since is selected again. */
  readonly seen: number;
  readonly items: readonly TranscriptItem[];
  readonly entries: Record<string, number>;
  readonly calls: Record<string, number>;
  /** Positions (in `items`) of the calls whose result is not among the selected items. */
  readonly unanswered: ReadonlySet<number>;
}

/** Selections kept per lane: each may hold a list as long as the lane. */
const SELECTIONS_KEPT = 4;

/** Per lane's item list, per selection: kept while the catalog keeps the list. */
const selected = new WeakMap<readonly TranscriptItem[], Map<string, SelectedLane>>();

/** Whether a request can be answered from a lane's held items: nothing cuts it but its position. */
export const isPlainRange = (req: TranscriptItemsReadArgs): boolean =>
  req.since_at === undefined &&
  req.until_at === undefined &&
  req.since_uuid === undefined &&
  req.until_uuid === undefined;

/**
 * The request's lane as `sel` keeps it, from the items the catalog holds for the session; undefined
 * when it holds none for that lane (an unknown subagent), for the caller to answer as the dump would.
 */
export function heldSelection(
  loaded: Loaded,
  agentId: string | undefined,
  sel: Selection,
): SelectedLane | undefined {
  const laneId = agentId === undefined ? undefined : findLane(loaded.transcript, agentId)?.id;
  if (agentId !== undefined && laneId === undefined) return undefined;
  const lane = loaded.lanes.find((l) => l.agentId === laneId);
  return lane ? select(lane.classification.items, sel) : undefined;
}

/** A dump's items as a selected lane, so that both are paged alike. */
export function dumpedSelection(
  items: readonly TranscriptItem[],
  entries: Record<string, number>,
): SelectedLane {
  const calls: Record<string, number> = {};
  for (const item of items)
    if ((item as { role?: unknown }).role === 'use') calls[item.type] = (calls[item.type] ?? 0) + 1;
  // The dump has already unlinked the calls whose results it left out.
  return { seen: items.length, items, entries, calls, unanswered: new Set() };
}

/** Items [at, at + size) of a selection. */
export function pageOf(chosen: SelectedLane, at: number, size: number): TranscriptItem[] {
  const end = Math.min(chosen.items.length, at + size);
  const items: TranscriptItem[] = [];
  for (let i = at; i < end; i++) {
    const item = chosen.items[i]!;
    items.push(chosen.unanswered.has(i) ? withoutResultLink(item) : item);
  }
  return items;
}

/** Where the page holding record `uuid`'s first item starts: up to half a page before that item. */
export function aroundRecord(chosen: SelectedLane, uuid: string, size: number): number | undefined {
  const at = chosen.items.findIndex((item) => isOfRecord(item.uuid, uuid));
  return at === -1 ? undefined : Math.max(0, at - Math.floor(size / 2));
}

/** Where the items of each kind asked sit in a selection: what a reader holding only a window of
 * a long session steps through with its keys (the next prompt, the previous failure). */
export function positionsOf(
  chosen: SelectedLane,
  kinds: readonly PositionKind[],
): Partial<Record<PositionKind, number[]>> {
  const out: Partial<Record<PositionKind, number[]>> = {};
  for (const kind of kinds) out[kind] = [];
  const { prompt, error } = out;
  chosen.items.forEach((item, i) => {
    if (prompt && isPromptItem(item)) prompt.push(i);
    if (error && isFailure(item)) error.push(i);
  });
  return out;
}

const field = (item: TranscriptItem, name: string): unknown => (item as Record<string, unknown>)[name];

/** An API error, or a tool's result recorded as failed. */
const isFailure = (item: TranscriptItem): boolean =>
  item.type === 'system:api-error' ||
  (item.type.startsWith('tool:') &&
    field(item, 'role') === 'result' &&
    (field(item, 'is_error') === true || field(item, 'ok') === false));

/** The lane's items as `sel` keeps them, made once per lane and selection while the lane is unchanged. */
function select(lane: readonly TranscriptItem[], sel: Selection): SelectedLane {
  let bySelection = selected.get(lane);
  if (!bySelection) {
    bySelection = new Map();
    selected.set(lane, bySelection);
  }
  const key = sel.elements.join(' ');
  const kept = bySelection.get(key);
  // A followed session's lane grows in place as the agent appends.
  if (kept && kept.seen === lane.length) return kept;
  const made = selectLane(lane, sel);
  bySelection.delete(key);
  bySelection.set(key, made);
  // A few selections per lane are kept (the reader's, a dump preview's); the oldest goes first.
  for (const old of bySelection.keys()) {
    if (bySelection.size <= SELECTIONS_KEPT) break;
    bySelection.delete(old);
  }
  return made;
}

function selectLane(lane: readonly TranscriptItem[], sel: Selection): SelectedLane {
  const entries: Record<string, number> = {};
  const calls: Record<string, number> = {};
  let items: TranscriptItem[] | undefined;
  for (let i = 0; i < lane.length; i++) {
    const item = lane[i]!;
    if (!sel.keeps(item.type)) {
      // The list is copied only once the selection leaves something out.
      items ??= lane.slice(0, i);
      continue;
    }
    items?.push(item);
    entries[item.type] = (entries[item.type] ?? 0) + 1;
    if ((item as { role?: unknown }).role === 'use') calls[item.type] = (calls[item.type] ?? 0) + 1;
  }
  const chosen = items ?? lane;
  // As a dump says it: a call whose result was not selected (or has not come) names none.
  const present = new Set<string>();
  for (const item of chosen) present.add(item.uuid);
  const unanswered = new Set<number>();
  chosen.forEach((item, i) => {
    const link = (item as { result_item?: string }).result_item;
    if (link !== undefined && !present.has(link)) unanswered.add(i);
  });
  return { seen: lane.length, items: chosen, entries, calls, unanswered };
}

function withoutResultLink(item: TranscriptItem): TranscriptItem {
  const { result_item: _gone, ...rest } = item as TranscriptItem & { result_item?: string };
  return rest as TranscriptItem;
}
