// Finding the members of an object and the elements of an array inside JSON text that is already
// known to be valid (checked by json-check), without checking it again: strings and containers are
// skipped by native searches for the next quote or bracket, so a large value costs little.

import {
  BACKSLASH,
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COMMA,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from './json-bytes.js';
import { stringText } from './json-check.js';

export interface SkimmedMember {
  key: string;
  keyOffset: number;
  valueOffset: number;
  valueEnd: number;
}

export interface Span {
  offset: number;
  end: number;
}

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The index after the string whose opening quote is at `i`. */
function stringEnd(text: string, i: number): number {
  let j = i + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    // An escaped quote has an odd run of backslashes before it.
    let k = q - 1;
    while (text.charCodeAt(k) === BACKSLASH) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
    j = q + 1;
  }
}

const STRUCTURE = /["{}[\]]/g;

/** The index after the value that starts at `i`. */
export function skimValueEnd(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === QUOTE) return stringEnd(text, i);
  if (c !== OPEN_BRACE && c !== OPEN_BRACKET) {
    let j = i;
    while (j < text.length) {
      const d = text.charCodeAt(j);
      if (d === COMMA || d === CLOSE_BRACE || d === CLOSE_BRACKET || isSpace(d)) break;
      j++;
    }
    return j;
  }
  let depth = 0;
  let j = i;
  for (;;) {
    STRUCTURE.lastIndex = j;
    STRUCTURE.test(text);
    const at = STRUCTURE.lastIndex - 1;
    const d = text.charCodeAt(at);
    if (d === QUOTE) {
      j = stringEnd(text, at);
      continue;
    }
    j = at + 1;
    if (d === OPEN_BRACE || d === OPEN_BRACKET) depth++;
    else if (--depth === 0) return j;
  }
}

/** The members of the checked object whose '{' is at `open`. */
export function skimMembers(text: string, open: number): SkimmedMember[] {
  const members: SkimmedMember[] = [];
  let i = skipSpace(text, open + 1);
  while (text.charCodeAt(i) === QUOTE) {
    const keyEnd = stringEnd(text, i);
    // The colon follows the key, whitespace around it.
    const valueOffset = skipSpace(text, skipSpace(text, keyEnd) + 1);
    const valueEnd = skimValueEnd(text, valueOffset);
    members.push({ key: stringText(text, i, keyEnd), keyOffset: i, valueOffset, valueEnd });
    i = skipSpace(text, valueEnd);
    if (text.charCodeAt(i) !== COMMA) break;
    i = skipSpace(text, i + 1);
  }
  return members;
}

/** The elements of the checked array whose '[' is at `open`. */
export function skimElements(text: string, open: number): Span[] {
  const elements: Span[] = [];
  let i = skipSpace(text, open + 1);
  while (i < text.length && text.charCodeAt(i) !== CLOSE_BRACKET) {
    const end = skimValueEnd(text, i);
    elements.push({ offset: i, end });
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== COMMA) break;
    i = skipSpace(text, i + 1);
  }
  return elements;
}
