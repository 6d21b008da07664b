// `tool:<Name>` items: one for the call and one for its result, typed for the tools whose fields are
// known and generic for every other tool, which still arrives with what it was called with.
import { type Static, type TLiteral, type TProperties, Type } from '@sinclair/typebox';
import { item, RESULT_FIELDS, USE_FIELDS } from './item-base.js';
import { OPEN_SEGMENT } from './item-types.js';

function toolUse<N extends string, P extends TProperties>(name: N, fields: P) {
  const type = Type.Literal(`tool:${name}`) as TLiteral<`tool:${N}`>;
  return item(`${name}UseItem`, type, { ...USE_FIELDS, tool_use_id: Type.String(), ...fields });
}

/** Set on the result of a call the agent recorded as failed, absent otherwise. The seed's items have no
 * such flag; the results whose shape has `ok` say it there instead, so they do without this one. */
const FAILED = { is_error: Type.Optional(Type.Boolean()) };

function toolResult<N extends string, P extends TProperties>(name: N, fields: P) {
  const type = Type.Literal(`tool:${name}`) as TLiteral<`tool:${N}`>;
  return item(`${name}ResultItem`, type, {
    ...RESULT_FIELDS,
    tool_use_id: Type.String(),
    ...FAILED,
    ...fields,
  });
}

/** A result whose `ok` says whether the call succeeded. */
function okResult<N extends string>(name: N) {
  const type = Type.Literal(`tool:${name}`) as TLiteral<`tool:${N}`>;
  return item(`${name}ResultItem`, type, {
    ...RESULT_FIELDS,
    tool_use_id: Type.String(),
    ok: Type.Boolean(),
  });
}

const OptText = Type.Optional(Type.String());
const OptCount = Type.Optional(Type.Integer({ minimum: 0 }));
const OptFlag = Type.Optional(Type.Boolean());

/** Claude Code records a shell call's output and whether it was interrupted, never an exit code, so a
 * reader judges by those. */
export const BashUseItem = toolUse('Bash', { command: Type.String(), description: OptText });
export type BashUseItem = Static<typeof BashUseItem>;
export const BashResultItem = toolResult('Bash', { stdout: OptText, stderr: OptText, interrupted: OptFlag });
export type BashResultItem = Static<typeof BashResultItem>;

export const ReadUseItem = toolUse('Read', {
  file_path: Type.String(),
  offset: Type.Optional(Type.Integer({ minimum: 0 })),
  limit: OptCount,
});
export type ReadUseItem = Static<typeof ReadUseItem>;
export const ReadResultItem = toolResult('Read', { lines: OptCount, bytes: OptCount });
export type ReadResultItem = Static<typeof ReadResultItem>;

/** Written and edited text is counted, not carried: both sides of an edit are the file's content, and
 * a dump holding them would be a copy of the files. */
export const WriteUseItem = toolUse('Write', { file_path: Type.String(), lines: OptCount });
export type WriteUseItem = Static<typeof WriteUseItem>;
export const WriteResultItem = okResult('Write');
export type WriteResultItem = Static<typeof WriteResultItem>;

export const EditUseItem = toolUse('Edit', {
  file_path: Type.String(),
  old_lines: OptCount,
  new_lines: OptCount,
});
export type EditUseItem = Static<typeof EditUseItem>;
export const EditResultItem = okResult('Edit');
export type EditResultItem = Static<typeof EditResultItem>;

export const GrepUseItem = toolUse('Grep', { pattern: Type.String(), path: OptText });
export type GrepUseItem = Static<typeof GrepUseItem>;
export const GrepResultItem = toolResult('Grep', { matches: OptCount });
export type GrepResultItem = Static<typeof GrepResultItem>;

export const GlobUseItem = toolUse('Glob', { pattern: Type.String(), path: OptText });
export type GlobUseItem = Static<typeof GlobUseItem>;
export const GlobResultItem = toolResult('Glob', { matches: OptCount });
export type GlobResultItem = Static<typeof GlobResultItem>;

export const WebFetchUseItem = toolUse('WebFetch', { url: Type.String(), prompt: OptText });
export type WebFetchUseItem = Static<typeof WebFetchUseItem>;
export const WebFetchResultItem = toolResult('WebFetch', { text: OptText });
export type WebFetchResultItem = Static<typeof WebFetchResultItem>;

