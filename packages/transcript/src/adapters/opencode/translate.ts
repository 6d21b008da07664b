// An OpenCode-family session as events. Its rows (from the SQLite store as read, or its export's
// lines, or the files of the older JSON tree) are sessions, messages and parts; messages go in the order they were made,
// each followed by its parts in the order they were written:
// - text → a user prompt or assistant text (`synthetic` text, and a compaction's summary, marked);
// - reasoning → reasoning; tool → a tool_call, and its tool_result once the tool completed or failed;
// - step-finish → the request of one model step, with its tokens; an assistant message that
//   recorded tokens but no step → one request from the message's own tokens;
// - compaction → a compaction; snapshot, patch, file, agent, subtask, retry → system events;
//   step-start → skipped (its step-finish carries the request); any other part type → unknown;
// - a message's own row → skipped (its parts carry what it says), unless it records an error;
// - a session started by another (`parent_id`) is a subagent lane of it, started by the `task` tool
//   call whose metadata names it.
import type { SourceFile, TranslatedSession } from '../../adapter.js';
import { parseJsonLine, splitLines } from '../../lines.js';
import type {
  Lane,
  SkippedRecord,
  SourcePointer,
  TranscriptEvent,
  TranscriptEventKind,
  TranscriptEventPayloads,
  TranscriptSession,
} from '../../model.js';
import { err, ok, type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import { type InvalidValue, isWireId, timestampValue } from '../../values.js';
import { EventIds } from '../gemini-cli/ids.js';
import { isObject, type JsonObject, stringField } from '../gemini-cli/records.js';
import { shownCapabilities } from '../shared.js';
import { baseName, splitStorePath, treeTable } from './paths.js';
import { DATA_NOT_JSON, type ParsedStoreRow, type StoreLine } from './sqlite.js';
import { openCodeUsage } from './usage.js';

type Table = 'session' | 'message' | 'part';

export interface Row {
  table: Table;
  id: string;
  sessionId?: string;
  messageId?: string;
  data: JsonObject;
  source: SourcePointer;
}

const STEP_START = 'step-start: marks where a model step begins; its step-finish carries the request';
const MESSAGE_ROW = "a message's header: its parts carry what it says";
const NOT_JSON = 'data is not JSON';
const NOT_AN_OBJECT = 'not a JSON object';

/** Rows from each file: a store session's rows as read, its export line by line, a tree file as one row. */
function collectRows(files: readonly SourceFile[], skipped: SkippedRecord[]): Row[] {
  const rows: Row[] = [];
  for (const file of files) {
    if (file.rows)
      for (const line of file.rows) {
        const source = storeRowSource(file.path, line);
        if ('row' in line) storeRow(line, source, rows, skipped);
        else parsedStoreRow(line, source, rows, skipped);
      }
    else if (splitStorePath(file.path)) storeRows(file, rows, skipped);
    else treeRow(file, rows, skipped);
  }
  return rows;
}

/**
 * Where a row read from the store came from: the row itself, named by table and rowid. It has no
 * bytes of its own to point at, so the byte range is empty.
 */
export const storeRowSource = (path: string, line: Pick<StoreLine, 'table' | 'rowid'>): SourcePointer => ({
  file: path,
  offset: 0,
  length: 0,
  line: 1,
  sqlite: { table: line.table, rowid: line.rowid },
});

/** The rows of a store session's export (lines of `{"table","rowid","row"}`). */
export function storeRows(file: SourceFile, rows: Row[], skipped: SkippedRecord[]): void {
  for (const span of splitLines(file.data, 0)) {
    const lineSource: SourcePointer = {
      file: file.path,
      offset: span.offset,
      length: span.length,
      line: span.line,
    };
    const parsed = parseJsonLine(file.data, span);
    if (!parsed.ok) {
      if (parsed.reason !== 'empty line') skipped.push({ source: lineSource, reason: parsed.reason });
      continue;
    }
    const v = parsed.value;
    const table = isObject(v) ? stringField(v, 'table') : undefined;
    const rowid = isObject(v) && typeof v.rowid === 'number' ? v.rowid : undefined;
    const row = isObject(v) && isObject(v.row) ? v.row : undefined;
    if (table === undefined || rowid === undefined || row === undefined) {
      skipped.push({ source: lineSource, reason: 'not a row of the store' });
      continue;
    }
    storeRow({ table, rowid, row }, { ...lineSource, sqlite: { table, rowid } }, rows, skipped);
  }
}

/** One row of the store as a row of the translation (its `data` parsed here, once), or a skip. */
export function storeRow(
  line: StoreLine,
  source: SourcePointer,
  rows: Row[],
  skipped: SkippedRecord[],
): void {
  const { table, row } = line;
  if (table !== 'session' && table !== 'message' && table !== 'part') {
    skipped.push({
      source,
      reason: `a row of the ${table} table, not part of the transcript`,
      recordType: table,
    });
    return;
  }
  const id = stringField(row, 'id');
  if (id === undefined) {
    skipped.push({ source, reason: 'a row without an id', recordType: table });
    return;
  }
  let data: JsonObject;
  if (table === 'session') data = sessionData(row);
  else {
    const raw = row.data;
    let parsedData: unknown;
    try {
      parsedData = typeof raw === 'string' ? JSON.parse(raw) : raw;
    } catch {
      skipped.push({ source, reason: NOT_JSON, recordType: table });
      return;
    }
    if (!isObject(parsedData)) {
      skipped.push({ source, reason: `data is ${NOT_AN_OBJECT}`, recordType: table });
      return;
    }
    data = parsedData;
    // Data parsed here is this row's own to complete; data that came as an object is left as it is.
    if (data.time === undefined && typeof row.time_created === 'number') {
      if (typeof raw === 'string') data.time = { created: row.time_created };
      else data = { ...data, time: { created: row.time_created } };
    }
  }
  const r: Row = { table, id, data, source };
  const sessionId = stringField(row, 'session_id');
  if (sessionId !== undefined) r.sessionId = sessionId;
  const messageId = stringField(row, 'message_id');
  if (messageId !== undefined) r.messageId = messageId;
  rows.push(r);
}

/**
 * A message or part row read for a translation, its data parsed by the read (and completed with
 * its time as storeRow completes it), as a row of the translation, or a skip: the same as storeRow
 * gives for the row as stored.
 */
function parsedStoreRow(
  line: ParsedStoreRow,
  source: SourcePointer,
  rows: Row[],
  skipped: SkippedRecord[],
): void {
  const { table, data } = line;
  if (typeof line.id !== 'string') {
    skipped.push({ source, reason: 'a row without an id', recordType: table });
    return;
  }
  if (data === DATA_NOT_JSON) {
    skipped.push({ source, reason: NOT_JSON, recordType: table });
    return;
  }
  if (!isObject(data)) {
    skipped.push({ source, reason: `data is ${NOT_AN_OBJECT}`, recordType: table });
    return;
  }
  const r: Row = { table, id: line.id, data, source };
  if (typeof line.sessionId === 'string') r.sessionId = line.sessionId;
  if (typeof line.messageId === 'string') r.messageId = line.messageId;
  rows.push(r);
}

/** A session row's columns in the shape of the tree's session file. */
function sessionData(row: JsonObject): JsonObject {
  // The rowid a read selects beside the columns is not one of them.
  const { __rowid, ...data }: JsonObject = row;
  if (row.parent_id !== undefined) data.parentID = row.parent_id;
  data.time = { created: row.time_created, updated: row.time_updated };
  return data;
}

function treeRow(file: SourceFile, rows: Row[], skipped: SkippedRecord[]): void {
  const source: SourcePointer = { file: file.path, offset: 0, length: file.data.length, line: 1 };
  const table = treeTable(file.path);
  const span = { line: 1, offset: 0, length: file.data.length, unterminated: false };
  const parsed = parseJsonLine(file.data, trimmed(file.data, span));
  if (!parsed.ok) {
    skipped.push({ source, reason: parsed.reason, ...(table ? { recordType: table } : {}) });
    return;
  }
  const data = parsed.value;
  if (!isObject(data)) {
    skipped.push({ source, reason: NOT_AN_OBJECT, ...(table ? { recordType: table } : {}) });
    return;
  }
  const kind: Table | undefined =
    table ?? (typeof data.role === 'string' ? 'message' : typeof data.type === 'string' ? 'part' : undefined);
  if (kind === undefined) {
    skipped.push({ source, reason: 'not a session, message or part of the storage tree' });
    return;
  }
  const id = stringField(data, 'id') ?? baseName(file.path).replace(/\.json$/, '');
  const r: Row = { table: kind, id, data, source };
  const sessionId = stringField(data, 'sessionID');
  if (sessionId !== undefined) r.sessionId = sessionId;
  // A part file without a messageID is named by its folder, part/<messageID>/<partID>.json.
  const messageId = stringField(data, 'messageID') ?? (kind === 'part' ? folderName(file.path) : undefined);
  if (messageId !== undefined && messageId !== 'part') r.messageId = messageId;
  rows.push(r);
}

function folderName(path: string): string | undefined {
  const parts = path.split(/[\\/]/);
  return parts.length >= 2 ? parts[parts.length - 2] : undefined;
}

/** The span without the whitespace a pretty-printed file ends with. */
function trimmed(
  data: Uint8Array,
  span: { line: number; offset: number; length: number; unterminated: boolean },
) {
  let end = span.offset + span.length;
  while (
    end > span.offset &&
    (data[end - 1] === 10 || data[end - 1] === 13 || data[end - 1] === 32 || data[end - 1] === 9)
  )
    end--;
  return { ...span, length: end - span.offset };
}

/** Where a translation goes on from when it does not start at the first message (a live read). */
export interface TranslationSeed {
  ids: Pick<EventIds, 'make'>;
  /** Each lane's last event id so far. */
  tip: Map<string, string>;
  /** The last compaction so far, whose summary a later message may bring. */
  lastCompaction?: TranscriptEventPayloads['compaction'];
}

export class Translation {
  readonly events: TranscriptEvent[] = [];
  readonly skipped: SkippedRecord[] = [];
  private readonly ids: Pick<EventIds, 'make'>;
  private readonly tip: Map<string, string>;
  /** Subagent session id → the tool_call that started it. */
  readonly spawns = new Map<string, string>();
  private lastCompaction: TranscriptEventPayloads['compaction'] | undefined;

  // What the events of the row being translated share. A row's events are all made before the
  // next row's, so they live here rather than in a closure made for every part.
  private row: Row | undefined;
  private rowInvalid: InvalidValue[] = [];
  private rowEvents = 0;
  private lane = '';
  private created: number | undefined;
  /** The events of the current model step, and of the whole message, that a request will claim. */
  private step: TranscriptEvent[] = [];
  private inMessage: TranscriptEvent[] = [];
  /** The last `file:line` an id was made at (a store's rows all share one). */
  private whereFile = '';
  private whereLine = -1;
  private where = '';

  constructor(
    private readonly laneOf: (sessionId: string | undefined) => string,
    seed?: TranslationSeed,
  ) {
    this.ids = seed?.ids ?? new EventIds();
    this.tip = seed?.tip ?? new Map();
    this.lastCompaction = seed?.lastCompaction;
  }

  private whereOf(source: SourcePointer): string {
    if (source.file !== this.whereFile || source.line !== this.whereLine) {
      this.whereFile = source.file;
      this.whereLine = source.line;
      this.where = `${source.file}:${source.line}`;
    }
    return this.where;
  }

  /** The next event of the current row: its first is named by the row's id, the others `id:suffix`. */
  private emit<K extends TranscriptEventKind>(
    kind: K,
    suffix: string,
    payload: TranscriptEventPayloads[K],
    timestamp?: number,
  ): TranscriptEvent {
    const row = this.row as Row;
    const base = row.id;
    const id = this.ids.make(this.rowEvents === 0 ? base : `${base}:${suffix}`, this.whereOf(row.source));
    this.rowEvents++;
    const lane = this.lane;
    const e = { id, seq: 0, kind, agentId: lane, source: row.source, payload } as TranscriptEvent;
    const parent = this.tip.get(lane);
    if (parent !== undefined) e.parentId = parent;
    const ts = timestamp ?? this.created;
    if (ts !== undefined) e.timestamp = ts;
    if (this.rowInvalid.length > 0) e.invalid = [...this.rowInvalid];
    this.events.push(e);
    this.tip.set(lane, id);
    if (kind !== 'request') {
      this.step.push(e);
      this.inMessage.push(e);
    }
    return e;
  }

  private startRow(row: Row, invalid: InvalidValue[]): void {
    this.row = row;
    this.rowInvalid = invalid;
    this.rowEvents = 0;
  }

  message(m: Row, parts: readonly Row[]): void {
    const role = stringField(m.data, 'role');
    const lane = this.laneOf(m.sessionId ?? stringField(m.data, 'sessionID'));
    const invalid: InvalidValue[] = [];
    const time = isObject(m.data.time) ? m.data.time : {};
    const created = timestampValue(time.created, 'time.created', invalid);
    const completed = timestampValue(time.completed, 'time.completed', invalid);
    const model =
      stringField(m.data, 'modelID') ??
      (isObject(m.data.model) ? stringField(m.data.model, 'modelID') : undefined);
    const isSummary = m.data.summary === true;
    // A request is dated when its message was made, as ccusage dates it, so a request that runs
    // past midnight falls on the same day in both; when it finished is its duration.
    const requestAt = created === undefined ? completed : undefined;
    const duration =
      created !== undefined && completed !== undefined && completed >= created
        ? completed - created
        : undefined;
    // Since OpenCode 1.x a message is one model step; a message of several steps (older stores) has
    // one time for all of them, so no step gets a duration of its own.
    let stepsRecorded = 0;
    for (const p of parts) if (p.data.type === 'step-finish') stepsRecorded++;
    const oneStep = stepsRecorded === 1;
    this.lane = lane;
    this.created = created;
    this.step = [];
    this.inMessage = [];
    let steps = 0;

    for (const p of parts) {
      const pInvalid = invalid.length > 0 ? [...invalid] : [];
      this.startRow(p, pInvalid);
      const type = stringField(p.data, 'type') ?? '';
      const ptime = isObject(p.data.time) ? p.data.time : {};
      const start = timestampValue(ptime.start, 'time.start', pInvalid);
      switch (type) {
        case 'text': {
          const text = typeof p.data.text === 'string' ? p.data.text : '';
          const payload: TranscriptEventPayloads['user'] = { text };
          if (isSummary) {
            payload.synthetic = true;
            payload.origin = 'compact_summary';
            if (this.lastCompaction && this.lastCompaction.summary === undefined)
              this.lastCompaction.summary = text;
          } else if (p.data.synthetic === true) {
            payload.synthetic = true;
            payload.origin = 'synthetic';
          }
          if (p.data.ignored === true) payload.ignored = true;
          this.emit(role === 'user' ? 'user' : 'assistant', 'text', payload, start);
          break;
        }
        case 'reasoning':
          this.emit(
            'reasoning',
            'reasoning',
            { text: typeof p.data.text === 'string' ? p.data.text : '' },
            start,
          );
          break;
        case 'tool':
          this.tool(p, start, pInvalid);
          break;
        case 'step-start':
          // A step's request covers what the message made since the step before it.
          this.skipped.push({ source: p.source, reason: STEP_START, recordType: type });
          break;
        case 'step-finish': {
          steps++;
          const payload: TranscriptEventPayloads['request'] = {};
          if (model !== undefined) payload.model = model;
          const usage = openCodeUsage(p.data.tokens, pInvalid);
          if (usage) payload.usage = usage;
          const reason = stringField(p.data, 'reason');
          if (reason !== undefined) payload.stopReason = reason;
          if (typeof p.data.cost === 'number') payload.cost = p.data.cost;
          const provider = stringField(m.data, 'providerID');
          if (provider !== undefined) payload.provider = provider;
          if (oneStep && duration !== undefined) payload.durationMs = duration;
          const req = this.emit('request', 'request', payload, requestAt);
          for (const e of this.step) e.requestId = req.id;
          this.step = [];
          break;
        }
        case 'compaction': {
          const payload: TranscriptEventPayloads['compaction'] = {
            trigger: p.data.auto === true ? 'auto' : 'manual',
          };
          if (typeof p.data.overflow === 'boolean') payload.overflow = p.data.overflow;
          this.lastCompaction = payload;
          this.emit('compaction', 'compaction', payload, start);
          break;
        }
        case 'snapshot':
        case 'patch':
        case 'agent':
        case 'retry':
        case 'file':
        case 'subtask': {
          const payload: TranscriptEventPayloads['system'] = { type, part: p.data };
          const text = systemText(type, p.data);
          if (text !== undefined) payload.text = text;
          this.emit('system', type, payload, start);
          break;
        }
        default:
          this.emit('unknown', 'unknown', { recordType: type, raw: p.data }, start);
      }
    }

    this.startRow(m, invalid);
    let made = false;
    if (role === 'assistant' && steps === 0) {
      // Tokens recorded on the message alone (no step-finish part): one request for the message.
      const usage = openCodeUsage(m.data.tokens, invalid);
      if (usage) {
        const payload: TranscriptEventPayloads['request'] = { usage };
        if (model !== undefined) payload.model = model;
        const finish = stringField(m.data, 'finish');
        if (finish !== undefined) payload.stopReason = finish;
        if (typeof m.data.cost === 'number') payload.cost = m.data.cost;
        if (duration !== undefined) payload.durationMs = duration;
        const req = this.emit('request', 'request', payload, requestAt);
        for (const e of this.inMessage) e.requestId ??= req.id;
        made = true;
      }
    }
    if (isObject(m.data.error)) {
      const e = m.data.error;
      const data = isObject(e.data) ? e.data : {};
      const text = stringField(data, 'message') ?? stringField(e, 'name') ?? 'error';
      const payload: TranscriptEventPayloads['system'] = { type: 'api_error', text, error: e };
      const name = stringField(e, 'name');
      if (name !== undefined) payload.name = name;
      this.emit('system', 'error', payload, completed);
      made = true;
    }
    if (!made) this.skipped.push({ source: m.source, reason: MESSAGE_ROW, recordType: role ?? 'message' });
    this.row = undefined;
  }

  private tool(p: Row, start: number | undefined, invalid: InvalidValue[]): void {
    const state = isObject(p.data.state) ? p.data.state : {};
    const callId = stringField(p.data, 'callID') ?? p.id;
    const name = stringField(p.data, 'tool') ?? '';
    const call: TranscriptEventPayloads['tool_call'] = { callId, name, input: state.input ?? {} };
    const title = stringField(state, 'title');
    if (title !== undefined) call.title = title;
    const callEvent = this.emit('tool_call', 'call', call, start);
    const meta = isObject(state.metadata) ? state.metadata : undefined;
    const child = meta ? (stringField(meta, 'sessionId') ?? stringField(meta, 'sessionID')) : undefined;
    if (child !== undefined) this.spawns.set(child, callEvent.id);
    const status = stringField(state, 'status');
    // pending and running calls have no result yet.
    if (status === 'pending' || status === 'running') return;
    const failed = status === 'error';
    const output = failed ? (state.error ?? state.output ?? '') : (state.output ?? state.error ?? '');
    if (!failed && state.output === undefined && state.error === undefined && status === undefined) return;
    const result: TranscriptEventPayloads['tool_result'] = { callId, output };
    if (failed) result.isError = true;
    if (status !== undefined) result.status = status;
    if (meta !== undefined) result.metadata = meta;
    const t = isObject(state.time) ? state.time : {};
    const begun = timestampValue(t.start, 'state.time.start', invalid);
    const end = timestampValue(t.end, 'state.time.end', invalid);
    if (begun !== undefined && end !== undefined && end >= begun) result.durationMs = end - begun;
    if (child !== undefined) result.agentId = child;
    this.emit('tool_result', 'result', result, end ?? start);
  }
}

function systemText(type: string, data: JsonObject): string | undefined {
  switch (type) {
    case 'patch':
      return Array.isArray(data.files)
        ? `changed ${data.files.filter((f) => typeof f === 'string').join(', ')}`
        : undefined;
    case 'file':
      return stringField(data, 'filename') ?? stringField(data, 'url');
    case 'agent':
      return stringField(data, 'name');
    case 'subtask':
      return stringField(data, 'prompt') ?? stringField(data, 'description');
    case 'retry': {
      const e = isObject(data.error) ? data.error : undefined;
      const d = e && isObject(e.data) ? e.data : undefined;
      return (d && stringField(d, 'message')) ?? (e && stringField(e, 'name'));
    }
    default:
      return undefined;
  }
}

/** The id of the session `files` are about: the store path's, else the first session row's. */
function mainSessionId(files: readonly SourceFile[], rows: readonly Row[]): string | undefined {
  const first = files[0];
  const store = first ? splitStorePath(first.path) : undefined;
  if (store) return store.id;
  return rows.find((r) => r.table === 'session')?.id;
}

/** A session's rows as read, with what says which lane each message is on. */
export interface SessionRows {
  /** The main lane's id ('' when the session names none that can be one). */
  mainId: string;
  rows: Row[];
  /** The session rows by id (the first of each). */
  sessions: Map<string, Row>;
  laneOf(sessionId: string | undefined): string;
}

/**
 * The rows of `files` and the lanes they make; rows that are no row of the session go to
 * `skipped`. A first file of the tree that is not a session file is refused.
 */
export function openSessionRows(
  files: readonly SourceFile[],
  skipped: SkippedRecord[],
): Result<SessionRows, UnknownFormatGeneration> {
  const rows = collectRows(files, skipped);
  const main = mainSessionId(files, rows);
  const first = files[0];
  if (
    main === undefined &&
    first &&
    !splitStorePath(first.path) &&
    rows.length > 0 &&
    rows[0]?.table !== 'session'
  )
    return err(unknownFormatGeneration(first.path, 1, 'the first file is not an OpenCode session file'));
  const mainId = main !== undefined && isWireId(main) ? main : '';
  const sessions = new Map<string, Row>();
  for (const r of rows) if (r.table === 'session' && !sessions.has(r.id)) sessions.set(r.id, r);
  const laneOf = (sid: string | undefined): string =>
    sid !== undefined && sid !== mainId && sessions.has(sid) && isWireId(sid) ? sid : mainId;
  return ok({ mainId, rows, sessions, laneOf });
}

/**
 * Each message in the order they were made (their rows' order where times tie) with its parts,
 * handed to `visit`. A repeated message, a part that names no message and a part of a message not
 * in the session go to `skipped`, in the order a translation meets them.
 */
export function forEachMessage(
  rows: readonly Row[],
  skipped: SkippedRecord[],
  visit: (message: Row, parts: readonly Row[]) => void,
): void {
  const messages = rows.filter((r) => r.table === 'message');
  const partsOf = new Map<string, Row[]>();
  // A message's parts mostly come one after another (a store gives them so): its list is looked
  // up once for the run, not for each part.
  let list: Row[] = [];
  let listOf: string | undefined;
  for (const r of rows) {
    if (r.table !== 'part') continue;
    const mid = r.messageId;
    if (mid === undefined) {
      skipped.push({ source: r.source, reason: 'a part that names no message', recordType: 'part' });
      continue;
    }
    if (mid !== listOf) {
      listOf = mid;
      const known = partsOf.get(mid);
      if (known) list = known;
      else {
        list = [];
        partsOf.set(mid, list);
      }
    }
    list.push(r);
  }
  const created = (r: Row): number => {
    const time = isObject(r.data.time) ? r.data.time : {};
    return typeof time.created === 'number' ? time.created : 0;
  };
  const order = messages.map((m, i) => ({ m, i, at: created(m) }));
  order.sort((a, b) => a.at - b.at || a.i - b.i);
  const known = new Set<string>();
  for (const { m } of order) {
    if (known.has(m.id)) {
      skipped.push({ source: m.source, reason: 'a message repeated', recordType: 'message' });
      continue;
    }
    known.add(m.id);
    visit(m, partsOf.get(m.id) ?? []);
  }
  for (const [mid, parts] of partsOf)
    if (!known.has(mid))
      for (const p of parts)
        skipped.push({
          source: p.source,
          reason: 'a part of a message not in the session',
          recordType: 'part',
        });
}

export function translateOpenCodeSession(
  files: readonly SourceFile[],
): Result<TranslatedSession, UnknownFormatGeneration> {
  const preSkipped: SkippedRecord[] = [];
  const read = openSessionRows(files, preSkipped);
  if (!read.ok) return read;
  const { mainId, rows, sessions, laneOf } = read.value;
  const t = new Translation(laneOf);
  t.skipped.push(...preSkipped);
  forEachMessage(rows, t.skipped, (m, parts) => t.message(m, parts));
  return ok(sessionOf(mainId, sessions, t.spawns, t.events, t.skipped));
}

/**
 * The session a translation's events make with its session rows: its lanes (a child session
 * each), its facts and capabilities. The session rows' skipped entries are added to `skipped`.
 */
export function sessionOf(
  mainId: string,
  sessions: ReadonlyMap<string, Row>,
  spawns: ReadonlyMap<string, string>,
  events: TranscriptEvent[],
  skipped: SkippedRecord[],
): TranslatedSession {
  // Session rows say where and when; they become no event of their own.
  const mainRow = sessions.get(mainId);
  const agents: Lane[] = [{ id: mainId }];
  const mainTitle = mainRow ? stringField(mainRow.data, 'title') : undefined;
  if (mainTitle !== undefined) agents[0]!.title = mainTitle;
  for (const [sid, s] of sessions) {
    if (sid === mainId) continue;
    if (!isWireId(sid)) {
      skipped.push({
        source: s.source,
        reason: 'a session whose id cannot name a lane',
        recordType: 'session',
      });
      continue;
    }
    const parent = stringField(s.data, 'parentID');
    const lane: Lane = {
      id: sid,
      parentId: parent !== undefined && sessions.has(parent) && isWireId(parent) ? parent : mainId,
    };
    const title = stringField(s.data, 'title');
    if (title !== undefined) lane.title = title;
    const spawn = spawns.get(sid);
    if (spawn !== undefined) lane.spawnEventId = spawn;
    agents.push(lane);
  }
  for (const s of sessions.values())
    skipped.push({
      source: s.source,
      reason: "the session row: its fields are the session's facts",
      recordType: 'session',
    });

  const session: TranscriptSession = { id: mainId };
  const invalid: InvalidValue[] = [];
  if (mainRow) {
    const cwd = stringField(mainRow.data, 'directory');
    if (cwd !== undefined) session.cwd = cwd;
    if (mainTitle !== undefined) session.title = mainTitle;
  }
  let firstAt =
    mainRow && isObject(mainRow.data.time)
      ? timestampValue(mainRow.data.time.created, 'time.created', invalid)
      : undefined;
  let lastAt: number | undefined;
  for (const e of events) {
    if (e.timestamp === undefined) continue;
    if (firstAt === undefined || e.timestamp < firstAt) firstAt = e.timestamp;
    if (lastAt === undefined || e.timestamp > lastAt) lastAt = e.timestamp;
  }
  if (firstAt !== undefined) session.startedAt = firstAt;
  if (lastAt !== undefined) session.endedAt = lastAt;
  const out: TranslatedSession = {
    agents,
    // Child sessions are always recorded as such: none is a count of 0, not an unknown.
    capabilities: shownCapabilities(events, ['subagents']),
    events,
    session,
    skipped,
  };
  const version = mainRow ? stringField(mainRow.data, 'version') : undefined;
  if (version !== undefined) out.agentVersion = version;
  return out;
}
