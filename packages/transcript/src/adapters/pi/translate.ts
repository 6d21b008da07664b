// A pi session file as events, entry by entry, in file order (the order pi wrote them in):
// - the `session` header → a session_meta system event (id, cwd, the session it was forked from);
// - message → by role: user → a prompt; assistant → reasoning (thinking blocks), text, tool calls
//   and one request (with usage when it used any), plus an error or abort notice; toolResult → a
//   result paired with its call by id; bashExecution (`!cmd`) → the command and its output;
//   custom (an extension's message) → synthetic user text;
// - compaction → a compaction that shadows what it took out of the context; branch_summary →
//   synthetic user text (pi hands it to the model as such);
// - model_change, thinking_level_change, session_info (the title), label, custom → system events;
// - any other type → an unknown event; a line that is no entry → skipped with the reason.
//
// Branches: pi keeps a session as a tree and, when the person goes back to an earlier point,
// appends the new branch to the same file with `parentId` naming that point. Every entry becomes
// events on the one lane of the session (a branch is the same agent's history, not another agent),
// in file order, so the timeline shows everything that happened when it happened, abandoned
// branches included, and their requests and tokens count (they were spent; ccusage counts them
// too). The tree is kept in the events' parentId: an event's parent is the last event of the entry
// its `parentId` names, so the active path is found by walking parents back from the last event.

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
import type { InvalidValue } from '../../values.js';
import type { FileRead } from '../appended-lines.js';
import { EventIds } from '../gemini-cli/ids.js';
import { shownCapabilities, spanEvents } from '../shared.js';
import {
  contentText,
  ENTRY_TYPES,
  entryTime,
  imageCount,
  isObject,
  isPiHeader,
  type JsonObject,
  piSessionId,
  stringField,
} from './records.js';
import { piUsage } from './usage.js';

export const NOT_AN_ENTRY = 'not a pi session entry (a JSON object with a type)';
export const NO_MESSAGE = 'a message entry without a message';
export const NOT_A_HEADER = 'the first record is not a pi session header (type "session" with an id)';

/** Event kinds that stand for what the model was sent, which a compaction can take out. */
const CONTEXT_KINDS: ReadonlySet<TranscriptEventKind> = new Set([
  'user',
  'assistant',
  'reasoning',
  'tool_call',
  'tool_result',
]);

type Emit = <K extends TranscriptEventKind>(
  kind: K,
  suffix: string,
  payload: TranscriptEventPayloads[K],
  extra?: { requestId?: string; id?: string },
) => string;

interface Place {
  source: SourcePointer;
  where: string;
}

/** FNV-1a of a line's bytes: tells a line written twice from two entries that share an id. */
export function lineHash(data: Uint8Array, offset: number, length: number): number {
  let h = 0x811c9dc5;
  for (let i = offset; i < offset + length; i++) h = Math.imul(h ^ data[i]!, 0x01000193);
  return h >>> 0;
}

/** A system payload without the fields the entry left out. */
function defined(
  p: { type: string; text: string } & Record<string, unknown>,
): TranscriptEventPayloads['system'] {
  for (const k of Object.keys(p)) if (p[k] === undefined) delete p[k];
  return p;
}

/** Where an entry id was first written: its line, and its bytes until they are hashed. */
interface Written {
  line: number;
  length: number;
  data?: Uint8Array;
  offset: number;
  hash?: number;
}

export class SessionTranslation {
  readonly ids = new EventIds();
  readonly events: TranscriptEvent[] = [];
  readonly skipped: SkippedRecord[] = [];
  /** Per entry key: the last event it made (or its parent's, when it made none). */
  private readonly tipOf = new Map<string, string | undefined>();
  /** Per entry key: the entry its parentId names, for walking a compaction's path. */
  private readonly parentOf = new Map<string, string | undefined>();
  /** Per entry key: the events it made that the model was sent. */
  private readonly contextEvents = new Map<string, TranscriptEvent[]>();
  /** Per entry id: where it was first written. Its bytes' hash is taken only once a later line has
   * the same id and length: hashing every line took a fifth of the translation, for a rare case. */
  private readonly written = new Map<string, Written>();
  /** Entries written since the last `settle`, whose bytes are still held. */
  private readonly unsettled: Written[] = [];
  /** Events an entry of this push shadowed that were made before it (see `takeMarked`). */
  private marked: TranscriptEvent[] = [];
  /** The key of the entry before, the parent of an entry that names none (a version 1 file). */
  private previous: string | undefined;
  /** Every entry's key in file order, header included: version 1 compactions name the first kept
   * entry by its index here. */
  private readonly order: string[] = [];
  headerId?: string;
  cwd?: string;
  title?: string;
  sawCompactionTokens = false;

