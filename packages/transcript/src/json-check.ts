// Checking that text is exactly what JSON.parse accepts without building its values, and finding
// an object's top-level members on the way. The summary pass uses it to prove a line whole while
// parsing only the members it needs. No recursion: a value nested any depth is checked with a
// stack; strings and numbers are matched by sticky regular expressions, which run natively.
import { CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-bytes.js';

// Runs of plain characters between escapes, so that no text can be matched two ways (a failing
// match then costs linear time, not exponential).
const STRING = /"[^"\\\u0000-\u001f]*(?:\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})[^"\\\u0000-\u001f]*)*"/y;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;

function skipWs(text: string, i: number, end: number): number {
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
}

function sticky(re: RegExp, text: string, i: number, end: number): number {
  re.lastIndex = i;
  if (!re.test(text)) return -1;
  return re.lastIndex <= end ? re.lastIndex : -1;
}

/** The index after the JSON string whose opening quote is at `i`, or -1 when it is not valid. */
export const checkString = (text: string, i: number, end = text.length): number =>
  sticky(STRING, text, i, end);

function checkScalar(text: string, i: number, end: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return sticky(STRING, text, i, end);
  for (const word of ['true', 'false', 'null'])
    if (c === word.charCodeAt(0))
      return text.startsWith(word, i) && i + word.length <= end ? i + word.length : -1;
  return sticky(NUMBER, text, i, end);
}

/**
 * The index after the JSON value at `i` (no leading whitespace), checked strictly, or -1 when
 * the text up to `end` holds no valid value there.
 */
export function checkValue(text: string, i: number, end = text.length): number {
  if (i >= end) return -1;
  const first = text.charCodeAt(i);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return checkScalar(text, i, end);
  // The open containers, '{' or '[', innermost last.
  const stack: number[] = [first];
  // What may come next: a value, a key, or either of those or the container's close.
  let expect: 'value' | 'key' | 'valueOrClose' | 'keyOrClose' =
    first === OPEN_BRACE ? 'keyOrClose' : 'valueOrClose';
  let j = i + 1;
  for (;;) {
    j = skipWs(text, j, end);
    if (j >= end) return -1;
    const c = text.charCodeAt(j);
    if (
      (expect === 'keyOrClose' && c === CLOSE_BRACE) ||
      (expect === 'valueOrClose' && c === CLOSE_BRACKET)
    ) {
      stack.pop();
      j++;
    } else if (expect === 'key' || expect === 'keyOrClose') {
      if (c !== QUOTE) return -1;
      j = sticky(STRING, text, j, end);
      if (j === -1) return -1;
      j = skipWs(text, j, end);
      if (j >= end || text.charCodeAt(j) !== COLON) return -1;
      j++;
      expect = 'value';
      continue;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      stack.push(c);
      expect = c === OPEN_BRACE ? 'keyOrClose' : 'valueOrClose';
      j++;
      continue;
    } else {
      j = checkScalar(text, j, end);
      if (j === -1) return -1;
    }
    // A value or a container just ended.
    if (stack.length === 0) return j;
    j = skipWs(text, j, end);
    if (j >= end) return -1;
    const after = text.charCodeAt(j);
    const open = stack[stack.length - 1];
    if (after === COMMA) {
      expect = open === OPEN_BRACE ? 'key' : 'value';
      j++;
    } else if (
      (open === OPEN_BRACE && after === CLOSE_BRACE) ||
      (open === OPEN_BRACKET && after === CLOSE_BRACKET)
    ) {
      expect = open === OPEN_BRACE ? 'keyOrClose' : 'valueOrClose';
    } else return -1;
  }
}

export interface MemberRange {
  /** The member's key, decoded. */
  key: string;
  /** Where the key's opening quote is. */
  keyOffset: number;
  valueOffset: number;
  /** The index after the value. */
  valueEnd: number;
}

/** The value of a checked JSON string (quotes included). */
export function stringText(text: string, from: number, to: number): string {
  const inner = text.slice(from + 1, to - 1);
  return inner.includes('\\') ? (JSON.parse(text.slice(from, to)) as string) : inner;
}

/**
 * The members of the object that fills `text` from `from` to `to` (whitespace around it
 * allowed), checked strictly: defined exactly when JSON.parse of that text gives an object.
 */
export function objectMembers(text: string, from = 0, to = text.length): MemberRange[] | undefined {
  let i = skipWs(text, from, to);
  if (i >= to || text.charCodeAt(i) !== OPEN_BRACE) return undefined;
  const members: MemberRange[] = [];
  i = skipWs(text, i + 1, to);
  if (i < to && text.charCodeAt(i) === CLOSE_BRACE)
    return skipWs(text, i + 1, to) === to ? members : undefined;
  for (;;) {
    if (i >= to || text.charCodeAt(i) !== QUOTE) return undefined;
    const keyEnd = sticky(STRING, text, i, to);
    if (keyEnd === -1) return undefined;
    let j = skipWs(text, keyEnd, to);
    if (j >= to || text.charCodeAt(j) !== COLON) return undefined;
    j = skipWs(text, j + 1, to);
    const end = checkValue(text, j, to);
    if (end === -1) return undefined;
    members.push({ key: stringText(text, i, keyEnd), keyOffset: i, valueOffset: j, valueEnd: end });
    i = skipWs(text, end, to);
    if (i >= to) return undefined;
    const c = text.charCodeAt(i);
    if (c === CLOSE_BRACE) return skipWs(text, i + 1, to) === to ? members : undefined;
    if (c !== COMMA) return undefined;
    i = skipWs(text, i + 1, to);
  }
}

/** The last member named `key` (JSON.parse keeps the last of repeated keys). */
export const lastMember = (members: readonly MemberRange[], key: string): MemberRange | undefined =>
  members.findLast((m) => m.key === key);
