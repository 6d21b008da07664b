// The agent wire's frames as TypeScript types, written out for readers. A type test proves each one
// equal to what the frame table (shapes.ts) accepts, so the two cannot drift apart.
import type { AgentFrameType } from './shapes.js';

export type { AgentFrameType } from './shapes.js';

/** One agent a workstation can run (an entry of `agent_hello.bridges`). */
export interface BridgeInfo {
  /** The roster key (`claude-code`, `codex`, …). */
  key: string;
  /** For people. */
  name: string;
  /** Whether the agent's own CLI is on the machine; absent when not looked for. */
  cliInstalled?: boolean;
  /** True when the ACP adapter is installed; absent otherwise (never `false`). */
  adapterInstalled?: true;
  /** The adapter's (or the agent's) version when known. */
  version?: string | null;
  /** True when the agent accepts steering; absent otherwise. */
  supportsSteering?: true;
  /** True when the agent accepts images in a prompt; absent otherwise. */
  supportsImageInput?: true;
}

/** One way an agent says it can be signed in to. */
export interface AuthMethodInfo {
  id: string;
  name: string;
  description?: string | null;
  /** The agent protocol's kind of method (`agent`, `env_var`, `terminal`, …) when it says. */
  type?: string | null;
}

export interface ImageBlock {
  type: 'image';
  /** Base64 of the image's bytes. */
  data: string;
  mimeType: string;
  uri?: string | null;
}

export interface AgentInfo {
  name: string;
  title?: string | null;
  version?: string | null;
}

export interface SelectOption {
  /** The id a `select` config option's `currentValue` names. */
  value: string;
  name: string;
  description?: string | null;
}

export interface SelectGroup {
  group: string;
  name: string;
  options: SelectOption[];
}

export interface SelectConfigOption {
  id: string;
  name: string;
  type: 'select';
  currentValue: string;
  /** All plain options or all groups. */
  options: SelectOption[] | SelectGroup[];
  description?: string | null;
  category?: string | null;
}

export interface BooleanConfigOption {
  id: string;
  name: string;
  type: 'boolean';
  currentValue: boolean;
  description?: string | null;
  category?: string | null;
}

export type SessionConfigOption = SelectConfigOption | BooleanConfigOption;

/** A select option's id or a boolean toggle. */
export type ConfigOptionValue = string | boolean;

// The same types under the names the contract gives them.
export type ImageBlockWire = ImageBlock;
export type AgentInfoWire = AgentInfo;
export type SelectOptionWire = SelectOption;
export type SelectGroupWire = SelectGroup;
export type SessionConfigOptionWire = SessionConfigOption;
export type ConfigOptionValueWire = ConfigOptionValue;

/** One session of the journal inventory. */
export interface AgentResumeSession {
  sessionRef: string;
  /** The highest seq journaled for the session. */
  journalMaxSeq: number;
  /** False for an orphan: the journal is still there but its agent is gone. */
  agentAlive: boolean;
}

/** A session as the agent itself lists it. */
export interface NativeSession {
  nativeSessionId: string;
  title: string;
  updatedAtEpochMs: number;
  cwd: string;
}

export interface AvailableCommand {
  name: string;
  description: string;
  inputHint?: string | null;
}

export interface AgentBackfillEvent {
  eventName: string;
  payload: Record<string, unknown>;
}

export interface PinnedVersionUnavailable {
  /** The version cairn pins. */
  pinned: string;
  /** The version that was installed because the pinned one could not be had. */
  installedInstead: string;
}

export type SteerOutcome = 'injected' | 'promptRequired';

/** workstation → server: who this is, and the agents it can run. */
export interface AgentHelloFrame {
  t: 'agent_hello';
  ticket: string;
  bridges?: BridgeInfo[];
}

/** server → workstation: the channel is up; `agentWire` is the server's wire version. */
export interface AgentReadyFrame {
  t: 'agent_ready';
  generation: string;
  agentWire: number;
}

/** workstation → server, after every connect: the sessions whose journals it holds. */
export interface AgentResumeOfferFrame {
  t: 'agent_resume_offer';
  sessions: AgentResumeSession[];
}