  constructor(private readonly lane: string) {}

  skip(source: SourcePointer, reason: string, recordType?: string): void {
    this.skipped.push(recordType === undefined ? { source, reason } : { source, reason, recordType });
  }

  /** An entry written a second time byte for byte (pi re-writes its entries when a flush failed
   * halfway): the first copy stands for both, as pi's own index and ccusage take it. The line is
   * `length` bytes of `data` from `offset`. */
  repeats(
    r: JsonObject,
    line: { data: Uint8Array; offset: number; length: number; number: number },
    source: SourcePointer,
  ): boolean {
    const id = stringField(r, 'id');
    if (id === undefined) return false;
    const { data, offset, length } = line;
    const first = this.written.get(id);
    if (first === undefined) {
      const entry: Written = { line: line.number, length, data, offset };
      this.written.set(id, entry);
      this.unsettled.push(entry);
      return false;
    }
    if (first.length !== length) return false;
    first.hash ??= lineHash(first.data!, first.offset, first.length);
    if (first.hash !== lineHash(data, offset, length)) return false;
    const what = r.type === 'session' ? 'the session header' : `entry ${id}`;
    this.skip(source, `repeats ${what} of line ${first.line} byte for byte`, stringField(r, 'type'));
    return true;
  }

  /**
   * Lets go of the bytes of the entries written so far, keeping their hashes: a translation kept
   * between reads would otherwise hold every part of the file it was handed.
   */
  settle(): void {
    for (const entry of this.unsettled) {
      entry.hash ??= lineHash(entry.data!, entry.offset, entry.length);
      entry.data = undefined;
    }
    this.unsettled.length = 0;
  }

  /** The events made before this push that its compactions shadowed, since the last call. */
  takeMarked(): TranscriptEvent[] {
    const marked = this.marked;
    this.marked = [];
    return marked;
  }

  entry(r: JsonObject, place: Place): void {
    const type = stringField(r, 'type') ?? '';
    const id = stringField(r, 'id');
    const key = type === 'session' ? `session:${place.where}` : (id ?? place.where);
    // Version 1 files have no tree: each entry follows the one before it.
    const parentKey =
      type === 'session'
        ? undefined
        : 'parentId' in r
          ? (stringField(r, 'parentId') ?? undefined)
          : this.previous;
    const invalid: InvalidValue[] = [];
    const timestamp = entryTime(r, invalid);
    let tip = parentKey === undefined ? undefined : this.tipOf.get(parentKey);
    let count = 0;
    const skippedBefore = this.skipped.length;
    const context: TranscriptEvent[] = [];
    const emit: Emit = (kind, suffix, payload, extra = {}) => {
      const eid = extra.id ?? this.ids.make(count === 0 ? key : `${key}:${suffix}`, place.where);
      count++;
      const e = {
        id: eid,
        seq: 0,
        kind,
        agentId: this.lane,
        source: place.source,
        payload,
      } as TranscriptEvent;
      if (tip !== undefined) e.parentId = tip;
      if (extra.requestId !== undefined) e.requestId = extra.requestId;
      if (timestamp !== undefined) e.timestamp = timestamp;
      if (invalid.length > 0) e.invalid = [...invalid];
      this.events.push(e);
      if (CONTEXT_KINDS.has(kind)) context.push(e);
      tip = eid;
      return eid;
    };

    if (type === 'session') this.header(r, emit);
    else if (!ENTRY_TYPES.has(type)) emit('unknown', 'unknown', { recordType: type, raw: r });
    else if (type === 'message') this.message(r, key, place, emit, invalid);
    else if (type === 'compaction') this.compaction(r, key, parentKey, emit);
    else this.other(type, r, emit);

    if (count === 0 && this.skipped.length === skippedBefore) this.skip(place.source, 'empty entry', type);
    this.tipOf.set(key, tip);
    this.order.push(key);
    this.parentOf.set(key, parentKey);
    if (context.length > 0) this.contextEvents.set(key, context);
    if (type !== 'session') this.previous = key;
  }

