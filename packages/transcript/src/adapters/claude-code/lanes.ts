// Subagent lanes and the tool calls that spawned them.
import type { Lane, TranscriptEvent, TranscriptEventOf } from '../../model.js';
import { rec, str } from './records.js';

const TITLE_CHARS = 80;
/** The input fields a spawning call's title comes from, first found first. */
const TITLE_FIELDS = ['description', 'subagent_type'] as const;

/** A subagent file's lane before it is linked. */
export interface SubagentLane {
  id: string;
  /** The lane's own title when no spawning call names it: see promptTitle. */
  title: string | undefined;
}

/** What links subagents to the calls that spawned them, gathered as events are merged. */
export interface SpawnIndex {
  /** Each call id's first tool_call in transcript order. */
  readonly calls: ReadonlyMap<string, TranscriptEventOf<'tool_call'>>;
  /** The call whose result (else whose agent_progress) first names an agent id. */
  callOfAgent(agentId: string): string | undefined;
}

/**
 * The session's lanes: the main lane first, then one per subagent file. A subagent links to the
 * Task/Agent call whose result names its agentId (or whose agent_progress does); its parent is
 * the lane of that call.
 */
export function buildLanes(mainId: string, subagents: readonly SubagentLane[], spawns: SpawnIndex): Lane[] {
  const laneIds = new Set([mainId, ...subagents.map((s) => s.id)]);
  const lanes: Lane[] = [{ id: mainId }];
  for (const sub of subagents) {
    const callId = spawns.callOfAgent(sub.id);
    const call = callId === undefined ? undefined : spawns.calls.get(callId);
    const lane: Lane = { id: sub.id, parentId: mainId };
    if (call && call.agentId !== sub.id && laneIds.has(call.agentId)) {
      lane.parentId = call.agentId;
      lane.spawnEventId = call.id;
    }
    const title = (call && titleOfCall(call)) ?? sub.title;
    if (title !== undefined) lane.title = title;
    lanes.push(lane);
  }
  return lanes;
}

/** A call as buildLanes reads it: its ids, lane and place, and the input fields that title a lane. */
export function spawnSketch(call: TranscriptEventOf<'tool_call'>): TranscriptEventOf<'tool_call'> {
  const input = rec(call.payload.input);
  const titled: Record<string, unknown> = {};
  for (const field of TITLE_FIELDS) if (input?.[field] !== undefined) titled[field] = input[field];
  const { id, seq, kind, agentId, source } = call;
  return {
    id,
    seq,
    kind,
    agentId,
    source,
    payload: { callId: call.payload.callId, name: call.payload.name, input: titled },
  };
}

function titleOfCall(call: TranscriptEventOf<'tool_call'>): string | undefined {
  const input = rec(call.payload.input);
  for (const field of TITLE_FIELDS) {
    const title = str(input?.[field]);
    if (title !== undefined) return title;
  }
  return undefined;
}

/**
 * Without a recorded spawn a lane is titled by its first prompt's first line (the compaction agent
 * by its name). Answers that title from a lane's next events, or null when none of them is a prompt.
 */
export function promptTitle(id: string, events: readonly TranscriptEvent[]): string | undefined | null {
  if (id.startsWith('acompact')) return 'compaction';
  for (const e of events) {
    if (e.kind !== 'user' || e.payload.origin !== 'subagent_prompt') continue;
    const line = e.payload.text.trim().split('\n', 1)[0] ?? '';
    return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line || undefined;
  }
  return null;
}
