// The transcript model: one typed shape for every agent's sessions.
// Names follow the agent-kit `/transcript` contract; payload fields beyond it are cairn's own.

import type { Capability } from '@cairn/protocol';
import type { InvalidValue } from './values.js';

export { CAPABILITIES } from '@cairn/protocol';
/** What an agent's logs can record (the contract's list). A count whose capability a transcript does not list is absent, never 0. */
export type { Capability, InvalidValue };

export interface SqliteSourcePointer {
  table: string;
  rowid: number;
}

/** Where an event's original record is: reading `length` bytes at `offset` of `file` returns it. */
export interface SourcePointer {
  file: string;
  offset: number;
  length: number;
  /** 1-based. */
  line: number;
  /** The file is compressed, and offset/length index its decompressed stream. */
  codec?: 'zstd';
  sqlite?: SqliteSourcePointer;
}

/** One agent's execution line in a session. The main agent has no parentId. */
export interface Lane {
  id: string;
  parentId?: string;
  /** The tool_call or system event on the parent lane that started this subagent, when recorded. */
  spawnEventId?: string;
  systemPrompt?: string;
  title?: string;
}

export type TranscriptEventKind =
  | 'user'
  | 'assistant'
  | 'reasoning'
  | 'tool_call'
  | 'tool_result'
  | 'request'
  | 'system'
  | 'compaction'
  | 'hook'
  | 'unknown';

export const TRANSCRIPT_EVENT_KINDS: readonly TranscriptEventKind[] = [
  'user',
  'assistant',
  'reasoning',
  'tool_call',
  'tool_result',
  'request',
  'system',
  'compaction',
  'hook',
  'unknown',
];

/** Token usage of one model request. inputTokens includes cache reads and writes; outputTokens includes reasoning. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Of cacheWriteTokens, those written to the one-hour cache (priced above the five-minute rate). */
  cacheWrite1hTokens?: number;
  reasoningTokens?: number;
}

export interface MessagePayload {
  text: string;
  /**
   * Set on user/assistant text the person or the model did not write as a turn: injected
   * context, command output, compaction summaries, interruption notices, API error text.
   * A user event without it on the main lane is a prompt (one turn).
   */
  synthetic?: boolean;
  /** Why a message is synthetic, in the agent's own words ('meta', 'command', 'compact_summary', …). */
  origin?: string;
  [field: string]: unknown;
}

export interface ReasoningPayload {
  text: string;
  /** The model's reasoning was recorded only in sealed or encrypted form. */
  redacted?: boolean;
  [field: string]: unknown;
}

export interface ToolCallPayload {
  callId: string;
  /** The agent's own spelling: Bash, exec_command, apply_patch, … */
  name: string;
  input: unknown;
  [field: string]: unknown;
}

export interface ToolResultPayload {
  callId: string;
  /** The tool's output as text when it is text, else the recorded value. */
  output: unknown;
  isError?: boolean;
  /** No tool_call with this callId exists in the transcript. */
  orphan?: boolean;
  durationMs?: number;
  /** The subagent lane this result reports on (agent spawns). */
  agentId?: string;
  [field: string]: unknown;
}

export interface RequestPayload {
  model?: string;
  usage?: Usage;
  stopReason?: string;
  durationMs?: number;
  [field: string]: unknown;
}

export interface SystemPayload {
  /** The record's subtype: 'turn_duration', 'prompt_snapshot', 'session_meta', 'task_complete', … */
  type: string;
  text?: string;
  durationMs?: number;
  systemPrompt?: string;
  tools?: unknown[];
  [field: string]: unknown;
}

/**
 * A system event with type 'prompt_snapshot': the system prompt and tool definitions recorded at that
 * point on the event's lane. A later snapshot on the same lane replaces an earlier one; a field a
 * snapshot leaves out was not recorded by it.
 */
export interface PromptSnapshotPayload extends SystemPayload {
  type: 'prompt_snapshot';
}

export interface CompactionPayload {
  trigger?: string;
  preTokens?: number;
  postTokens?: number;
  /** The summary that replaced the context, when recorded. */
  summary?: string;
  [field: string]: unknown;
}

export interface HookPayload {
  /** The hook event: PreToolUse, PostToolUse, Stop, SessionStart, … */
  event: string;
  /** The full hook name, e.g. 'PreToolUse:Bash'. */
  name?: string;
  command?: string;
  exitCode?: number;
  durationMs?: number;
  output?: string;
  isError?: boolean;
  [field: string]: unknown;
}

export interface UnknownPayload {
  /** The record's own type tag, or '' when it has none. */
  recordType: string;
  raw: unknown;
  [field: string]: unknown;
}

export interface TranscriptEventPayloads {
  assistant: MessagePayload;
  compaction: CompactionPayload;
  hook: HookPayload;
  reasoning: ReasoningPayload;
  request: RequestPayload;
  system: SystemPayload;
  tool_call: ToolCallPayload;
  tool_result: ToolResultPayload;
  unknown: UnknownPayload;
  user: MessagePayload;
}