  private header(r: JsonObject, emit: Emit): void {
    const id = stringField(r, 'id');
    this.headerId ??= id;
    this.cwd ??= stringField(r, 'cwd');
    const payload: TranscriptEventPayloads['system'] = { type: 'session_meta' };
    if (id !== undefined) payload.sessionId = id;
    if (r.version !== undefined) payload.version = r.version;
    const cwd = stringField(r, 'cwd');
    if (cwd !== undefined) payload.cwd = cwd;
    const parent = stringField(r, 'parentSession');
    if (parent !== undefined) {
      payload.parentSession = parent;
      payload.text = `forked from ${parent}`;
    }
    emit('system', 'session', payload);
  }

  private message(r: JsonObject, key: string, place: Place, emit: Emit, invalid: InvalidValue[]): void {
    const m = isObject(r.message) ? r.message : undefined;
    if (m === undefined) {
      this.skip(place.source, NO_MESSAGE, 'message');
      return;
    }
    const role = stringField(m, 'role') ?? '';
    switch (role) {
      case 'user': {
        const text = contentText(m.content);
        const images = imageCount(m.content);
        if (text === '' && images === 0) emit('user', 'text', { text, synthetic: true, origin: 'empty' });
        else emit('user', 'text', images > 0 ? { text, images } : { text });
        return;
      }
      case 'assistant':
        this.assistant(m, key, place, emit, invalid);
        return;
      case 'toolResult': {
        const callId = stringField(m, 'toolCallId') ?? `${key}:result`;
        const text = contentText(m.content);
        const output = text !== '' || !Array.isArray(m.content) ? text : m.content;
        const payload: TranscriptEventPayloads['tool_result'] = { callId, output };
        if (m.isError === true) payload.isError = true;
        const name = stringField(m, 'toolName');
        if (name !== undefined) payload.name = name;
        if (m.details !== undefined) payload.details = m.details;
        const images = imageCount(m.content);
        if (images > 0) payload.images = images;
        emit('tool_result', 'result', payload);
        return;
      }
      case 'bashExecution': {
        // `!cmd` typed by the person: the command, then what it printed.
        const command = stringField(m, 'command') ?? '';
        emit('user', 'bash', { text: command, synthetic: true, origin: 'bash_input', command });
        const out: TranscriptEventPayloads['user'] = {
          text: stringField(m, 'output') ?? '',
          synthetic: true,
          origin: 'bash_output',
        };
        for (const f of ['exitCode', 'cancelled', 'truncated', 'fullOutputPath', 'excludeFromContext'])
          if (m[f] !== undefined && m[f] !== null) out[f] = m[f];
        emit('user', 'output', out);
        return;
      }
      case 'custom':
      case 'hookMessage':
        this.customMessage(m, emit);
        return;
      case 'branchSummary':
        emit('user', 'summary', {
          text: stringField(m, 'summary') ?? '',
          synthetic: true,
          origin: 'branch_summary',
        });
        return;
      case 'compactionSummary':
        emit('user', 'summary', {
          text: stringField(m, 'summary') ?? '',
          synthetic: true,
          origin: 'compact_summary',
        });
        return;
      default:
        emit('unknown', 'unknown', { recordType: `message:${role}`, raw: r });
    }
  }

