// What the server sends on a chat session's socket, one JSON document a frame: the `ServerEvent`
// union, spectral's members in its order and cairn's after them.
import { type Static, Type } from '@sinclair/typebox';
import { WireRunState } from '../session-stream.js';
import { CAIRN_SERVER_EVENT_MEMBERS } from './cairn-extensions.js';
import { DevProcessSummary } from './dev-processes.js';
import { Amount, Count, frame, literals, nullable, WireId } from './fields.js';
import { MemoryRelevance, WireCompactionTokenSourceBucket, WireDcpLiteTelemetry } from './memory.js';
import { WireMessage } from './messages.js';
import { QueueItem } from './queue.js';
import {
  HistoryChunkEvent,
  SessionReadyEndEvent,
  SessionReadyEvent,
  SessionReadyStartEvent,
} from './session-ready.js';
import {
  ErrorEvent,
  MessageEndEvent,
  MessageStartEvent,
  SubagentEndEvent,
  SubagentProgressEvent,
  SubagentStartEvent,
  SubagentToolProgressEvent,
  TextDeltaEvent,
  ThinkingDeltaEvent,
  ThinkingEndEvent,
  ThinkingStartEvent,
  TokenUsageEvent,
  ToolCallEvent,
  ToolResultEvent,
} from './turn-events.js';

/** A user message was stored. Every tab gets it, the sender's too, and keeps one copy per
 * `message.id` (minted by the server when it stores the message), so no tab appends optimistically. */
export const UserMessageAppendedEvent = frame(
  'user_message_appended',
  { message: WireMessage, isFirstUserMessage: Type.Boolean() },
  'UserMessageAppendedEvent',
);
export type UserMessageAppendedEvent = Static<typeof UserMessageAppendedEvent>;

/** The agent loop stopped. With `willRetry` the run goes on (a retry, a continuation, a compaction
 * and retry): the composer stays busy until the run state says otherwise. */
export const AgentEndEvent = frame(
  'agent_end',
  { willRetry: Type.Optional(Type.Boolean()) },
  'AgentEndEvent',
);
export type AgentEndEvent = Static<typeof AgentEndEvent>;

/** The run state, whenever it changes and when the session is opened. A client drops a frame whose
 * `generation` is older than the one it holds. */
export const RunStateEvent = frame(
  'run_state',
  { sessionId: WireId, runState: WireRunState },
  'RunStateEvent',
);
export type RunStateEvent = Static<typeof RunStateEvent>;

/** The agent will come back, in a gap `agent_end.willRetry` does not cover. */
export const TurnContinueEvent = frame(
  'turn_continue',
  { reason: literals(['retry', 'length_continuation', 'compaction']) },
  'TurnContinueEvent',
);
export type TurnContinueEvent = Static<typeof TurnContinueEvent>;

/** Automatic retries of a failed provider call ran out and the turn is over. The failed reply itself
 * still ends with its own `message_end`. */
export const RetryFailedEvent = frame(
  'retry_failed',
  {
    /** The last attempt, from 1. */
    attempt: Type.Optional(Type.Number()),
    finalError: Type.Optional(Type.String()),
  },
  'RetryFailedEvent',
);
export type RetryFailedEvent = Static<typeof RetryFailedEvent>;

/** The server retitled the session; every place the title shows takes the new one. */
export const SessionRenamedEvent = frame(
  'session_renamed',
  { sessionId: WireId, title: Type.String() },
  'SessionRenamedEvent',
);
export type SessionRenamedEvent = Static<typeof SessionRenamedEvent>;

/** A loop iteration begins. */
export const LoopIterationEvent = frame(
  'loop_iteration',
  { iteration: Count, maxIterations: Count, prompt: Type.String() },
  'LoopIterationEvent',
);
export type LoopIterationEvent = Static<typeof LoopIterationEvent>;