export interface HeartbeatFrame {
  t: 'heartbeat';
  seq: number;
  sentAtEpochMs: number;
  /** The same inventory as the resume offer, from v8. */
  sessions?: AgentResumeSession[];
}

export interface HeartbeatAckFrame {
  t: 'heartbeat_ack';
  seq: number;
}

/** server → workstation: start (or reopen) a session. */
export interface AgentOpenFrame {
  t: 'agent_open';
  id: string;
  sessionRef: string;
  agentKey: string;
  bridge: string;
  cwd: string;
  shell: string;
  env?: Record<string, string>;
  pathPrepend?: string[];
  agentEnv?: Record<string, string>;
  command?: string | null;
  args?: string[];
  nativeSessionId?: string | null;
  /** Replay journaled events after this seq. */
  resumeFromSeq?: number;
  backfill?: boolean;
}

export interface AgentOpenedFrame {
  t: 'agent_opened';
  id: string;
  ok: boolean;
  nativeSessionId?: string | null;
  error?: string | null;
  supportsSteering?: true;
  steeringTimings?: string[];
  /** True when this open really loaded or created the session (from v13). */
  reloaded?: true;
  agentInfo?: AgentInfo;
  supportsImageInput?: true;
  configOptions?: SessionConfigOption[] | null;
  /** The agent's auth methods, when it refused (from v12). */
  authMethods?: AuthMethodInfo[] | null;
  /** The JSON-RPC code of the agent's refusal (from v12). */
  errorCode?: number | null;
}

export interface AgentPromptFrame {
  t: 'agent_prompt';
  sessionRef: string;
  text: string;
  images?: ImageBlock[];
}

export interface AgentAnswerFrame {
  t: 'agent_answer';
  sessionRef: string;
  requestId: string;
  outcome: string;
}

export interface AgentInterruptFrame {
  t: 'agent_interrupt';
  sessionRef: string;
}

export interface AgentCloseFrame {
  t: 'agent_close';
  sessionRef: string;
}

export interface AgentEventFrame {
  t: 'agent_event';
  sessionRef: string;
  seq: number;
  eventName: string;
  payload: Record<string, unknown>;
}

export interface AgentTurnDoneFrame {
  t: 'agent_turn_done';
  sessionRef: string;
  seq: number;
  status: string;
  stopReason?: string;
  nativeSessionId?: string | null;
  error?: string | null;
  authMethods?: AuthMethodInfo[] | null;
  errorCode?: number | null;
}

export interface AgentEventAckFrame {
  t: 'agent_event_ack';
  sessionRef: string;
  throughSeq: number;
}

export interface AgentSessionLostFrame {
  t: 'agent_session_lost';
  sessionRef: string;
  action: string;
}

export interface AgentListNativeFrame {
  t: 'agent_list_native';
  id: string;
  bridge: string;
  /** Present, of any value: a malformed query is answered with `ok: false`, not dropped. */
  query: unknown;
}

export interface AgentNativeSessionsFrame {
  t: 'agent_native_sessions';
  id: string;
  ok: boolean;
  sessions?: NativeSession[];
  error?: string | null;
}

export interface AgentVerifyFrame {
  t: 'agent_verify';
  id: string;
  bridge: string;
  query: unknown;
  timeoutMs?: number | null;
}

export interface AgentAuthenticateFrame {
  t: 'agent_authenticate';
  id: string;
  bridge: string;
  methodId: string;
  query: unknown;
}

export interface AgentVerifiedFrame {
  t: 'agent_verified';
  id: string;
  ok: boolean;
  authMethods?: AuthMethodInfo[] | null;
  /** True on positive evidence only; absent means unknown. */
  authenticated?: true;
  sessionError?: string | null;
  error?: string | null;
  availableCommands?: AvailableCommand[] | null;
  configOptions?: SessionConfigOption[] | null;
}

export interface AgentAuthenticatedFrame {
  t: 'agent_authenticated';
  id: string;
  ok: boolean;
  /** True when the login goes on in a browser and a final reply follows (from v11). */
  pending?: true;
  error?: string | null;
}

