// One file's records into events. Session-wide state (requests, ids, record chain) lives here
// because a request or a record can appear in more than one file of a session.
import { linePointer, type SourceFile } from '../../adapter.js';
import type { LineSpan } from '../../lines.js';
import type {
  CompactionPayload,
  MessagePayload,
  SkippedRecord,
  SourcePointer,
  SystemPayload,
  ToolResultPayload,
  TranscriptEvent,
  TranscriptEventOf,
  TranscriptEventPayloads,
} from '../../model.js';
import { UniqueIds } from '../../unique-ids.js';
import { countValue, type InvalidValue } from '../../values.js';
import { hookOfAttachment, hookOfProgress, hooksOfStopSummary } from './hooks.js';
import { userOrigin, userTextOf } from './origin.js';
import { BOOKKEEPING_TYPES, isRec, type Rec, rec, str, TITLE_TYPES, timestampOf } from './records.js';
import { isLargerUsage, requestKeyOf, SYNTHETIC_MODEL, usageOf } from './usage.js';

/** A line of a file, parsed or with the reason it could not be. */
export interface ParsedLine {
  span: LineSpan;
  value?: unknown;
  reason?: string;
}

/** A subagent spawn recorded by agent_progress: the agent and the tool call that started it. */
export interface SpawnLink {
  agentId: string;
  callId: string;
}

/** Session names in the order they win: a rename beats the model's title, which beats a summary. */
export interface Titles {
  custom?: string;
  agentName?: string;
  ai?: string;
  summary?: string;
}

interface RecordCtx {
  readonly r: Rec;
  readonly fileIndex: number;
  readonly lane: string;
  readonly mainLane: boolean;
  readonly source: SourcePointer;
  readonly base: string;
  readonly parentId: string | undefined;
  readonly timestamp: number | undefined;
  /** Values of this record left out, noted on each of its events. */
  readonly invalid: InvalidValue[];
  readonly out: TranscriptEvent[];
  count: number;
  lastId: string | undefined;
}

// Envelope fields every record repeats; the rest of a system record is its payload.
const ENVELOPE: ReadonlySet<string> = new Set([
  'parentUuid',
  'logicalParentUuid',
  'isSidechain',
  'userType',
  'cwd',
  'sessionId',
  'version',
  'gitBranch',
  'slug',
  'type',
  'subtype',
  'uuid',
  'timestamp',
  'isMeta',
  'agentId',
  'entrypoint',
  'content',
  'level',
]);

export class SessionTranslator {
  readonly skipped: SkippedRecord[] = [];
  readonly spawnLinks: SpawnLink[] = [];
  readonly titles: Titles = {};
  cwd: string | undefined;
  version: string | undefined;
  /** Requests whose usage, stop reason or model a later line changed. */
  readonly updated: TranscriptEvent[] = [];
  /**
   * Set when a record met state that a later file of the session made (a uuid, request or id it
   * took first): reading the files in order would have given the earlier file its place first.
   */
  crossed = false;
  private readonly usedIds = new UniqueIds();
  /** The last file that took each id and message id, and the file of each request, to see a crossing. */
  private readonly lastFileOfId = new Map<string, number>();
  private readonly fileOfRequest = new Map<string, number>();
  private readonly lastFileOfMessage = new Map<string, number>();
  /** uuid → the event a record's successors follow (its last event, or its own parent when it made none), by lane. */
  private readonly chainOfUuid = new Map<string, { id: string | undefined; lane: string }>();
  private readonly fileOfUuid = new Map<string, number>();
  private readonly requests = new Map<string, TranscriptEventOf<'request'>>();
  /** message.id → key of the main-thread request that produced it, to spot sidechain replays. */
  private readonly mainRequestOfMessage = new Map<string, string>();

  translateFile(
    fileIndex: number,
    file: SourceFile,
    lane: string,
    mainLane: boolean,
    lines: readonly ParsedLine[],
  ): TranscriptEvent[] {
    const out: TranscriptEvent[] = [];
    for (const line of lines) {
      const source = linePointer(file, line.span);
      if (line.reason !== undefined) {
        this.skipped.push({ source, reason: line.reason });
        continue;
      }
      const r = line.value;
      if (!isRec(r)) {
        this.emitUnknown(out, source, fileIndex, lane, line.span.line, r);
        continue;
      }
      this.translateRecord(r, source, lane, mainLane, fileIndex, line.span.line, out);
    }
    return out;
  }

