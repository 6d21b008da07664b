// Where, in a long session's main file, the record an item was read from begins, found by scanning
// the bytes rather than translating them: a link into a long session shows the part of the file
// around its item while the whole of it is still being read. Only agents whose item ids say which
// record they come from are known here: Claude Code and Qwen Code name an item by its record's uuid,
// pi, Copilot CLI and Gemini CLI (its JSONL files) by its entry's, event's or message's id, Codex by
// its record's line.
import type { SessionPlatform } from '@cairn/transcript';

/** Where a record begins in its file: the byte offset of its line, and that line's number when it
 * had to be counted. */
export interface RecordPlace {
  readonly offset: number;
  readonly line?: number;
}

/** Bytes read at a time while scanning. */
const SCAN_BYTES = 4 * 1024 * 1024;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
/** A Codex item of the rollout itself (file 0): `L<line>`, with any suffix of the item's own. */
const CODEX_LINE = /^L([1-9][0-9]{0,9})(?![0-9])/;
/** The record's own id in an item id made from it: before any `:suffix` (the record's second item
 * on) or `@place` (an id written twice). */
const RECORD_ID = /^[^:@"\\]+/;

/** What to look for in the file: a JSON member that holds the record's id, or the record's line. */
type Finding = { readonly text: string } | { readonly line: number };

/** How each agent's item ids name the records they come from. */
const FIND: Readonly<Record<string, (uuid: string) => Finding | undefined>> = {
  'claude-code': (uuid) => member('uuid', UUID.exec(uuid)?.[0]),
  'qwen-code': (uuid) => member('uuid', RECORD_ID.exec(uuid)?.[0]),
  pi: (uuid) => member('id', RECORD_ID.exec(uuid)?.[0]),
  'copilot-cli': (uuid) => member('id', RECORD_ID.exec(uuid)?.[0]),
  'gemini-cli': (uuid) => member('id', RECORD_ID.exec(uuid)?.[0]),
  codex: (uuid) => {
    const line = CODEX_LINE.exec(uuid)?.[1];
    return line === undefined ? undefined : { line: Number(line) };
  },
};

const member = (name: string, id: string | undefined): Finding | undefined =>
  id === undefined ? undefined : { text: `"${name}":${JSON.stringify(id)}` };

/**
 * Agents whose file read from a part onwards means nothing without its first line: a pi session's
 * header names the session and is the proof of its format. A part of such a file is read after it.
 */
export const readsPartAfterHeader = (agent: string): boolean => agent === 'pi';

/**
 * Where the record that item `uuid` was read from begins in `path`, the session's main file; undefined
 * when the agent's ids do not say, or the file holds no such record.
 */
export async function recordPlace(
  platform: SessionPlatform,
  agent: string,
  path: string,
  uuid: string,
): Promise<RecordPlace | undefined> {
  const finding = FIND[agent]?.(uuid);
  if (finding === undefined) return undefined;
  return 'line' in finding
    ? await placeOfLine(platform, path, finding.line)
    : await placeOfText(platform, path, finding.text);
}

/** The start of the first line of `path` that holds `text`. */
async function placeOfText(
  platform: SessionPlatform,
  path: string,
  text: string,
): Promise<RecordPlace | undefined> {
  const needle = Buffer.from(text);
  const size = (await platform.fs.stat(path)).size;
  const buf = Buffer.allocUnsafe(SCAN_BYTES);
  // Where the line being read began: carried over from chunk to chunk.
  let lineStart = 0;
  // Each chunk after the first starts a needle's length early, so a match across two is still seen.
  for (let at = 0; at < size; ) {
    const chunk = asBuffer(await platform.fs.readRange(path, at, Math.min(SCAN_BYTES, size - at), buf));
    if (chunk.length === 0) return undefined;
    const found = chunk.indexOf(needle);
    if (found !== -1) {
      const nl = chunk.lastIndexOf(10, found);
      return { offset: nl === -1 ? lineStart : at + nl + 1 };
    }
    const nl = chunk.lastIndexOf(10);
    if (nl !== -1) lineStart = at + nl + 1;
    if (at + chunk.length >= size) return undefined;
    at += Math.max(1, chunk.length - needle.length);
  }
  return undefined;
}

/** The start of line `line` (counted from 1) of `path`. */
async function placeOfLine(
  platform: SessionPlatform,
  path: string,
  line: number,
): Promise<RecordPlace | undefined> {
  if (line === 1) return { offset: 0, line };
  const size = (await platform.fs.stat(path)).size;
  const buf = Buffer.allocUnsafe(SCAN_BYTES);
  // Line breaks still to pass before the line begins.
  let left = line - 1;
  for (let at = 0; at < size; ) {
    const chunk = asBuffer(await platform.fs.readRange(path, at, Math.min(SCAN_BYTES, size - at), buf));
    if (chunk.length === 0) return undefined;
    for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, nl + 1))
      if (--left === 0) return at + nl + 1 < size ? { offset: at + nl + 1, line } : undefined;
    at += chunk.length;
  }
  return undefined;
}

/** The same bytes as a Buffer, for its searches, without a copy. */
const asBuffer = (bytes: Uint8Array): Buffer => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
