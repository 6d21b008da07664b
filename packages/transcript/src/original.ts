// Reading back the exact bytes of an event's original record.
import { decompress } from 'fzstd';
import { splitStorePath } from './adapters/opencode/paths.js';
import { readStoreRow } from './adapters/opencode/sqlite.js';
import type { SourcePointer } from './model.js';
import type { SessionPlatform } from './platform.js';
import { err, ok, type ReadFailed, type Result, readFailed, type SourceChanged } from './result.js';

const LINE_FILE = /\.jsonl(\.zst)?$/;

const changed = (pointer: SourcePointer, why: string): SourceChanged => ({
  _tag: 'SourceChanged',
  pointer,
  message: `${pointer.file}:${pointer.line}: the source changed since it was read (${why})`,
});

/**
 * The bytes a pointer names, or SourceChanged when the file no longer holds that record there:
 * shorter than the range, or, in a JSONL file, the range no longer a whole line.
 */
export async function readOriginal(
  platform: SessionPlatform,
  pointer: SourcePointer,
): Promise<Result<Uint8Array, SourceChanged | ReadFailed>> {
  if (pointer.sqlite) return readRow(pointer, pointer.sqlite);
  let stream: Uint8Array;
  let before: number | undefined;
  let after: number | undefined;
  let bytes: Uint8Array;
  try {
    if (pointer.codec === 'zstd') {
      stream = decompress(await platform.fs.readFile(pointer.file));
      if (pointer.offset + pointer.length > stream.length) return err(changed(pointer, 'file is shorter'));
      bytes = stream.subarray(pointer.offset, pointer.offset + pointer.length);
      before = pointer.offset > 0 ? stream[pointer.offset - 1] : undefined;
      after = stream[pointer.offset + pointer.length];
    } else {
      // One byte either side tells whether the range still sits on its boundaries.
      const from = Math.max(0, pointer.offset - 1);
      const window = await platform.fs.readRange(pointer.file, from, pointer.length + 2);
      const start = pointer.offset - from;
      if (start + pointer.length > window.length) return err(changed(pointer, 'file is shorter'));
      bytes = window.subarray(start, start + pointer.length);
      before = start > 0 ? window[0] : undefined;
      after = window[start + pointer.length];
    }
  } catch (cause) {
    return err(readFailed(pointer.file, cause));
  }
  // In a JSONL file every record is one whole line; a record inside a JSON document has no
  // boundary to check beyond the file's length.
  if (!LINE_FILE.test(pointer.file)) return ok(bytes);
  if (before !== undefined && before !== 10) return err(changed(pointer, 'the line starts elsewhere now'));
  if (after !== undefined && after !== 10 && after !== 13)
    return err(changed(pointer, 'the line is longer now'));
  return ok(bytes);
}

/** A row of a SQLite store as stored: its columns as one JSON object. */
async function readRow(
  pointer: SourcePointer,
  row: { table: string; rowid: number },
): Promise<Result<Uint8Array, SourceChanged | ReadFailed>> {
  const db = splitStorePath(pointer.file)?.db ?? pointer.file;
  try {
    const bytes = await readStoreRow(db, row.table, row.rowid);
    return bytes === undefined
      ? err(changed(pointer, `row ${row.rowid} of ${row.table} is gone`))
      : ok(bytes);
  } catch (cause) {
    return err(readFailed(db, cause));
  }
}