  private translateRecord(
    r: Rec,
    source: SourcePointer,
    lane: string,
    mainLane: boolean,
    fileIndex: number,
    line: number,
    out: TranscriptEvent[],
  ): void {
    const type = str(r.type) ?? '';
    const uuid = str(r.uuid);
    if (uuid !== undefined) {
      const seenIn = this.fileOfUuid.get(uuid);
      if (seenIn !== undefined && seenIn !== fileIndex) {
        if (seenIn > fileIndex) this.crossed = true;
        this.skip(source, 'replayed record', type);
        return;
      }
      this.fileOfUuid.set(uuid, fileIndex);
    }
    if (mainLane) {
      this.cwd ??= str(r.cwd);
      this.version ??= str(r.version);
    }
    const parentUuid = str(r.parentUuid) ?? str(r.logicalParentUuid);
    const parent = parentUuid === undefined ? undefined : this.chainOfUuid.get(parentUuid);
    const invalid: InvalidValue[] = [];
    const ctx: RecordCtx = {
      r,
      fileIndex,
      lane,
      mainLane,
      source,
      // An empty uuid names nothing; the record is known by its place instead.
      base: uuid || `${lane}:${line}`,
      // The compaction agent's file starts from the main conversation's tip; lanes chain on their own.
      parentId: parent?.lane === lane ? parent.id : undefined,
      timestamp: timestampOf(r.timestamp, invalid),
      invalid,
      out,
      count: 0,
      lastId: undefined,
    };
    const skipReason = this.translateTyped(type, ctx);
    if (skipReason !== undefined) this.skip(source, skipReason, type);
    if (uuid !== undefined) this.chainOfUuid.set(uuid, { id: ctx.lastId ?? ctx.parentId, lane });
  }

  /** Emits the record's events; returns a skip reason when it makes none. */
  private translateTyped(type: string, ctx: RecordCtx): string | undefined {
    switch (type) {
      case 'user':
        this.user(ctx);
        return undefined;
      case 'assistant':
        return this.assistant(ctx);
      case 'system':
        this.system(ctx);
        return undefined;
      case 'progress':
        return this.progress(ctx);
      case 'attachment':
        this.attachment(ctx);
        return undefined;
    }
    if (TITLE_TYPES.has(type)) {
      this.title(type, ctx.r, ctx.mainLane);
      return 'session title';
    }
    if (BOOKKEEPING_TYPES.has(type)) return 'bookkeeping';
    this.emit(ctx, 'unknown', { recordType: type, raw: ctx.r });
    return undefined;
  }

  private user(ctx: RecordCtx): void {
    const { r } = ctx;
    const content = rec(r.message)?.content;
    const user = userTextOf(content);
    let userEmitted = false;
    const emitUser = () => {
      if (!user || userEmitted) return;
      userEmitted = true;
      const payload: MessagePayload = { text: user.text };
      const origin = userOrigin(user, r, ctx.mainLane);
      if (origin !== undefined) {
        payload.synthetic = true;
        payload.origin = origin;
      }
      if (origin === 'command') Object.assign(payload, commandOf(user.text));
      if (user.images > 0) payload.images = user.images;
      if (user.imageNotes) payload.imageNotes = user.imageNotes;
      if (user.other.length > 0) payload.blocks = user.other;
      this.emit(ctx, 'user', payload);
    };
    if (Array.isArray(content)) {
      const toolUseResult = r.toolUseResult;
      for (const block of content) {
        if (!isRec(block)) continue;
        if (block.type === 'tool_result')
          this.emit(ctx, 'tool_result', toolResultOf(block, toolUseResult, ctx.invalid));
        else emitUser();
      }
    }
    emitUser();
  }