/** The agent wrote the done marker. */
export const LoopCompleteEvent = frame('loop_complete', { iterations: Count }, 'LoopCompleteEvent');
export type LoopCompleteEvent = Static<typeof LoopCompleteEvent>;

/** The loop reached its cap. */
export const LoopMaxIterationsEvent = frame(
  'loop_max_iterations',
  { iterations: Count },
  'LoopMaxIterationsEvent',
);
export type LoopMaxIterationsEvent = Static<typeof LoopMaxIterationsEvent>;

export const IntervalArmedEvent = frame(
  'interval_armed',
  {
    intervalMinutes: Type.Number(),
    hasLoop: Type.Boolean(),
    goal: nullable(Type.String()),
  },
  'IntervalArmedEvent',
);
export type IntervalArmedEvent = Static<typeof IntervalArmedEvent>;

export const IntervalLaunchedEvent = frame(
  'interval_launched',
  { occurrence: Count },
  'IntervalLaunchedEvent',
);
export type IntervalLaunchedEvent = Static<typeof IntervalLaunchedEvent>;

/** A tick found the session busy and let it be. */
export const IntervalSkippedEvent = frame(
  'interval_skipped',
  { reason: Type.Literal('busy') },
  'IntervalSkippedEvent',
);
export type IntervalSkippedEvent = Static<typeof IntervalSkippedEvent>;

export const IntervalStoppedEvent = frame('interval_stopped', {}, 'IntervalStoppedEvent');
export type IntervalStoppedEvent = Static<typeof IntervalStoppedEvent>;

export const CompactionStartEvent = frame(
  'compaction_start',
  { reason: literals(['manual', 'threshold', 'overflow']) },
  'CompactionStartEvent',
);
export type CompactionStartEvent = Static<typeof CompactionStartEvent>;

/** The summary as it is written: the newest text and all of it so far. */
export const CompactionDeltaEvent = frame(
  'compaction_delta',
  { delta: Type.String(), content: Type.String() },
  'CompactionDeltaEvent',
);
export type CompactionDeltaEvent = Static<typeof CompactionDeltaEvent>;

/** The compaction is over; later prompts see the smaller context. */
export const CompactionEndEvent = frame(
  'compaction_end',
  {
    summary: Type.String(),
    tokensBefore: Count,
    /** Estimates: the span replaced, the net tokens removed, the summary's own. */
    tokensCompacted: Type.Optional(Amount),
    tokensRemoved: Type.Optional(Type.Number()),
    summaryTokens: Type.Optional(Amount),
    reductionPercent: Type.Optional(Type.Number()),
    /** Which compaction of the session branch, from 1. */
    compactionNumber: Type.Optional(Type.Number()),
    largestTokenSources: Type.Optional(Type.Array(WireCompactionTokenSourceBucket)),
    /** The first entry kept after the cut. */
    firstKeptEntryId: Type.Optional(Type.String()),
    aborted: Type.Optional(Type.Boolean()),
    /** Nothing was replaced, since the summary would not have made the context smaller. */
    skipped: Type.Optional(Type.Boolean()),
    skipReason: Type.Optional(Type.Literal('non_shrinking')),
    errorMessage: Type.Optional(Type.String()),
    /** The run goes on after the compaction. */
    willRetry: Type.Optional(Type.Boolean()),
  },
  'CompactionEndEvent',
);
export type CompactionEndEvent = Static<typeof CompactionEndEvent>;

/** A passing notice from an extension or a subsystem; not part of the turn. */
export const AgentNotificationEvent = frame(
  'agent_notification',
  {
    message: Type.String(),
    level: literals(['info', 'warning', 'error']),
    /** The subsystem, so a client can show a targeted indicator. */
    system: Type.Optional(
      literals([
        'memory_observer',
        'memory_compaction',
        'memory_reflection',
        'memory_pruner',
        'extension',
        'vision',
        'prompt_mutation',
      ]),
    ),
    dcpLiteTelemetry: Type.Optional(WireDcpLiteTelemetry),
  },
  'AgentNotificationEvent',
);
export type AgentNotificationEvent = Static<typeof AgentNotificationEvent>;

