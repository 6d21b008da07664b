// A rollout's lines as records of one shape, whatever the format generation that wrote them.
//
// Two generations are known. The envelope one (Codex CLI since late summer 2025) writes
// `{timestamp, type, payload}` on every line, starting with `session_meta`. The older bare one
// writes a header `{id, timestamp, instructions, git?}` first, then `{record_type: "state"}`
// markers and bare response items with no envelope and, mostly, no timestamp.
import type { SourceFile } from '../../adapter.js';
import { type LineSpan, parsedLines } from '../../lines.js';
import { checkTimestamp, type InvalidValue, timestampValue } from '../../values.js';

export type Json = Record<string, unknown>;

/** Which file a record was read from: its path and codec, not its bytes, which a record outlives. */
export type RecordFile = Pick<SourceFile, 'path' | 'codec'>;

/** One line of a rollout. One class, so that every record has the same shape. */
export class CodexRecord {
  /** Values of the line left out because the contract cannot carry them, with why. */
  readonly invalid: InvalidValue[] = [];

  constructor(
    readonly file: RecordFile,
    readonly fileIndex: number,
    readonly span: LineSpan,
    /** The parsed line; undefined once released. */
    public value: unknown,
    /** The envelope type ('session_meta', 'response_item', 'event_msg', …); 'state' for bare-generation markers; '' when the line has none. */
    readonly type: string,
    /** The payload's own `type` for response_item and event_msg records, else ''. */
    readonly sub: string,
    public payload: Json | undefined,
    /** Milliseconds since the epoch, when the line has a timestamp. */
    readonly ts: number | undefined,
    /** Why the line is unusable; undefined when it parsed. */
    readonly reason: string | undefined = undefined,
  ) {}

  /** Lets the parsed line go once nothing reads it again; its events keep what they took of it. */
  release(): void {
    this.value = undefined;
    this.payload = undefined;
  }
}

/**
 * A file's records by line order. A translation that goes on as the file grows lets go of the
 * records no later line reads (undefined here), so that a long rollout's are not all held.
 */
export type RecordList = readonly (CodexRecord | undefined)[];

const recordFile = (file: SourceFile): RecordFile =>
  file.codec === undefined ? { path: file.path } : { path: file.path, codec: file.codec };

/** Top-level record types the envelope generation writes. */
export const ENVELOPE_TYPES: ReadonlySet<string> = new Set([
  'session_meta',
  'response_item',
  'event_msg',
  'turn_context',
  'compacted',
  'inter_agent_communication',
  'inter_agent_communication_metadata',
  'token_usage_record',
  'world_state',
  'retained_context',
  'security_risk_score',
  'realtime_item',
]);

/** Response item types, which the bare generation writes at the top level of a line. */
export const RESPONSE_ITEM_TYPES: ReadonlySet<string> = new Set([
  'message',
  'reasoning',
  'function_call',
  'function_call_output',
  'custom_tool_call',
  'custom_tool_call_output',
  'local_shell_call',
  'web_search_call',
  'tool_search_call',
  'tool_search_output',
  'image_generation_call',
  'ghost_snapshot',
  'compaction',
  'agent_message',
  'other',
]);

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;

/** Numbers below this are seconds, not milliseconds. */
const SECONDS_BELOW = 1e12;

/** A record timestamp in ms: RFC 3339 text, or a number of seconds or milliseconds. */
export const timeOf = (v: unknown, invalid?: InvalidValue[], field = 'timestamp'): number | undefined =>
  timestampValue(v, field, invalid, SECONDS_BELOW);

/**
 * Every line of a file as a record; the first parsed one may be the bare generation's header. A
 * read that continues an earlier one starts at byte `from`, line `line`, past the first record.
 */
export function readRecords(
  file: SourceFile,
  fileIndex: number,
  from = 0,
  line = 1,
  seenFirst = false,
): CodexRecord[] {
  const records: CodexRecord[] = [];
  const origin = recordFile(file);
  let first = !seenFirst;
  for (const { span, parsed } of parsedLines(file, from, line)) {
    if (!parsed.ok) {
      records.push(
        new CodexRecord(origin, fileIndex, span, undefined, '', '', undefined, undefined, parsed.reason),
      );
      continue;
    }
    records.push(normalize(origin, fileIndex, span, parsed.value, first));
    first = false;
  }
  return records;
}

function normalize(
  file: RecordFile,
  fileIndex: number,
  span: LineSpan,
  value: unknown,
  first: boolean,
): CodexRecord {
  const make = (type: string, sub: string, payload: Json | undefined, ts: number | undefined) =>
    new CodexRecord(file, fileIndex, span, value, type, sub, payload, ts);
  if (!isObject(value)) return make('', '', undefined, undefined);
  const invalid: InvalidValue[] = [];
  const ts = timeOf(value.timestamp, invalid);
  const made = normalizeObject(value, ts, first, make);
  made.invalid.push(...invalid);
  return made;
}