  private assistant(ctx: RecordCtx): string | undefined {
    const { r } = ctx;
    const message = rec(r.message) ?? {};
    const model = str(message.model);
    const key = requestKeyOf(r, message);
    let requestId: string | undefined;
    const before = ctx.out.length;
    if (key !== undefined) {
      const messageId = str(message.id) ?? '';
      if ((this.lastFileOfMessage.get(messageId) ?? -1) > ctx.fileIndex) this.crossed = true;
      this.lastFileOfMessage.set(messageId, ctx.fileIndex);
      const mainKey = this.mainRequestOfMessage.get(messageId);
      // A side question replays the parent's messages under new request ids; those are no new requests.
      if (r.isSidechain === true && mainKey !== undefined && mainKey !== key) return 'parent replay';
      if (r.isSidechain !== true && mainKey === undefined) this.mainRequestOfMessage.set(messageId, key);
      requestId = this.request(ctx, key, message, model).id;
    }
    const synthetic = model === SYNTHETIC_MODEL || r.isApiErrorMessage === true;
    const origin = r.isApiErrorMessage === true ? 'api_error' : 'synthetic';
    const content = message.content;
    const blocks: unknown[] = Array.isArray(content)
      ? content
      : typeof content === 'string'
        ? [{ type: 'text', text: content }]
        : [];
    for (const block of blocks) {
      if (!isRec(block)) continue;
      this.assistantBlock(ctx, block, requestId, synthetic ? origin : undefined);
    }
    // A later line of a response with no block of its own still lent the request its usage.
    return ctx.out.length === before ? 'empty message' : undefined;
  }

  private request(
    ctx: RecordCtx,
    key: string,
    message: Rec,
    model: string | undefined,
  ): TranscriptEventOf<'request'> {
    const usage = usageOf(message.usage, ctx.invalid);
    const stopReason = str(message.stop_reason);
    const existing = this.requests.get(key);
    if (existing) {
      if ((this.fileOfRequest.get(key) ?? 0) > ctx.fileIndex) this.crossed = true;
      const p = existing.payload;
      const before = [p.usage, p.stopReason, p.model];
      if (usage && isLargerUsage(usage, p.usage)) p.usage = usage;
      if (stopReason !== undefined) p.stopReason = stopReason;
      if (p.model === undefined && model !== undefined) p.model = model;
      if (before[0] !== p.usage || before[1] !== p.stopReason || before[2] !== p.model)
        this.updated.push(existing);
      return existing;
    }
    this.fileOfRequest.set(key, ctx.fileIndex);
    const messageId = str(message.id) ?? '';
    const apiRequestId = str(ctx.r.requestId);
    const payload: TranscriptEventPayloads['request'] = { messageId };
    if (model !== undefined) payload.model = model;
    if (usage) payload.usage = usage;
    if (stopReason !== undefined) payload.stopReason = stopReason;
    if (apiRequestId !== undefined) payload.apiRequestId = apiRequestId;
    const event = {
      id: this.uniqueId(
        `request:${messageId}${apiRequestId === undefined ? '' : `:${apiRequestId}`}`,
        ctx.fileIndex,
      ),
      seq: 0,
      kind: 'request',
      agentId: ctx.lane,
      source: ctx.source,
      payload,
    } as TranscriptEventOf<'request'>;
    if (ctx.parentId !== undefined) event.parentId = ctx.parentId;
    if (ctx.timestamp !== undefined) event.timestamp = ctx.timestamp;
    if (ctx.invalid.length > 0) event.invalid = [...ctx.invalid];
    ctx.out.push(event);
    this.requests.set(key, event);
    return event;
  }

