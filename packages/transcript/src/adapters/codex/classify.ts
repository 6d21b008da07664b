// What each record of a rollout is, decided once for both the translation and the fast summary,
// so that the two cannot disagree.
//
// Choices that shape the numbers:
// - User and assistant text, and reasoning, come from `response_item` records (what the model
//   saw and wrote). The `event_msg` mirrors (`user_message`, `agent_message`, `agent_reasoning`)
//   are skipped as 'mirrors response_item'; they become events only in a file that lacks the
//   response items they would mirror.
// - A `response_item` user message is a prompt when an `event_msg` `user_message` sits right
//   beside it (Codex writes that record only for what the person submitted); without any
//   `user_message` in the file, when its text is not context Codex injects. The others are
//   synthetic user events, like developer and system messages.
// - A tool's result is its `function_call_output` (or custom/tool-search output); an
//   `exec_command_end`, `patch_apply_end` or `mcp_tool_call_end` with the same call id marks it
//   failed and stays a system event, and becomes the result itself only when no output record
//   exists. So a failed tool counts once.
// - `compacted` and the `context_compacted` beside it are one compaction event, carried by the
//   `compacted` record; the other is skipped as 'mirrors compaction'.
// - Requests come from `token_count` snapshots only (see usage.ts). The newer top-level kinds
//   (`token_usage_record`, `world_state`, …) are system events and count nothing.
import type { SourceFile } from '../../adapter.js';
import type { Capability, Usage } from '../../model.js';
import { err, ok, type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import { isWireId } from '../../values.js';
import { injectedOrigin, messageText } from './content.js';
import {
  type CodexRecord,
  ENVELOPE_TYPES,
  isObject,
  type Json,
  type RecordList,
  readRecords,
  str,
  timeOf,
  unknownGeneration,
} from './records.js';
import { replayEnd } from './replay.js';
import { endFailed, endOutput, TOOL_END_TYPES, type ToolOutput, toolOutput } from './tools.js';
import { SnapshotReader } from './usage.js';

export type Item =
  | { kind: 'skip'; rec: CodexRecord; reason: string }
  | { kind: 'system'; rec: CodexRecord; type: string }
  | { kind: 'spawn'; rec: CodexRecord; laneId: string; callId?: string; title?: string }
  | { kind: 'user'; rec: CodexRecord; origin?: string }
  | { kind: 'assistant'; rec: CodexRecord }
  | { kind: 'reasoning'; rec: CodexRecord }
  | { kind: 'tool_call'; rec: CodexRecord; callId: string; name: string }
  | { kind: 'tool_result'; rec: CodexRecord; callId: string; result: ToolOutput }
  | { kind: 'request'; rec: CodexRecord; usage: Usage; model?: string }
  | { kind: 'compaction'; rec: CodexRecord }
  | { kind: 'unknown'; rec: CodexRecord; recordType: string };

export interface ClassifiedSession {
  id: string;
  cwd?: string;
  startedAt?: number;
  endedAt?: number;
  title?: string;
  agentVersion?: string;
  /** The main lane's title, for a spawned subagent's own rollout. */
  laneTitle?: string;
}

export interface Classified {
  items: Item[];
  session: ClassifiedSession;
  capabilities: Capability[];
}

/** event_msg types Codex writes that carry nothing beyond a system event. */
const SYSTEM_EVENTS: ReadonlySet<string> = new Set([
  'task_started',
  'task_complete',
  'turn_aborted',
  'exec_command_begin',
  'exec_command_output_delta',
  'patch_apply_begin',
  'mcp_tool_call_begin',
  'web_search_begin',
  'web_search_end',
  'view_image_tool_call',
  'thread_name_updated',
  'error',
  'warning',
  'stream_error',
  'background_event',
  'entered_review_mode',
  'exited_review_mode',
  'plan_update',
  'turn_diff',
  'sub_agent_activity',
  'collab_agent_spawn_begin',
  'collab_agent_interaction_begin',
  'collab_agent_interaction_end',
  'collab_waiting_begin',
  'collab_waiting_end',
  'collab_close_begin',
  'collab_close_end',
  'thread_rolled_back',
  'undo_started',
  'undo_completed',
  'item_started',
  'item_completed',
  'session_configured',
  'shutdown_complete',
  'mcp_startup_update',
  'mcp_startup_complete',
  'deprecation_notice',
  'model_reroute',
  'thread_settings_applied',
  'exec_approval_request',
  'apply_patch_approval_request',
  'request_user_input',
  'elicitation_request',
]);

const SYSTEM_RESPONSE_ITEMS: ReadonlySet<string> = new Set([
  'ghost_snapshot',
  'compaction',
  'agent_message',
  'other',
]);

const TOOL_CALLS: Readonly<Record<string, string | undefined>> = {
  function_call: undefined,
  custom_tool_call: undefined,
  local_shell_call: 'local_shell',
  web_search_call: 'web_search',
  tool_search_call: 'tool_search',
  image_generation_call: 'image_generation',
};

export const TOOL_OUTPUTS: ReadonlySet<string> = new Set([
  'function_call_output',
  'custom_tool_call_output',
  'tool_search_output',
]);

const ROLLOUT_UUID = /([\da-f]{8}-[\da-f]{4}-[\da-f]{4}-[\da-f]{4}-[\da-f]{12})\.jsonl(?:\.zst)?$/i;

/** The session id a rollout's file name carries, for a file without a usable session_meta. */
export function idFromPath(path: string): string {
  const m = ROLLOUT_UUID.exec(path);
  if (m) return m[1]!;
  const base = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
  return base.replace(/\.jsonl(?:\.zst)?$/, '');
}

/** Classifies every record of a session's files (main rollout first). */
export function classify(files: readonly SourceFile[]): Result<Classified, UnknownFormatGeneration> {
  const items: Item[] = [];
  const session: ClassifiedSession = { id: files[0] ? idFromPath(files[0].path) : '' };
  const state = new ClassifyState();
  for (const [fileIndex, file] of files.entries()) {
    const recs = readRecords(file, fileIndex);
    const firstIndex = recs.findIndex((r) => r.reason === undefined);
    const first = recs[firstIndex];
    if (first) {
      const why = unknownGeneration(first);
      if (why) return err(unknownFormatGeneration(file.path, first.span.line, why));
    }
    const copyEnd = first ? replayEnd(recs, firstIndex) : 0;
    const scan = new Prescan();
    scan.add(recs, firstIndex, copyEnd, 0);
    for (let i = 0; i < recs.length; i++) items.push(state.item(session, recs, i, firstIndex, copyEnd, scan));
  }
  const facts = new SessionFacts();
  facts.add(items);
  facts.finish(session);
  return ok({ items, session, capabilities: facts.capabilities(state.sawUsage) });
}

/** The running state of a classification: what earlier records of the session set. */
export class ClassifyState {
  haveMeta = false;
  sawUsage = false;
  private readonly snapshots = new SnapshotReader();
  private model: string | undefined;

  /** Classifies record `i` of one file's records. */
  item(
    session: ClassifiedSession,
    recs: RecordList,
    i: number,
    firstIndex: number,
    copyEnd: number,
    scan: Prescan,
  ): Item {
    const r = recs[i]!;
    if (r.reason !== undefined) return { kind: 'skip', rec: r, reason: r.reason };
    const p = r.payload ?? {};
    if (i > firstIndex && i < copyEnd) {
      // The parent's records: nothing of them is counted, but the running totals move on.
      if (r.type === 'event_msg' && r.sub === 'token_count') this.snapshots.next(p.info);
      else if (r.type === 'turn_context') this.model = str(p.model) ?? this.model;
      return { kind: 'skip', rec: r, reason: 'parent replay' };
    }
    switch (r.type) {
      case 'session_meta':
        if (!this.haveMeta && i === firstIndex) {
          this.haveMeta = true;
          readMeta(session, r, p);
        }
        return { kind: 'system', rec: r, type: 'session_meta' };
      case 'turn_context':
        this.model = str(p.model) ?? this.model;
        session.cwd ??= str(p.cwd);
        return { kind: 'system', rec: r, type: 'turn_context' };
      case 'state':
        return { kind: 'skip', rec: r, reason: 'state marker' };
      case 'compacted':
        return scan.compactionMirrors.has(i)
          ? { kind: 'skip', rec: r, reason: 'mirrors compaction' }
          : { kind: 'compaction', rec: r };
      case 'response_item':
        return responseItem(r, p, i, scan);
      case 'event_msg': {
        if (r.sub === 'token_count') {
          if (isObject(p.info)) this.sawUsage = true;
          const snap = this.snapshots.next(p.info, r.invalid);
          return snap.ok
            ? this.model === undefined
              ? { kind: 'request', rec: r, usage: snap.usage }
              : { kind: 'request', rec: r, usage: snap.usage, model: this.model }
            : { kind: 'skip', rec: r, reason: snap.reason };
        }
        if (r.sub === 'thread_name_updated')
          session.title = str(p.thread_name) ?? str(p.name) ?? session.title;
        return eventMsg(r, p, i, scan);
      }
      case '':
        return { kind: 'unknown', rec: r, recordType: '' };
      default:
        return ENVELOPE_TYPES.has(r.type) ? { kind: 'system', rec: r, type: r.type } : unknown(r);
    }
  }
}

/** The session's end and capabilities, from its items as they come. */
export class SessionFacts {
  private endedAt: number | undefined;
  private timed = false;
  private readonly shown = new Set<Capability>();

  add(items: readonly Item[]): void {
    for (const it of items) {
      if (it.kind === 'skip') continue;
      if (it.rec.ts !== undefined) {
        this.timed = true;
        if (this.endedAt === undefined || it.rec.ts > this.endedAt) this.endedAt = it.rec.ts;
      }
      if (it.kind === 'reasoning') this.shown.add('reasoning');
      else if (it.kind === 'compaction') this.shown.add('compaction');
      else if (it.kind === 'spawn') this.shown.add('subagents');
    }
  }

  finish(session: ClassifiedSession): void {
    if (this.endedAt !== undefined) session.endedAt = this.endedAt;
  }

  capabilities(sawUsage: boolean): Capability[] {
    const capabilities = new Set(this.shown);
    if (sawUsage) {
      capabilities.add('requests');
      capabilities.add('usage');
    }
    if (this.timed) capabilities.add('durations');
    const order: Capability[] = ['requests', 'usage', 'durations', 'reasoning', 'compaction', 'subagents'];
    return order.filter((c) => capabilities.has(c));
  }
}

function readMeta(session: ClassifiedSession, r: CodexRecord, p: Json): void {
  const id = str(p.id);
  // A session id the contract cannot carry is no id: the file's name stands in for it.
  if (id && isWireId(id)) session.id = id;
  const cwd = str(p.cwd);
  if (cwd !== undefined) session.cwd = cwd;
  const started = timeOf(p.timestamp) ?? r.ts;
  if (started !== undefined) session.startedAt = started;
  const version = str(p.cli_version);
  if (version !== undefined) session.agentVersion = version;
  const source = isObject(p.source) ? p.source : undefined;
  const sub = source && (isObject(source.subagent) ? source.subagent : source.subAgent);
  const spawn = isObject(sub) && isObject(sub.thread_spawn) ? sub.thread_spawn : undefined;
  const title =
    str(spawn?.agent_nickname) ?? str(p.agent_nickname) ?? str(spawn?.agent_role) ?? str(p.agent_role);
  if (title !== undefined) session.laneTitle = title;
}

const isUserItem = (r: CodexRecord): boolean =>
  r.type === 'response_item' && r.sub === 'message' && r.payload?.role === 'user';

/** User messages whose reading a later record changed, by record index. */
export interface PromptChanges {
  prompted: number[];
  unprompted: number[];
}

/** What a later record of the file says about earlier ones: found before they are classified. */
export class Prescan {
  /** response_item user messages that an event_msg user_message mirrors: prompts. */
  readonly prompts = new Set<number>();
  /** event_msg user_message records that mirror a response_item. */
  readonly userMirrors = new Set<number>();
  hasUserMessages = false;
  hasAssistantItems = false;
  hasReasoningItems = false;
  /** Call ids whose result a response_item records. */
  readonly outputCalls = new Set<string>();
  /** Call ids that an ending event_msg reports as failed. */
  readonly failedCalls = new Set<string>();
  /** compacted / context_compacted records that the other record of their pair carries. */
  readonly compactionMirrors = new Set<number>();
  /** Injected-context origin of response_item user messages, by index. */
  readonly injected = new Map<number, string | undefined>();
  /** The file's own parsed records (not its copied parent history), by index. */
  private readonly own: number[] = [];
  private pendingCompacted: number | undefined;
  private pendingContextCompacted: number | undefined;
  /** The position in `own` of a user_message last among the records read, whose pair may follow. */
  private waitingUser: number | undefined;
  /** A user message last among the records read, which a user_message right after it would mirror:
   * taken for the prompt it most often is until the next record says (see add). */
  trailingUser: number | undefined;
  // Earlier records whose reading a later one can change: what the next record would undo.
  private readonly defaultPrompts: number[] = [];
  private readonly agentMessages: number[] = [];
  private readonly agentReasonings: number[] = [];
  private readonly endResults = new Map<string, number>();
  private readonly unfailedOutputs = new Map<string, number>();

  /**
   * Reads records from index `from` on (those before were read by earlier calls and are already
   * classified). Answers whether they change how an earlier record reads beyond what a patch
   * mends ('rewrite'), else the earlier user messages that became prompts and the one that stopped
   * being one (the last user message read before, which no user_message came to mirror).
   */
  add(recs: RecordList, firstIndex: number, copyEnd: number, from: number): PromptChanges | 'rewrite' {
    const start = this.own.length;
    const hadUserMessages = this.hasUserMessages;
    for (let i = from; i < recs.length; i++)
      if (recs[i]!.reason === undefined && !(i > firstIndex && i < copyEnd)) this.own.push(i);
    const earlier = (i: number | undefined) => i !== undefined && i < from;
    const prompted: number[] = [];
    let rewrite = false;

    const injectedAt = (i: number): string | undefined => {
      if (!this.injected.has(i))
        this.injected.set(i, injectedOrigin(messageText(recs[i]!.payload?.content).text));
      return this.injected.get(i);
    };
    const pairable = (i: number | undefined): i is number =>
      i !== undefined && isUserItem(recs[i]!) && !this.prompts.has(i) && injectedAt(i) === undefined;

    // A user_message read last before: the record after it may be its pair, which would make it
    // a mirror rather than the event it was read as.
    if (this.waitingUser !== undefined && this.own.length > this.waitingUser + 1) {
      if (pairable(this.own[this.waitingUser + 1])) rewrite = true;
      this.waitingUser = undefined;
    }
    for (let k = start; k < this.own.length; k++) {
      const i = this.own[k]!;
      const r = recs[i]!;
      const p = r.payload ?? {};
      if (r.type === 'response_item') {
        if (r.sub === 'message' && p.role === 'assistant') {
          if (!this.hasAssistantItems && this.agentMessages.some(earlier)) rewrite = true;
          this.hasAssistantItems = true;
        } else if (r.sub === 'reasoning') {
          if (!this.hasReasoningItems && this.agentReasonings.some(earlier)) rewrite = true;
          this.hasReasoningItems = true;
        } else if (TOOL_OUTPUTS.has(r.sub)) {
          const id = str(p.call_id);
          if (id !== undefined) {
            if (earlier(this.endResults.get(id))) rewrite = true;
            this.outputCalls.add(id);
            if (!this.failedCalls.has(id) && !this.unfailedOutputs.has(id)) this.unfailedOutputs.set(id, i);
          }
        } else if (isUserItem(r) && !this.hasUserMessages && injectedAt(i) === undefined)
          this.defaultPrompts.push(i);
      } else if (r.type === 'event_msg') {
        if (r.sub === 'user_message') {
          this.hasUserMessages = true;
          const before = this.own[k - 1];
          const after = this.own[k + 1];
          const item = pairable(before) ? before : pairable(after) ? after : undefined;
          if (item !== undefined) {
            this.prompts.add(item);
            this.userMirrors.add(i);
            if (earlier(item)) prompted.push(item);
          } else if (after === undefined) this.waitingUser = k;
        } else if (r.sub === 'agent_message') {
          if (!this.hasAssistantItems) this.agentMessages.push(i);
        } else if (r.sub === 'agent_reasoning' || r.sub === 'agent_reasoning_raw_content') {
          if (!this.hasReasoningItems) this.agentReasonings.push(i);
        } else if (TOOL_END_TYPES.has(r.sub)) {
          const id = str(p.call_id);
          if (id !== undefined && endFailed(r.sub, p)) {
            if (earlier(this.unfailedOutputs.get(id))) rewrite = true;
            this.failedCalls.add(id);
          }
          if (id !== undefined && !this.outputCalls.has(id) && !this.endResults.has(id))
            this.endResults.set(id, i);
        } else if (r.sub === 'context_compacted') {
          if (this.pendingCompacted !== undefined) {
            this.compactionMirrors.add(i);
            this.pendingCompacted = undefined;
          } else this.pendingContextCompacted = i;
        }
      } else if (r.type === 'compacted') {
        // The compacted record carries the summary, so it is the one that stays.
        if (this.pendingContextCompacted !== undefined) {
          if (earlier(this.pendingContextCompacted)) rewrite = true;
          this.compactionMirrors.add(this.pendingContextCompacted);
          this.pendingContextCompacted = undefined;
        } else this.pendingCompacted = i;
      }
    }
    // Earlier user messages read as prompts for want of any user_message now read as injected.
    if (!hadUserMessages && this.hasUserMessages) {
      if (this.defaultPrompts.some((i) => earlier(i) && !this.prompts.has(i))) rewrite = true;
      this.defaultPrompts.length = 0;
    }
    // Codex writes a typed prompt twice, its user_message right after the message; a read that
    // ends between the two would otherwise take the message for injected context first.
    const trailing = this.trailingUser;
    const last = this.own[this.own.length - 1];
    this.trailingUser = this.hasUserMessages && pairable(last) ? last : undefined;
    const unprompted =
      trailing !== undefined && trailing !== this.trailingUser && !this.prompts.has(trailing)
        ? [trailing]
        : [];
    return rewrite ? 'rewrite' : { prompted, unprompted };
  }
}

const unknown = (r: CodexRecord): Item => ({
  kind: 'unknown',
  rec: r,
  recordType: r.sub ? `${r.type}:${r.sub}` : r.type,
});

function responseItem(r: CodexRecord, p: Json, i: number, scan: Prescan): Item {
  const sub = r.sub;
  if (sub === 'message') {
    const role = str(p.role);
    if (role === 'assistant') return { kind: 'assistant', rec: r };
    if (role === 'developer' || role === 'system') return { kind: 'user', rec: r, origin: role };
    if (role !== 'user') return unknown(r);
    const origin = scan.injected.has(i) ? scan.injected.get(i) : injectedOrigin(messageText(p.content).text);
    if (origin !== undefined) return { kind: 'user', rec: r, origin };
    if (scan.hasUserMessages && !scan.prompts.has(i) && scan.trailingUser !== i)
      return { kind: 'user', rec: r, origin: 'injected' };
    return { kind: 'user', rec: r };
  }
  if (sub === 'reasoning') return { kind: 'reasoning', rec: r };
  if (sub in TOOL_CALLS) {
    const callId = str(p.call_id) ?? str(p.id) ?? `${sub}:${r.fileIndex}:${r.span.line}`;
    return { kind: 'tool_call', rec: r, callId, name: TOOL_CALLS[sub] ?? str(p.name) ?? sub };
  }
  if (TOOL_OUTPUTS.has(sub)) {
    const callId = str(p.call_id) ?? '';
    const result = toolOutput(p.output);
    if (scan.failedCalls.has(callId)) result.failed = true;
    return { kind: 'tool_result', rec: r, callId, result };
  }
  if (SYSTEM_RESPONSE_ITEMS.has(sub)) return { kind: 'system', rec: r, type: sub };
  return unknown(r);
}

function eventMsg(r: CodexRecord, p: Json, i: number, scan: Prescan): Item {
  const sub = r.sub;
  switch (sub) {
    case 'user_message':
      return scan.userMirrors.has(i)
        ? { kind: 'skip', rec: r, reason: 'mirrors response_item' }
        : { kind: 'user', rec: r };
    case 'agent_message':
      return scan.hasAssistantItems
        ? { kind: 'skip', rec: r, reason: 'mirrors response_item' }
        : { kind: 'assistant', rec: r };
    case 'agent_reasoning':
    case 'agent_reasoning_raw_content':
      return scan.hasReasoningItems
        ? { kind: 'skip', rec: r, reason: 'mirrors response_item' }
        : { kind: 'reasoning', rec: r };
    case 'context_compacted':
      return scan.compactionMirrors.has(i)
        ? { kind: 'skip', rec: r, reason: 'mirrors compaction' }
        : { kind: 'compaction', rec: r };
    case 'collab_agent_spawn_end': {
      const laneId = str(p.new_thread_id);
      if (laneId === undefined) return { kind: 'system', rec: r, type: sub };
      const spawn: Item & { kind: 'spawn' } = { kind: 'spawn', rec: r, laneId };
      const callId = str(p.call_id);
      if (callId !== undefined) spawn.callId = callId;
      const title = str(p.new_agent_nickname) ?? str(p.new_agent_role);
      if (title !== undefined) spawn.title = title;
      return spawn;
    }
  }
  if (TOOL_END_TYPES.has(sub)) {
    const callId = str(p.call_id);
    if (callId === undefined || scan.outputCalls.has(callId)) return { kind: 'system', rec: r, type: sub };
    const failed = endFailed(sub, p);
    const exitCode = typeof p.exit_code === 'number' ? p.exit_code : undefined;
    const result: ToolOutput =
      exitCode === undefined
        ? { output: endOutput(sub, p), failed }
        : { output: endOutput(sub, p), exitCode, failed };
    return { kind: 'tool_result', rec: r, callId, result };
  }
  if (SYSTEM_EVENTS.has(sub)) return { kind: 'system', rec: r, type: sub };
  return unknown(r);
}
