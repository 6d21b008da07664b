// Checking that a line's bytes are exactly what JSON.parse accepts, without building any value,
// and finding the members of its top-level object and of its `payload` object on the way, so
// that the summary parses only the few members it reads and only checks the rest of the line.
// One pass over the bytes, no recursion: the open containers are a stack.
//
// The bytes are read as JSON.parse reads them one byte a character (well-formed UTF-8 read so
// is JSON exactly when its decoded text is): a byte past ASCII may stand only inside a string.
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  MINUS,
  NINE,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
  ZERO,
} from '../../json-bytes.js';

/** The bytes are not JSON: JSON.parse throws on them too. */
export const NOT_JSON = 0;
/** Beyond what the scan records (an escaped key, too many members, very deep): parse the line. */
export const UNSCANNED = 1;
/** A JSON object whose members are recorded. */
export const SCANNED = 2;

const MAX_MEMBERS = 64;
const MAX_DEPTH = 256;

const PAYLOAD = [0x22, 0x70, 0x61, 0x79, 0x6c, 0x6f, 0x61, 0x64, 0x22]; // "payload", quotes included

const isDigit = (c: number): boolean => c >= ZERO && c <= NINE;
const isHex = (c: number): boolean =>
  (c >= ZERO && c <= NINE) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

/** An object's members as offsets, four per member: key start (its quote), key end, value start, value end. */
export class Members {
  readonly at = new Int32Array(MAX_MEMBERS * 4);
  count = 0;
}

export class LineScan {
  /** The top-level object's members. */
  readonly top = new Members();
  /** The members of the last `payload` member whose value is an object. */
  readonly payload = new Members();
  private readonly stack = new Uint8Array(MAX_DEPTH);

  /** Scans `b`, which holds one line and nothing else. */
  scan(b: Uint8Array): typeof NOT_JSON | typeof UNSCANNED | typeof SCANNED {
    const end = b.length;
    const { top, payload, stack } = this;
    top.count = 0;
    payload.count = 0;
    let depth = 0;
    /** Inside the payload object (its own members are at depth 2). */
    let inPayload = false;
    /** The top-level member being read is `payload`. */
    let payloadKey = false;
    let i = skipSpace(b, 0, end);
    if (b[i] !== OPEN_BRACE) return UNSCANNED;
    let expectKey = false;
    for (;;) {
      i = skipSpace(b, i, end);
      if (i >= end) return NOT_JSON;
      let c = b[i]!;
      if (expectKey) {
        if (c !== QUOTE) return NOT_JSON;
        const keyStart = i;
        escaped = false;
        const keyEnd = stringEnd(b, i, end);
        if (keyEnd < 0) return NOT_JSON;
        i = skipSpace(b, keyEnd, end);
        if (b[i] !== COLON) return NOT_JSON;
        i = skipSpace(b, i + 1, end);
        if (depth === 1 || (depth === 2 && inPayload)) {
          if (escaped) return UNSCANNED;
          const m = depth === 1 ? top : payload;
          if (m.count === MAX_MEMBERS) return UNSCANNED;
          const k = m.count++ * 4;
          m.at[k] = keyStart;
          m.at[k + 1] = keyEnd;
          m.at[k + 2] = i;
          m.at[k + 3] = -1;
          if (depth === 1) payloadKey = isPayload(b, keyStart, keyEnd);
        }
        expectKey = false;
        if (i >= end) return NOT_JSON;
        c = b[i]!;
      }
      // A value starts at i.
      if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        if (depth === MAX_DEPTH) return UNSCANNED;
        if (depth === 1 && payloadKey && c === OPEN_BRACE) {
          inPayload = true;
          payload.count = 0;
        }
        stack[depth++] = c;
        i = skipSpace(b, i + 1, end);
        if (i >= end) return NOT_JSON;
        if (b[i] !== (c === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET)) {
          expectKey = c === OPEN_BRACE;
          continue;
        }
        // Empty: it ends here.
        depth--;
        if (depth === 1) inPayload = false;
        i++;
      } else if (c === QUOTE) {
        i = stringEnd(b, i, end);
        if (i < 0) return NOT_JSON;
      } else if (c === MINUS || isDigit(c)) {
        i = numberEnd(b, i, end);
        if (i < 0) return NOT_JSON;
      } else {
        i = literalEnd(b, i, end);
        if (i < 0) return NOT_JSON;
      }
      // A value ended at i; the containers that close right after it end too.
      for (;;) {
        if (depth === 0) return skipSpace(b, i, end) === end ? SCANNED : NOT_JSON;
        if (depth === 1) top.at[top.count * 4 - 1] = i;
        else if (depth === 2 && inPayload) payload.at[payload.count * 4 - 1] = i;
        i = skipSpace(b, i, end);
        if (i >= end) return NOT_JSON;
        c = b[i]!;
        const open = stack[depth - 1];
        if (c === COMMA) {
          i++;
          expectKey = open === OPEN_BRACE;
          break;
        }
        if ((open === OPEN_BRACE && c === CLOSE_BRACE) || (open === OPEN_BRACKET && c === CLOSE_BRACKET)) {
          depth--;
          if (depth === 1) inPayload = false;
          i++;
          continue;
        }
        return NOT_JSON;
      }
    }
  }
}

