// Items that are not tool calls: messages, thinking, notices, what the agent injected, and hooks.
import { type Static, Type } from '@sinclair/typebox';
import { item, RESULT_FIELDS, USE_FIELDS } from './item-base.js';
import { OPEN_SEGMENT } from './item-types.js';

const Text = Type.String();
const RawObject = Type.Record(Type.String(), Type.Unknown());

// --- message: who said what to whom, read from the subject's side ---
// The subject is the session, or the subagent a read names with `agent_id`; `in` and `out` are seen
// from it. A subagent's brief is therefore its `message:user:in`, which is what lets one preset be
// carried down a chain of agents unchanged.

export const MessageUserInItem = item('MessageUserInItem', Type.Literal('message:user:in'), {
  text: Text,
  /** One short note per image the prompt carried, in order: `[image: image/png, 34 KB]`, or `[image]`
   * when the agent recorded only that it was there. The bytes stay in the record (`source`). */
  images: Type.Optional(Type.Array(Type.String())),
});
export type MessageUserInItem = Static<typeof MessageUserInItem>;

export const MessageUserOutItem = item('MessageUserOutItem', Type.Literal('message:user:out'), {
  text: Text,
});
export type MessageUserOutItem = Static<typeof MessageUserOutItem>;

/** A subagent started by the subject: the call side of the exchange. */
export const MessageSubOutItem = item('MessageSubOutItem', Type.Literal('message:sub:out'), {
  ...USE_FIELDS,
  prompt: Text,
  agent_id: Type.Optional(Type.String()),
  /** The agent definition asked for, in the agent's own spelling. */
  subagent_type: Type.Optional(Type.String()),
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
});
export type MessageSubOutItem = Static<typeof MessageSubOutItem>;

/** What a subagent answered. */
export const MessageSubInItem = item('MessageSubInItem', Type.Literal('message:sub:in'), {
  ...RESULT_FIELDS,
  text: Text,
  agent_id: Type.Optional(Type.String()),
  status: Type.Optional(Type.String()),
  duration_ms: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type MessageSubInItem = Static<typeof MessageSubInItem>;

/** A message the subject sent to another session. */
export const MessageSessionOutItem = item('MessageSessionOutItem', Type.Literal('message:session:out'), {
  text: Text,
  /** The addressee as written: a session id, or a name left unresolved when that is all there is. */
  to: Type.Optional(Type.String()),
  msg_id: Type.Optional(Type.String()),
  reply_to: Type.Optional(Type.String()),
});
export type MessageSessionOutItem = Static<typeof MessageSessionOutItem>;

export const MessageSessionInItem = item('MessageSessionInItem', Type.Literal('message:session:in'), {
  text: Text,
  from: Type.Optional(Type.String()),
  msg_id: Type.Optional(Type.String()),
});
export type MessageSessionInItem = Static<typeof MessageSessionInItem>;

export const ThinkingItem = item('ThinkingItem', Type.Literal('thinking'), { text: Text });
export type ThinkingItem = Static<typeof ThinkingItem>;

// --- notice: a person operated the agent, which explains a break in the conversation ---

export const NoticeSlashItem = item('NoticeSlashItem', Type.Literal('notice:slash'), {
  command: Type.String(),
  args: Type.Optional(Type.String()),
  stdout: Type.Optional(Type.String()),
  /** The person typed the command: it is one of their prompts (output and echoes are not). */
  typed: Type.Optional(Type.Boolean()),
});
export type NoticeSlashItem = Static<typeof NoticeSlashItem>;

export const NoticeInterruptItem = item('NoticeInterruptItem', Type.Literal('notice:interrupt'), {
  text: Type.Optional(Text),
});
export type NoticeInterruptItem = Static<typeof NoticeInterruptItem>;

// --- system: text the agent put in someone else's mouth ---

export const SystemCompactItem = item('SystemCompactItem', Type.Literal('system:compact'), { text: Text });
export type SystemCompactItem = Static<typeof SystemCompactItem>;

export const SystemApiErrorItem = item('SystemApiErrorItem', Type.Literal('system:api-error'), {
  text: Text,
});
export type SystemApiErrorItem = Static<typeof SystemApiErrorItem>;

export const SystemTaskItem = item('SystemTaskItem', Type.Literal('system:task'), {
  text: Text,
  /** The background task or monitor the notice came from. */
  task_id: Type.Optional(Type.String()),
  event: Type.Optional(Type.String()),
});
export type SystemTaskItem = Static<typeof SystemTaskItem>;

export const SystemCaveatItem = item('SystemCaveatItem', Type.Literal('system:caveat'), { text: Text });
export type SystemCaveatItem = Static<typeof SystemCaveatItem>;

export const SystemResumeItem = item('SystemResumeItem', Type.Literal('system:resume'), { text: Text });
export type SystemResumeItem = Static<typeof SystemResumeItem>;

/** `system:attachment:<kind>`: the kind is the agent's own word, passed through so an attachment
 * nobody has fields for still arrives under its name, with the attachment as recorded. */
export const SystemAttachmentItem = item(
  'SystemAttachmentItem',
  Type.String({ pattern: `^system:attachment:${OPEN_SEGMENT}$` }),
  { attachment: RawObject },
);
export type SystemAttachmentItem = Static<typeof SystemAttachmentItem>;

/** A record the reader could not place, carried whole: a line that vanished without a trace is the
 * one gap a reader of a dump cannot notice. */
export const SystemUnknownItem = item('SystemUnknownItem', Type.Literal('system:unknown'), {
  record: RawObject,
});
export type SystemUnknownItem = Static<typeof SystemUnknownItem>;

// --- hook: code the operator installed ---

export const HookOutcome = Type.Union(
  [Type.Literal('additionalContext'), Type.Literal('output'), Type.Literal('block')],
  { $id: 'HookOutcome' },
);
export type HookOutcome = Static<typeof HookOutcome>;

/** How far a hook run's record goes. cairn writes `started` for a run the agent recorded as begun and
 * never with an outcome (Claude Code writes one per hook per tool call). Held to no value list, since
 * the contract's hook item is open to fields it does not name. */
export const HookStatus = Type.String({ $id: 'HookStatus' });
export type HookStatus = Static<typeof HookStatus>;

/** `hook:<Event>`, the event alone. A hook runs under a name like `PreToolUse:Bash`, whose `:` would
 * read as one more level and make `hook:PreToolUse` select nothing; the full name is `hook_name`.
 * Every run of an event is under its type, whether or not its outcome was recorded. */
export const HookItem = item('HookItem', Type.String({ pattern: `^hook:${OPEN_SEGMENT}$` }), {
  /** The full name, matcher included. */
  hook_name: Type.String(),
  /** What the run did. The contract requires it; cairn leaves it out of a run whose outcome was never
   * recorded (`status: 'started'`) rather than state one nobody saw. */
  outcome: Type.Optional(HookOutcome),
  /** cairn: `started` for a run recorded as begun and never finished; absent otherwise. */
  status: Type.Optional(HookStatus),
  content: Type.Optional(Text),
  command: Type.Optional(Type.String()),
  exit_code: Type.Optional(Type.Integer()),
  stderr: Type.Optional(Type.String()),
  duration_ms: Type.Optional(Type.Integer({ minimum: 0 })),
  /** The call the hook ran around, for the events that have one. */
  tool_use_id: Type.Optional(Type.String()),
});
export type HookItem = Static<typeof HookItem>;
