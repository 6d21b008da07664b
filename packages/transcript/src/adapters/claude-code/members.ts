// Reading a line's leading top-level members from their bytes, without decoding or parsing them.
// The summary pass uses it where a parse would only prove where a member sits.
import { skipWhitespace, valueEnd } from '../../json-ranges.js';

const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;

export interface ValueSpan {
  offset: number;
  end: number;
}

/**
 * The value of the last member named `key` (its quoted bytes, e.g. `"type"`) among the members
 * that fill `line` from its '{' up to `at`, where a `,"name":` starts; null when none is named
 * so. Undefined when those bytes are not an opening brace and whole members, so `at` is not
 * proven to be at the top level. Brackets and strings are matched, scalars are not checked.
 */
export function lastMemberBefore(
  line: Uint8Array,
  at: number,
  key: Uint8Array,
): ValueSpan | null | undefined {
  let i = skipWhitespace(line, 0);
  if (line[i] !== OPEN_BRACE) return undefined;
  let found: ValueSpan | null = null;
  i++;
  for (;;) {
    i = skipWhitespace(line, i);
    if (line[i] !== QUOTE) return undefined;
    const keyEnd = valueEnd(line, i);
    if (keyEnd === -1 || keyEnd > at) return undefined;
    const matches = bytesAt(line, i, key) && keyEnd - i === key.length;
    let j = skipWhitespace(line, keyEnd);
    if (line[j] !== COLON) return undefined;
    j = skipWhitespace(line, j + 1);
    const end = valueEnd(line, j);
    if (end === -1 || end > at) return undefined;
    if (matches) found = { offset: j, end };
    i = skipWhitespace(line, end);
    if (i === at) return found;
    if (line[i] !== COMMA) return undefined;
    i++;
  }
}

/** Whether `line` holds `word` at `at`. */
export function bytesAt(line: Uint8Array, at: number, word: Uint8Array): boolean {
  if (at < 0 || at + word.length > line.length) return false;
  for (let k = 0; k < word.length; k++) if (line[at + k] !== word[k]) return false;
  return true;
}