  private assistant(m: JsonObject, key: string, place: Place, emit: Emit, invalid: InvalidValue[]): void {
    // Every assistant message is the answer to one model request.
    const requestId = this.ids.make(`${key}:request`, place.where);
    const content = Array.isArray(m.content) ? m.content : [];
    content.forEach((block, i) => {
      if (!isObject(block)) return;
      if (block.type === 'thinking') {
        const text = stringField(block, 'thinking') ?? '';
        if (text === '' && block.redacted !== true) return;
        emit('reasoning', `thinking:${i}`, block.redacted === true ? { text, redacted: true } : { text }, {
          requestId,
        });
      } else if (block.type === 'text') {
        const text = stringField(block, 'text') ?? '';
        if (text !== '') emit('assistant', `text:${i}`, { text }, { requestId });
      } else if (block.type === 'toolCall') {
        emit(
          'tool_call',
          `call:${i}`,
          {
            callId: stringField(block, 'id') || `${key}:call:${i}`,
            name: stringField(block, 'name') ?? '',
            input: block.arguments ?? {},
          },
          { requestId },
        );
      }
    });
    const stopReason = stringField(m, 'stopReason');
    const error = stringField(m, 'errorMessage');
    if (stopReason === 'aborted')
      emit('system', 'aborted', { type: 'turn_aborted', text: error ?? 'aborted' }, { requestId });
    else if (stopReason === 'error' || error !== undefined)
      emit('system', 'error', { type: 'api_error', text: error ?? 'error' }, { requestId });
    const payload: TranscriptEventPayloads['request'] = {};
    const model = stringField(m, 'model');
    if (model !== undefined) payload.model = model;
    const usage = piUsage(m.usage, invalid);
    if (usage) payload.usage = usage;
    if (stopReason !== undefined) payload.stopReason = stopReason;
    for (const f of ['provider', 'api', 'responseId'] as const) {
      const v = stringField(m, f);
      if (v !== undefined) payload[f] = v;
    }
    const cost = isObject(m.usage) && isObject(m.usage.cost) ? m.usage.cost.total : undefined;
    if (typeof cost === 'number' && Number.isFinite(cost)) payload.cost = cost;
    emit('request', 'request', payload, { id: requestId });
  }

  private customMessage(m: JsonObject, emit: Emit): void {
    const payload: TranscriptEventPayloads['user'] = {
      text: contentText(m.content),
      synthetic: true,
      origin: 'custom_message',
    };
    const customType = stringField(m, 'customType');
    if (customType !== undefined) payload.customType = customType;
    if (typeof m.display === 'boolean') payload.display = m.display;
    if (m.details !== undefined) payload.details = m.details;
    emit('user', 'custom', payload);
  }

  private compaction(r: JsonObject, key: string, parentKey: string | undefined, emit: Emit): void {
    const payload: TranscriptEventPayloads['compaction'] = {};
    if (r.fromHook === true) payload.trigger = 'extension';
    if (typeof r.tokensBefore === 'number' && Number.isSafeInteger(r.tokensBefore) && r.tokensBefore >= 0) {
      payload.preTokens = r.tokensBefore;
      this.sawCompactionTokens = true;
    }
    const summary = stringField(r, 'summary');
    if (summary !== undefined && summary !== '') payload.summary = summary;
    const index = r.firstKeptEntryIndex;
    const firstKept =
      stringField(r, 'firstKeptEntryId') ??
      (typeof index === 'number' && Number.isSafeInteger(index) ? this.order[index] : undefined);
    if (firstKept !== undefined) payload.firstKeptEntryId = firstKept;
    if (r.details !== undefined) payload.details = r.details;
    const id = emit('compaction', 'compaction', payload);
    this.shadow(id, key, parentKey, firstKept);
  }

  /**
   * What the model is sent after a compaction is its summary, the entries on its path from
   * firstKeptEntryId on, and what follows: the path's entries before that are shadowed by it (all of
   * them when the kept entry is not on the path, as pi then keeps none).
   */
  private shadow(compactionId: string, key: string, parentKey: string | undefined, firstKept?: string): void {
    const path: string[] = [];
    const seen = new Set<string>([key]);
    for (let at = parentKey; at !== undefined && !seen.has(at); at = this.parentOf.get(at)) {
      seen.add(at);
      path.push(at);
    }
    const kept = firstKept === undefined ? -1 : path.indexOf(firstKept);
    for (const entry of kept === -1 ? path : path.slice(kept + 1))
      for (const e of this.contextEvents.get(entry) ?? [])
        if (e.shadowedBy === undefined) {
          e.shadowedBy = compactionId;
          this.marked.push(e);
        }
  }

