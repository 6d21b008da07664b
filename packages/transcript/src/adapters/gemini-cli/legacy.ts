// A legacy session file: one pretty-printed ConversationRecord, rewritten whole on each update.
// Each element of `messages` is one record, pointed at by its exact byte range. The bytes before
// the first element (the document's own fields) are a session_meta system event; the bytes after
// the last one are a skipped record; what lies between elements is only commas and whitespace.
// A document cut short (caught mid-rewrite) still yields every complete message.
import type { SourceFile } from '../../adapter.js';
import { parseJson } from '../../depth.js';
import {
  type ByteRange,
  lineAt,
  lineStarts,
  scanArray,
  scanObject,
  skipWhitespace,
} from '../../json-ranges.js';
import { decodeUtf8 } from '../../lines.js';
import type { TranscriptEvent } from '../../model.js';
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

export function translateLegacy(
  file: SourceFile,
  fileIndex: number,
  ids: EventIds,
): Result<TranslatedFile, UnknownFormatGeneration> {
  const data = file.data;
  const starts = lineStarts(data);
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
  const fields: JsonObject = {};
  let list: { key: string; offset: number } | undefined;
  for (const m of doc.items) {
    if (list === undefined && (m.key === 'messages' || m.key === 'history') && data[m.valueOffset] === 0x5b) {
      list = { key: m.key, offset: m.valueOffset };
      continue;
    }
    if (m.valueEnd === -1) continue;
    const v = parseBytes(data.subarray(m.valueOffset, m.valueEnd));
    if (v.ok) fields[m.key] = v.value;
  }
  if (!doc.items.some((m) => CONVERSATION_KEYS.includes(m.key))) {
    const whole = parseBytes(data);
    if (whole.ok) {
      const detail = 'a JSON object with none of sessionId, projectHash, startTime, lastUpdated, messages';
      return err(unknownFormatGeneration(file.path, lineAt(starts, open), detail));
    }
    skip(0, data.length, doc.malformedAt !== undefined ? 'invalid JSON' : 'truncated document');
    return ok(out);
  }
  mergeMeta(out.meta, fields);

  const elements = list === undefined ? undefined : scanArray(data, list.offset);
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

  for (const el of items) {
    const where = `${fileIndex}:${el.offset}`;
    const parsed = parseBytes(data.subarray(el.offset, el.offset + el.length));
    if (!parsed.ok) {
      skip(el.offset, el.offset + el.length, parsed.reason);
      continue;
    }
    const source = pointer(el.offset, el.offset + el.length);
    if (list?.key === 'messages') {
      const events = messageEvents(parsed.value, { source, where, fromCheckpoint: false }, ids);
      out.events.push(...events);
      // A message with nothing in it (no text, thoughts, calls or tokens) is still accounted for.
      if (events.length === 0) {
        const type = isObject(parsed.value) ? stringField(parsed.value, 'type') : undefined;
        skip(el.offset, el.offset + el.length, EMPTY_MESSAGE, type);
      }
    } else {
      // A `history` list is an older shape (bare Content items) that no known version recorded chats in.
      const e: TranscriptEvent = {
        id: ids.make(where, where),
        seq: 0,
        kind: 'unknown',
        agentId: '',
        source,
        payload: { recordType: 'history', raw: parsed.value },
      };
      out.events.push(e);
    }
  }

  const tailStart = last ? last.offset + last.length : headerEnd;
  let reason = 'end of the document (fields after the messages are read into session_meta)';
  if (elements && elements.end === -1)
    reason = elements.malformedAt !== undefined ? 'invalid JSON' : 'truncated document';
  else if (doc.end === -1) reason = doc.malformedAt !== undefined ? 'invalid JSON' : 'truncated document';
  else if (skipWhitespace(data, doc.end) < data.length) reason = 'invalid JSON';
  skip(tailStart, data.length, reason);
  return ok(out);
}