function skipSpace(b: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const c = b[i]!;
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

function isPayload(b: Uint8Array, from: number, to: number): boolean {
  if (to - from !== PAYLOAD.length) return false;
  for (let k = 0; k < PAYLOAD.length; k++) if (b[from + k] !== PAYLOAD[k]) return false;
  return true;
}

/** Set by stringEnd when the string holds an escape. */
let escaped = false;

/** The index after the string whose quote is at `i`, or -1 when it is no JSON string. */
function stringEnd(b: Uint8Array, i: number, end: number): number {
  i++;
  for (;;) {
    if (i >= end) return -1;
    const c = b[i]!;
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) {
      escaped = true;
      const e = b[i + 1];
      if (e === 0x75) {
        if (i + 5 >= end) return -1;
        if (!isHex(b[i + 2]!) || !isHex(b[i + 3]!) || !isHex(b[i + 4]!) || !isHex(b[i + 5]!)) return -1;
        i += 6;
        continue;
      }
      // \" \\ \/ \b \f \n \r \t
      if (
        e === QUOTE ||
        e === BACKSLASH ||
        e === 0x2f ||
        e === 0x62 ||
        e === 0x66 ||
        e === 0x6e ||
        e === 0x72 ||
        e === 0x74
      ) {
        i += 2;
        continue;
      }
      return -1;
    }
    if (c < 0x20) return -1;
    i++;
  }
}

function numberEnd(b: Uint8Array, i: number, end: number): number {
  if (b[i] === MINUS) i++;
  if (i >= end) return -1;
  if (b[i] === ZERO) i++;
  else if (isDigit(b[i]!)) while (i < end && isDigit(b[i]!)) i++;
  else return -1;
  if (i < end && b[i] === 0x2e) {
    i++;
    if (i >= end || !isDigit(b[i]!)) return -1;
    while (i < end && isDigit(b[i]!)) i++;
  }
  if (i < end && (b[i] === 0x65 || b[i] === 0x45)) {
    i++;
    if (i < end && (b[i] === 0x2b || b[i] === MINUS)) i++;
    if (i >= end || !isDigit(b[i]!)) return -1;
    while (i < end && isDigit(b[i]!)) i++;
  }
  return i;
}

const TRUE = [0x74, 0x72, 0x75, 0x65];
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL = [0x6e, 0x75, 0x6c, 0x6c];

function literalEnd(b: Uint8Array, i: number, end: number): number {
  const c = b[i];
  const word = c === 0x74 ? TRUE : c === 0x66 ? FALSE : c === 0x6e ? NULL : undefined;
  if (word === undefined || i + word.length > end) return -1;
  for (let k = 1; k < word.length; k++) if (b[i + k] !== word[k]) return -1;
  return i + word.length;
}