export const AutoResearchStartEvent = frame(
  'auto_research_start',
  { projectId: WireId },
  'AutoResearchStartEvent',
);
export type AutoResearchStartEvent = Static<typeof AutoResearchStartEvent>;

export const AutoResearchProgressEvent = frame(
  'auto_research_progress',
  {
    projectId: WireId,
    phase: literals([
      'context_collecting',
      'context_analyzing',
      'extension_generating',
      'extension_validating',
    ]),
    message: Type.String(),
  },
  'AutoResearchProgressEvent',
);
export type AutoResearchProgressEvent = Static<typeof AutoResearchProgressEvent>;

export const AutoResearchCompleteEvent = frame(
  'auto_research_complete',
  {
    projectId: WireId,
    extensions: Type.Array(
      Type.Object({
        name: Type.String(),
        path: Type.String(),
        description: Type.String(),
        usesLLM: Type.Optional(Type.Boolean()),
        fileCount: Type.Optional(Count),
      }),
    ),
    agentsMdUpdated: Type.Optional(Type.Boolean()),
  },
  'AutoResearchCompleteEvent',
);
export type AutoResearchCompleteEvent = Static<typeof AutoResearchCompleteEvent>;

export const AutoResearchErrorEvent = frame(
  'auto_research_error',
  { projectId: WireId, message: Type.String() },
  'AutoResearchErrorEvent',
);
export type AutoResearchErrorEvent = Static<typeof AutoResearchErrorEvent>;

export const AutoOptimizeStartEvent = frame(
  'auto_optimize_start',
  { projectId: WireId, action: literals(['analyze', 'execute']) },
  'AutoOptimizeStartEvent',
);
export type AutoOptimizeStartEvent = Static<typeof AutoOptimizeStartEvent>;

export const AutoOptimizeAnalysisCompleteEvent = frame(
  'auto_optimize_analysis_complete',
  {
    projectId: WireId,
    recommendations: Type.Array(
      Type.Object({
        id: WireId,
        filePath: Type.String(),
        issue: Type.String(),
        suggestion: Type.String(),
        severity: literals(['low', 'medium', 'high']),
        estimatedLineReduction: Type.Optional(Type.Number()),
      }),
    ),
  },
  'AutoOptimizeAnalysisCompleteEvent',
);
export type AutoOptimizeAnalysisCompleteEvent = Static<typeof AutoOptimizeAnalysisCompleteEvent>;

export const AutoOptimizeExecutionCompleteEvent = frame(
  'auto_optimize_execution_complete',
  {
    projectId: WireId,
    results: Type.Array(
      Type.Object({
        id: WireId,
        filePath: Type.String(),
        success: Type.Boolean(),
        linesBefore: Type.Optional(Count),
        linesAfter: Type.Optional(Count),
        errorMessage: Type.Optional(Type.String()),
      }),
    ),
    gatesPassed: Type.Boolean(),
    gateResults: Type.Array(
      Type.Object({ gate: Type.String(), passed: Type.Boolean(), message: Type.String() }),
    ),
  },
  'AutoOptimizeExecutionCompleteEvent',
);
export type AutoOptimizeExecutionCompleteEvent = Static<typeof AutoOptimizeExecutionCompleteEvent>;

export const AutoOptimizeErrorEvent = frame(
  'auto_optimize_error',
  { projectId: WireId, message: Type.String() },
  'AutoOptimizeErrorEvent',
);
export type AutoOptimizeErrorEvent = Static<typeof AutoOptimizeErrorEvent>;

