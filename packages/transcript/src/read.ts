// Reading session files for adapters: whole files for loading, heads for listing.
// `.zst` files are decompressed here so that adapters and pointers see the plain stream.
import { Decompress, decompress } from 'fzstd';
import type { AdapterContext, SourceFile } from './adapter.js';
import { splitStorePath } from './adapters/opencode/paths.js';
import { readStoreSessionToTranslate } from './adapters/opencode/sqlite.js';
import type { LineSpan } from './lines.js';
import type { SessionPlatform } from './platform.js';

/** Listing reads at most this much of each file, whatever its size. */
export const HEAD_BYTES = 128 * 1024;

export const isZstd = (path: string): boolean => path.endsWith('.zst');

export async function readSourceFile(
  platform: SessionPlatform,
  path: string,
  signal?: AbortSignal,
): Promise<SourceFile> {
  // A session kept in a SQLite store reads as its rows, handed over as read: no bytes.
  const store = splitStorePath(path);
  if (store) {
    const rows = await readStoreSessionToTranslate(store.db, store.id);
    // Not even its session row: the session went from the store since it was found there.
    if (rows.length === 0)
      throw Object.assign(new Error(`${path}: the store holds no such session`), { code: 'ENOENT' });
    return { path, data: new Uint8Array(0), rows };
  }
  const raw = await platform.fs.readFile(path, signal);
  const file: SourceFile = isZstd(path)
    ? { path, data: decompress(raw), codec: 'zstd' }
    : { path, data: raw };
  if (platform.isWellFormedUtf8?.(file.data)) file.wellFormedUtf8 = true;
  return file;
}

/** The first HEAD_BYTES of a file's (decompressed) stream. */
export async function readHead(platform: SessionPlatform, path: string): Promise<Uint8Array> {
  if (!isZstd(path)) return platform.fs.readRange(path, 0, HEAD_BYTES);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const stream = new Decompress((chunk) => {
    chunks.push(chunk);
    size += chunk.length;
  });
  // Feed compressed bytes until enough plain bytes came out or the file ends.
  for (let offset = 0; size < HEAD_BYTES; offset += HEAD_BYTES) {
    const part = await platform.fs.readRange(path, offset, HEAD_BYTES);
    if (part.length === 0) break;
    stream.push(part, part.length < HEAD_BYTES);
    if (part.length < HEAD_BYTES) break;
  }
  return concat(chunks, size).subarray(0, HEAD_BYTES);
}