export interface AgentAuthUrlFrame {
  t: 'agent_auth_url';
  id: string;
  elicitationId: string;
  url: string;
}

export interface AgentAuthUrlDoneFrame {
  t: 'agent_auth_url_done';
  id: string;
  elicitationId: string;
}

export interface AgentInstallFrame {
  t: 'agent_install';
  id: string;
  bridge: string;
}

export interface AgentInstalledFrame {
  t: 'agent_installed';
  id: string;
  ok: boolean;
  adapterInstalled?: true;
  alreadyInstalled?: boolean;
  unsupported?: boolean;
  error?: string | null;
  pinnedVersionUnavailable?: PinnedVersionUnavailable;
}

export interface AgentSteerFrame {
  t: 'agent_steer';
  id: string;
  sessionRef: string;
  text: string;
  /** From v14. */
  images?: ImageBlock[];
  /** The delivery timing to inject with (from v14). */
  priority?: string;
}

export interface AgentSteeredFrame {
  t: 'agent_steered';
  id: string;
  ok: boolean;
  outcome?: SteerOutcome;
  error?: string | null;
}

export interface AgentBackfillEventsFrame {
  t: 'agent_backfill_events';
  id: string;
  events: AgentBackfillEvent[];
}

export interface AgentBackfillDoneFrame {
  t: 'agent_backfill_done';
  id: string;
  ok: boolean;
  count: number;
  error?: string | null;
}

export interface AgentSetConfigOptionFrame {
  t: 'agent_set_config_option';
  id: string;
  sessionRef: string;
  configId: string;
  value: ConfigOptionValue;
}

export interface AgentConfigOptionSetFrame {
  t: 'agent_config_option_set';
  id: string;
  ok: boolean;
  configOptions?: SessionConfigOption[] | null;
  error?: string | null;
}

/** Each frame type's frame. */
export interface AgentFrameMap {
  agent_hello: AgentHelloFrame;
  agent_ready: AgentReadyFrame;
  agent_resume_offer: AgentResumeOfferFrame;
  heartbeat: HeartbeatFrame;
  heartbeat_ack: HeartbeatAckFrame;
  agent_open: AgentOpenFrame;
  agent_opened: AgentOpenedFrame;
  agent_prompt: AgentPromptFrame;
  agent_answer: AgentAnswerFrame;
  agent_interrupt: AgentInterruptFrame;
  agent_close: AgentCloseFrame;
  agent_event: AgentEventFrame;
  agent_turn_done: AgentTurnDoneFrame;
  agent_event_ack: AgentEventAckFrame;
  agent_session_lost: AgentSessionLostFrame;
  agent_list_native: AgentListNativeFrame;
  agent_native_sessions: AgentNativeSessionsFrame;
  agent_verify: AgentVerifyFrame;
  agent_authenticate: AgentAuthenticateFrame;
  agent_verified: AgentVerifiedFrame;
  agent_authenticated: AgentAuthenticatedFrame;
  agent_auth_url: AgentAuthUrlFrame;
  agent_auth_url_done: AgentAuthUrlDoneFrame;
  agent_install: AgentInstallFrame;
  agent_installed: AgentInstalledFrame;
  agent_steer: AgentSteerFrame;
  agent_steered: AgentSteeredFrame;
  agent_backfill_events: AgentBackfillEventsFrame;
  agent_backfill_done: AgentBackfillDoneFrame;
  agent_set_config_option: AgentSetConfigOptionFrame;
  agent_config_option_set: AgentConfigOptionSetFrame;
}

export type AgentFrameOf<T extends AgentFrameType> = AgentFrameMap[T];

/** Any agent frame, discriminated on `t`. */
export type AgentFrame = AgentFrameMap[AgentFrameType];

/** The frames that answer a request (they carry its `id`) and can therefore carry a failure. */
export type AgentFailureReply =
  | AgentOpenedFrame
  | AgentNativeSessionsFrame
  | AgentVerifiedFrame
  | AgentAuthenticatedFrame
  | AgentInstalledFrame
  | AgentSteeredFrame
  | AgentConfigOptionSetFrame
  | AgentBackfillDoneFrame;
