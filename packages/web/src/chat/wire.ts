// The chat wire as the page reads it: the frames of `/chat` (server → browser) and what the page
// sends back. Field names follow the contract; the page reads every frame defensively, since a
// newer server may add members and fields.
import type {
  AppliedPermissionRule,
  BridgeInfo,
  ChatCommand,
  PermissionRuleSuggestion,
  SessionConfigOption,
} from '@cairn/protocol';

export { MAX_INLINE_IMAGE_BASE64_CHARS } from '@cairn/protocol';
export type { BridgeInfo, ChatCommand, SessionConfigOption };

export interface ImageAttachment {
  data?: string;
  url?: string;
  imageId?: string;
  mimeType: string;
  width?: number;
  height?: number;
}

export interface WireMessage {
  id: string;
  role: 'user' | 'assistant' | 'system';
  content: string;
  /** Newline-delimited JSON of the turn events of this message (assistant only, may be ""). */
  events: string;
  createdAt: number;
  sequence?: number;
  images?: ImageAttachment[];
  outputTokens?: number | null;
  durationMs?: number | null;
  tokensPerSecond?: number | null;
  ttftMs?: number | null;
}

export type RunPhase = 'idle' | 'streaming' | 'retrying' | 'compacting' | 'looping' | 'queued';

export interface WireRunState {
  runId: string;
  generation: number;
  busy: boolean;
  phase: RunPhase;
  flags: { streaming: boolean; retrying: boolean; compacting: boolean; looping: boolean; queued: boolean };
}

export interface WireProject {
  id: string;
  name: string;
  path: string;
  createdAt: number;
  updatedAt: number;
  sessionCount: number;
  busy?: boolean;
}

export interface ChatSessionSummary {
  id: string;
  projectId: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  messageCount: number;
  hasActiveTurn?: boolean;
  busy?: boolean;
  agent: string;
  nativeSessionId: string | null;
  /** The workstation the agent runs on, and whether it is connected now. */
  workstation: string;
  workstationOnline: boolean;
  /** The person archived it: listed only under "Archived". */
  archived?: boolean;
}

/** A machine agents can run on (`GET /api/workstations`). */
export interface ChatWorkstation {
  name: string;
  /** The workstation inside the daemon. */
  local: boolean;
  online: boolean;
  agents: BridgeInfo[];
  /** What the workstation says is wrong with its config.json. */
  configProblems?: string[];
}

export interface QueueItem {
  id: string;
  content: string;
  images?: ImageAttachment[];
  position: number;
  createdAt: string | number;
}

export interface PermissionOption {
  optionId: string;
  name: string;
  /** `allow_once`, `allow_always`, `reject_once`, `reject_always`. */
  kind: string;
}

export interface PermissionToolCall {
  id: string;
  title: string;
  kind?: string;
  args?: unknown;
}

export interface PermissionRequest {
  requestId: string;
  toolCall: PermissionToolCall;
  options: PermissionOption[];
  /** The standing rules the card offers to remember for the project. */
  rememberable?: PermissionRuleSuggestion[];
}

export interface SignInMethod {
  id: string;
  name: string;
  description?: string | null;
  /** The agent protocol's kind of method (`env_var`, `terminal`, …) when the agent says. */
  type?: string | null;
}

export interface SignIn {
  agent: string;
  message: string;
  methods: SignInMethod[];
  url?: string | null;
  /** Why the last try from the card did not work (the page's own, not the wire's). */
  failure?: string;
}

/** A command the agent ran in a terminal: a dev server, a build, a test run. */
export interface DevProcess {
  id: string;
  label: string;
  command: string;
  cwd: string;
  /** `running`, `exited`, `killed` (or `recovered`). */
  status: string;
  pid?: number;
  startedAt: number;
  endedAt?: number;
  exitCode: number | null;
  lastOutputTail: string;
  fullOutputPath: string;
}

export interface SettledPermission {
  request: PermissionRequest;
  optionId: string;
  by?: string;
  /** The rule that answered it, when no one had to. */
  rule?: AppliedPermissionRule;
}

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  totalTokens?: number;
}

export interface InProgressTurnSnapshot {
  turnId: string;
  startedAt: number;
  events: ServerEvent[];
}

