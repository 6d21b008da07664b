// The frames of one assistant turn, which the server keeps while the turn is in flight and replays to
// a tab that attaches mid-turn, and the snapshot that carries them.
import { type Static, Type } from '@sinclair/typebox';
import { StopReason } from '../session-stream.js';
import {
  Amount,
  Count,
  frame,
  Instant,
  literals,
  Metadata,
  NullableAmount,
  NullableCount,
  WireId,
} from './fields.js';

const MessageId = WireId;

/** A reply opens; the client shows the session as streaming from here. */
export const MessageStartEvent = frame(
  'message_start',
  { messageId: MessageId, role: Type.Literal('assistant') },
  'MessageStartEvent',
);
export type MessageStartEvent = Static<typeof MessageStartEvent>;

export const TextDeltaEvent = frame(
  'text_delta',
  { messageId: MessageId, delta: Type.String() },
  'TextDeltaEvent',
);
export type TextDeltaEvent = Static<typeof TextDeltaEvent>;

export const ThinkingStartEvent = frame(
  'thinking_start',
  { messageId: MessageId, metadata: Type.Optional(Metadata) },
  'ThinkingStartEvent',
);
export type ThinkingStartEvent = Static<typeof ThinkingStartEvent>;

export const ThinkingDeltaEvent = frame(
  'thinking_delta',
  { messageId: MessageId, delta: Type.String(), metadata: Type.Optional(Metadata) },
  'ThinkingDeltaEvent',
);
export type ThinkingDeltaEvent = Static<typeof ThinkingDeltaEvent>;

export const ThinkingEndEvent = frame(
  'thinking_end',
  { messageId: MessageId, metadata: Type.Optional(Metadata) },
  'ThinkingEndEvent',
);
export type ThinkingEndEvent = Static<typeof ThinkingEndEvent>;

export const ToolCallEvent = frame(
  'tool_call',
  {
    messageId: MessageId,
    /** The call's id; its `tool_result` repeats it. */
    id: Type.String(),
    name: Type.String(),
    /** The call's input; `unknown` lets it be absent (a call recorded with none). */
    args: Type.Optional(Type.Unknown()),
    /** When the server saw the call begin. */
    startedAt: Type.Optional(Instant),
  },
  'ToolCallEvent',
);
export type ToolCallEvent = Static<typeof ToolCallEvent>;

export const ToolResultEvent = frame(
  'tool_result',
  {
    messageId: MessageId,
    id: Type.String(),
    /** The tool's output; `unknown` lets it be absent (a result recorded with none). */
    result: Type.Optional(Type.Unknown()),
    isError: Type.Optional(Type.Boolean()),
    /** Repeated from the call, so a result whose call the client missed can still be placed. */
    startedAt: Type.Optional(Instant),
    finishedAt: Type.Optional(Instant),
  },
  'ToolResultEvent',
);
export type ToolResultEvent = Static<typeof ToolResultEvent>;

export const MessageEndEvent = frame(
  'message_end',
  {
    messageId: MessageId,
    stopReason: Type.Optional(StopReason),
    /** The reply hit the provider's output limit. */
    truncated: Type.Optional(Type.Literal(true)),
    /** What went wrong, when `stopReason` is `error`. */
    errorMessage: Type.Optional(Type.String()),
  },
  'MessageEndEvent',
);
export type MessageEndEvent = Static<typeof MessageEndEvent>;

/** The usage of one reply, sent right after its `message_end`. */
export const TokenUsageEvent = frame(
  'token_usage',
  {
    messageId: MessageId,
    usage: Type.Object({
      inputTokens: Count,
      outputTokens: Count,
      cacheReadTokens: Count,
      cacheWriteTokens: Count,
      totalTokens: Count,
      /** A price estimate kept for older clients; deprecated. */
      cost: Type.Union([Type.Number(), Type.Null()]),
      creditsUsed: Amount,
    }),
    /** Context tokens in use across the session; null when unknown. */
    contextWindowUsed: NullableCount,
    /** The model's context window; null when unknown. */
    contextWindowMax: NullableCount,
    /** From the first streamed delta to `message_end`; null without timing (no delta streamed). */
    durationMs: Type.Optional(NullableAmount),
    /** From `message_start` to the first streamed delta; null when none streamed. */
    ttftMs: Type.Optional(NullableAmount),
    /** Output tokens a second over `durationMs`, to one decimal; null when either is not positive. */
    tokensPerSecond: Type.Optional(NullableAmount),
  },
  'TokenUsageEvent',
);
export type TokenUsageEvent = Static<typeof TokenUsageEvent>;

export const ErrorEvent = frame('error', { message: Type.String() }, 'ErrorEvent');
export type ErrorEvent = Static<typeof ErrorEvent>;

const SubagentMode = literals(['single', 'parallel', 'chain']);

/** A subagent call begins. The tool call's id ties its frames to the `tool_call` that started it. */
export const SubagentStartEvent = frame(
  'subagent_start',
  {
    toolCallId: Type.String(),
    startedAt: Type.Optional(Instant),
    mode: SubagentMode,
    /** Single mode: which agent, and its task. */
    agent: Type.Optional(Type.String()),
    task: Type.Optional(Type.String()),
    /** Parallel and chain modes: how many tasks. */
    taskCount: Type.Optional(Count),
    /** Chain mode: how many steps. */
    totalSteps: Type.Optional(Count),
  },
  'SubagentStartEvent',
);
export type SubagentStartEvent = Static<typeof SubagentStartEvent>;

