// What of a session is searchable: its items, from the main lane's side and from each subagent's,
// each under the search target its type falls in.
import type { TranscriptItem } from '@cairn/protocol';
import { type Classification, classifyTranscript, type Transcript } from '@cairn/transcript';
import { inSlices } from '../reader/slices.js';
import type { IndexDoc, SearchTarget } from './index-db.js';

/** Fields every item has that are not what it says. */
const BASE_FIELDS = new Set(['uuid', 'type', 'at', 'turn', 'source', 'role', 'result_item', 'parent_item']);
/** Identifiers an item carries: they are links, not words anyone searches for. */
const ID_FIELDS = /(^|_)id$|^reply_to$/;

/** The search target of an item type, or undefined for items a search does not look at. */
export function targetOf(item: TranscriptItem): SearchTarget | undefined {
  const type = item.type;
  const role = (item as { role?: string }).role;
  if (type.startsWith('tool:')) return role === 'result' ? 'tool_output' : 'tool_input';
  if (type.startsWith('hook:')) return 'tool_output';
  switch (type) {
    case 'message:user:in':
    case 'message:session:in':
    case 'notice:slash':
      return 'prompt';
    case 'message:user:out':
    case 'message:session:out':
    case 'message:sub:in':
    case 'system:compact':
      return 'assistant';
    case 'message:sub:out':
      return 'tool_input';
    case 'thinking':
      return 'thinking';
    default:
      return undefined;
  }
}

/** The words of an item: every string it carries beyond the common fields, depth first. */
export function itemText(item: TranscriptItem): string {
  const parts: string[] = [];
  const visit = (value: unknown, depth: number): void => {
    if (typeof value === 'string') {
      if (value !== '') parts.push(value);
    } else if (typeof value === 'number' || typeof value === 'boolean') {
      if (depth > 0) parts.push(String(value));
    } else if (Array.isArray(value)) {
      for (const v of value) visit(v, depth + 1);
    } else if (value !== null && typeof value === 'object' && depth < 8) {
      for (const v of Object.values(value)) visit(v, depth + 1);
    }
  };
  for (const [key, value] of Object.entries(item)) {
    if (!BASE_FIELDS.has(key) && !ID_FIELDS.test(key)) visit(value, 0);
  }
  return parts.join('\n');
}

export interface LaneItems {
  /** Undefined for the main lane. */
  agentId: string | undefined;
  classification: Classification;
  /** One key per item (same index), unique within the session and stable while the files only grow. */
  keys: string[];
}

/** The items of every lane of the session: the main lane first, then each subagent from its side. */
export function laneItems(t: Transcript, onlyLanes?: ReadonlySet<string>): LaneItems[] {
  const out: LaneItems[] = [];
  const main = t.agents.find((a) => a.parentId === undefined);
  for (const lane of t.agents.length > 0 ? t.agents : [undefined]) {
    const isMain = lane === undefined || lane === main;
    const laneId = lane?.id ?? '';
    if (onlyLanes && !onlyLanes.has(laneId)) continue;
    const classified = classifyTranscript(t, isMain ? {} : { agentId: laneId });
    if (!classified.ok) continue;
    out.push(laneItemsOf(isMain ? undefined : laneId, classified.value));
  }
  return out;
}

/** One lane's items with their keys; `keys.extend` numbers the items a classification adds later. */
export function laneItemsOf(agentId: string | undefined, classification: Classification): LaneItems {
  const lane: LaneItems = { agentId, classification, keys: [] };
  new ItemKeys(agentId ?? '').extend(lane);
  return lane;
}

/** The keys of one lane's items, handed out in order so that a lane that grows keeps its keys. */
export class ItemKeys {
  private seen = new Map<string, number>();
  /** The generation before `seen`, while a window is kept. */
  private older = new Map<string, number>();

  /**
   * With a `window`, only the bases of about the last `window` to 2 × `window` items are kept, not
   * every one: an item's uuid is its event's, and a transcript's event ids are unique, so the items
   * that share a base come from one event, one after another. A session read a part at a time keeps
   * its keys' memory bounded so; one read whole has them all at hand anyway.
   */
  constructor(
    private readonly laneId: string,
    private readonly window?: number,
  ) {}

  /** Keys the lane's items past those it has keys for. */
  extend(lane: LaneItems): void {
    const items = lane.classification.items;
    for (let i = lane.keys.length; i < items.length; i++) lane.keys.push(this.next(items[i]!));
  }

  /** The key of the lane's next item. */
  next(item: TranscriptItem): string {
    const base = `${this.laneId}|${item.uuid}|${item.type}|${(item as { role?: string }).role ?? ''}`;
    const n = this.seen.get(base) ?? this.older.get(base) ?? 0;
    if (this.window !== undefined && this.seen.size >= this.window) {
      this.older = this.seen;
      this.seen = new Map();
    }
    this.seen.set(base, n + 1);
    return n === 0 ? base : `${base}#${n}`;
  }
}

/** The searchable documents of a session, leaving out the items whose keys are in `known`. */
export function searchDocs(lanes: readonly LaneItems[], known: ReadonlySet<string> = new Set()): IndexDoc[] {
  const docs: IndexDoc[] = [];
  for (const lane of lanes) laneDocs(lane, 0, docs, known);
  return docs;
}

/** searchDocs, a slice of items at a time, letting others in between. */
export async function searchDocsInSlices(
  lanes: readonly LaneItems[],
  known: ReadonlySet<string> | undefined,
): Promise<IndexDoc[]> {
  const docs: IndexDoc[] = [];
  for (const lane of lanes)
    await inSlices(lane.classification.items.length, DOC_SLICE, (from, end) =>
      laneDocs(lane, from, docs, known, end),
    );
  return docs;
}

/** Items made documents between two turns of the event loop (a known item costs a lookup). */
const DOC_SLICE = 20_000;

/** The documents of a lane's items from index `from` (up to `end`), added to `docs`. */
export function laneDocs(
  lane: LaneItems,
  from: number,
  docs: IndexDoc[],
  known: ReadonlySet<string> = new Set(),
  end = lane.classification.items.length,
): IndexDoc[] {
  const items = lane.classification.items;
  for (let i = from; i < end; i++) {
    const key = lane.keys[i]!;
    if (known.has(key)) continue;
    const doc = itemDoc(items[i]!, key, lane.agentId);
    if (doc) docs.push(doc);
  }
  return docs;
}

/** An item's document under its key; undefined for an item a search does not look at or without words. */
export function itemDoc(
  item: TranscriptItem,
  key: string,
  agentId: string | undefined,
): IndexDoc | undefined {
  const target = targetOf(item);
  if (target === undefined) return undefined;
  const text = itemText(item);
  if (text.trim() === '') return undefined;
  const doc: IndexDoc = { itemKey: key, itemUuid: item.uuid, itemType: item.type, target, text };
  if (agentId !== undefined) doc.agentId = agentId;
  if (item.at !== undefined) doc.at = item.at;
  return doc;
}