/** Another active session of the project shared something it observed or concluded. */
export const InterAgentObservationEvent = frame(
  'inter_agent_observation',
  {
    projectId: WireId,
    sourceSessionId: WireId,
    sourceSessionName: Type.Optional(Type.String()),
    memoryId: WireId,
    content: Type.String(),
    relevance: MemoryRelevance,
    originType: literals(['observation', 'reflection']),
    timestamp: Type.String(),
  },
  'InterAgentObservationEvent',
);
export type InterAgentObservationEvent = Static<typeof InterAgentObservationEvent>;

/** The whole queue, whenever it changes, so a tab replaces what it holds in one step. */
export const QueueChangedEvent = frame(
  'queue_changed',
  { queue: Type.Array(QueueItem) },
  'QueueChangedEvent',
);
export type QueueChangedEvent = Static<typeof QueueChangedEvent>;

/** A tracked dev process changed; to every tab of the machine. `processId` is always there to match a
 * kill or an exit, `process` when the server has the summary. */
export const DevProcessesChangedEvent = frame(
  'dev_processes_changed',
  {
    processId: Type.Optional(WireId),
    process: Type.Optional(DevProcessSummary),
    change: literals(['started', 'status', 'exited', 'killed', 'ports']),
  },
  'DevProcessesChangedEvent',
);
export type DevProcessesChangedEvent = Static<typeof DevProcessesChangedEvent>;

/** New output of a tracked dev process: the newest piece, and the bounded tail (never all of it). */
export const DevProcessOutputEvent = frame(
  'dev_process_output',
  { processId: WireId, chunk: Type.String(), tail: Type.String() },
  'DevProcessOutputEvent',
);
export type DevProcessOutputEvent = Static<typeof DevProcessOutputEvent>;

/** Spectral's server events, in its order. */
export const SPECTRAL_SERVER_EVENT_MEMBERS = [
  SessionReadyEvent,
  SessionReadyStartEvent,
  HistoryChunkEvent,
  SessionReadyEndEvent,
  UserMessageAppendedEvent,
  MessageStartEvent,
  TextDeltaEvent,
  ThinkingStartEvent,
  ThinkingDeltaEvent,
  ThinkingEndEvent,
  ToolCallEvent,
  ToolResultEvent,
  MessageEndEvent,
  AgentEndEvent,
  RunStateEvent,
  TurnContinueEvent,
  RetryFailedEvent,
  SessionRenamedEvent,
  ErrorEvent,
  LoopIterationEvent,
  LoopCompleteEvent,
  LoopMaxIterationsEvent,
  IntervalArmedEvent,
  IntervalLaunchedEvent,
  IntervalSkippedEvent,
  IntervalStoppedEvent,
  TokenUsageEvent,
  CompactionStartEvent,
  CompactionDeltaEvent,
  CompactionEndEvent,
  AgentNotificationEvent,
  AutoResearchStartEvent,
  AutoResearchProgressEvent,
  AutoResearchCompleteEvent,
  AutoResearchErrorEvent,
  AutoOptimizeStartEvent,
  AutoOptimizeAnalysisCompleteEvent,
  AutoOptimizeExecutionCompleteEvent,
  AutoOptimizeErrorEvent,
  InterAgentObservationEvent,
  SubagentStartEvent,
  SubagentProgressEvent,
  SubagentEndEvent,
  SubagentToolProgressEvent,
  QueueChangedEvent,
  DevProcessesChangedEvent,
  DevProcessOutputEvent,
] as const;

/** Every server event: spectral's, then cairn's own. */
export const SERVER_EVENT_MEMBERS = [
  ...SPECTRAL_SERVER_EVENT_MEMBERS,
  ...CAIRN_SERVER_EVENT_MEMBERS,
] as const;

export const ServerEvent = Type.Union([...SERVER_EVENT_MEMBERS], { $id: 'ServerEvent' });
export type ServerEvent = Static<typeof ServerEvent>;
export type ServerEventType = ServerEvent['type'];
/** The server event of one type. */
export type ServerEventOf<T extends ServerEventType> = Extract<ServerEvent, { type: T }>;
