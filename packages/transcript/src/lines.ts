// Splitting a file's bytes into records without decoding the whole file.
import type { SourceFile } from './adapter.js';
import { parseJson } from './depth.js';

export interface LineSpan {
  /** 1-based. */
  line: number;
  offset: number;
  /** Bytes of the line without its '\n' (a trailing '\r' is kept out too). */
  length: number;
  /** The file ended without a newline after this line: it may still be being written. */
  unterminated: boolean;
}

/**
 * Every line of `data`, including empty ones; a final empty remainder after the last '\n' is not a
 * line. A read that continues where an earlier one stopped starts at byte `from`, line `line`.
 */
export function* splitLines(data: Uint8Array, from = 0, firstLine = 1): Generator<LineSpan> {
  let start = from;
  let line = firstLine;
  while (start < data.length) {
    const nl = data.indexOf(10, start);
    const end = nl === -1 ? data.length : nl;
    const length = end > start && data[end - 1] === 13 ? end - start - 1 : end - start;
    yield { line, offset: start, length, unterminated: nl === -1 };
    line++;
    start = end + 1;
  }
}

/**
 * The file offset where the line after `span` (a line of `file`) starts: past its '\n' and a '\r'
 * before it, which the span's length leaves out; the file's end after a line without a newline.
 */
export function nextLineOffset(file: SourceFile, span: LineSpan): number {
  const base = file.start ?? 0;
  if (span.unterminated) return base + file.data.length;
  const end = span.offset - base + span.length;
  return base + (file.data[end] === 13 ? end + 2 : end + 1);
}

/** Counts the lines splitLines would yield. */
export function countLines(data: Uint8Array): number {
  let n = 0;
  let i = data.indexOf(10);
  while (i !== -1) {
    n++;
    i = data.indexOf(10, i + 1);
  }
  return data.length > 0 && data[data.length - 1] !== 10 ? n + 1 : n;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decodes strict UTF-8; undefined when the bytes are not valid UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

export type ParsedLine =
  | { ok: true; value: unknown }
  | { ok: false; reason: 'empty line' | 'invalid UTF-8' | 'invalid JSON' | 'NUL bytes' | 'truncated line' };

/** Decodes and parses one JSONL line; the reason says why a line is unusable. */
export function parseJsonLine(data: Uint8Array, span: LineSpan): ParsedLine {
  const bytes = data.subarray(span.offset, span.offset + span.length);
  if (bytes.length === 0 || isBlank(bytes)) return { ok: false, reason: 'empty line' };
  if (bytes.indexOf(0) !== -1) return { ok: false, reason: 'NUL bytes' };
  const text = decodeUtf8(bytes);
  if (text === undefined) return { ok: false, reason: 'invalid UTF-8' };
  try {
    return { ok: true, value: parseJson(text) };
  } catch {
    return { ok: false, reason: span.unterminated ? 'truncated line' : 'invalid JSON' };
  }
}

function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 32 && b !== 9 && b !== 13) return false;
  return true;
}

/**
 * The lines of `file` from file offset `from` (line `line`), each parsed or with the reason it is
 * not usable. Spans are file offsets, also for a file that holds its bytes from `start` on.
 */
export function* parsedLines(
  file: SourceFile,
  from = 0,
  line = 1,
): Generator<{ span: LineSpan; parsed: ParsedLine }> {
  const base = file.start ?? 0;
  if (from < base) throw new RangeError(`${file.path}: bytes from ${base} on, read asked from ${from}`);
  for (const span of splitLines(file.data, from - base, line)) {
    const parsed = parseJsonLine(file.data, span);
    span.offset += base;
    yield { span, parsed };
  }
}
