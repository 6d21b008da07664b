// Subagent lanes and the tool calls that spawned them.
import type { Lane, TranscriptEvent, TranscriptEventOf } from '../../model.js';
import type { SpawnLink } from './events.js';
import { rec, str } from './records.js';

const TITLE_CHARS = 80;

/** A subagent file's lane before it is linked. */
export interface SubagentLane {
  id: string;
  events: readonly TranscriptEvent[];
}

/**
 * The session's lanes: the main lane first, then one per subagent file. A subagent links to the
 * Task/Agent call whose result names its agentId (or whose agent_progress does); its parent is
 * the lane of that call.
 */
export function buildLanes(
  mainId: string,
  subagents: readonly SubagentLane[],
  events: readonly TranscriptEvent[],
  links: readonly SpawnLink[],
): Lane[] {
  const laneIds = new Set([mainId, ...subagents.map((s) => s.id)]);
  const calls = new Map<string, TranscriptEventOf<'tool_call'>>();
  const callOfAgent = new Map<string, string>();
  for (const e of events) {
    if (e.kind === 'tool_call' && !calls.has(e.payload.callId)) calls.set(e.payload.callId, e);
    else if (
      e.kind === 'tool_result' &&
      e.payload.agentId !== undefined &&
      !callOfAgent.has(e.payload.agentId)
    )
      callOfAgent.set(e.payload.agentId, e.payload.callId);
  }
  for (const link of links) if (!callOfAgent.has(link.agentId)) callOfAgent.set(link.agentId, link.callId);

  const lanes: Lane[] = [{ id: mainId }];
  for (const sub of subagents) {
    const callId = callOfAgent.get(sub.id);
    const call = callId === undefined ? undefined : calls.get(callId);
    const lane: Lane = { id: sub.id, parentId: mainId };
    if (call && call.agentId !== sub.id && laneIds.has(call.agentId)) {
      lane.parentId = call.agentId;
      lane.spawnEventId = call.id;
    }
    const title = (call && titleOfCall(call)) ?? fallbackTitle(sub);
    if (title !== undefined) lane.title = title;
    lanes.push(lane);
  }
  return lanes;
}

function titleOfCall(call: TranscriptEventOf<'tool_call'>): string | undefined {
  const input = rec(call.payload.input);
  return str(input?.description) ?? str(input?.subagent_type);
}

/** Without a recorded spawn: the compaction agent by its name, others by their first prompt line. */
function fallbackTitle(sub: SubagentLane): string | undefined {
  if (sub.id.startsWith('acompact')) return 'compaction';
  for (const e of sub.events) {
    if (e.kind !== 'user' || e.payload.origin !== 'subagent_prompt') continue;
    const line = e.payload.text.trim().split('\n', 1)[0] ?? '';
    return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line || undefined;
  }
  return undefined;
}