export const SubagentProgressEvent = frame(
  'subagent_progress',
  {
    toolCallId: Type.String(),
    mode: SubagentMode,
    completedCount: Type.Optional(Count),
    totalCount: Type.Optional(Count),
    currentStep: Type.Optional(Count),
    currentAgent: Type.Optional(Type.String()),
    message: Type.String(),
    /** Single mode: the text and thinking streamed so far. */
    streamingText: Type.Optional(Type.String()),
    thinkingText: Type.Optional(Type.String()),
    thinkingMetadata: Type.Optional(Metadata),
    systemPrompt: Type.Optional(Type.String()),
    firstMessage: Type.Optional(Type.String()),
    /** Parallel mode: each subagent as it stands. */
    subagents: Type.Optional(
      Type.Array(
        Type.Object({
          agent: Type.String(),
          task: Type.Optional(Type.String()),
          step: Type.Optional(Count),
          /** -1 or absent while running, 0 for success, anything else for a failure. */
          exitCode: Type.Optional(Type.Number()),
          streamingText: Type.Optional(Type.String()),
          thinkingText: Type.Optional(Type.String()),
          systemPrompt: Type.Optional(Type.String()),
          firstMessage: Type.Optional(Type.String()),
        }),
      ),
    ),
  },
  'SubagentProgressEvent',
);
export type SubagentProgressEvent = Static<typeof SubagentProgressEvent>;

const SUBAGENT_USAGE = {
  inputTokens: Count,
  outputTokens: Count,
  cacheReadTokens: Count,
  cacheWriteTokens: Count,
  cost: Amount,
  turns: Count,
  creditsUsed: Type.Optional(Amount),
};

/** Every subagent of the call has finished: their outputs and usage. */
export const SubagentEndEvent = frame(
  'subagent_end',
  {
    toolCallId: Type.String(),
    startedAt: Type.Optional(Instant),
    finishedAt: Type.Optional(Instant),
    mode: SubagentMode,
    results: Type.Array(
      Type.Object({
        agent: Type.String(),
        agentSource: literals(['user', 'project', 'unknown']),
        task: Type.String(),
        exitCode: Type.Number(),
        output: Type.String(),
        model: Type.Optional(Type.String()),
        errorMessage: Type.Optional(Type.String()),
        stopReason: Type.Optional(Type.String()),
        /** Chain mode: the step, from 1. */
        step: Type.Optional(Count),
        /** More than 1 when the child was resumed after a transient provider error. */
        attempts: Type.Optional(Count),
        usage: Type.Object(SUBAGENT_USAGE),
        systemPrompt: Type.Optional(Type.String()),
        firstMessage: Type.Optional(Type.String()),
      }),
    ),
    /** The sum over the subagents. */
    totalUsage: Type.Object(SUBAGENT_USAGE),
  },
  'SubagentEndEvent',
);
export type SubagentEndEvent = Static<typeof SubagentEndEvent>;

/** One tool call inside a running subagent, for a live activity log beside its final result. */
export const SubagentToolProgressEvent = frame(
  'subagent_tool_progress',
  {
    /** The parent's subagent call. */
    toolCallId: Type.String(),
    /** The call's id inside the subagent. */
    stepId: Type.String(),
    name: Type.String(),
    /** `unknown`, so it may be absent. */
    args: Type.Optional(Type.Unknown()),
    status: literals(['running', 'success', 'error', 'aborted']),
    /** Present once the step succeeded or failed. */
    result: Type.Optional(Type.Unknown()),
    /** What the step has produced so far, while it runs. */
    partialResult: Type.Optional(Type.Unknown()),
    isError: Type.Optional(Type.Boolean()),
    message: Type.Optional(Type.String()),
    startedAt: Type.Optional(Instant),
    finishedAt: Type.Optional(Instant),
  },
  'SubagentToolProgressEvent',
);
export type SubagentToolProgressEvent = Static<typeof SubagentToolProgressEvent>;

/** The frames a turn is told in. Session-level frames (`session_ready`, `agent_end`, run state) stay
 * out; `message_start` is in, since a replay must flip the client into streaming as the live turn did. */
export const REPLAYABLE_TURN_EVENT_MEMBERS = [
  MessageStartEvent,
  TextDeltaEvent,
  ThinkingStartEvent,
  ThinkingDeltaEvent,
  ThinkingEndEvent,
  ToolCallEvent,
  ToolResultEvent,
  MessageEndEvent,
  TokenUsageEvent,
  ErrorEvent,
  SubagentStartEvent,
  SubagentProgressEvent,
  SubagentEndEvent,
  SubagentToolProgressEvent,
] as const;

export const ReplayableTurnEvent = Type.Union([...REPLAYABLE_TURN_EVENT_MEMBERS], {
  $id: 'ReplayableTurnEvent',
});
export type ReplayableTurnEvent = Static<typeof ReplayableTurnEvent>;
export type ReplayableTurnEventType = ReplayableTurnEvent['type'];

export const REPLAYABLE_TURN_EVENT_TYPES: readonly ReplayableTurnEventType[] =
  REPLAYABLE_TURN_EVENT_MEMBERS.map((member) => member.properties.type.const);

const REPLAYABLE = new Set<string>(REPLAYABLE_TURN_EVENT_TYPES);

/** Whether a frame belongs to the turn's replay buffer. */
export function isReplayableTurnEvent<E extends { type: string }>(
  event: E,
): event is Extract<E, { type: ReplayableTurnEventType }> {
  return REPLAYABLE.has(event.type);
}

/** A turn in flight as a tab attaching now must rebuild it: its frames so far, in order. */
export const InProgressTurnSnapshot = Type.Object(
  {
    turnId: WireId,
    startedAt: Instant,
    events: Type.Array(ReplayableTurnEvent),
  },
  { $id: 'InProgressTurnSnapshot' },
);
export type InProgressTurnSnapshot = Static<typeof InProgressTurnSnapshot>;