/** Every frame the page acts on; anything else arrives as `{ type: string }` and is ignored. */
export type ServerEvent =
  | {
      type: 'session_ready';
      sessionId: string;
      history: WireMessage[];
      runState?: WireRunState | null;
      currentTurn?: InProgressTurnSnapshot | null;
      contextWindowUsed: number | null;
      contextWindowMax: number | null;
      agent?: string;
      title?: string;
      configOptions?: SessionConfigOption[] | null;
      supportsSteering?: boolean;
      supportsImageInput?: boolean;
      queue?: QueueItem[];
      pendingPermissions?: PermissionRequest[];
      settledPermissions?: SettledPermission[];
      signIn?: SignIn | null;
      devProcesses?: DevProcess[];
      availableCommands?: ChatCommand[];
      intervalActive?: boolean;
      intervalMinutes?: number | null;
      intervalNextTickAt?: number | null;
      intervalLaunchCount?: number;
    }
  | { type: 'user_message_appended'; message: WireMessage; isFirstUserMessage?: boolean }
  | { type: 'message_start'; messageId: string }
  | { type: 'text_delta'; messageId: string; delta: string }
  | { type: 'thinking_start'; messageId: string }
  | { type: 'thinking_delta'; messageId: string; delta: string }
  | { type: 'thinking_end'; messageId: string }
  | { type: 'tool_call'; messageId: string; id: string; name: string; args?: unknown }
  | { type: 'tool_result'; messageId: string; id: string; result?: unknown; isError?: boolean }
  | { type: 'message_end'; messageId: string; stopReason?: string; errorMessage?: string }
  | {
      type: 'token_usage';
      messageId: string;
      usage: TokenUsage;
      contextWindowUsed: number | null;
      contextWindowMax: number | null;
      durationMs?: number | null;
      ttftMs?: number | null;
      tokensPerSecond?: number | null;
    }
  | { type: 'agent_end'; willRetry?: boolean }
  | { type: 'run_state'; sessionId: string; runState: WireRunState }
  | { type: 'queue_changed'; queue: QueueItem[] }
  | { type: 'session_renamed'; sessionId: string; title: string }
  | { type: 'error'; message: string }
  | { type: 'agent_notification'; message: string; level: 'info' | 'warning' | 'error'; system?: string }
  | { type: 'loop_iteration'; iteration: number; maxIterations: number; prompt?: string }
  | { type: 'loop_complete'; iterations: number }
  | { type: 'loop_max_iterations'; iterations: number }
  | { type: 'interval_armed'; intervalMinutes: number; hasLoop?: boolean; goal?: string | null }
  | { type: 'interval_launched'; occurrence: number }
  | { type: 'interval_skipped'; reason: string }
  | { type: 'interval_stopped' }
  | ({ type: 'permission_request' } & PermissionRequest)
  | {
      type: 'permission_settled';
      requestId: string;
      /** `cancelled` when no option was chosen. */
      optionId: string;
      /** `answer`, `timeout` or `cancel`. */
      by?: string;
    }
  | {
      type: 'permission_rule_applied';
      requestId: string;
      toolCall: PermissionToolCall;
      optionId: string;
      applied: AppliedPermissionRule;
    }
  | ({ type: 'sign_in_required' } & SignIn)
  | { type: 'config_options'; configOptions: SessionConfigOption[] }
  | { type: 'available_commands'; commands: ChatCommand[] }
  | { type: 'steer_result'; ok: boolean; outcome?: 'injected' | 'queued'; error?: string }
  | { type: 'sign_in_result'; agent: string; methodId: string; ok: boolean; message: string }
  | { type: 'dev_processes_changed'; processId?: string; process?: DevProcess; change: string }
  | { type: 'dev_process_output'; processId: string; chunk: string; tail: string };

export type ClientMessage =
  | {
      type: 'user_message';
      content: string;
      images?: ImageAttachment[];
      loop?: boolean;
      loopMaxIterations?: number;
      intervalMinutes?: number;
      loopControl?: 'run_now' | 'stop';
      /** Project files (relative to its folder) handed to the agent with the prompt. */
      files?: string[];
    }
  | { type: 'stop' }
  | { type: 'steer'; content: string; images?: ImageAttachment[] }
  | { type: 'permission_answer'; requestId: string; optionId: string }
  | { type: 'permission_remember'; requestId: string; rule: string }
  | { type: 'queue_remove'; id: string }
  | { type: 'queue_edit'; id: string; content: string }
  | { type: 'queue_clear' }
  | { type: 'set_config_option'; configId: string; value: string | boolean }
  | { type: 'dev_process_kill'; processId: string }
  | { type: 'sign_in'; methodId: string; key?: string };
