// What a tab receives when it attaches to a chat session: the history, whole in `session_ready` or in
// chunks between `session_ready_start` and `session_ready_end`, with the turn in flight and the
// session's state, so a tab that reconnects mid-turn rebuilds it with no gap and no repeat.
import { type Static, Type } from '@sinclair/typebox';
import { WireRunState } from '../session-stream.js';
import { SessionConfigOptionSchema } from './agent-wire-shapes.js';
import { PermissionRequestEvent, SettledPermission, SignInRequiredEvent } from './cairn-extensions.js';
import { ChatCommand } from './composer.js';
import { DevProcessSummary } from './dev-processes.js';
import { Count, frame, Instant, NullableCount, nullable, WireId } from './fields.js';
import { WireMessage } from './messages.js';
import { QueueItem } from './queue.js';
import { InProgressTurnSnapshot } from './turn-events.js';

/** The session's state that both forms of the opening carry. */
const READY_STATE = {
  sessionId: WireId,
  /** The turn in flight when the tab attached, so the tab can rebuild it; null or absent when none. */
  currentTurn: Type.Optional(nullable(InProgressTurnSnapshot)),
  totalMessageCount: Type.Optional(Count),
  loadedMessageCount: Type.Optional(Count),
  /** Older messages exist than the ones sent. */
  hasEarlierMessages: Type.Optional(Type.Boolean()),
  /** A "fork and compact" session whose first compaction is still to come. */
  forkCompactPending: Type.Optional(Type.Boolean()),
  /** A compaction is running now, so a reconnecting tab shows it at once. */
  compacting: Type.Optional(Type.Boolean()),
  /** Context tokens in use across the session; null when unknown. */
  contextWindowUsed: NullableCount,
  /** The model's context window; null when unknown. */
  contextWindowMax: NullableCount,
  /** The interval scheduler as it stands. */
  intervalActive: Type.Optional(Type.Boolean()),
  intervalMinutes: Type.Optional(nullable(Type.Number())),
  intervalNextTickAt: Type.Optional(nullable(Instant)),
  intervalLaunchCount: Type.Optional(Count),
  intervalHasLoop: Type.Optional(Type.Boolean()),
  intervalGoal: Type.Optional(nullable(Type.String())),
  runState: Type.Optional(WireRunState),
};

/** cairn's own fields on `session_ready` (spectral's has none of them): the agent, what it can do, and
 * what a tab must show on attaching besides the history: the queue, permission requests still open,
 * and a sign-in the agent is waiting for. */
const CAIRN_READY_FIELDS = {
  /** The roster key of the session's agent. */
  agent: Type.Optional(WireId),
  /** The agent's config options (model, mode, …); null when it offers none. */
  configOptions: Type.Optional(nullable(Type.Array(SessionConfigOptionSchema))),
  supportsSteering: Type.Optional(Type.Boolean()),
  supportsImageInput: Type.Optional(Type.Boolean()),
  queue: Type.Optional(Type.Array(QueueItem)),
  pendingPermissions: Type.Optional(Type.Array(PermissionRequestEvent)),
  /** The session's permission requests that were answered or ended, latest last (bounded). */
  settledPermissions: Type.Optional(Type.Array(SettledPermission)),
  signIn: Type.Optional(nullable(SignInRequiredEvent)),
  /** The commands the session's agent ran in terminals, running or ended. */
  devProcesses: Type.Optional(Type.Array(DevProcessSummary)),
  /** The slash commands the agent announced; absent until it announces any. */
  availableCommands: Type.Optional(Type.Array(ChatCommand)),
};

/** The whole history at once. */
export const SessionReadyEvent = frame(
  'session_ready',
  { ...READY_STATE, history: Type.Array(WireMessage), ...CAIRN_READY_FIELDS },
  'SessionReadyEvent',
);
export type SessionReadyEvent = Static<typeof SessionReadyEvent>;

/** A long history opens with this; `history_chunk`s follow, then `session_ready_end`. It carries what
 * `session_ready` would besides the history, cairn's fields included. */
export const SessionReadyStartEvent = frame(
  'session_ready_start',
  {
    ...READY_STATE,
    ...CAIRN_READY_FIELDS,
    /** How many `history_chunk`s follow. */
    totalChunks: Count,
    /** The messages the chunks hold together, checked at `session_ready_end`. */
    totalMessages: Count,
  },
  'SessionReadyStartEvent',
);
export type SessionReadyStartEvent = Static<typeof SessionReadyStartEvent>;

/** One chunk: its messages inline, or their JSON array gzipped in base64 as `payload`. */
export const HistoryChunkEvent = frame(
  'history_chunk',
  {
    sessionId: WireId,
    index: Count,
    total: Count,
    messages: Type.Optional(Type.Array(WireMessage)),
    encoding: Type.Optional(Type.Literal('gzip-base64')),
    payload: Type.Optional(Type.String()),
  },
  'HistoryChunkEvent',
);
export type HistoryChunkEvent = Static<typeof HistoryChunkEvent>;

export const SessionReadyEndEvent = frame(
  'session_ready_end',
  { sessionId: WireId, totalMessages: Count },
  'SessionReadyEndEvent',
);
export type SessionReadyEndEvent = Static<typeof SessionReadyEndEvent>;