  private other(type: string, r: JsonObject, emit: Emit): void {
    switch (type) {
      case 'branch_summary': {
        const payload: TranscriptEventPayloads['user'] = {
          text: stringField(r, 'summary') ?? '',
          synthetic: true,
          origin: 'branch_summary',
        };
        const from = stringField(r, 'fromId');
        if (from !== undefined) payload.fromId = from;
        emit('user', 'summary', payload);
        return;
      }
      case 'custom_message':
        this.customMessage(r, emit);
        return;
      case 'model_change': {
        const provider = stringField(r, 'provider');
        const modelId = stringField(r, 'modelId');
        const text = [provider, modelId].filter((s) => s !== undefined).join('/');
        emit('system', 'model', defined({ type: 'model_change', text, provider, modelId }));
        return;
      }
      case 'thinking_level_change': {
        const level = stringField(r, 'thinkingLevel');
        emit(
          'system',
          'thinking',
          defined({ type: 'thinking_level_change', text: level ?? '', thinkingLevel: level }),
        );
        return;
      }
      case 'session_info': {
        // The latest name is the title; an empty one clears it.
        const name = stringField(r, 'name')?.trim();
        this.title = name || undefined;
        emit('system', 'info', { type: 'session_info', text: name ?? '', name: name ?? '' });
        return;
      }
      case 'label': {
        const label = stringField(r, 'label');
        const targetId = stringField(r, 'targetId');
        emit('system', 'label', defined({ type: 'label', text: label ?? '', targetId, label }));
        return;
      }
      default: {
        // `custom`: an extension's own state, kept out of the model's context.
        const payload: TranscriptEventPayloads['system'] = { type: 'custom' };
        const customType = stringField(r, 'customType');
        if (customType !== undefined) payload.customType = customType;
        if (r.data !== undefined) payload.data = r.data;
        emit('system', 'custom', payload);
      }
    }
  }
}

/**
 * One line of file `fi` into `t`: `span` places it in the file, and its bytes are `span.length` of
 * `data` from `at`. The error when the file's first record is no pi session header.
 */
export function translateLine(
  t: SessionTranslation,
  fi: number,
  file: SourceFile,
  span: LineSpan,
  parsed: { ok: true; value: unknown } | { ok: false; reason: string },
  bytes: { data: Uint8Array; at: number },
  read: FileRead,
): Result<never, UnknownFormatGeneration> | undefined {
  const source = linePointer(file, span);
  if (!parsed.ok) {
    t.skip(source, parsed.reason);
    return undefined;
  }
  const value = parsed.value;
  if (!read.sawRecord) {
    read.sawRecord = true;
    if (!isPiHeader(value)) return err(unknownFormatGeneration(file.path, span.line, NOT_A_HEADER));
  }
  if (!isObject(value) || typeof value.type !== 'string') {
    t.skip(source, NOT_AN_ENTRY, isObject(value) ? stringField(value, 'type') : undefined);
    return undefined;
  }
  const line = { data: bytes.data, offset: bytes.at, length: span.length, number: span.line };
  if (t.repeats(value, line, source)) return undefined;
  t.entry(value, { source, where: `${fi}:${span.offset}` });
  return undefined;
}

export function translatePiSession(
  files: readonly SourceFile[],
): Result<TranslatedSession, UnknownFormatGeneration> {
  const main = files[0];
  let header: JsonObject | undefined;
  // The lane is named by the session's id, which the header gives: find it first. The line found
  // is kept parsed, so that the pass below does not parse it again.
  let firstParsed: { offset: number; value: unknown } | undefined;
  if (main) {
    for (const span of splitLines(main.data)) {
      const parsed = parseJsonLine(main.data, span);
      if (!parsed.ok) continue;
      firstParsed = { offset: span.offset, value: parsed.value };
      if (isPiHeader(parsed.value)) header = parsed.value;
      break;
    }
  }
  const lane = main ? piSessionId(main.path, header ? stringField(header, 'id') : undefined) : '';
  const t = new SessionTranslation(lane);
  for (const [fi, file] of files.entries()) {
    const state = { sawRecord: false };
    for (const span of splitLines(file.data, 0)) {
      const known = fi === 0 && firstParsed !== undefined && span.offset === firstParsed.offset;
      const parsed = known
        ? { ok: true as const, value: firstParsed!.value }
        : parseJsonLine(file.data, span);
      const failed = translateLine(t, fi, file, span, parsed, { data: file.data, at: span.offset }, state);
      if (failed) return failed;
    }
  }
  const session: TranscriptSession = { id: lane };
  if (t.cwd !== undefined) session.cwd = t.cwd;
  spanEvents(session, t.events);
  if (t.title !== undefined) session.title = t.title;
  return ok({
    agents: [{ id: lane }],
    capabilities: shownCapabilities(t.events, t.sawCompactionTokens ? ['compactionTokens'] : []),
    events: t.events,
    session,
    skipped: t.skipped,
  });
}
