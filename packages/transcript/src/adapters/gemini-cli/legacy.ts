// A legacy session file: one pretty-printed ConversationRecord, rewritten whole on each update.
// Each element of `messages` is one record, pointed at by its exact byte range. The bytes before
// the first element (the document's own fields) are a session_meta system event; the bytes after
// the last one are a skipped record; what lies between elements is only commas and whitespace.
// A document cut short (caught mid-rewrite) still yields every complete message.
import type { SourceFile } from '../../adapter.js';
import { parseJson } from '../../depth.js';
import {
  type ByteRange,
  type ContainerScan,
  lineAt,
  lineStarts,
  type MemberSpan,
  scanArray,
  scanObject,
  skipWhitespace,
} from '../../json-ranges.js';
import { decodeUtf8 } from '../../lines.js';
import type { SkippedRecord, SourcePointer, TranscriptEvent } from '../../model.js';
import { err, ok, type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import type { EventIds } from './ids.js';
import { EMPTY_MESSAGE, messageEvents } from './messages.js';
import { CONVERSATION_KEYS, isObject, type JsonObject, mergeMeta, stringField } from './records.js';
import { rangePointer, type TranslatedFile } from './translated-file.js';

type Parsed = { ok: true; value: unknown } | { ok: false; reason: string };

export function parseBytes(bytes: Uint8Array): Parsed {
  if (bytes.indexOf(0) !== -1) return { ok: false, reason: 'NUL bytes' };
  const text = decodeUtf8(bytes);
  if (text === undefined) return { ok: false, reason: 'invalid UTF-8' };
  try {
    return { ok: true, value: parseJson(text) };
  } catch {
    return { ok: false, reason: 'invalid JSON' };
  }
}

const describe = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/**
 * What a read of a legacy document keeps, so that a read of the same file rewritten can take the
 * messages whose bytes did not change from it instead of parsing and translating them again.
 */
export interface LegacyRead {
  data: Uint8Array;
  /** Where the `messages` (or `history`) array opens. */
  listOpen: number;
  listKey: string;
  headerId: string;
  starts: number[];
  elements: ReusedElement[];
  /** Every message was taken from the read before: the file made the same event ids. */
  unchanged: boolean;
  /** The index of the first element translated by this read (the ones before were taken over). */
  translatedFrom: number;
}

interface ReusedElement {
  range: ByteRange;
  events: TranscriptEvent[];
  skipped: SkippedRecord[];
  /** Its bytes are not JSON. */
  malformed: boolean;
}

/** A legacy file's translation, with what the next read of it may take over. */
export interface LegacyTranslation extends TranslatedFile {
  read?: LegacyRead;
  /** Read on from the read before, the document held bytes that only a whole read reads right. */
  doubtful?: true;
}

/** How many messages legacy reads parsed and translated: the work a rewrite costs. */
export const legacyWork = { messages: 0 };

export function translateLegacy(
  file: SourceFile,
  fileIndex: number,
  ids: EventIds,
  before?: LegacyRead,
): Result<LegacyTranslation, UnknownFormatGeneration> {
  const data = file.data;
  const again = before && layoutAfter(data, before);
  if (again) return ok(translateLaidOut(file, fileIndex, ids, again, before));
  const starts = lineStarts(data);
  const out: TranslatedFile = { meta: {}, events: [], skipped: [] };
  const skip = (from: number, to: number, reason: string) => {
    if (to > from)
      out.skipped.push({ source: rangePointer(file, from, to - from, lineAt(starts, from)), reason });
  };

  const open = skipWhitespace(data, 0);
  if (open >= data.length) {
    skip(0, data.length, 'empty document');
    return ok(out);
  }
  if (data[open] !== 0x7b) {
    const whole = parseBytes(data);
    if (whole.ok) {
      const detail = `a JSON ${describe(whole.value)}, not a conversation record`;
      return err(unknownFormatGeneration(file.path, lineAt(starts, open), detail));
    }
    skip(0, data.length, whole.reason);
    return ok(out);
  }

  const doc = scanObject(data, open);
  if (!doc.items.some((m) => CONVERSATION_KEYS.includes(m.key))) {
    const whole = parseBytes(data);
    if (whole.ok) {
      const detail = 'a JSON object with none of sessionId, projectHash, startTime, lastUpdated, messages';
      return err(unknownFormatGeneration(file.path, lineAt(starts, open), detail));
    }
    skip(0, data.length, doc.malformedAt !== undefined ? 'invalid JSON' : 'truncated document');
    return ok(out);
  }
  const list = doc.items.find(isList(data));
  const elements = list === undefined ? undefined : scanArray(data, list.valueOffset);
  return ok(translateLaidOut(file, fileIndex, ids, { doc, list, elements, starts, reused: 0 }));
}

/** The member holding the messages: the first `messages` or `history` whose value is an array. */
const isList =
  (data: Uint8Array) =>
  (m: MemberSpan): boolean =>
    (m.key === 'messages' || m.key === 'history') && data[m.valueOffset] === 0x5b;

/** Where a document's parts are: its members, the messages' elements, its lines. */
interface Layout {
  doc: ContainerScan<MemberSpan>;
  list: MemberSpan | undefined;
  elements: ContainerScan<ByteRange> | undefined;
  starts: number[];
  /** The first elements, byte for byte those of the read before, at the same offsets. */
  reused: number;
}

/**
 * The layout of a rewritten document found from the one before: the members before the messages
 * are scanned, and when the messages open where they did, the elements that lie wholly before the
 * first byte that differs are the same elements; only the rest is scanned. Undefined when the
 * document changed shape (it is then read whole).
 */
function layoutAfter(data: Uint8Array, before: LegacyRead): Layout | undefined {
  const open = skipWhitespace(data, 0);
  if (data[open] !== 0x7b) return undefined;
  const head = scanObject(data, open, isList(data));
  const list = head.items.at(-1);
  if (!list || !isList(data)(list) || list.valueOffset !== before.listOpen || list.key !== before.listKey)
    return undefined;
  const headStarts = lineStarts(data.subarray(0, list.valueOffset));
  // The same line numbers for what follows only when the members before the messages span as many lines.
  if (firstAtOrAfter(before.starts, list.valueOffset) !== headStarts.length) return undefined;
  const differs = firstDifference(before.data, data, list.valueOffset);
  let reused = 0;
  while (reused < before.elements.length) {
    const r = before.elements[reused]!.range;
    if (r.offset + r.length > differs) break;
    reused++;
  }
  const kept = before.elements.slice(0, reused).map((e) => e.range);
  const elements = scanArray(data, list.valueOffset, kept);
  // Bytes that stop being JSON inside the messages: a whole scan may see the members after them
  // differently, so such a document is read whole.
  if (elements.malformedAt !== undefined) return undefined;
  list.valueEnd = elements.end;
  const doc =
    elements.end === -1
      ? { items: head.items, end: -1, partialAt: list.keyOffset }
      : scanObject(data, open, undefined, { at: elements.end, items: head.items });
  // Lines that start before the first difference are where they were; from it on they are found
  // again (a line starting right at it was not one where the bytes before ended). The read before
  // is done with: its list is taken over rather than copied.
  const starts = before.starts;
  starts.length = firstAtOrAfter(starts, differs);
  for (const [i, at] of headStarts.entries()) starts[i] = at;
  for (let nl = data.indexOf(10, differs - 1); nl !== -1; nl = data.indexOf(10, nl + 1))
    if (nl + 1 < data.length) starts.push(nl + 1);
  return { doc, list, elements, starts, reused };
}

/** The index of the first of the ascending `values` that is at least `at` (their count when none is). */
function firstAtOrAfter(values: readonly number[], at: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first offset from `from` on where `a` and `b` differ (the shorter's length when one ends first). */
function firstDifference(a: Uint8Array, b: Uint8Array, from: number): number {
  const end = Math.min(a.length, b.length);
  let i = from;
  // Four bytes at a time where both lie aligned alike: the documents run to megabytes.
  if ((a.byteOffset - b.byteOffset) % 4 === 0) {
    while (i < end && (a.byteOffset + i) % 4 !== 0) {
      if (a[i] !== b[i]) return i;
      i++;
    }
    const words = (end - i) >> 2;
    if (words > 0) {
      const wa = new Int32Array(a.buffer, a.byteOffset + i, words);
      const wb = new Int32Array(b.buffer, b.byteOffset + i, words);
      let w = 0;
      while (w < words && wa[w] === wb[w]) w++;
      i += w * 4;
    }
  }
  while (i < end && a[i] === b[i]) i++;
  return i;
}

function translateLaidOut(
  file: SourceFile,
  fileIndex: number,
  ids: EventIds,
  layout: Layout,
  before?: LegacyRead,
): LegacyTranslation {
  const data = file.data;
  const { doc, list, elements, starts } = layout;
  const out: TranslatedFile = { meta: {}, events: [], skipped: [] };
  const pointer = (from: number, to: number) => rangePointer(file, from, to - from, lineAt(starts, from));
  const skip = (from: number, to: number, reason: string, recordType?: string) => {
    if (to <= from) return;
    out.skipped.push(
      recordType === undefined
        ? { source: pointer(from, to), reason }
        : { source: pointer(from, to), reason, recordType },
    );
  };

  const fields: JsonObject = {};
  for (const m of doc.items) {
    if (m === list || m.valueEnd === -1) continue;
    const v = parseBytes(data.subarray(m.valueOffset, m.valueEnd));
    if (v.ok) fields[m.key] = v.value;
  }
  mergeMeta(out.meta, fields);

  const items: ByteRange[] = elements?.items ?? [];
  const first = items[0];
  const last = items.at(-1);
  const cut = elements ? (elements.partialAt ?? elements.malformedAt) : (doc.partialAt ?? doc.malformedAt);
  const headerEnd = first?.offset ?? cut ?? data.length;

  const header = { type: 'session_meta', ...out.meta, fields };
  const headerId = ids.make(`${out.meta.sessionId ?? 'session'}:meta`, `${fileIndex}:0`);
  out.events.push({
    id: headerId,
    seq: 0,
    kind: 'system',
    agentId: '',
    source: pointer(0, headerEnd),
    payload: header,
  });

  // Messages are taken from the read before only while the ids made so far are those it made.
  const reused = before && before.headerId === headerId ? layout.reused : 0;
  const kept: ReusedElement[] = [];
  let malformed = false;
  items.forEach((el, i) => {
    const old = i < reused ? before!.elements[i]! : undefined;
    if (old) {
      for (const e of old.events) ids.take(e.id);
      out.events.push(...old.events);
      out.skipped.push(...old.skipped);
      kept.push(old);
      malformed ||= old.malformed;
      return;
    }
    const eventsFrom = out.events.length;
    const skippedFrom = out.skipped.length;
    const bad = !translateElement(data, el, fileIndex, list?.key, ids, out, pointer, skip);
    malformed ||= bad;
    kept.push({
      range: el,
      events: out.events.slice(eventsFrom),
      skipped: out.skipped.slice(skippedFrom),
      malformed: bad,
    });
  });

  const tailStart = last ? last.offset + last.length : headerEnd;
  let reason = 'end of the document (fields after the messages are read into session_meta)';
  if (elements && elements.end === -1)
    reason = elements.malformedAt !== undefined ? 'invalid JSON' : 'truncated document';
  else if (doc.end === -1) reason = doc.malformedAt !== undefined ? 'invalid JSON' : 'truncated document';
  else if (skipWhitespace(data, doc.end) < data.length) reason = 'invalid JSON';
  skip(tailStart, data.length, reason);
  const read: LegacyRead | undefined =
    list === undefined
      ? undefined
      : {
          data,
          listOpen: list.valueOffset,
          listKey: list.key,
          headerId,
          starts,
          elements: kept,
          translatedFrom: reused,
          unchanged:
            before !== undefined && reused === items.length && items.length === before.elements.length,
        };
  const result: LegacyTranslation = read ? { ...out, read } : out;
  // Elements that are not JSON may hide where the messages end from a scan that went on from the
  // read before: only a whole read says for sure.
  if (before && malformed) result.doubtful = true;
  return result;
}

/** One element of the messages (or of an older `history`) as events, or as a skipped record. */
function translateElement(
  data: Uint8Array,
  el: ByteRange,
  fileIndex: number,
  listKey: string | undefined,
  ids: EventIds,
  out: TranslatedFile,
  pointer: (from: number, to: number) => SourcePointer,
  skip: (from: number, to: number, reason: string, recordType?: string) => void,
): boolean {
  legacyWork.messages++;
  const where = `${fileIndex}:${el.offset}`;
  const parsed = parseBytes(data.subarray(el.offset, el.offset + el.length));
  if (!parsed.ok) {
    skip(el.offset, el.offset + el.length, parsed.reason);
    return false;
  }
  const source = pointer(el.offset, el.offset + el.length);
  if (listKey === 'messages') {
    const events = messageEvents(parsed.value, { source, where, fromCheckpoint: false }, ids);
    out.events.push(...events);
    // A message with nothing in it (no text, thoughts, calls or tokens) is still accounted for.
    if (events.length === 0) {
      const type = isObject(parsed.value) ? stringField(parsed.value, 'type') : undefined;
      skip(el.offset, el.offset + el.length, EMPTY_MESSAGE, type);
    }
    return true;
  }
  // A `history` list is an older shape (bare Content items) that no known version recorded chats in.
  out.events.push({
    id: ids.make(where, where),
    seq: 0,
    kind: 'unknown',
    agentId: '',
    source,
    payload: { recordType: 'history', raw: parsed.value },
  });
  return true;
}
