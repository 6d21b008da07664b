// Byte ranges of the members of a JSON object and the elements of a JSON array, found without
// parsing the whole document: legacy session files are one pretty-printed document, and each
// message needs a pointer to its own bytes. Delimiters are ASCII, so scanning UTF-8 bytes is safe.
import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from './json-bytes.js';

const isWhitespace = (b: number | undefined): boolean => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;

/** The first index at or after `i` that is not JSON whitespace (data.length when none). */
export function skipWhitespace(data: Uint8Array, i: number): number {
  while (i < data.length && isWhitespace(data[i])) i++;
  return i;
}

/** The index after the string that opens at `i`, or -1 when the bytes end first. */
function stringEnd(data: Uint8Array, i: number): number {
  for (let j = i + 1; j < data.length; j++) {
    const b = data[j];
    if (b === BACKSLASH) j++;
    else if (b === QUOTE) return j + 1;
  }
  return -1;
}

/**
 * The index after the JSON value that starts at `i`, or -1 when the bytes end before it does.
 * Brackets are matched by depth only: a malformed value shows up when its bytes are parsed.
 */
export function valueEnd(data: Uint8Array, i: number): number {
  const first = data[i];
  if (first === undefined) return -1;
  if (first === QUOTE) return stringEnd(data, i);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let j = i; j < data.length; j++) {
      const b = data[j];
      if (b === QUOTE) {
        j = stringEnd(data, j);
        if (j === -1) return -1;
        j--;
      } else if (b === OPEN_BRACE || b === OPEN_BRACKET) depth++;
      else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  // A scalar (number, true, false, null) ends at a delimiter; at the end of the bytes it may be cut.
  let j = i;
  while (j < data.length) {
    const b = data[j];
    if (isWhitespace(b) || b === COMMA || b === CLOSE_BRACE || b === CLOSE_BRACKET) break;
    j++;
  }
  return j === data.length || j === i ? -1 : j;
}

export interface ByteRange {
  offset: number;
  length: number;
}

export interface MemberSpan {
  key: string;
  /** Where the key's opening quote is. */
  keyOffset: number;
  valueOffset: number;
  /** The index after the value, or -1 when the bytes end inside it. */
  valueEnd: number;
}

export interface ContainerScan<T> {
  items: T[];
  /** The index after the closing bracket, or -1 when the container is not closed. */
  end: number;
  /** Where the bytes stopped being JSON, when they did. */
  malformedAt?: number;
  /** Where an element that the bytes cut short begins. */
  partialAt?: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeKey(data: Uint8Array, from: number, to: number): string | undefined {
  try {
    const key: unknown = JSON.parse(utf8.decode(data.subarray(from, to)));
    return typeof key === 'string' ? key : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The members of the object whose '{' is at `open`. With `until`, the scan stops at the first member
 * it accepts, before scanning that member's value (left at valueEnd -1, the object's end at -1).
 * With `resume`, it goes on after `resume.at`, the end of the last of `resume.items` (members an
 * earlier scan of the same bytes found).
 */
export function scanObject(
  data: Uint8Array,
  open: number,
  until?: (member: MemberSpan) => boolean,
  resume?: { at: number; items: readonly MemberSpan[] },
): ContainerScan<MemberSpan> {
  const items: MemberSpan[] = resume ? [...resume.items] : [];
  let i = resume ? resume.at : open + 1;
  for (;;) {
    i = skipWhitespace(data, i);
    if (i >= data.length) return { items, end: -1 };
    const b = data[i];
    if (b === CLOSE_BRACE) return { items, end: i + 1 };
    if (b === COMMA && items.length > 0) {
      i++;
      continue;
    }
    if (b !== QUOTE) return { items, end: -1, malformedAt: i };
    const keyEnd = stringEnd(data, i);
    if (keyEnd === -1) return { items, end: -1, partialAt: i };
    const key = decodeKey(data, i, keyEnd);
    if (key === undefined) return { items, end: -1, malformedAt: i };
    let j = skipWhitespace(data, keyEnd);
    if (j >= data.length) return { items, end: -1, partialAt: i };
    if (data[j] !== COLON) return { items, end: -1, malformedAt: j };
    j = skipWhitespace(data, j + 1);
    if (j >= data.length) return { items, end: -1, partialAt: i };
    if (until?.({ key, keyOffset: i, valueOffset: j, valueEnd: -1 })) {
      items.push({ key, keyOffset: i, valueOffset: j, valueEnd: -1 });
      return { items, end: -1 };
    }
    const end = valueEnd(data, j);
    items.push({ key, keyOffset: i, valueOffset: j, valueEnd: end });
    if (end === -1) return { items, end: -1, partialAt: i };
    i = end;
  }
}

/**
 * The elements of the array whose '[' is at `open`; the scan starts after `known`, its first
 * elements as an earlier scan of the same bytes found them.
 */
export function scanArray(
  data: Uint8Array,
  open: number,
  known: readonly ByteRange[] = [],
): ContainerScan<ByteRange> {
  const items: ByteRange[] = [...known];
  const last = known.at(-1);
  let i = last ? last.offset + last.length : open + 1;
  for (;;) {
    i = skipWhitespace(data, i);
    if (i >= data.length) return { items, end: -1 };
    const b = data[i];
    if (b === CLOSE_BRACKET) return { items, end: i + 1 };
    if (b === COMMA && items.length > 0) {
      i++;
      continue;
    }
    if (b === CLOSE_BRACE || b === COLON || b === COMMA) return { items, end: -1, malformedAt: i };
    const end = valueEnd(data, i);
    if (end === -1) return { items, end: -1, partialAt: i };
    items.push({ offset: i, length: end - i });
    i = end;
  }
}

/** Offsets where each line starts, for turning byte offsets into 1-based line numbers. */
export function lineStarts(data: Uint8Array): number[] {
  const starts = [0];
  let i = data.indexOf(10);
  while (i !== -1) {
    if (i + 1 < data.length) starts.push(i + 1);
    i = data.indexOf(10, i + 1);
  }
  return starts;
}

/** The 1-based line that holds byte `offset`. */
export function lineAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