export const WebSearchUseItem = toolUse('WebSearch', { query: Type.String() });
export type WebSearchUseItem = Static<typeof WebSearchUseItem>;
export const WebSearchResultItem = toolResult('WebSearch', { results: OptCount });
export type WebSearchResultItem = Static<typeof WebSearchResultItem>;

/** The calling side of what `message:sub:*` carries: that an agent was started and how it ended. What
 * it answered stays with the message. */
export const AgentUseItem = toolUse('Agent', {
  prompt: Type.String(),
  name: OptText,
  subagent_type: OptText,
  description: OptText,
});
export type AgentUseItem = Static<typeof AgentUseItem>;
export const AgentResultItem = toolResult('Agent', { agent_id: OptText, status: OptText });
export type AgentResultItem = Static<typeof AgentResultItem>;

export const SendMessageUseItem = toolUse('SendMessage', { to: Type.String(), summary: OptText });
export type SendMessageUseItem = Static<typeof SendMessageUseItem>;
export const SendMessageResultItem = toolResult('SendMessage', { msg_id: OptText, routing: OptText });
export type SendMessageResultItem = Static<typeof SendMessageResultItem>;

export const MonitorUseItem = toolUse('Monitor', {
  description: Type.String(),
  command: OptText,
  persistent: OptFlag,
  timeout_ms: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type MonitorUseItem = Static<typeof MonitorUseItem>;
export const MonitorResultItem = toolResult('Monitor', { task_id: OptText });
export type MonitorResultItem = Static<typeof MonitorResultItem>;

export const SkillUseItem = toolUse('Skill', { skill: Type.String(), args: OptText });
export type SkillUseItem = Static<typeof SkillUseItem>;
export const SkillResultItem = toolResult('Skill', {
  agent_id: OptText,
  background: OptFlag,
  status: OptText,
});
export type SkillResultItem = Static<typeof SkillResultItem>;

export const TodoWriteUseItem = toolUse('TodoWrite', {
  todos: Type.Array(Type.Object({ content: Type.String(), status: Type.String() })),
});
export type TodoWriteUseItem = Static<typeof TodoWriteUseItem>;
export const TodoWriteResultItem = okResult('TodoWrite');
export type TodoWriteResultItem = Static<typeof TodoWriteResultItem>;

export const TaskStopUseItem = toolUse('TaskStop', { task_id: Type.String() });
export type TaskStopUseItem = Static<typeof TaskStopUseItem>;
export const TaskStopResultItem = okResult('TaskStop');
export type TaskStopResultItem = Static<typeof TaskStopResultItem>;

export const CronCreateUseItem = toolUse('CronCreate', { cron: Type.String(), prompt: OptText });
export type CronCreateUseItem = Static<typeof CronCreateUseItem>;
export const CronCreateResultItem = toolResult('CronCreate', { cron_id: OptText });
export type CronCreateResultItem = Static<typeof CronCreateResultItem>;

/** The tools with fields of their own, by the name in `tool:<Name>`. A reader emits the typed shape
 * for these and the generic one for every other tool (`tool:exec_command`, `tool:apply_patch`, …). */
export const TYPED_TOOLS = [
  'Bash',
  'Read',
  'Write',
  'Edit',
  'Grep',
  'Glob',
  'WebFetch',
  'WebSearch',
  'Agent',
  'SendMessage',
  'Monitor',
  'Skill',
  'TodoWrite',
  'TaskStop',
  'CronCreate',
] as const;
export type TypedTool = (typeof TYPED_TOOLS)[number];

const ToolType = Type.String({ pattern: `^tool:${OPEN_SEGMENT}$` });

/** Any tool call, with its input as recorded. Fields sharpen how a tool reads; they never decide
 * whether it is kept. */
export const ToolUseItem = item('ToolUseItem', ToolType, {
  ...USE_FIELDS,
  tool_use_id: Type.String(),
  input: Type.Record(Type.String(), Type.Unknown()),
});
export type ToolUseItem = Static<typeof ToolUseItem>;

/** Any tool result, with what it answered as recorded. */
export const ToolResultItem = item('ToolResultItem', ToolType, {
  ...RESULT_FIELDS,
  tool_use_id: Type.String(),
  ...FAILED,
  result: Type.Record(Type.String(), Type.Unknown()),
});
export type ToolResultItem = Static<typeof ToolResultItem>;
