// When a session was last active, by what its files say: the time of each file's last record that
// carries one. A file's modification time says when it was last written or copied, not when the
// agent worked, so it stands in only when no record of the session carries a time.
import type { AdapterContext, SessionAdapter } from './adapter.js';
import { type LineSpan, parseJsonLine } from './lines.js';
import { isZstd, readSourceFile } from './read.js';

/** A JSONL agent's rule for the time one parsed record carries. */
export type RecordTime = (record: unknown) => number | undefined;

/**
 * The time of the last record in `data` that carries one, in whole milliseconds. Unless `whole`,
 * `data` is the end of a file and its first line may be cut, so it is not read.
 */
export function lastLineTime(data: Uint8Array, timeOf: RecordTime, whole: boolean): number | undefined {
  let end = data.length;
  while (end > 0) {
    const nl = data.lastIndexOf(10, end - 1);
    const start = nl + 1;
    if (start === 0 && !whole) return undefined;
    const length = end > start && data[end - 1] === 13 ? end - start - 1 : end - start;
    if (length > 0) {
      const span: LineSpan = { line: 0, offset: start, length, unterminated: false };
      const parsed = parseJsonLine(data, span);
      const t = parsed.ok ? timeOf(parsed.value) : undefined;
      if (t !== undefined && Number.isFinite(t)) return Math.floor(t);
    }
    end = nl;
  }
  return undefined;
}

/** How much of a file's end is read, growing until a record with a time is found. */
const TAIL_WINDOWS = [64 * 1024, 1024 * 1024, 16 * 1024 * 1024];
/** A compressed file is read whole to reach its end; beyond this it keeps its modification time. */
const MAX_COMPRESSED_BYTES = 64 * 1024 * 1024;

/**
 * The time of the last record of one file that carries a time, reading only its end (a compressed
 * file whole); `head` is used when it already holds the whole file. Undefined when the adapter
 * reads no times from bytes, or no record within reach carries one.
 */
export async function fileLastRecordAt(
  ctx: AdapterContext,
  adapter: Pick<SessionAdapter, 'lastRecordAt'>,
  path: string,
  size: number,
  head?: Uint8Array,
): Promise<number | undefined> {
  const read = adapter.lastRecordAt;
  if (!read) return undefined;
  if (isZstd(path)) {
    if (size > MAX_COMPRESSED_BYTES) return undefined;
    const file = await readSourceFile(ctx.platform, path, ctx.signal);
    return read(path, file.data, true);
  }
  if (head !== undefined && head.length >= size) return read(path, head.subarray(0, size), true);
  for (const window of TAIL_WINDOWS) {
    const whole = window >= size;
    const data = await ctx.platform.fs.readRange(path, whole ? 0 : size - window, whole ? size : window);
    const t = read(path, data, whole);
    if (t !== undefined || whole) return t;
  }
  return undefined;
}

/** A file of a session as listing saw it. */
export interface ActivityFile {
  path: string;
  size: number;
  mtimeMs: number;
  head?: Uint8Array;
}

/**
 * A session's last activity: the latest last-record time of its files, else (no record carries a
 * time) the latest modification time, truncated to whole milliseconds.
 */
export async function sessionLastActivity(
  ctx: AdapterContext,
  adapter: Pick<SessionAdapter, 'lastRecordAt'>,
  files: readonly ActivityFile[],
): Promise<number | undefined> {
  let recorded: number | undefined;
  let modified: number | undefined;
  for (const f of files) {
    const t = await fileLastRecordAt(ctx, adapter, f.path, f.size, f.head);
    if (t !== undefined) recorded = recorded === undefined ? t : Math.max(recorded, t);
    const m = Math.floor(f.mtimeMs);
    modified = modified === undefined ? m : Math.max(modified, m);
  }
  return recorded ?? modified;
}
