// Where the parent's history ends in a forked or subagent rollout.
//
// Such a rollout (its session_meta has `forked_from_id` or a `source.subagent.thread_spawn`)
// begins with a copy of its parent's records under new timestamps; their usage is the parent's,
// already counted there. Turn ids tell the copy apart: Codex ids are UUIDv7, whose first 48 bits
// are their creation time in ms, and the copy keeps the parent's turn ids, all created before
// the fork, while the rollout's own turns are created after its own session id. So when a turn
// start (`turn_context` or `task_started`) with a UUIDv7 turn id comes before the first usage
// snapshot, the copy ends at the first turn start created at or after the fork. Without such a
// turn id, the copy is the burst of snapshots Codex wrote back to back: if the first two usage
// snapshots are at most a second apart, every record up to the last snapshot of that burst
// (snapshots each at most a second after the previous one) is the copy.
import { type CodexRecord, isObject, type RecordList, str } from './records.js';

const UUID_V7 = /^[\da-f]{8}-[\da-f]{4}-7[\da-f]{3}-[89ab][\da-f]{3}-[\da-f]{12}$/i;
export const BURST_GAP_MS = 1000;

/** The creation time in ms that a UUIDv7 carries. */
export function uuidV7Time(v: unknown): number | undefined {
  const id = str(v);
  return id !== undefined && UUID_V7.test(id)
    ? Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16)
    : undefined;
}

/** Whether a session_meta payload describes a forked or spawned rollout. */
export function isForked(meta: Record<string, unknown> | undefined): boolean {
  if (!meta) return false;
  const forkedFrom = str(meta.forked_from_id);
  if (forkedFrom !== undefined && forkedFrom !== '') return true;
  const source = isObject(meta.source) ? meta.source : undefined;
  const sub = source && (isObject(source.subagent) ? source.subagent : source.subAgent);
  return isObject(sub) && isObject(sub.thread_spawn);
}

const turnStartId = (r: CodexRecord): unknown => turnStartIdOf(r.type, r.sub, r.payload);

/** The turn id of a turn start (`turn_context` or `task_started`); undefined for other records. */
export const turnStartIdOf = (
  type: string,
  sub: string,
  payload: Record<string, unknown> | undefined,
): unknown =>
  type === 'turn_context' || (type === 'event_msg' && sub === 'task_started') ? payload?.turn_id : undefined;

const isUsage = (r: CodexRecord): boolean =>
  r.type === 'event_msg' && r.sub === 'token_count' && isObject(r.payload?.info);

/**
 * The index of the first record of `records` (one file, in order) that is the rollout's own
 * after a copied parent history; records between the session_meta at `metaIndex` and it are the
 * copy. Returns `metaIndex + 1` when nothing is copied.
 */
export function replayEnd(records: RecordList, metaIndex: number): number {
  const none = metaIndex + 1;
  const meta = records[metaIndex];
  if (meta?.type !== 'session_meta' || !isForked(meta.payload)) return none;
  const forkTime = uuidV7Time(meta.payload?.id) ?? meta.ts;
  let inCopy = false;
  for (let i = metaIndex + 1; i < records.length; i++) {
    const r = records[i]!;
    const created = uuidV7Time(turnStartId(r));
    if (created !== undefined && forkTime !== undefined) {
      if (created >= forkTime) return i;
      inCopy = true;
    } else if (!inCopy && isUsage(r)) return burstEnd(records, i) ?? none;
  }
  return inCopy ? records.length : none;
}

/** One past the last snapshot of a burst starting at `first`, or undefined when there is no burst. */
function burstEnd(records: RecordList, first: number): number | undefined {
  let previous = records[first]!.ts;
  if (previous === undefined) return undefined;
  let end: number | undefined;
  for (let i = first + 1; i < records.length; i++) {
    const r = records[i]!;
    if (!isUsage(r)) continue;
    const gap = r.ts === undefined ? undefined : r.ts - previous;
    if (gap === undefined || gap < 0 || gap > BURST_GAP_MS) break;
    previous = r.ts!;
    end = i + 1;
  }
  return end;
}
