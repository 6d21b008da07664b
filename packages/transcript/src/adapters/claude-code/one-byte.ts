// Parsing a line of a file known to be well-formed UTF-8 without decoding it: its bytes read as a
// one-byte string (Node copies them natively) are JSON exactly when the decoded text is, since
// every byte past ASCII belongs to a character inside a string either way. Only the strings the
// summary reads differ (characters past ASCII come out as one per byte), so a line whose read
// strings hold any is parsed again from its decoded text.

import { OPEN_BRACE } from '../../json-bytes.js';
import { isRec, type Rec, rec } from './records.js';

/** The line could not be settled here: read it the exact way. */
export const UNSETTLED = Symbol('unsettled');

type Latin1Slice = (start: number, end: number) => string;

/** Whether `data` can be read as a one-byte string natively (a Node Buffer). */
export const hasOneByteView = (data: Uint8Array): boolean =>
  typeof (data as { latin1Slice?: Latin1Slice }).latin1Slice === 'function';

const HIGH = /[\u0080-\u00ff]/;

const isPlain = (v: unknown): boolean => typeof v !== 'string' || !HIGH.test(v);

/** Whether every string of the record the summary reads as text (not only against an ASCII word) is ASCII. */
function readStringsPlain(r: Rec): boolean {
  if (!isPlain(r.type) || !isPlain(r.uuid) || !isPlain(r.timestamp) || !isPlain(r.requestId)) return false;
  const message = rec(r.message);
  if (!message) return true;
  if (!isPlain(message.id)) return false;
  const content = message.content;
  if (typeof content === 'string') return isPlain(content);
  if (Array.isArray(content))
    for (const block of content)
      if (isRec(block) && block.type === 'text' && !isPlain(block.text)) return false;
  return true;
}

/**
 * The record on a line of a well-formed UTF-8 Buffer; undefined when the line is an object that
 * JSON.parse refuses (translation drops it too); UNSETTLED for anything else (no object, a byte
 * order mark, or strings the summary reads that hold characters past ASCII).
 */
export function recordFromBytes(line: Uint8Array): Rec | undefined | typeof UNSETTLED {
  // A line that opens no object may still be JSON, and a byte order mark is dropped by decoding.
  if (line[0] !== OPEN_BRACE) return UNSETTLED;
  const text = (line as unknown as { latin1Slice: Latin1Slice }).latin1Slice(0, line.length);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  return isRec(value) && readStringsPlain(value) ? value : UNSETTLED;
}
