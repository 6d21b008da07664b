// A Copilot CLI events file as events, record by record, in file order:
// - user.message → a prompt; system.notification → text the CLI gave the model (synthetic);
// - assistant.message → reasoning, text and one call per `toolRequests` entry; assistant.reasoning
//   → reasoning; tool.execution_start → a call only when no message asked for it;
//   tool.execution_complete → its result, paired by `toolCallId`;
// - an event naming `parentToolCallId` belongs to the subagent that call started: a lane of its own;
// - session.usage_record → the request it records, with its tokens;
// - session.shutdown → the shutdown, then one request per model with what that process's token
//   totals count beyond its usage records (all of them in versions that write none; see usage.ts);
// - session.compaction_complete, and a session.truncation that removed something → a compaction;
// - system.message → the system prompt; hook.start/end → hooks; abort → an interrupt;
// - other session.* and system.* events → system events; any other type → an unknown event;
//   a line that is no event → skipped with the reason.
// Each event's parent is the last event of the record its `parentId` names.

import { linePointer, type SourceFile, type TranslatedSession } from '../../adapter.js';
import { type LineSpan, parseJsonLine, splitLines } from '../../lines.js';
import type {
  Capability,
  Lane,
  SkippedRecord,
  SourcePointer,
  TranscriptEvent,
  TranscriptEventKind,
  TranscriptEventPayloads,
  TranscriptSession,
} from '../../model.js';
import { err, ok, type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import { countValue, type InvalidValue, isWireId } from '../../values.js';
import type { FileRead } from '../appended-lines.js';
import { EventIds } from '../gemini-cli/ids.js';
import { baseName, dirName, fileStem } from '../gemini-cli/paths.js';
import { toMillis } from '../gemini-cli/records.js';
import { spanEvents } from '../shared.js';
import { NOT_AN_EVENT_FILE } from './head.js';
import {
  dataOf,
  isCopilotEvent,
  isObject,
  type JsonObject,
  parentCallOf,
  startContext,
  stringField,
  userContent,
} from './records.js';
import { copilotCounts, countsUsage, ProcessUsage, requestCount } from './usage.js';

export const NOT_AN_EVENT = 'not a Copilot CLI event (no dotted type, data, id or parentId)';
export const CALL_ALREADY_RECORDED = 'the start of a tool call its assistant message already records';
export const EMPTY_EVENT = 'an event with nothing to show';
export const STREAMED = 'a streamed fragment, repeated whole in the message it belongs to';
export const REPEATED_SHUTDOWN = 'repeats an earlier session.shutdown with the same id';

/** Event types written while a response streams; the whole message follows. */
export const STREAMED_TYPES: ReadonlySet<string> = new Set([
  'assistant.message_delta',
  'assistant.reasoning_delta',
  'tool.execution_partial_result',
  'tool.execution_progress',
]);

interface Place {
  source: SourcePointer;
  where: string;
}

type Emit = <K extends TranscriptEventKind>(
  kind: K,
  suffix: string,
  payload: TranscriptEventPayloads[K],
  extra?: { id?: string },
) => string;

export class SessionTranslation {
  readonly ids = new EventIds();
  readonly events: TranscriptEvent[] = [];
  readonly skipped: SkippedRecord[] = [];
  readonly shown = new Set<Capability>();
  /** The last event each record id made (or its parent's, when it made none). */
  private readonly tipOf = new Map<string, string | undefined>();
  /** Subagent lanes by the call that started them, in the order they appeared. */
  readonly lanes = new Map<string, Lane>();
  /** Each call's tool_call event, to find a subagent's spawn. */
  private readonly callEvents = new Map<string, TranscriptEvent>();
  /** The calls some assistant message asks for, anywhere in the file (see noteRequestedCalls). */
  readonly requested = new Set<string>();
  /** The calls an execution start made, which a message asking for them later would unmake. */
  readonly startedCalls = new Set<string>();
  /** Earlier events changed in place since the last `takeChanged`: a repeated shutdown's requests. */
  private changed: TranscriptEvent[] = [];
  /** Reasoning text already recorded by assistant.reasoning, per lane, until the next message. */
  private readonly reasoned = new Map<string, Set<string>>();
  /** The request of each (shutdown id, model) seen: a repeat replaces it. */
  private readonly shutdownRows = new Map<string, TranscriptEvent>();
  /** What the running process's usage records counted, for its shutdown. */
  private readonly process = new ProcessUsage();
  /** A usage record made a request; a shutdown made one with totals no record covered. */
  perRequest = false;
  totalsOnly = false;
  private readonly subagentTitles = new Map<string, string>();
  cwd?: string;
  version?: string;
  recordedId?: string;
  systemPrompt?: string;

  constructor(readonly main: string) {}

  /** The events changed in place since the last call. */
  takeChanged(): TranscriptEvent[] {
    const changed = this.changed;
    this.changed = [];
    return changed;
  }

  skip(source: SourcePointer, reason: string, recordType?: string): void {
    this.skipped.push(recordType === undefined ? { source, reason } : { source, reason, recordType });
  }

  private laneOf(callId: string | undefined): string {
    if (callId === undefined) return this.main;
    let lane = this.lanes.get(callId);
    if (!lane) {
      const id = isWireId(callId) && callId !== this.main ? callId : `subagent-${this.lanes.size + 1}`;
      lane = { id, parentId: this.main };
      this.lanes.set(callId, lane);
    }
    return lane.id;
  }

  record(r: JsonObject, place: Place): void {
    const type = r.type as string;
    const data = dataOf(r);
    const recordId = typeof r.id === 'string' ? r.id : '';
    const parentRecord = typeof r.parentId === 'string' ? r.parentId : undefined;
    const invalid: InvalidValue[] = [];
    const timestamp = toMillis(r.timestamp, invalid);
    const base = recordId || place.where;
    const lane = this.laneOf(parentCallOf(data));
    let tip = parentRecord === undefined ? undefined : this.tipOf.get(parentRecord);
    let count = 0;
    const skippedBefore = this.skipped.length;
    const emit: Emit = (kind, suffix, payload, extra = {}) => {
      const id = extra.id ?? this.ids.make(count === 0 ? base : `${base}:${suffix}`, place.where);
      count++;
      const e = { id, seq: 0, kind, agentId: lane, source: place.source, payload } as TranscriptEvent;
      if (tip !== undefined) e.parentId = tip;
      if (timestamp !== undefined) e.timestamp = timestamp;
      if (invalid.length > 0) e.invalid = [...invalid];
      this.events.push(e);
      tip = id;
      return id;
    };

    if (STREAMED_TYPES.has(type)) this.skip(place.source, STREAMED, type);
    else this.dispatch(type, data, recordId, lane, place, emit, invalid);

    if (count === 0 && this.skipped.length === skippedBefore) this.skip(place.source, EMPTY_EVENT, type);
    if (recordId !== '') this.tipOf.set(recordId, tip);
  }

  private dispatch(
    type: string,
    data: JsonObject,
    recordId: string,
    lane: string,
    place: Place,
    emit: Emit,
    invalid: InvalidValue[],
  ): void {
    switch (type) {
      case 'session.start': {
        this.recordedId ??= stringField(data, 'sessionId');
        this.version ??= stringField(data, 'copilotVersion');
        this.cwd ??= startContext(data).cwd;
        emit('system', 'start', { type: 'session_meta', recordType: type, data });
        return;
      }
      case 'session.resume': {
        this.cwd ??= startContext(data).cwd;
        emit('system', 'resume', { type: 'session.resume', text: 'session resumed', data });
        return;
      }
      case 'session.model_change': {
        const to = stringField(data, 'newModel');
        const from = stringField(data, 'previousModel');
        const payload: TranscriptEventPayloads['system'] = { type: 'model_change', data };
        if (to !== undefined) payload.text = from ? `model: ${from} → ${to}` : `model: ${to}`;
        emit('system', 'model', payload);
        return;
      }
      case 'session.error': {
        const message = stringField(data, 'message');
        emit('system', 'error', { type: 'error', text: message ?? JSON.stringify(data), data });
        return;
      }
      case 'session.truncation':
        this.truncation(data, emit);
        return;
      case 'session.compaction_complete': {
        const payload: TranscriptEventPayloads['compaction'] = {
          trigger: stringField(data, 'trigger') ?? 'compaction',
        };
        const pre = countValue(data.preCompactionTokens, 'data.preCompactionTokens', invalid);
        const post = countValue(data.postCompactionTokens, 'data.postCompactionTokens', invalid);
        if (pre !== undefined) payload.preTokens = pre;
        if (post !== undefined) payload.postTokens = post;
        const summary = stringField(data, 'summaryContent');
        if (summary) payload.summary = summary;
        if (data.success === false) payload.success = false;
        emit('compaction', 'compaction', payload);
        return;
      }
      case 'session.shutdown':
        this.shutdown(data, recordId, emit, invalid);
        return;
      case 'session.usage_record':
        this.usageRecord(data, emit, invalid);
        return;
      case 'system.message': {
        const content = stringField(data, 'content') ?? '';
        if (lane === this.main) this.systemPrompt = content;
        emit('system', 'prompt', { type: 'prompt_snapshot', systemPrompt: content, data });
        return;
      }
      case 'system.notification': {
        const text = stringField(data, 'content') ?? '';
        const kind = isObject(data.kind) ? stringField(data.kind, 'type') : undefined;
        const origin = kind === 'agent_completed' ? 'subagent_notification' : 'notification';
        emit('user', 'notification', { text, synthetic: true, origin, kind: data.kind });
        return;
      }
      case 'user.message': {
        const text = userContent(data);
        const payload: TranscriptEventPayloads['user'] = { text };
        const transformed = stringField(data, 'transformedContent');
        if (transformed !== undefined && transformed !== text) payload.transformedContent = transformed;
        if (Array.isArray(data.attachments) && data.attachments.length > 0)
          payload.attachments = data.attachments;
        // What a subagent is told comes in its lane's user voice; it is the brief, not a prompt.
        if (lane !== this.main) payload.origin = 'subagent_prompt';
        emit('user', 'text', payload);
        return;
      }
      case 'assistant.turn_start':
      case 'assistant.turn_end': {
        const payload: TranscriptEventPayloads['system'] = {
          type: type === 'assistant.turn_start' ? 'task_started' : 'task_complete',
          recordType: type,
        };
        const turnId = stringField(data, 'turnId');
        if (turnId !== undefined) payload.turnId = turnId;
        emit('system', 'turn', payload);
        return;
      }
      case 'assistant.reasoning': {
        const text = stringField(data, 'content') ?? '';
        if (text === '') return;
        this.reasonedOn(lane).add(text);
        emit('reasoning', 'reasoning', { text });
        return;
      }
      case 'assistant.message':
        this.message(data, recordId, lane, emit);
        return;
      case 'tool.execution_start': {
        const callId = stringField(data, 'toolCallId') ?? '';
        if (callId !== '' && this.requested.has(callId)) {
          this.skip(place.source, CALL_ALREADY_RECORDED, type);
          return;
        }
        const name = stringField(data, 'toolName') ?? '';
        emit('tool_call', 'call', {
          callId: callId || `${recordId || place.where}:call`,
          name,
          input: inputOf(data.arguments),
        });
        if (callId !== '') this.startedCalls.add(callId);
        this.noteCall(callId);
        return;
      }
      case 'tool.execution_complete':
        this.toolResult(data, emit, invalid);
        return;
      case 'hook.start':
      case 'hook.end':
        this.hook(type, data, emit, invalid);
        return;
      case 'subagent.started':
      case 'subagent.completed':
      case 'subagent.failed': {
        const callId = stringField(data, 'toolCallId');
        const name = stringField(data, 'agentDisplayName') ?? stringField(data, 'agentName');
        if (callId !== undefined && name !== undefined && type === 'subagent.started')
          this.subagentTitles.set(callId, name);
        const payload: TranscriptEventPayloads['system'] = { type, data };
        if (callId !== undefined) payload.callId = callId;
        const text = stringField(data, 'agentDescription') ?? name;
        if (text !== undefined) payload.text = text;
        emit('system', 'subagent', payload);
        return;
      }
      case 'abort': {
        const reason = stringField(data, 'reason');
        emit(
          'system',
          'abort',
          reason === undefined
            ? { type: 'turn_aborted', data }
            : { type: 'turn_aborted', text: reason, data },
        );
        return;
      }
      default: {
        if (type.startsWith('session.') || type.startsWith('system.')) {
          const payload: TranscriptEventPayloads['system'] = { type, data };
          const text = stringField(data, 'message');
          if (text !== undefined) payload.text = text;
          emit('system', 'system', payload);
          return;
        }
        emit('unknown', 'unknown', { recordType: type, raw: { type, data } });
      }
    }
  }

  private reasonedOn(lane: string): Set<string> {
    let set = this.reasoned.get(lane);
    if (!set) {
      set = new Set();
      this.reasoned.set(lane, set);
    }
    return set;
  }

  /** Keeps the call just emitted as the one its id names (the first, when an id repeats). */
  private noteCall(callId: string): void {
    const call = this.events[this.events.length - 1]!;
    // A call cannot have started the lane it is on.
    if (callId === '' || this.callEvents.has(callId) || this.lanes.get(callId)?.id === call.agentId) return;
    this.callEvents.set(callId, call);
  }

  private message(data: JsonObject, recordId: string, lane: string, emit: Emit): void {
    const extra: Record<string, unknown> = {};
    for (const key of ['messageId', 'model', 'outputTokens'] as const)
      if (data[key] !== undefined && data[key] !== null) extra[key] = data[key];
    const reasoning = stringField(data, 'reasoningText') ?? '';
    const seen = this.reasonedOn(lane);
    if (reasoning !== '' && !seen.has(reasoning)) emit('reasoning', 'reasoning', { text: reasoning });
    else if (
      reasoning === '' &&
      seen.size === 0 &&
      typeof data.reasoningOpaque === 'string' &&
      data.reasoningOpaque !== ''
    )
      emit('reasoning', 'reasoning', { text: '', redacted: true });
    seen.clear();
    const text = stringField(data, 'content') ?? '';
    if (text !== '') emit('assistant', 'text', { text, ...extra });
    const requests = Array.isArray(data.toolRequests) ? data.toolRequests : [];
    requests.forEach((req, i) => {
      if (!isObject(req)) return;
      const callId = stringField(req, 'toolCallId') ?? '';
      const payload: TranscriptEventPayloads['tool_call'] = {
        callId: callId || `${recordId || 'call'}:call:${i}`,
        name: stringField(req, 'name') ?? '',
        input: inputOf(req.arguments),
      };
      const intent = stringField(req, 'intentionSummary');
      if (intent) payload.description = intent;
      emit('tool_call', `call:${i}`, payload);
      this.noteCall(callId);
    });
  }

  private toolResult(data: JsonObject, emit: Emit, invalid: InvalidValue[]): void {
    const callId = stringField(data, 'toolCallId') ?? '';
    const result = data.result;
    const error = isObject(data.error) ? data.error : undefined;
    let output: unknown;
    if (typeof result === 'string') output = result;
    else if (isObject(result))
      output = stringField(result, 'content') ?? stringField(result, 'detailedContent') ?? result;
    else if (error) output = stringField(error, 'message') ?? error;
    else output = result ?? '';
    const payload: TranscriptEventPayloads['tool_result'] = { callId, output };
    if (data.success === false) payload.isError = true;
    const detailed = isObject(result) ? stringField(result, 'detailedContent') : undefined;
    if (detailed && detailed !== output) payload.detailedContent = detailed;
    const telemetry = isObject(data.toolTelemetry) ? data.toolTelemetry : undefined;
    const metrics = telemetry && isObject(telemetry.metrics) ? telemetry.metrics : undefined;
    const duration = metrics
      ? countValue(metrics.durationMs, 'data.toolTelemetry.metrics.durationMs', invalid)
      : undefined;
    if (duration !== undefined) payload.durationMs = duration;
    // A spawning call's result reports on its subagent's lane.
    const spawned = this.lanes.get(callId);
    if (spawned) payload.agentId = spawned.id;
    emit('tool_result', 'result', payload);
  }

  private hook(type: string, data: JsonObject, emit: Emit, invalid: InvalidValue[]): void {
    const event = stringField(data, 'hookType') ?? '';
    const payload: TranscriptEventPayloads['hook'] = { event };
    const invocation = stringField(data, 'hookInvocationId');
    if (invocation !== undefined) payload.invocationId = invocation;
    if (type === 'hook.start') {
      payload.status = 'started';
      if (data.input !== undefined) payload.input = data.input;
      const input = isObject(data.input) ? data.input : {};
      const tool = stringField(input, 'toolName');
      if (tool !== undefined) payload.name = `${event}:${tool}`;
    } else {
      if (data.success === false) payload.isError = true;
      const out = data.output ?? data.result;
      if (typeof out === 'string') payload.output = out;
      else if (out !== undefined) payload.result = out;
      const ms = countValue(data.durationMs, 'data.durationMs', invalid);
      if (ms !== undefined) payload.durationMs = ms;
      if (data.error !== undefined) payload.error = data.error;
    }
    this.shown.add('hooks');
    emit('hook', type === 'hook.start' ? 'hook:start' : 'hook:end', payload);
  }

  private truncation(data: JsonObject, emit: Emit): void {
    const removedTokens = firstCount(data.tokensRemovedDuringTruncation, data.droppedTokens);
    const removedMessages = firstCount(data.messagesRemovedDuringTruncation);
    // Copilot writes one on every trim of the context, most removing nothing: only a real cut is a compaction.
    if (!removedTokens && !removedMessages) {
      emit('system', 'truncation', {
        type: 'session.truncation',
        text: 'context checked: nothing removed',
        data,
      });
      return;
    }
    const payload: TranscriptEventPayloads['compaction'] = {
      trigger: stringField(data, 'reason') ?? 'truncation',
    };
    const pre = firstCount(data.preTruncationTokensInMessages);
    const post = firstCount(data.postTruncationTokensInMessages);
    if (pre !== undefined) payload.preTokens = pre;
    if (post !== undefined) payload.postTokens = post;
    if (removedTokens !== undefined) payload.tokensRemoved = removedTokens;
    if (removedMessages !== undefined) payload.messagesRemoved = removedMessages;
    emit('compaction', 'truncation', payload);
  }

  private usageRecord(data: JsonObject, emit: Emit, invalid: InvalidValue[]): void {
    const u = isObject(data.usage) ? data.usage : {};
    const model = stringField(u, 'model');
    const counts = copilotCounts(u, 'data.usage', invalid);
    const payload: TranscriptEventPayloads['request'] = {};
    if (model !== undefined) {
      payload.model = model;
      const usage = countsUsage(model, counts);
      if (usage) payload.usage = usage;
      this.process.record(model, counts);
    }
    const duration = countValue(u.duration, 'data.usage.duration', invalid);
    if (duration !== undefined) payload.durationMs = duration;
    const finish = stringField(u, 'finishReason');
    if (finish !== undefined) payload.stopReason = finish;
    const call = stringField(u, 'apiCallId');
    if (call !== undefined) payload.apiCallId = call;
    emit('request', 'request', payload);
    if (payload.usage) {
      this.shown.add('usage');
      this.perRequest = true;
    }
  }

  private shutdown(data: JsonObject, recordId: string, emit: Emit, invalid: InvalidValue[]): void {
    emit('system', 'shutdown', { type: 'shutdown_complete', recordType: 'session.shutdown', data });
    for (const { model, row, usage, beyondRecords } of this.process.shutdown(data, recordId, invalid)) {
      const payload: TranscriptEventPayloads['request'] = {
        model,
        scope: beyondRecords ? 'process totals beyond its usage records' : 'process totals',
      };
      if (usage) payload.usage = usage;
      const requests = requestCount(row);
      if (requests !== undefined) payload.requests = requests;
      if (isObject(row) && isObject(row.requests) && typeof row.requests.cost === 'number')
        payload.premiumRequests = row.requests.cost;
      emit('request', `request:${model}`, payload);
      if (usage) {
        this.shown.add('usage');
        this.totalsOnly = true;
      }
      const e = this.events[this.events.length - 1]!;
      if (recordId === '') continue;
      // ccusage keeps the last write of a (shutdown id, model); so does cairn.
      const key = `${recordId}\u0000${model}`;
      const earlier = this.shutdownRows.get(key);
      if (earlier && dropUsage(earlier, REPEATED_SHUTDOWN)) this.changed.push(earlier);
      this.shutdownRows.set(key, e);
    }
  }

  /** The lanes with their spawning call and title as the records read so far give them: new
   * objects at each call, their members always in one order. */
  finishLanes(): Lane[] {
    const out: Lane[] = [];
    for (const [callId, { id, parentId }] of this.lanes) {
      const lane: Lane = { id, parentId };
      const spawn = this.callEvents.get(callId);
      if (spawn && spawn.agentId !== id) {
        lane.parentId = spawn.agentId;
        lane.spawnEventId = spawn.id;
      }
      const title = this.subagentTitles.get(callId);
      if (title !== undefined) lane.title = title;
      out.push(lane);
    }
    return out;
  }
}

/** Takes a request's usage away, saying why; false when `e` is no request. */
function dropUsage(e: TranscriptEvent, why: string): boolean {
  if (e.kind !== 'request') return false;
  delete e.payload.usage;
  e.payload.superseded = why;
  return true;
}

export const firstCount = (...values: unknown[]): number | undefined => {
  for (const v of values) if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return v;
  return undefined;
};

/** A call's arguments: an object, or the JSON text of one as some versions wrote it. */
function inputOf(args: unknown): unknown {
  if (typeof args !== 'string') return args ?? {};
  try {
    const parsed: unknown = JSON.parse(args);
    return isObject(parsed) ? parsed : args;
  } catch {
    return args;
  }
}

/** The session id a file's place gives: its folder for `<id>/events.jsonl`, else its name. */
export function sessionIdOfPath(path: string): string {
  return baseName(path) === 'events.jsonl' ? baseName(dirName(path)) : fileStem(path);
}

/**
 * Adds the calls an assistant message asks for to `out` (and those it did not hold to `asked`), so
 * that a later (or earlier) execution start is not taken for a second call. Only a line whose bytes
 * name toolRequests counts, as in the summary.
 */
function noteRequestedCalls(event: JsonObject, line: Uint8Array, out: Set<string>, asked?: string[]): void {
  if (event.type !== 'assistant.message') return;
  const reqs = dataOf(event).toolRequests;
  if (!Array.isArray(reqs) || indexOfAscii(line, 'toolRequests') === -1) return;
  for (const r of reqs) {
    const id = isObject(r) ? stringField(r, 'toolCallId') : undefined;
    if (!id || out.has(id)) continue;
    out.add(id);
    asked?.push(id);
  }
}

export function indexOfAscii(bytes: Uint8Array, needle: string): number {
  const first = needle.charCodeAt(0);
  outer: for (
    let i = bytes.indexOf(first);
    i !== -1 && i + needle.length <= bytes.length;
    i = bytes.indexOf(first, i + 1)
  ) {
    for (let j = 1; j < needle.length; j++) if (bytes[i + j] !== needle.charCodeAt(j)) continue outer;
    return i;
  }
  return -1;
}

/** A line of an events file, parsed, with the event it holds when it holds one. */
export interface EventLine {
  readonly span: LineSpan;
  readonly parsed: ReturnType<typeof parseJsonLine>;
  readonly event: JsonObject | undefined;
}

/**
 * The lines of `spans` in `file`, each parsed once, up front: the calls the messages ask for must
 * all be known before an execution start among them is translated (they go into `requested`, and
 * those it did not hold yet into `asked`), and parsing the lines again took a sixth of the
 * translation.
 */
export function parseLines(
  file: SourceFile,
  spans: Iterable<LineSpan>,
  requested: Set<string>,
  asked?: string[],
): EventLine[] {
  return Array.from(spans, (span) => {
    const parsed = parseJsonLine(file.data, span);
    const event = parsed.ok && isCopilotEvent(parsed.value) ? parsed.value : undefined;
    if (event)
      noteRequestedCalls(event, file.data.subarray(span.offset, span.offset + span.length), requested, asked);
    return { span, parsed, event };
  });
}

/**
 * One parsed line of file `fi` into `t` (its span is in `file.data`, which holds the file's bytes
 * from `file.start`); the error when the file's first record is no event.
 */
export function translateLine(
  t: SessionTranslation,
  fi: number,
  file: SourceFile,
  { span: local, parsed, event }: EventLine,
  read: FileRead,
): Result<never, UnknownFormatGeneration> | undefined {
  const base = file.start ?? 0;
  const span = base === 0 ? local : { ...local, offset: local.offset + base };
  const source = linePointer(file, span);
  if (!parsed.ok) {
    t.skip(source, parsed.reason);
    return undefined;
  }
  if (!read.sawRecord) {
    read.sawRecord = true;
    if (!event) return err(unknownFormatGeneration(file.path, span.line, NOT_AN_EVENT_FILE));
  }
  if (!event) {
    const type = isObject(parsed.value) ? stringField(parsed.value, 'type') : undefined;
    t.skip(source, NOT_AN_EVENT, type);
    return undefined;
  }
  t.record(event, { source, where: `${fi}:${span.offset}` });
  return undefined;
}

/** The lane a session's events are made on: its file's place, when that is an id. */
export function copilotLane(path: string | undefined): string {
  const stem = path === undefined ? '' : sessionIdOfPath(path);
  return isWireId(stem) ? stem : '';
}

/** The session's id: the lane its place gives, else the id its start recorded, when that is one. */
export const copilotSessionId = (t: SessionTranslation): string =>
  t.main || (t.recordedId !== undefined && isWireId(t.recordedId) ? t.recordedId : '');

/**
 * The translation as a session named `id`, with `capabilities`, its times as `session` has them
 * (see EventsSeen) and its lanes finished: a lane the session's own place named is renamed `id`.
 */
export function translatedSession(
  t: SessionTranslation,
  id: string,
  session: TranscriptSession,
  capabilities: Capability[],
): TranslatedSession {
  const lanes = t.finishLanes();
  for (const l of lanes) if (l.parentId === t.main) l.parentId = id;
  if (t.systemPrompt !== undefined) session.systemPrompt = t.systemPrompt;
  const out: TranslatedSession = {
    agents: [{ id }, ...lanes],
    capabilities,
    events: t.events,
    session,
    skipped: t.skipped,
  };
  if (t.version !== undefined) out.agentVersion = t.version;
  return out;
}

export function translateCopilotSession(
  files: readonly SourceFile[],
): Result<TranslatedSession, UnknownFormatGeneration> {
  const t = new SessionTranslation(copilotLane(files[0]?.path));
  const lines = files.map((file) => parseLines(file, splitLines(file.data, 0), t.requested));
  for (const [fi, file] of files.entries()) {
    const read = { sawRecord: false };
    for (const line of lines[fi] ?? []) {
      const failed = translateLine(t, fi, file, line, read);
      if (failed) return failed;
    }
  }
  const id = copilotSessionId(t);
  if (id !== t.main) for (const e of t.events) if (e.agentId === t.main) e.agentId = id;
  const session: TranscriptSession = { id };
  if (t.cwd !== undefined) session.cwd = t.cwd;
  spanEvents(session, t.events);
  const shows = new Set<Capability>();
  noteCapabilities(t.events, shows);
  return ok(translatedSession(t, id, session, capabilitiesOf(t, shows)));
}

export const COPILOT_CAPABILITIES: readonly Capability[] = [
  'requests',
  'usage',
  'durations',
  'reasoning',
  'compaction',
  'compactionTokens',
  'subagents',
  'systemPrompt',
  'hooks',
];

/**
 * What a file shows. Compactions and subagents are written whenever they happen, so a Copilot file
 * counts them (zero is a count); tokens only when a usage record or a shutdown recorded them (an
 * older version's session still open, or one that crashed, has none: absent, not zero). Requests
 * only when every token came from a usage record: a shutdown's totals are per process and model,
 * so its request events are totals, not requests.
 */
export function capabilitiesOf(t: SessionTranslation, shows: ReadonlySet<Capability>): Capability[] {
  const seen = new Set<Capability>([...t.shown, ...shows]);
  if (t.perRequest && !t.totalsOnly) seen.add('requests');
  seen.add('compaction');
  seen.add('subagents');
  return COPILOT_CAPABILITIES.filter((c) => seen.has(c));
}

/** Adds to `shows` what `events` show of the capabilities an event alone shows. */
export function noteCapabilities(events: readonly TranscriptEvent[], shows: Set<Capability>): void {
  for (const e of events) {
    if (e.kind === 'reasoning') shows.add('reasoning');
    else if (e.kind === 'compaction' && e.payload.preTokens !== undefined) shows.add('compactionTokens');
    else if (e.kind === 'system' && e.payload.type === 'prompt_snapshot') shows.add('systemPrompt');
    if (e.timestamp !== undefined) shows.add('durations');
  }
}
