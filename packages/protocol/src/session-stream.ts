// The frames of the `session:<agent>:<sid>` topic: spectral's `ServerEvent` shapes for a session's
// streamed turns, each stamped with the session and the seq of the transcript event it came from, so
// that a client resuming with `after_seq` gets no gap and no repeat. History and live frames carry the
// contract's items, so a client renders both with one model. A frame that reuses a spectral name
// carries that frame's shape (with fields added); the history, which is items rather than spectral's
// message rows, goes in frames of its own names (`transcript_ready`, `transcript_ready_start`,
// `transcript_chunk`, `transcript_ready_end`), so no spectral client mistakes it for its own.
import { type Static, type TLiteral, type TProperties, Type } from '@sinclair/typebox';
import { AgentId, AgentName, InstanceId, Sid } from './identifiers.js';
import { TranscriptItem } from './items.js';

const Count = Type.Integer({ minimum: 0 });
const NullableCount = Type.Union([Count, Type.Null()]);
/** Milliseconds since the Unix epoch, as the agent wrote them (possibly fractional). */
const Instant = Type.Number({ minimum: 0 });
const MessageId = Type.String({ minLength: 1 });
const Metadata = Type.Optional(Type.Record(Type.String(), Type.Unknown()));

/** The fields every frame of the topic carries. */
const STREAM_FIELDS = {
  session_id: Sid,
  /** The seq of the transcript event the frame came from; a frame about the whole session (history,
   * run state) carries the last seq so far, which is -1 while the session holds no event. */
  seq: Type.Integer({ minimum: -1 }),
  /** The subagent lane the frame belongs to; absent for the session's own. */
  agent_id: Type.Optional(AgentId),
};

/** The item a live frame completes, where one exists (not every delta ends an item). */
const COMPLETED_ITEM = { item: Type.Optional(TranscriptItem) };

function streamFrame<T extends string, P extends TProperties>(type: T, fields: P, $id: string) {
  const literal = Type.Literal(type) as TLiteral<T>;
  return Type.Object({ type: literal, ...STREAM_FIELDS, ...fields }, { $id });
}

export const RunPhase = Type.Union(
  [
    Type.Literal('idle'),
    Type.Literal('streaming'),
    Type.Literal('retrying'),
    Type.Literal('compacting'),
    Type.Literal('looping'),
    Type.Literal('queued'),
  ],
  { $id: 'RunPhase' },
);
export type RunPhase = Static<typeof RunPhase>;

/** Whether the agent is at work, as the server reads it from the files. `busy` is the one bit a client
 * acts on; `phase` and `flags` say more for a status badge. */
export const WireRunState = Type.Object(
  {
    /** The run of the latest prompt: that prompt's event id. */
    runId: Type.String(),
    /** How many prompts the session has had; a client drops run states older than the one it holds. */
    generation: Count,
    busy: Type.Boolean(),
    phase: RunPhase,
    flags: Type.Object({
      streaming: Type.Boolean(),
      retrying: Type.Boolean(),
      compacting: Type.Boolean(),
      looping: Type.Boolean(),
      queued: Type.Boolean(),
    }),
  },
  { $id: 'WireRunState' },
);
export type WireRunState = Static<typeof WireRunState>;

/** What `transcript_ready` and `transcript_ready_start` say about the session besides its history. */
const READY_FIELDS = {
  sessionId: Sid,
  agent: AgentName,
  /** The server that streams; a client that reconnects to another one subscribes afresh. */
  instance: InstanceId,
  totalMessageCount: Type.Optional(Count),
  loadedMessageCount: Type.Optional(Count),
  hasEarlierMessages: Type.Optional(Type.Boolean()),
  /** Always null: a stream resumed mid-turn replays that turn's frames instead. */
  currentTurn: Type.Optional(Type.Null()),
  /** Input tokens of the main lane's last request. */
  contextWindowUsed: NullableCount,
  contextWindowMax: NullableCount,
  runState: Type.Optional(WireRunState),
};

/** The whole history at once, when it is small. */
export const SessionReadyFrame = streamFrame(
  'transcript_ready',
  { ...READY_FIELDS, history: Type.Array(TranscriptItem) },
  'SessionReadyFrame',
);
export type SessionReadyFrame = Static<typeof SessionReadyFrame>;