export interface TranscriptEventBase<K extends TranscriptEventKind> {
  /** Unique within the transcript and stable across reads of the same bytes. */
  id: string;
  /** Position in the transcript's order, from 0. */
  seq: number;
  kind: K;
  /** The lane (Transcript.agents[].id) this event belongs to. */
  agentId: string;
  /** The event this one follows in the agent's own record chain. */
  parentId?: string;
  /** The request event of the model request that produced this event. */
  requestId?: string;
  /** The compaction event that removed this event from the model's context. */
  shadowedBy?: string;
  /** Milliseconds since the epoch, when recorded. */
  timestamp?: number;
  /** Values of the record left out because the contract cannot carry them (a date before 1970, a negative count), with why. */
  invalid?: InvalidValue[];
  source: SourcePointer;
  payload: TranscriptEventPayloads[K];
}

export type TranscriptEventOf<K extends TranscriptEventKind> = { [Kind in K]: TranscriptEventBase<Kind> }[K];
export type TranscriptEvent = TranscriptEventOf<TranscriptEventKind>;

/** A record that became no event, with the reason. */
export interface SkippedRecord {
  source: SourcePointer;
  reason: string;
  /** The record's type tag, when it parsed far enough to have one. */
  recordType?: string;
}

export interface TranscriptSession {
  id: string;
  cwd?: string;
  startedAt?: number;
  endedAt?: number;
  title?: string;
  /** The session's main file is not among its files (it is gone; its subagents' files remain): the main lane has no events. */
  mainFileMissing?: true;
  /** The main lane's latest recorded system prompt. */
  systemPrompt?: string;
  /** The main lane's latest recorded tool definitions. */
  tools?: unknown;
}

/** The ordered events of a session, merged from all its files, with the records that became no event. */
export interface Transcript {
  agent: string;
  agentVersion?: string;
  agents: Lane[];
  capabilities: Capability[];
  events: TranscriptEvent[];
  session: TranscriptSession;
  skipped: SkippedRecord[];
}

/**
 * A session to read. Without an agent, or with a `sessionId` that is not an id a session can have
 * (a letter or digit, then letters, digits, `.`, `_`, `-`, at most 200), every adapter's detect decides.
 */
export interface SessionTarget {
  readonly agent?: string;
  readonly path: string;
  readonly sessionId?: string;
}

/** What a listing knows of a session from at most the first 128 KB of each file. */
export interface SessionHead {
  agent: string;
  id: string;
  /** The session's main file (where it belongs, when `mainFileMissing`). */
  path: string;
  /** Every file of the session: the main file first, then subagent files. */
  files: string[];
  /** The main file is gone and only subagent files remain: `files` holds only them, the main lane is empty. */
  mainFileMissing?: true;
  cwd?: string;
  title?: string;
  firstPrompt?: string;
  startedAt?: number;
  /** The git branch the session started on, when the agent records one. */
  gitBranch?: string;
  /** The model of the session's first answer, when the head of its file records one. */
  model?: string;
  /** The time of the latest last record across its files, whole ms since the epoch; the files'
   * latest modification time only when no record carries a time. */
  lastActivityAt?: number;
  /** Bytes on disk across all files. */
  size: number;
}

/** Numbers about one session. A number whose capability the transcript does not list is absent. */
export interface SessionSummary {
  compactions?: number;
  /**
   * Input tokens of each model request in order, downsampled to at most 120 points (the largest of
   * each bucket kept). cairn reads "each request" as each request of the main lane: a subagent's
   * requests fill a context of their own, and interleaving them with the main lane's would draw
   * drops and climbs that no one context went through. A session without subagents has the same
   * shape either way; the requests of every lane are counted in `requests` and the token totals.
   */
  contextShape?: number[];
  durationMs?: number;
  failedTools?: number;
  inputTokens?: number;
  outputTokens?: number;
  /** Part of inputTokens read from the prompt cache. */
  cacheReadTokens?: number;
  /** Part of inputTokens written to the prompt cache. */
  cacheWriteTokens?: number;
  requests?: number;
  subagents?: number;
  turns?: number;
}

export interface SessionSummaryWithPrompts extends SessionSummary {
  prompts?: string[];
}

/** Version of the summary numbers; changes when a number changes meaning or value for the same files. */
export const SESSION_SUMMARY_VERSION = 2 as const;

/** The payload of a prompt snapshot (a system event of type 'prompt_snapshot'); undefined for any other event. */
export function promptSnapshot(event: TranscriptEvent): PromptSnapshotPayload | undefined {
  return event.kind === 'system' && event.payload.type === 'prompt_snapshot'
    ? (event.payload as PromptSnapshotPayload)
    : undefined;
}