  private assistantBlock(ctx: RecordCtx, block: Rec, requestId: string | undefined, origin?: string): void {
    const type = str(block.type) ?? '';
    switch (type) {
      case 'text': {
        const payload: MessagePayload = { text: str(block.text) ?? '' };
        if (origin !== undefined) {
          payload.synthetic = true;
          payload.origin = origin;
        }
        this.emit(ctx, 'assistant', payload, requestId);
        return;
      }
      case 'thinking': {
        const text = str(block.thinking) ?? '';
        // Recent CLIs keep only the signature of the model's thinking.
        this.emit(ctx, 'reasoning', text === '' ? { text, redacted: true } : { text }, requestId);
        return;
      }
      case 'redacted_thinking':
        this.emit(ctx, 'reasoning', { text: '', redacted: true }, requestId);
        return;
      case 'tool_use':
      case 'server_tool_use':
      case 'mcp_tool_use': {
        const payload = { callId: str(block.id) ?? '', name: str(block.name) ?? '', input: block.input };
        if (type !== 'tool_use') Object.assign(payload, { server: true });
        this.emit(ctx, 'tool_call', payload, requestId);
        return;
      }
      case 'fallback': {
        const payload: SystemPayload = { type: 'fallback' };
        const from = str(rec(block.from)?.model);
        const to = str(rec(block.to)?.model);
        if (from !== undefined) payload.from = from;
        if (to !== undefined) payload.to = to;
        this.emit(ctx, 'system', payload, requestId);
        return;
      }
    }
    // Server tools (web search, code execution) answer inside the assistant message.
    const callId = str(block.tool_use_id);
    if (type.endsWith('_tool_result') && callId !== undefined) {
      const payload: ToolResultPayload = { callId, output: resultText(block.content) };
      if (str(rec(block.content)?.type)?.endsWith('_error')) payload.isError = true;
      this.emit(ctx, 'tool_result', payload, requestId);
      return;
    }
    this.emit(ctx, 'unknown', { recordType: `assistant:${type}`, raw: block }, requestId);
  }

  private system(ctx: RecordCtx): void {
    const { r } = ctx;
    const subtype = str(r.subtype) ?? 'system';
    if (subtype === 'compact_boundary') {
      const meta = rec(r.compactMetadata) ?? {};
      const payload: CompactionPayload = {};
      const trigger = str(meta.trigger);
      if (trigger !== undefined) payload.trigger = trigger;
      const pre = countValue(meta.preTokens, 'compactMetadata.preTokens', ctx.invalid);
      if (pre !== undefined) payload.preTokens = pre;
      const post = countValue(meta.postTokens, 'compactMetadata.postTokens', ctx.invalid);
      if (post !== undefined) payload.postTokens = post;
      const preserved = rec(meta.preservedSegment);
      if (preserved) payload.preservedSegment = preserved;
      this.emit(ctx, 'compaction', payload);
      return;
    }
    if (subtype === 'stop_hook_summary') {
      for (const hook of hooksOfStopSummary(r, ctx.invalid)) this.emit(ctx, 'hook', hook);
      return;
    }
    const payload: SystemPayload = { type: subtype };
    const text = str(r.content);
    if (text !== undefined) payload.text = text;
    const level = str(r.level);
    if (level !== undefined) payload.level = level;
    for (const [k, v] of Object.entries(r)) if (!ENVELOPE.has(k)) payload[k] = v;
    this.emit(ctx, 'system', payload);
  }

  private progress(ctx: RecordCtx): string | undefined {
    const data = rec(ctx.r.data);
    const kind = str(data?.type) ?? '';
    if (data && kind === 'hook_progress') {
      this.emit(ctx, 'hook', hookOfProgress(data, ctx.r));
      return undefined;
    }
    if (data && kind === 'agent_progress') {
      const agentId = str(data.agentId);
      const callId = str(ctx.r.parentToolUseID);
      if (agentId !== undefined && callId !== undefined) this.spawnLinks.push({ agentId, callId });
      // The subagent's own file holds these messages.
      return 'subagent progress';
    }
    return `progress: ${kind || 'unknown'}`;
  }

  private attachment(ctx: RecordCtx): void {
    const a = rec(ctx.r.attachment) ?? {};
    const kind = str(a.type) ?? '';
    if (kind.startsWith('hook_')) {
      this.emit(ctx, 'hook', hookOfAttachment(kind, a, ctx.invalid));
      return;
    }
    const payload: SystemPayload = { type: `attachment:${kind}`, attachment: a };
    const text = str(a.content);
    if (text !== undefined) payload.text = text;
    this.emit(ctx, 'system', payload);
  }

  private title(type: string, r: Rec, mainLane: boolean): void {
    if (!mainLane) return;
    const t = this.titles;
    if (type === 'custom-title') t.custom = str(r.customTitle) ?? str(r.title) ?? t.custom;
    else if (type === 'agent-name') t.agentName = str(r.agentName) ?? t.agentName;
    else if (type === 'ai-title') t.ai = str(r.aiTitle) ?? str(r.title) ?? t.ai;
    else if (type === 'summary') t.summary = str(r.summary) ?? t.summary;
  }

