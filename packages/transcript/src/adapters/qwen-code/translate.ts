// A Qwen Code session file as events, record by record, in file order:
// - user → a prompt (a plain record, or one typed mid-turn), or synthetic text the CLI added
//   (notifications, cron runs) with the record's subtype as origin; a prompt's hook context is a
//   synthetic event of its own;
// - assistant → reasoning (`thought` parts), text, tool calls (`functionCall`), and a request
//   when the record carries `usageMetadata`;
// - tool_result → one result per `functionResponse`, paired with its call by id;
// - system → by subtype: a compaction (chat_compression), a slash command, a rewind, a title, …;
//   UI telemetry is skipped (it repeats what the other records say);
// - any other type → an unknown event; a line that is no record → skipped with the reason.
// Each event's parent is the last event of the record its `parentUuid` names, so the events keep
// the records' tree, branches included.

import { linePointer, type SourceFile, type TranslatedSession } from '../../adapter.js';
import { type LineSpan, parseJsonLine, splitLines } from '../../lines.js';
import type {
  SkippedRecord,
  SourcePointer,
  TranscriptEvent,
  TranscriptEventKind,
  TranscriptEventPayloads,
  TranscriptSession,
} from '../../model.js';
import { err, ok, type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import { type InvalidValue, isWireId } from '../../values.js';
import type { FileRead } from '../appended-lines.js';
import { EventIds } from '../gemini-cli/ids.js';
import { fileStem } from '../gemini-cli/paths.js';
import { toMillis } from '../gemini-cli/records.js';
import { shownCapabilities, spanEvents } from '../shared.js';
import {
  gluedRecords,
  isObject,
  isPromptRecord,
  isQwenRecord,
  type JsonObject,
  parts,
  partsText,
  RECORD_TYPES,
  stringField,
  userText,
} from './records.js';
import { qwenUsage } from './usage.js';

export const EMPTY_RECORD = 'empty message';
export const TELEMETRY = 'UI telemetry (repeats what the other records say)';
export const NOT_A_RECORD = 'not a Qwen Code record (no uuid, type or parentUuid)';

interface Place {
  source: SourcePointer;
  where: string;
}

export class SessionTranslation {
  readonly ids = new EventIds();
  readonly events: TranscriptEvent[] = [];
  readonly skipped: SkippedRecord[] = [];
  /** The last event each record uuid made (or its parent's, when it made none). */
  private readonly tipOf = new Map<string, string | undefined>();
  cwd?: string;
  version?: string;
  title?: string;
  recordedId?: string;

  constructor(private readonly lane: string) {}

  skip(source: SourcePointer, reason: string, recordType?: string): void {
    this.skipped.push(recordType === undefined ? { source, reason } : { source, reason, recordType });
  }

  record(r: JsonObject, place: Place): void {
    const type = r.type as string;
    const uuid = r.uuid as string;
    this.cwd ??= stringField(r, 'cwd');
    this.version ??= stringField(r, 'version');
    this.recordedId ??= stringField(r, 'sessionId');
    const parentUuid = stringField(r, 'parentUuid');
    const invalid: InvalidValue[] = [];
    const timestamp = toMillis(r.timestamp, invalid);
    const base = uuid || place.where;
    let tip = parentUuid === undefined ? undefined : this.tipOf.get(parentUuid);
    let count = 0;
    const skippedBefore = this.skipped.length;
    const emit = <K extends TranscriptEventKind>(
      kind: K,
      suffix: string,
      payload: TranscriptEventPayloads[K],
      extra: { requestId?: string; id?: string } = {},
    ): string => {
      const id = extra.id ?? this.ids.make(count === 0 ? base : `${base}:${suffix}`, place.where);
      count++;
      const e = { id, seq: 0, kind, agentId: this.lane, source: place.source, payload } as TranscriptEvent;
      if (tip !== undefined) e.parentId = tip;
      if (extra.requestId !== undefined) e.requestId = extra.requestId;
      if (timestamp !== undefined) e.timestamp = timestamp;
      if (invalid.length > 0) e.invalid = [...invalid];
      this.events.push(e);
      tip = id;
      return id;
    };

    if (!RECORD_TYPES.has(type)) emit('unknown', 'unknown', { recordType: type, raw: r });
    else if (type === 'user') this.user(r, emit);
    else if (type === 'assistant') this.assistant(r, base, place, emit, invalid);
    else if (type === 'tool_result') this.toolResult(r, base, emit);
    else this.system(r, place, emit);

    if (count === 0 && this.skipped.length === skippedBefore) this.skip(place.source, EMPTY_RECORD, type);
    this.tipOf.set(uuid, tip);
  }

  private user(r: JsonObject, emit: Emit): void {
    const text = userText(r);
    const subtype = stringField(r, 'subtype');
    if (isPromptRecord(r)) {
      if (text === '' && parts(r).length === 0) return;
      emit('user', 'text', subtype === undefined ? { text } : { text, subtype });
      const payload = isObject(r.systemPayload) ? r.systemPayload : undefined;
      const hook = payload ? stringField(payload, 'hookContext') : undefined;
      if (hook) emit('user', 'hook', { text: hook, synthetic: true, origin: 'hook_output' });
      return;
    }
    if (text === '') return;
    emit('user', 'text', { text, synthetic: true, origin: subtype ?? 'user' });
  }

  private assistant(r: JsonObject, base: string, place: Place, emit: Emit, invalid: InvalidValue[]): void {
    const meta = r.usageMetadata;
    const requestId = isObject(meta) ? this.ids.make(`${base}:request`, place.where) : undefined;
    parts(r).forEach((part, i) => {
      if (!isObject(part)) return;
      if (typeof part.text === 'string' && part.thought === true) {
        if (part.text !== '') emit('reasoning', `thought:${i}`, { text: part.text }, { requestId });
      } else if (typeof part.text === 'string') {
        if (part.text !== '') emit('assistant', `text:${i}`, { text: part.text }, { requestId });
      } else if (isObject(part.functionCall)) {
        const call = part.functionCall;
        emit(
          'tool_call',
          `call:${i}`,
          {
            callId: stringField(call, 'id') || `${base}:call:${i}`,
            name: stringField(call, 'name') ?? '',
            input: call.args ?? {},
          },
          { requestId },
        );
      }
    });
    if (requestId === undefined) return;
    const payload: TranscriptEventPayloads['request'] = { usageMetadata: meta };
    const model = stringField(r, 'model');
    if (model !== undefined) payload.model = model;
    const usage = qwenUsage(meta, invalid);
    if (usage) payload.usage = usage;
    if (typeof r.contextWindowSize === 'number') payload.contextWindowSize = r.contextWindowSize;
    emit('request', 'request', payload, { id: requestId });
  }

  private toolResult(r: JsonObject, base: string, emit: Emit): void {
    const info = isObject(r.toolCallResult) ? r.toolCallResult : {};
    const status = stringField(info, 'status');
    const display = info.resultDisplay;
    const result = (callId: string, output: unknown, failed: boolean, suffix: string) => {
      const payload: TranscriptEventPayloads['tool_result'] = { callId, output };
      if (failed || status === 'error') payload.isError = true;
      if (status !== undefined) payload.status = status;
      if (display !== undefined && display !== null && typeof display !== 'string') payload.display = display;
      emit('tool_result', suffix, payload);
    };
    let made = 0;
    parts(r).forEach((part, i) => {
      if (!isObject(part) || !isObject(part.functionResponse)) return;
      const fr = part.functionResponse;
      const callId = stringField(fr, 'id') || stringField(info, 'callId') || `${base}:result:${i}`;
      const response = fr.response;
      const error = isObject(response) ? response.error : undefined;
      result(callId, responseText(response, display), error !== undefined && error !== null, `result:${i}`);
      made++;
    });
    const callId = stringField(info, 'callId');
    // A result recorded only as the CLI's own summary of it.
    if (made === 0 && callId)
      result(callId, typeof display === 'string' ? display : (display ?? ''), false, 'result');
  }

  private system(r: JsonObject, place: Place, emit: Emit): void {
    const subtype = stringField(r, 'subtype');
    const p = isObject(r.systemPayload) ? r.systemPayload : {};
    switch (subtype) {
      case 'ui_telemetry':
        this.skip(place.source, TELEMETRY, 'system');
        return;
      case 'chat_compression': {
        const info = isObject(p.info) ? p.info : {};
        const payload: TranscriptEventPayloads['compaction'] = { trigger: 'chat_compression' };
        if (typeof info.originalTokenCount === 'number') payload.preTokens = info.originalTokenCount;
        if (typeof info.newTokenCount === 'number') payload.postTokens = info.newTokenCount;
        const first = Array.isArray(p.compressedHistory) ? p.compressedHistory[0] : undefined;
        const summary = isObject(first) ? partsText({ message: first }) : '';
        if (summary !== '') payload.summary = summary;
        emit('compaction', 'compaction', payload);
        return;
      }
      case 'slash_command': {
        const raw = stringField(p, 'rawCommand') ?? '';
        const phase = stringField(p, 'phase');
        const items = Array.isArray(p.outputHistoryItems) ? p.outputHistoryItems : undefined;
        // The output of a command is recorded as the items the CLI showed for it.
        if (phase === 'result' || (phase !== 'invocation' && items !== undefined)) {
          const shown = items ?? [];
          const texts = shown
            .map((it) => (isObject(it) && typeof it.text === 'string' ? it.text : ''))
            .filter((t) => t !== '');
          const text = texts.length > 0 ? texts.join('\n') : shown.length > 0 ? JSON.stringify(shown) : '';
          emit('user', 'output', { text, synthetic: true, origin: 'command_output', items: shown });
        } else {
          const [command = '', ...args] = raw.trim().split(/\s+/);
          emit('user', 'command', {
            text: raw,
            synthetic: true,
            origin: 'command',
            command,
            args: args.join(' '),
          });
        }
        return;
      }
      case 'rewind': {
        const target = stringField(p, 'targetUuid');
        const payload: TranscriptEventPayloads['system'] = { type: 'rewind' };
        if (target !== undefined) {
          payload.messageId = target;
          payload.text = `rewound to message ${target}`;
        }
        if (typeof p.truncatedCount === 'number') payload.truncatedCount = p.truncatedCount;
        emit('system', 'rewind', payload);
        return;
      }
      case 'custom_title': {
        const title = stringField(p, 'customTitle');
        if (title !== undefined) this.title = title;
        emit('system', 'title', { type: 'custom_title', text: title ?? '', systemPayload: p });
        return;
      }
      default: {
        const text = stringField(p, 'displayText') ?? stringField(p, 'summary') ?? stringField(p, 'userText');
        const payload: TranscriptEventPayloads['system'] = { type: subtype ?? 'system', systemPayload: p };
        if (text !== undefined) payload.text = text;
        emit('system', 'system', payload);
      }
    }
  }
}

type Emit = <K extends TranscriptEventKind>(
  kind: K,
  suffix: string,
  payload: TranscriptEventPayloads[K],
  extra?: { requestId?: string; id?: string },
) => string;

/** A functionResponse's output as text: `output`, else `error`, else what the CLI showed, else the value. */
function responseText(response: unknown, display: unknown): unknown {
  if (typeof response === 'string') return response;
  if (isObject(response)) {
    if (typeof response.output === 'string') return response.output;
    if (typeof response.error === 'string') return response.error;
    if (isObject(response.error) && typeof response.error.message === 'string') return response.error.message;
  }
  if (typeof display === 'string') return display;
  return response ?? '';
}

/**
 * One line of file `fi` into `t` (`local` is the line's span in `file.data`, which holds the file's
 * bytes from `file.start`); the error when the file's first record is no Qwen Code chat record.
 */
export function translateLine(
  t: SessionTranslation,
  fi: number,
  file: SourceFile,
  local: LineSpan,
  read: FileRead,
): Result<never, UnknownFormatGeneration> | undefined {
  const base = file.start ?? 0;
  const span = base === 0 ? local : { ...local, offset: local.offset + base };
  const parsed = parseJsonLine(file.data, local);
  const glued = !parsed.ok && parsed.reason === 'invalid JSON' ? gluedRecords(file.data, local) : undefined;
  if (!parsed.ok && glued === undefined) {
    t.skip(linePointer(file, span), parsed.reason);
    return undefined;
  }
  const records = glued ?? [
    { offset: local.offset, length: local.length, value: parsed.ok ? parsed.value : null },
  ];
  for (const rec of records) {
    // Records that share a line share its pointer: a pointer names a whole line.
    const source = linePointer(file, span);
    if (!read.sawRecord) {
      read.sawRecord = true;
      if (!isQwenRecord(rec.value)) {
        const detail = 'the first record is not a Qwen Code chat record (uuid, parentUuid, type)';
        return err(unknownFormatGeneration(file.path, span.line, detail));
      }
    }
    if (!isQwenRecord(rec.value)) {
      const type = isObject(rec.value) ? stringField(rec.value, 'type') : undefined;
      t.skip(source, NOT_A_RECORD, type);
      continue;
    }
    t.record(rec.value, { source, where: `${fi}:${rec.offset + base}` });
  }
  return undefined;
}

/** The lane of a session file: its name when that is an id, else the id its records carry. */
export function qwenLane(path: string | undefined, recordedId: string | undefined): string {
  const stem = path === undefined ? '' : fileStem(path);
  if (isWireId(stem)) return stem;
  return recordedId !== undefined && isWireId(recordedId) ? recordedId : '';
}

export function translateQwenSession(
  files: readonly SourceFile[],
): Result<TranslatedSession, UnknownFormatGeneration> {
  const main = files[0];
  const lane = qwenLane(main?.path, undefined);
  const t = new SessionTranslation(lane);
  for (const [fi, file] of files.entries()) {
    const read = { sawRecord: false };
    for (const span of splitLines(file.data, 0)) {
      const failed = translateLine(t, fi, file, span, read);
      if (failed) return failed;
    }
  }
  const id = qwenLane(main?.path, t.recordedId);
  if (id !== lane) for (const e of t.events) e.agentId = id;
  const session: TranscriptSession = { id };
  if (t.cwd !== undefined) session.cwd = t.cwd;
  spanEvents(session, t.events);
  if (t.title !== undefined) session.title = t.title;
  const out: TranslatedSession = {
    agents: [{ id }],
    capabilities: shownCapabilities(t.events),
    events: t.events,
    session,
    skipped: t.skipped,
  };
  if (t.version !== undefined) out.agentVersion = t.version;
  return ok(out);
}