/** A long history opens with this, then comes in `transcript_chunk`s and closes with `transcript_ready_end`. */
export const SessionReadyStartFrame = streamFrame(
  'transcript_ready_start',
  { ...READY_FIELDS, totalChunks: Count, totalMessages: Count },
  'SessionReadyStartFrame',
);
export type SessionReadyStartFrame = Static<typeof SessionReadyStartFrame>;

/** One chunk of a long history: its items inline as `messages`, or, when large, their JSON array
 * gzipped and in base64 as `payload` with `encoding: 'gzip-base64'`. */
export const HistoryChunkFrame = streamFrame(
  'transcript_chunk',
  {
    sessionId: Sid,
    index: Count,
    total: Count,
    messages: Type.Optional(Type.Array(TranscriptItem)),
    encoding: Type.Optional(Type.Literal('gzip-base64')),
    payload: Type.Optional(Type.String()),
  },
  'HistoryChunkFrame',
);
export type HistoryChunkFrame = Static<typeof HistoryChunkFrame>;

export const SessionReadyEndFrame = streamFrame(
  'transcript_ready_end',
  { sessionId: Sid, totalMessages: Count },
  'SessionReadyEndFrame',
);
export type SessionReadyEndFrame = Static<typeof SessionReadyEndFrame>;

/** The first items of a long session, read from the start of its main file while the whole of it is
 * still being read, so that a reader's first screen need not wait for the rest; or, with `edge`
 * `'end'`, for a subscriber that asked for a tail of the history, its last items, read from the end
 * of the file; or, with `edge` `'around'`, for a subscriber that asked for the history `around` an
 * item, the items around it, read from the part of the file around its record. A preview only: the
 * history that follows (`transcript_ready` or `transcript_ready_start`) replaces these items, and
 * its seq, always -1 here, is no place to resume from. Items read from the end may carry ids and
 * pointers of the part read, not of the file, and those read around an item pointers and turns of
 * the part: they are for showing, not for linking. */
export const SessionHeadFrame = streamFrame(
  'transcript_head',
  {
    sessionId: Sid,
    items: Type.Array(TranscriptItem),
    edge: Type.Optional(Type.Union([Type.Literal('start'), Type.Literal('end'), Type.Literal('around')])),
  },
  'SessionHeadFrame',
);
export type SessionHeadFrame = Static<typeof SessionHeadFrame>;

/** The message row of `user_message_appended` on this topic: the fields of spectral's `WireMessage` that
 * files read from disk can fill, so every such row is also a valid `WireMessage`. cairn sends the
 * prompts of the session's main lane. */