function normalizeObject(
  value: Json,
  ts: number | undefined,
  first: boolean,
  make: (type: string, sub: string, payload: Json | undefined, ts: number | undefined) => CodexRecord,
): CodexRecord {
  const { type, sub, payload } = recordShape(value, first);
  return make(type, sub, payload, ts);
}

export interface RecordShape {
  type: string;
  sub: string;
  payload: Json | undefined;
}

/** A parsed line's envelope type, payload type and payload; `first` for a file's first parsed line. */
export function recordShape(value: Json, first: boolean): RecordShape {
  const type = str(value.type);
  if (type !== undefined && ('payload' in value || ENVELOPE_TYPES.has(type))) {
    const payload = isObject(value.payload) ? value.payload : 'payload' in value ? undefined : value;
    const sub = type === 'response_item' || type === 'event_msg' ? (str(payload?.type) ?? '') : '';
    return { type, sub, payload };
  }
  if ('record_type' in value) return { type: 'state', sub: '', payload: value };
  if (type !== undefined) return { type: 'response_item', sub: type, payload: value };
  if (first && str(value.id) !== undefined) return { type: 'session_meta', sub: '', payload: value };
  return { type: '', sub: '', payload: undefined };
}

/**
 * Why the first parsed record of a file belongs to no generation Codex wrote, or undefined
 * when it does.
 */
export const unknownGeneration = (rec: CodexRecord): string | undefined => unknownGenerationOf(rec.value);

/** unknownGeneration of a parsed value. */
export function unknownGenerationOf(v: unknown): string | undefined {
  if (!isObject(v)) return `the first record is not a JSON object`;
  const type = str(v.type);
  if (type !== undefined) {
    if ('payload' in v || ENVELOPE_TYPES.has(type) || RESPONSE_ITEM_TYPES.has(type)) return undefined;
    return `the first record has type '${type}' and no payload`;
  }
  if ('record_type' in v) return undefined;
  if (str(v.id) !== undefined && checkTimestamp(v.timestamp, SECONDS_BELOW)?.ok) return undefined;
  return `the first record has neither an envelope type nor a session header (keys: ${Object.keys(v).slice(0, 6).join(', ')})`;
}

let cachedDay = '';
let cachedDayMs: number | undefined;

/** The number the two digits at `i` of `v` write, or NaN. */
function twoDigits(v: string, i: number): number {
  const a = v.charCodeAt(i) - 0x30;
  const b = v.charCodeAt(i + 1) - 0x30;
  return a >= 0 && a <= 9 && b >= 0 && b <= 9 ? a * 10 + b : Number.NaN;
}

/** A date `YYYY-MM-DD`'s start in ms, or undefined. */
function dayStart(day: string): number | undefined {
  const digits =
    twoDigits(day, 0) >= 0 && twoDigits(day, 2) >= 0 && twoDigits(day, 5) >= 0 && twoDigits(day, 8) >= 0;
  if (!digits || day.charCodeAt(4) !== 0x2d || day.charCodeAt(7) !== 0x2d) return undefined;
  return timeOf(`${day}T00:00:00.000Z`);
}

/**
 * timeOf, faster for the times Codex writes (`2026-02-23T11:54:52.352Z`): the date part is
 * parsed once for all the records of a day and the time of day added to it.
 */
export function timeAt(v: unknown): number | undefined {
  if (typeof v !== 'string' || v.length !== 24 || v.charCodeAt(23) !== 0x5a || v.charCodeAt(19) !== 0x2e)
    return timeOf(v);
  const hours = twoDigits(v, 11);
  const minutes = twoDigits(v, 14);
  const seconds = twoDigits(v, 17);
  const hundreds = v.charCodeAt(20) - 0x30;
  const ms = hundreds * 100 + twoDigits(v, 21);
  if (
    !(hours <= 23 && minutes <= 59 && seconds <= 59 && hundreds >= 0 && hundreds <= 9 && ms >= 0) ||
    v.charCodeAt(10) !== 0x54 ||
    v.charCodeAt(13) !== 0x3a ||
    v.charCodeAt(16) !== 0x3a
  )
    return timeOf(v);
  if (cachedDay === '' || !v.startsWith(cachedDay)) {
    cachedDay = v.slice(0, 10);
    cachedDayMs = dayStart(cachedDay);
  }
  if (cachedDayMs === undefined) return timeOf(v);
  return cachedDayMs + ((hours * 60 + minutes) * 60 + seconds) * 1000 + ms;
}
