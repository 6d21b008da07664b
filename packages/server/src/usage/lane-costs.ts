// Where a session's tokens and money went, lane by lane: the main agent's requests and each
// subagent's, priced one request at a time as the session's own cost is, so the lanes add up to it.
// Lanes come nested as they spawned: each after the lane that started it, depth first.
import type { SessionLaneCost } from '@cairn/protocol';
import { CONTEXT_SHAPE_POINTS, type Transcript } from '@cairn/transcript';
import type { LaneItems } from '../indexing/search-docs.js';
import { addRequest, emptyModelUsage, type ModelUsage, modelCost, sessionCost } from './pricing.js';

interface Tally {
  lane: SessionLaneCost;
  byModel: Map<string, ModelUsage>;
  /** Main lane: requests with usage seen so far, and that count at each compaction. */
  shapeRequests: number;
  compactionAt: number[];
  /** The position of the lane's first event, to order siblings by when they started. */
  firstSeq: number;
}

/** The lanes of a loaded transcript with their tokens and costs, the main lane first. */
export function laneCosts(agent: string, t: Transcript, items: readonly LaneItems[]): SessionLaneCost[] {
  const main = t.agents.find((a) => a.parentId === undefined);
  const mainId = main?.id ?? '';
  const tallies = new Map<string, Tally>();
  const start = (id: string, parentId: string | undefined, title: string | undefined): Tally => {
    const lane: SessionLaneCost = {
      id,
      requests: 0,
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      models: [],
      compactions: 0,
    };
    if (parentId !== undefined) lane.parentId = parentId;
    if (title !== undefined && title !== '') lane.title = title;
    const tally: Tally = {
      lane,
      byModel: new Map(),
      shapeRequests: 0,
      compactionAt: [],
      firstSeq: Number.MAX_SAFE_INTEGER,
    };
    tallies.set(id, tally);
    return tally;
  };
  start(mainId, undefined, undefined);
  const known = new Set(t.agents.map((a) => a.id));
  for (const a of t.agents) {
    if (a === main) continue;
    // A parent the transcript does not hold leaves the subagent under the main lane.
    const parent = a.parentId !== undefined && known.has(a.parentId) ? a.parentId : mainId;
    start(a.id, parent, a.title);
  }
  // Events of a lane the transcript does not list count to the main lane, so nothing is lost.
  const tallyOf = (id: string): Tally => tallies.get(id) ?? tallies.get(mainId)!;
  for (const e of t.events) {
    const first = tallies.get(e.agentId);
    if (first && first.firstSeq === Number.MAX_SAFE_INTEGER) first.firstSeq = e.seq;
    if (e.kind === 'compaction') {
      const tally = tallyOf(e.agentId);
      tally.lane.compactions++;
      tally.compactionAt.push(tally.shapeRequests);
      continue;
    }
    if (e.kind !== 'request') continue;
    const tally = tallyOf(e.agentId);
    const { lane } = tally;
    lane.requests++;
    const { model, usage } = e.payload;
    if (!usage) continue;
    tally.shapeRequests++;
    lane.inputTokens += usage.inputTokens;
    lane.outputTokens += usage.outputTokens;
    lane.cacheReadTokens += usage.cacheReadTokens ?? 0;
    lane.cacheWriteTokens += usage.cacheWriteTokens ?? 0;
    // A request without a model is counted in tokens but priced by no one, as in the session's cost.
    if (model === undefined) continue;
    let m = tally.byModel.get(model);
    if (!m) {
      m = emptyModelUsage(model);
      tally.byModel.set(model, m);
    }
    addRequest(agent, m, usage);
  }
  for (const tally of tallies.values()) finish(tally, tally.lane.id === mainId);
  for (const lane of items) {
    const all = lane.classification.items;
    const first = all.find((i) => !isMachinery(i.type)) ?? all[0];
    const tally = tallies.get(lane.agentId ?? mainId);
    if (first && tally) tally.lane.landing = { uuid: first.uuid, type: first.type };
  }
  return nested(mainId, tallies);
}

/** Records the reader hides until asked (attachments, unknown records): a link lands past them. */
const isMachinery = (type: string): boolean =>
  type === 'system:unknown' || type.startsWith('system:attachment:');

function finish(tally: Tally, isMain: boolean): void {
  const used = [...tally.byModel.values()]
    .filter((m) => m.inputTokens + m.outputTokens > 0)
    .sort((a, b) => b.requests - a.requests || a.model.localeCompare(b.model));
  const { lane } = tally;
  lane.models = used.map((m) => m.model);
  const unpriced = used.filter((m) => modelCost(m) === undefined).map((m) => m.model);
  if (unpriced.length > 0) lane.unpricedModels = unpriced;
  const cost = sessionCost(used);
  if (cost !== undefined) lane.costUsd = cost;
  if (isMain && tally.compactionAt.length > 0) {
    // A compaction after the last request marks nothing yet: no request has shown its context.
    const marks = tally.compactionAt
      .filter((at) => at < tally.shapeRequests)
      .map((at) => shapePoint(at, tally.shapeRequests));
    lane.contextMarks = [...new Set(marks)];
  }
}

/** The point of a context shape of `count` requests that holds request `index`, by the
 * downsampling's own buckets. */
export function shapePoint(index: number, count: number, points = CONTEXT_SHAPE_POINTS): number {
  if (count <= points) return index;
  let i = Math.floor((index * points) / count);
  // The bucket bounds are floored, so the estimate may sit one off either way.
  while (i > 0 && Math.floor((i * count) / points) > index) i--;
  while (i < points - 1 && Math.floor(((i + 1) * count) / points) <= index) i++;
  return i;
}

/** The lanes depth first: each subagent after its parent, siblings in the order they started. */
function nested(mainId: string, tallies: ReadonlyMap<string, Tally>): SessionLaneCost[] {
  const children = new Map<string, SessionLaneCost[]>();
  const started = [...tallies.values()].sort((a, b) => a.firstSeq - b.firstSeq);
  for (const { lane } of started) {
    if (lane.parentId === undefined) continue;
    const siblings = children.get(lane.parentId) ?? [];
    siblings.push(lane);
    children.set(lane.parentId, siblings);
  }
  const out: SessionLaneCost[] = [];
  const seen = new Set<string>();
  const visit = (lane: SessionLaneCost): void => {
    if (seen.has(lane.id)) return;
    seen.add(lane.id);
    out.push(lane);
    for (const child of children.get(lane.id) ?? []) visit(child);
  };
  visit(tallies.get(mainId)!.lane);
  // A loop of parents reaches no lane from the main one: such lanes go under it rather than vanish.
  for (const { lane } of tallies.values()) {
    if (seen.has(lane.id)) continue;
    lane.parentId = mainId;
    visit(lane);
  }
  return out;
}