export const StreamMessageRow = Type.Object(
  {
    id: Type.String({ minLength: 1 }),
    role: Type.Union([Type.Literal('user'), Type.Literal('assistant'), Type.Literal('system')]),
    content: Type.String(),
    /** Spectral's captured agent events; cairn's frames carry the item instead, so this is `''`. */
    events: Type.String(),
    createdAt: Instant,
    /** The seq of the event the message was read from. */
    sequence: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { $id: 'StreamMessageRow' },
);
export type StreamMessageRow = Static<typeof StreamMessageRow>;

export const UserMessageAppendedFrame = streamFrame(
  'user_message_appended',
  { message: StreamMessageRow, isFirstUserMessage: Type.Boolean(), ...COMPLETED_ITEM },
  'UserMessageAppendedFrame',
);
export type UserMessageAppendedFrame = Static<typeof UserMessageAppendedFrame>;

/** A reply opens. Its id is the request's, so the frames of one reply share it. */
export const MessageStartFrame = streamFrame(
  'message_start',
  { messageId: MessageId, role: Type.Literal('assistant') },
  'MessageStartFrame',
);
export type MessageStartFrame = Static<typeof MessageStartFrame>;

/** Reply text. The files hold whole records, so a record's text is one delta. */
export const TextDeltaFrame = streamFrame(
  'text_delta',
  { messageId: MessageId, delta: Type.String(), ...COMPLETED_ITEM },
  'TextDeltaFrame',
);
export type TextDeltaFrame = Static<typeof TextDeltaFrame>;

export const ThinkingStartFrame = streamFrame(
  'thinking_start',
  { messageId: MessageId, metadata: Metadata },
  'ThinkingStartFrame',
);
export type ThinkingStartFrame = Static<typeof ThinkingStartFrame>;

export const ThinkingDeltaFrame = streamFrame(
  'thinking_delta',
  { messageId: MessageId, delta: Type.String(), metadata: Metadata, ...COMPLETED_ITEM },
  'ThinkingDeltaFrame',
);
export type ThinkingDeltaFrame = Static<typeof ThinkingDeltaFrame>;

export const ThinkingEndFrame = streamFrame(
  'thinking_end',
  { messageId: MessageId, metadata: Metadata },
  'ThinkingEndFrame',
);
export type ThinkingEndFrame = Static<typeof ThinkingEndFrame>;

export const ToolCallFrame = streamFrame(
  'tool_call',
  {
    messageId: MessageId,
    /** The call's id, which its `tool_result` repeats. */
    id: Type.String(),
    /** The agent's own spelling of the tool. */
    name: Type.String(),
    /** The input as recorded; null when the record holds none. Typed `unknown`, so a frame without
     * it is still well formed. */
    args: Type.Optional(Type.Unknown()),
    startedAt: Type.Optional(Instant),
    ...COMPLETED_ITEM,
  },
  'ToolCallFrame',
);
export type ToolCallFrame = Static<typeof ToolCallFrame>;

export const ToolResultFrame = streamFrame(
  'tool_result',
  {
    messageId: MessageId,
    id: Type.String(),
    /** The output as recorded; null when the record holds none. Typed `unknown`, so a frame without
     * it is still well formed. */
    result: Type.Optional(Type.Unknown()),
    /** The agent recorded the call as failed. */
    isError: Type.Optional(Type.Boolean()),
    startedAt: Type.Optional(Instant),
    finishedAt: Type.Optional(Instant),
    ...COMPLETED_ITEM,
  },
  'ToolResultFrame',
);
export type ToolResultFrame = Static<typeof ToolResultFrame>;

export const StopReason = Type.Union(
  [
    Type.Literal('stop'),
    Type.Literal('length'),
    Type.Literal('toolUse'),
    Type.Literal('error'),
    Type.Literal('aborted'),
  ],
  { $id: 'StopReason' },
);
export type StopReason = Static<typeof StopReason>;

export const MessageEndFrame = streamFrame(
  'message_end',
  {
    messageId: MessageId,
    /** Absent when the files do not say why the reply stopped. */
    stopReason: Type.Optional(StopReason),
    truncated: Type.Optional(Type.Literal(true)),
    errorMessage: Type.Optional(Type.String()),
  },
  'MessageEndFrame',
);
export type MessageEndFrame = Static<typeof MessageEndFrame>;

/** The usage of one reply, sent beside its `message_end`. Input counts cache reads and writes. */
export const TokenUsageFrame = streamFrame(
  'token_usage',
  {
    messageId: MessageId,
    usage: Type.Object({
      inputTokens: Count,
      outputTokens: Count,
      cacheReadTokens: Count,
      cacheWriteTokens: Count,
      totalTokens: Count,
      /** Spectral's legacy price estimate; cairn prices nothing, so null. */
      cost: Type.Union([Type.Number(), Type.Null()]),
      creditsUsed: Type.Number({ minimum: 0 }),
    }),
    contextWindowUsed: NullableCount,
    contextWindowMax: NullableCount,
    durationMs: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
    ttftMs: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
    tokensPerSecond: Type.Optional(Type.Union([Type.Number({ minimum: 0 }), Type.Null()])),
  },
  'TokenUsageFrame',
);
export type TokenUsageFrame = Static<typeof TokenUsageFrame>;

export const CompactionEndFrame = streamFrame(
  'compaction_end',
  {
    summary: Type.String(),
    /** 0 when the files do not say. */
    tokensBefore: Count,
    /** Tokens before minus tokens after, when both are recorded. */
    tokensRemoved: Type.Optional(Type.Integer()),
    ...COMPLETED_ITEM,
  },
  'CompactionEndFrame',
);
export type CompactionEndFrame = Static<typeof CompactionEndFrame>;

const SubagentMode = Type.Union([Type.Literal('single'), Type.Literal('parallel'), Type.Literal('chain')]);

/** A subagent lane begins. It goes out with the lane's first record, so the call that started it may
 * not be known yet: `toolCallId` is then `''`. */
export const SubagentStartFrame = streamFrame(
  'subagent_start',
  {
    toolCallId: Type.String(),
    startedAt: Type.Optional(Instant),
    mode: SubagentMode,
    agent: Type.Optional(Type.String()),
    task: Type.Optional(Type.String()),
    /** The lane the subagent's own frames name in `agent_id`. */
    subagent_id: AgentId,
  },
  'SubagentStartFrame',
);
export type SubagentStartFrame = Static<typeof SubagentStartFrame>;

const SubagentUsage = Type.Object({
  inputTokens: Count,
  outputTokens: Count,
  cacheReadTokens: Count,
  cacheWriteTokens: Count,
  cost: Type.Number({ minimum: 0 }),
  /** Requests the subagent made. */
  turns: Count,
  creditsUsed: Type.Optional(Type.Number({ minimum: 0 })),
});

export const SubagentEndFrame = streamFrame(
  'subagent_end',
  {
    toolCallId: Type.String(),
    startedAt: Type.Optional(Instant),
    finishedAt: Type.Optional(Instant),
    mode: SubagentMode,
    results: Type.Array(
      Type.Object({
        agent: Type.String(),
        agentSource: Type.Union([Type.Literal('user'), Type.Literal('project'), Type.Literal('unknown')]),
        task: Type.String(),
        /** 0 for an answer, 1 for a call recorded as failed. */
        exitCode: Type.Integer(),
        output: Type.String(),
        model: Type.Optional(Type.String()),
        errorMessage: Type.Optional(Type.String()),
        stopReason: Type.Optional(Type.String()),
        usage: SubagentUsage,
      }),
    ),
    totalUsage: SubagentUsage,
    subagent_id: AgentId,
  },
  'SubagentEndFrame',
);
export type SubagentEndFrame = Static<typeof SubagentEndFrame>;

/** Sent after a resumed stream's frames, and whenever the files start or stop showing a turn in
 * flight (which may be the clock's doing: a turn silent for long is over). */
export const RunStateFrame = streamFrame(
  'run_state',
  { sessionId: Sid, runState: WireRunState },
  'RunStateFrame',
);
export type RunStateFrame = Static<typeof RunStateFrame>;

/** An item no spectral frame stands for: hooks, system records, notices, a record's extra items. */
export const ItemAppendedFrame = streamFrame('item_appended', { item: TranscriptItem }, 'ItemAppendedFrame');
export type ItemAppendedFrame = Static<typeof ItemAppendedFrame>;

/** The session's stream could not be opened (its files are gone, unreadable or too large to hold): nothing else follows. */
export const StreamErrorFrame = streamFrame('error', { message: Type.String() }, 'StreamErrorFrame');
export type StreamErrorFrame = Static<typeof StreamErrorFrame>;

/** Every frame type of the topic, with its schema. */
export const SESSION_STREAM_FRAME_MEMBERS = [
  SessionReadyFrame,
  SessionReadyStartFrame,
  HistoryChunkFrame,
  SessionReadyEndFrame,
  SessionHeadFrame,
  UserMessageAppendedFrame,
  MessageStartFrame,
  TextDeltaFrame,
  ThinkingStartFrame,
  ThinkingDeltaFrame,
  ThinkingEndFrame,
  ToolCallFrame,
  ToolResultFrame,
  MessageEndFrame,
  TokenUsageFrame,
  CompactionEndFrame,
  SubagentStartFrame,
  SubagentEndFrame,
  RunStateFrame,
  ItemAppendedFrame,
  StreamErrorFrame,
] as const;

export const SessionStreamFrame = Type.Union([...SESSION_STREAM_FRAME_MEMBERS], {
  $id: 'SessionStreamFrame',
});
export type SessionStreamFrame = Static<typeof SessionStreamFrame>;
export type SessionStreamFrameType = SessionStreamFrame['type'];
