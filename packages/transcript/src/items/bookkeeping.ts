// The events that become no item, each with the reason. Every other event of a lane is in some item
// of that lane's classification; the corpus tests hold the classifier to this list.
import type { TranscriptEvent, TranscriptEventKind } from '../model.js';

export interface BookkeepingRule {
  readonly kind: TranscriptEventKind;
  /**
   * Narrows the rule: a system event's `type`, a hook event's `status`, a user event's `origin`,
   * `sealed` for reasoning with no readable text, `blank` for assistant text that is only
   * whitespace. Absent: every event of the kind.
   */
  readonly match?: string;
  readonly reason: string;
}

/** The bookkeeping events: what they are and why a reader of items loses nothing without them. */
export const BOOKKEEPING_EVENTS: readonly BookkeepingRule[] = [
  {
    kind: 'request',
    reason:
      'a model request: token usage and timing, counted by the summary; what it produced are events of their own',
  },
  {
    kind: 'reasoning',
    match: 'sealed',
    reason: 'reasoning kept only as a signature or encrypted blob: there is no text to show',
  },
  {
    kind: 'assistant',
    match: 'blank',
    reason: 'a text block of the model holding only whitespace: nothing was said',
  },
  {
    kind: 'hook',
    match: 'started',
    reason:
      'a hook starting outside any tool call of the lane (a session start, a stop, whose summary is the hook item); a hook starting around a call is a hook item tied to that call',
  },
  {
    kind: 'user',
    match: 'function_response',
    reason: 'a user turn that only carries tool responses, which are the result items of their calls',
  },
  { kind: 'system', match: 'turn_duration', reason: 'how long a turn took: a number for the summary' },
  {
    kind: 'system',
    match: 'session_meta',
    reason: 'the session header: id, cwd, version, which the dump file names',
  },
  {
    kind: 'system',
    match: 'turn_context',
    reason: 'per-turn settings (model, sandbox, effort) repeated every turn',
  },
  { kind: 'system', match: 'task_started', reason: 'a turn starting: the prompt before it is the item' },
  {
    kind: 'system',
    match: 'task_complete',
    reason: 'a turn ending: its last message is already an item of its own',
  },
  {
    kind: 'system',
    match: 'exec_command_begin',
    reason: 'a shell call starting: the call is the tool item',
  },
  {
    kind: 'system',
    match: 'exec_command_output_delta',
    reason: 'streamed output of a shell call, repeated whole in its result',
  },
  {
    kind: 'system',
    match: 'exec_command_end',
    reason: 'the end of a shell call whose output record is its result item',
  },
  { kind: 'system', match: 'patch_apply_begin', reason: 'a patch starting: the call is the tool item' },
  {
    kind: 'system',
    match: 'patch_apply_end',
    reason: 'the end of a patch whose output record is its result item',
  },
  { kind: 'system', match: 'mcp_tool_call_begin', reason: 'an MCP call starting: the call is the tool item' },
  {
    kind: 'system',
    match: 'mcp_tool_call_end',
    reason: 'the end of an MCP call whose output record is its result item',
  },
  { kind: 'system', match: 'web_search_begin', reason: 'a web search starting: the call is the tool item' },
  { kind: 'system', match: 'web_search_end', reason: 'a web search ending: the call is the tool item' },
  { kind: 'system', match: 'item_started', reason: 'a streaming marker around an item recorded on its own' },
  {
    kind: 'system',
    match: 'item_completed',
    reason: 'a streaming marker around an item recorded on its own',
  },
  { kind: 'system', match: 'plan_update', reason: 'mirrors the plan tool call, which is the tool item' },
  {
    kind: 'system',
    match: 'turn_diff',
    reason: 'the diff of a turn, repeating the patches that are tool items',
  },
  { kind: 'system', match: 'thread_name_updated', reason: 'the session title, which the listing shows' },
  {
    kind: 'system',
    match: 'ghost_snapshot',
    reason: 'an undo snapshot of the working tree: no conversation in it',
  },
  { kind: 'system', match: 'session_configured', reason: 'the session header as the client saw it' },
  { kind: 'system', match: 'mcp_startup_update', reason: 'MCP servers starting: client state' },
  { kind: 'system', match: 'mcp_startup_complete', reason: 'MCP servers started: client state' },
  { kind: 'system', match: 'shutdown_complete', reason: 'the client exiting: client state' },
  {
    kind: 'system',
    match: 'collab_agent_spawn_begin',
    reason: 'an agent spawn starting: the spawn call is the tool item',
  },
  {
    kind: 'system',
    match: 'collab_agent_spawn_end',
    reason:
      'an agent spawn ending, when the spawning call it mirrors is a tool item (else it is message:sub:out)',
  },
];

/** The `match` key an event is looked up by. */
function matchKey(e: TranscriptEvent): string | undefined {
  switch (e.kind) {
    case 'system':
      return e.payload.type;
    case 'hook':
      return typeof e.payload.status === 'string' ? e.payload.status : undefined;
    case 'user':
      return e.payload.origin;
    case 'reasoning':
      return e.payload.text.trim() === '' ? 'sealed' : undefined;
    case 'assistant':
      return e.payload.text.trim() === '' ? 'blank' : undefined;
    default:
      return undefined;
  }
}

/** The rule that makes `e` bookkeeping, if one does. */
export function bookkeepingRule(e: TranscriptEvent): BookkeepingRule | undefined {
  const key = matchKey(e);
  return BOOKKEEPING_EVENTS.find((r) => r.kind === e.kind && (r.match === undefined || r.match === key));
}