function concat(chunks: Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export const adapterContext = (platform: SessionPlatform, signal?: AbortSignal): AdapterContext =>
  signal
    ? { platform, signal, readHead: (path) => readHead(platform, path) }
    : { platform, readHead: (path) => readHead(platform, path) };

/** How much of a file a line-by-line read holds at once (more only for a longer line). */
export const LINE_CHUNK_BYTES = 4 * 1024 * 1024;

export interface ChunkLine {
  /** The chunk that holds the line; `span` is within it (its `line` counts from the file's start). */
  data: Uint8Array;
  span: LineSpan;
}

/**
 * The lines of a plain (uncompressed) file, read a chunk at a time, so that a file of any size is
 * read with memory for one chunk and its longest line. The lines are splitLines's.
 */
export async function* readLines(
  platform: SessionPlatform,
  path: string,
  chunkBytes = LINE_CHUNK_BYTES,
  signal?: AbortSignal,
): AsyncGenerator<ChunkLine> {
  let offset = 0;
  let line = 1;
  let size = chunkBytes;
  for (;;) {
    signal?.throwIfAborted();
    const data = await platform.fs.readRange(path, offset, size);
    if (data.length === 0) return;
    const atEnd = data.length < size;
    let start = 0;
    for (let nl = data.indexOf(10); nl !== -1; nl = data.indexOf(10, start)) {
      const length = nl > start && data[nl - 1] === 13 ? nl - start - 1 : nl - start;
      yield { data, span: { line: line++, offset: start, length, unterminated: false } };
      start = nl + 1;
    }
    if (atEnd) {
      if (start < data.length) {
        const length = data[data.length - 1] === 13 ? data.length - start - 1 : data.length - start;
        yield { data, span: { line, offset: start, length, unterminated: true } };
      }
      return;
    }
    // A line longer than the chunk is read again with room for it; otherwise the next chunk
    // starts where the unfinished line does.
    if (start === 0) size *= 2;
    else {
      offset += start;
      size = chunkBytes;
    }
  }
}

/** Whether `path` is a plain (uncompressed) file of at least `bytes`; false when it cannot be
 * looked at (reading it then reports why). */
export async function isPlainFileOf(
  platform: SessionPlatform,
  path: string,
  bytes: number,
): Promise<boolean> {
  if (isZstd(path)) return false;
  try {
    return (await platform.fs.stat(path)).size >= bytes;
  } catch {
    return false;
  }
}

/** A part of a file read from disk: its bytes from `start`, ending after a line (or at the end). */
export interface FilePart extends SourceFile {
  start: number;
  /** The part that reaches the end of the file (possibly empty, possibly ending inside a line). */
  last: boolean;
}

/**
 * A plain (uncompressed) file read from its start a part of about `partBytes` at a time, each
 * part cut after its last line, so that a file of any size is read with memory for one part and
 * its longest line. The parts' bytes, one after another, are the file's (up to `end`). Every part
 * is read into the same buffer: its bytes hold only until the next part is asked for. (Memory
 * allocated outside the heap for each part would start a full collection every few tens of MB.)
 */
export async function* readParts(
  platform: SessionPlatform,
  path: string,
  partBytes: number,
  signal?: AbortSignal,
  /** Where to stop: the end of the file when not given. */
  end = Number.POSITIVE_INFINITY,
  /** Lines a part may not end after (see SessionAdapter.keepWithNext). */
  keepWithNext?: (line: Uint8Array) => boolean,
): AsyncGenerator<FilePart> {
  let start = 0;
  let size = partBytes;
  let buffer: Uint8Array | undefined;
  for (;;) {
    signal?.throwIfAborted();
    const want = Math.min(size, end - start);
    const into = buffer && buffer.length >= want ? buffer : undefined;
    const data = want > 0 ? await platform.fs.readRange(path, start, want, into) : new Uint8Array(0);
    // The platform's own buffer, kept for the next parts.
    if (!into && data.length === want) buffer = data;
    if (data.length < size || start + data.length >= end) {
      yield { path, data, start, last: true };
      return;
    }
    const cut = partCut(data, data.length, keepWithNext);
    // A line longer than the part: read again with room for it.
    if (cut === 0) {
      size *= 2;
      continue;
    }
    yield { path, data: data.subarray(0, cut), start, last: false };
    start += cut;
    size = partBytes;
  }
}

/**
 * Where a part of `data` cut at `end` or before ends: after its last whole line, or after an earlier
 * one when `keepWithNext` holds the last lines to the part after. 0 when no whole line fits; a part
 * of lines that all keep with the next still ends after its last.
 */
export function partCut(data: Uint8Array, end: number, keepWithNext?: (line: Uint8Array) => boolean): number {
  const last = data.lastIndexOf(10, end - 1) + 1;
  if (!keepWithNext || last === 0) return last;
  return heldLinesFrom(data.subarray(0, last), keepWithNext) || last;
}

/**
 * Where the lines at the end of `data` that keep with the next begin: its length when its last line
 * does not, or when it ends inside a line.
 */
export function heldLinesFrom(data: Uint8Array, keepWithNext: (line: Uint8Array) => boolean): number {
  if (data[data.length - 1] !== 10) return data.length;
  let cut = data.length;
  while (cut > 0) {
    // The newline before the line ending at `cut` (a negative index would count from the end).
    const start = cut >= 2 ? data.lastIndexOf(10, cut - 2) + 1 : 0;
    if (!keepWithNext(data.subarray(start, cut - 1))) break;
    cut = start;
  }
  return cut;
}