  private emit<K extends TranscriptEvent['kind']>(
    ctx: RecordCtx,
    kind: K,
    payload: TranscriptEventPayloads[K],
    requestId?: string,
  ): void {
    const n = ctx.count++;
    const event = {
      id: this.uniqueId(n === 0 ? ctx.base : `${ctx.base}:${n}`, ctx.fileIndex),
      seq: 0,
      kind,
      agentId: ctx.lane,
      source: ctx.source,
      payload,
    } as TranscriptEventOf<K>;
    const parentId = n === 0 ? ctx.parentId : ctx.lastId;
    if (parentId !== undefined) event.parentId = parentId;
    if (requestId !== undefined) event.requestId = requestId;
    if (ctx.timestamp !== undefined) event.timestamp = ctx.timestamp;
    if (ctx.invalid.length > 0) event.invalid = [...ctx.invalid];
    ctx.out.push(event as TranscriptEvent);
    ctx.lastId = event.id;
  }

  /** A line that parsed to something other than an object. */
  private emitUnknown(
    out: TranscriptEvent[],
    source: SourcePointer,
    fileIndex: number,
    lane: string,
    line: number,
    raw: unknown,
  ): void {
    const ctx: RecordCtx = {
      r: {},
      fileIndex,
      lane,
      mainLane: false,
      source,
      base: `${lane}:${line}`,
      parentId: undefined,
      timestamp: undefined,
      invalid: [],
      out,
      count: 0,
      lastId: undefined,
    };
    this.emit(ctx, 'unknown', { recordType: '', raw });
  }

  private skip(source: SourcePointer, reason: string, recordType: string): void {
    const s: SkippedRecord = { source, reason };
    if (recordType !== '') s.recordType = recordType;
    this.skipped.push(s);
  }

  /** The id itself, or the first free `id~n`: copied records can repeat a uuid. */
  private uniqueId(id: string, fileIndex: number): string {
    const last = this.lastFileOfId.get(id) ?? -1;
    if (last > fileIndex) this.crossed = true;
    else if (last < fileIndex) this.lastFileOfId.set(id, fileIndex);
    return this.usedIds.take(id);
  }
}

function toolResultOf(block: Rec, toolUseResult: unknown, invalid: InvalidValue[]): ToolResultPayload {
  const payload: ToolResultPayload = {
    callId: str(block.tool_use_id) ?? '',
    output: resultText(block.content),
  };
  if (block.is_error === true) payload.isError = true;
  const detail = rec(toolUseResult);
  if (detail) {
    const agentId = str(detail.agentId);
    if (agentId !== undefined) payload.agentId = agentId;
    const durationMs =
      countValue(detail.durationMs, 'toolUseResult.durationMs', invalid) ??
      countValue(detail.totalDurationMs, 'toolUseResult.totalDurationMs', invalid);
    if (durationMs !== undefined) payload.durationMs = durationMs;
  }
  return payload;
}

/** A tool result's content as text when it is only text, else as recorded. */
function resultText(content: unknown): unknown {
  if (typeof content === 'string' || content === undefined || content === null) return content ?? '';
  if (!Array.isArray(content)) return content;
  const texts: string[] = [];
  for (const block of content) {
    if (!isRec(block) || block.type !== 'text') return content;
    texts.push(str(block.text) ?? '');
  }
  return texts.join('\n');
}

const COMMAND_NAME = /<command-name>([\s\S]*?)<\/command-name>/;
const COMMAND_ARGS = /<command-args>([\s\S]*?)<\/command-args>/;

/** The slash command and its arguments from a command message's markup. */
function commandOf(text: string): { command?: string; args?: string } {
  const out: { command?: string; args?: string } = {};
  const name = COMMAND_NAME.exec(text)?.[1];
  if (name !== undefined) out.command = name.trim();
  const args = COMMAND_ARGS.exec(text)?.[1];
  if (args) out.args = args;
  return out;
}
