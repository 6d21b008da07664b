// The agents' files as the server reads them: counted, cached for the sessions being followed, and
// grown by reading only the bytes appended since the last complete record.
import { createHash } from 'node:crypto';
import { open, readFile, stat } from 'node:fs/promises';
import {
  type DirEntry,
  exportStoreSession,
  type SessionPlatform,
  splitStorePath,
  storeSessionStamp,
} from '@cairn/transcript';

/** A read count as it crosses threads. */
export interface ReadCount {
  files: string[];
  bytes: number;
  reads: number;
}

/** What was read from the agents' files, for the log, the tests and the bench. */
export class ReadStats {
  /** Files whose content was read, whole or in part. */
  readonly files = new Set<string>();
  bytes = 0;
  reads = 0;

  note(path: string, bytes: number): void {
    this.files.add(path);
    this.bytes += bytes;
    this.reads++;
  }

  /** Counts what a read elsewhere (a worker thread) took. */
  add(count: ReadCount): void {
    for (const f of count.files) this.files.add(f);
    this.bytes += count.bytes;
    this.reads += count.reads;
  }

  reset(): void {
    this.files.clear();
    this.bytes = 0;
    this.reads = 0;
  }
}

export interface FileStamp {
  size: number;
  mtimeMs: number;
  ino: number;
}

export async function stamp(path: string): Promise<FileStamp | undefined> {
  // A session kept in a SQLite store is stamped by its rows.
  const store = splitStorePath(path);
  if (store) return storeSessionStamp(store.db, store.id).catch(() => undefined);
  try {
    const s = await stat(path);
    return s.isFile() ? { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino } : undefined;
  } catch {
    return undefined;
  }
}

/** How many bytes at the start of a file, and before the end of what was read, tell a file written
 * anew from one that grew. */
export const HEAD_PRINT_BYTES = 4096;

/** The two windows a print covers of a file read up to `offset`: its start and the bytes before `offset`. */
const printWindows = (offset: number): [number, number][] => {
  const head = Math.min(offset, HEAD_PRINT_BYTES);
  const tail = Math.max(head, offset - HEAD_PRINT_BYTES);
  return tail < offset
    ? [
        [0, head],
        [tail, offset],
      ]
    : [[0, head]];
};

/** A digest of the windows `read` gives of a file read up to `offset`, tagged with the offset. */
function printWith(offset: number, read: (from: number, to: number) => Uint8Array): string {
  if (offset <= 0) return '';
  const hash = createHash('sha256');
  for (const [from, to] of printWindows(offset)) hash.update(read(from, to));
  return `${offset}:${hash.digest('base64url').slice(0, 22)}`;
}

/** The print of a file as it would have been read up to `offset`; undefined when it cannot be read. */
export async function headPrint(path: string, offset: number): Promise<string | undefined> {
  try {
    const parts = new Map<number, Uint8Array>();
    for (const [from, to] of printWindows(offset)) {
      const bytes = await readRange(path, from, to - from);
      if (bytes.length < to - from) return undefined;
      parts.set(from, bytes);
    }
    return printWith(offset, (from) => parts.get(from)!);
  } catch {
    return undefined;
  }
}

/** The offset a print was taken at. */
export const printLength = (print: string): number => (print === '' ? 0 : Number(print.split(':', 1)[0]));

export const sameStamp = (a: FileStamp, b: FileStamp): boolean =>
  a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;

/** JSONL files grow by whole lines; anything else (a JSON document, a compressed rollout) is read whole. */
export const isLineFile = (path: string): boolean => path.endsWith('.jsonl');

/** How long a file must sit unchanged before an unterminated last line counts as complete. */
export const SETTLED_MS = 5_000;

interface Cached {
  /** The file's bytes from `base` on, up to `offset` (and room after). */
  data: Buffer;
  /** The file offset of `data[0]`: 0 while the whole file is held. */
  base: number;
  /** The file's first bytes, which its print covers; kept once `base` is past them. */
  head: Buffer;
  /** The file up to the end of its last complete record, as a file offset. */
  offset: number;
  stamp: FileStamp;
}

export type Refresh =
  | { kind: 'unchanged'; stamp: FileStamp; offset: number }
  | { kind: 'appended'; stamp: FileStamp; offset: number; bytes: number }
  | { kind: 'replaced'; stamp: FileStamp; offset: number }
  | { kind: 'gone' };

/**
 * What the server holds of the files of the sessions it follows. A JSONL file is held only where
 * its reader needs it: the bytes its print covers (its first and its last complete ones) and what
 * was appended since the follow last took its tail, so that a long session costs a few kilobytes
 * here, not its length. Another file (a JSON document, a compressed rollout) is held whole. A
 * refresh reads what was appended since; a file that shrank, was replaced (another inode) or whose
 * old end no longer closes a line is read again. The cache holds at most `budget` bytes, least
 * recently used files leaving first.
 */
export class SourceFiles {
  private readonly cache = new Map<string, Cached>();
  private held = 0;

  constructor(
    readonly stats: ReadStats,
    private readonly budget = 256 * 1024 * 1024,
  ) {}

  /** Bytes the cache holds now. */
  get size(): number {
    return this.held;
  }

  has(path: string): boolean {
    return this.cache.has(path);
  }

  offsetOf(path: string): number | undefined {
    return this.cache.get(path)?.offset;
  }

  drop(path: string): void {
    const c = this.cache.get(path);
    if (!c) return;
    this.held -= c.data.length + (c.base > 0 ? c.head.length : 0);
    this.cache.delete(path);
  }

  /** Brings the cached copy of `path` up to date, reading it when it is not cached yet. */
  async refresh(path: string): Promise<Refresh> {
    try {
      return await this.refreshStamped(path);
    } catch (cause) {
      // Removed between its stat and its read (a session deleted, a home cleared): gone, like a
      // file the stat no longer finds, rather than an error for whoever asked.
      if ((cause as NodeJS.ErrnoException).code !== 'ENOENT') throw cause;
      this.drop(path);
      return { kind: 'gone' };
    }
  }

  private async refreshStamped(path: string): Promise<Refresh> {
    const now = await stamp(path);
    if (!now) {
      this.drop(path);
      return { kind: 'gone' };
    }
    const c = this.cache.get(path);
    if (c) {
      this.touch(path, c);
      if (sameStamp(c.stamp, now)) return { kind: 'unchanged', stamp: now, offset: c.offset };
      if (isLineFile(path) && c.stamp.ino === now.ino && now.size >= c.offset) {
        const grown = await this.append(path, c, now);
        if (grown !== undefined) return grown;
      }
    }
    return isLineFile(path) ? this.readEnd(path, now) : this.readWhole(path, now);
  }

  /** The print of the cached copy read up to `offset`; undefined when the cache does not cover it. */
  printOf(path: string, offset: number): string | undefined {
    const c = this.cache.get(path);
    if (!c || offset > c.offset || offset - Math.min(offset, HEAD_PRINT_BYTES) < c.base) return undefined;
    return printWith(offset, (from, to) =>
      from < HEAD_PRINT_BYTES && c.base > 0
        ? c.head.subarray(from, to)
        : c.data.subarray(from - c.base, to - c.base),
    );
  }

  /** The cached bytes of a file held whole, up to its last complete record; undefined for a file not
   * cached or held only in part (a long JSONL file), which is read from disk instead. */
  bytes(path: string): Uint8Array | undefined {
    const c = this.cache.get(path);
    if (!c || c.base > 0) return undefined;
    this.touch(path, c);
    return c.data.subarray(0, c.offset);
  }

  /**
   * A JSONL file's bytes from file offset `from` to the end of its last complete record, as the last
   * refresh found them; undefined when the cache no longer holds them all. The bytes before `from`
   * are then let go: a follow takes each tail once.
   */
  tail(path: string, from: number): Uint8Array | undefined {
    const c = this.cache.get(path);
    if (!c || from < c.base || from > c.offset) return undefined;
    const bytes = c.data.subarray(from - c.base, c.offset - c.base);
    this.keepFrom(c, from);
    return bytes;
  }

  private async append(path: string, c: Cached, now: FileStamp): Promise<Refresh | undefined> {
    // The first bytes and those before the old end (the last of them closed a line) tell whether
    // the old content is still there or the file was written anew in place.
    const first = Math.min(c.offset, HEAD_PRINT_BYTES);
    const from = c.offset - Math.min(c.offset, HEAD_PRINT_BYTES);
    if (from < c.base) return undefined;
    if (first > 0 && first <= from) {
      const head = await readRange(path, 0, first);
      this.stats.note(path, head.length);
      if (Buffer.compare(head, headOf(c).subarray(0, first)) !== 0) return undefined;
    }
    const chunk = await readRange(path, from, now.size - from);
    this.stats.note(path, chunk.length);
    const kept = c.offset - from;
    if (
      kept > 0 &&
      (chunk.length < kept ||
        Buffer.compare(chunk.subarray(0, kept), c.data.subarray(from - c.base, c.offset - c.base)) !== 0)
    )
      return undefined;
    if (kept > 0 && chunk[kept - 1] !== 10) return undefined;
    const fresh = chunk.subarray(kept);
    const nl = fresh.lastIndexOf(10);
    c.stamp = now;
    if (nl === -1) return { kind: 'unchanged', stamp: now, offset: c.offset };
    const complete = fresh.subarray(0, nl + 1);
    this.grow(c, c.offset - c.base + complete.length);
    complete.copy(c.data, c.offset - c.base);
    c.offset += complete.length;
    // The file that grew is the one being followed: others leave first, or it would be read again
    // on its next append.
    this.evict(path);
    return { kind: 'appended', stamp: now, offset: c.offset, bytes: complete.length };
  }

  /** A file read whole and held whole: a JSON document, a compressed rollout. */
  private async readWhole(path: string, at: FileStamp): Promise<Refresh> {
    let data: Buffer;
    const store = splitStorePath(path);
    try {
      data = store ? Buffer.from(await exportStoreSession(store.db, store.id)) : await readFile(path);
    } catch {
      this.drop(path);
      return { kind: 'gone' };
    }
    this.stats.note(path, data.length);
    return this.hold(path, {
      data,
      base: 0,
      head: EMPTY,
      offset: data.length,
      // A store session's stamp counts rows, not bytes.
      stamp: store ? at : { ...at, size: data.length },
    });
  }

  /**
   * A JSONL file read only at its ends: where its last complete record ends (searched back from the
   * end), the bytes its print covers, and room to take appends in place.
   */
  private async readEnd(path: string, at: FileStamp): Promise<Refresh> {
    try {
      const size = at.size;
      let from = size;
      let window: Buffer = Buffer.alloc(0);
      let offset = -1;
      // Back from the end, a window twice as long each time, until it holds the last complete
      // record's end and the print's bytes before it.
      for (let length = 64 * 1024; ; length *= 2) {
        from = Math.max(0, size - length);
        window = await readRange(path, from, size - from);
        this.stats.note(path, window.length);
        if (window.length < size - from) return this.readEnd(path, (await stamp(path)) ?? at);
        offset = from + completeLength(path, window, at, Date.now(), from === 0);
        if (from === 0 || (offset > from && offset - from >= HEAD_PRINT_BYTES)) break;
      }
      const base = Math.max(from, offset - HEAD_PRINT_BYTES);
      let head: Buffer = EMPTY;
      if (base > 0 && from === 0) head = Buffer.from(window.subarray(0, HEAD_PRINT_BYTES));
      else if (base > 0) {
        head = await readRange(path, 0, HEAD_PRINT_BYTES);
        this.stats.note(path, head.length);
      }
      const kept = window.subarray(base - from, offset - from);
      const data = Buffer.allocUnsafe(kept.length + 64 * 1024);
      kept.copy(data);
      return this.hold(path, { data, base, head, offset, stamp: at });
    } catch {
      this.drop(path);
      return { kind: 'gone' };
    }
  }

  private hold(path: string, c: Cached): Refresh {
    this.drop(path);
    this.cache.set(path, c);
    this.held += c.data.length + (c.base > 0 ? c.head.length : 0);
    this.evict(path);
    return { kind: 'replaced', stamp: c.stamp, offset: c.offset };
  }

  /** Lets go of the bytes before `from`, but for those the print covers. */
  private keepFrom(c: Cached, from: number): void {
    const base = Math.max(c.base, Math.min(from, c.offset - HEAD_PRINT_BYTES));
    if (base - c.base < 64 * 1024) return;
    if (c.base === 0) c.head = Buffer.from(c.data.subarray(0, HEAD_PRINT_BYTES));
    const kept = c.data.subarray(base - c.base, c.offset - c.base);
    const data = Buffer.allocUnsafe(kept.length + 64 * 1024);
    kept.copy(data);
    this.held += data.length - c.data.length + (c.base === 0 ? c.head.length : 0);
    c.data = data;
    c.base = base;
  }

  private grow(c: Cached, needed: number): void {
    if (needed <= c.data.length) return;
    const next = Buffer.allocUnsafe(Math.max(needed, Math.ceil(c.data.length * 1.5), 64 * 1024));
    c.data.copy(next, 0, 0, c.offset - c.base);
    this.held += next.length - c.data.length;
    c.data = next;
  }

  private touch(path: string, c: Cached): void {
    this.cache.delete(path);
    this.cache.set(path, c);
  }

  private evict(keep?: string): void {
    for (const path of [...this.cache.keys()]) {
      if (this.held <= this.budget) return;
      if (path === keep) continue;
      this.drop(path);
    }
  }
}

const EMPTY: Buffer = Buffer.alloc(0);

/** The file's first bytes as the cache holds them. */
const headOf = (c: Cached): Buffer =>
  c.base === 0 ? c.data.subarray(0, Math.min(c.offset, HEAD_PRINT_BYTES)) : c.head;

/**
 * Where the complete records of a file end. A JSONL file's unterminated last line waits for its end
 * unless the file has sat unchanged long enough to be finished; other files count whole.
 */
export function completeLength(
  path: string,
  data: Uint8Array,
  at: FileStamp,
  now = Date.now(),
  /** `data` is the whole file, not only its last bytes. */
  whole = true,
): number {
  if (!isLineFile(path) || data.length === 0 || data[data.length - 1] === 10) return data.length;
  if (now - at.mtimeMs >= SETTLED_MS) return data.length;
  const nl = data.lastIndexOf(10);
  return nl === -1 && !whole ? -1 : nl + 1;
}

async function readRange(path: string, offset: number, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(Math.max(0, length));
    const { bytesRead } = await handle.read(buf, 0, length, offset);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** A platform whose reads are counted, and whose whole-file reads come from `files` when `cached` says so. */
export function servingPlatform(
  base: SessionPlatform,
  stats: ReadStats,
  files?: SourceFiles,
  cached: (path: string) => boolean = () => false,
): SessionPlatform {
  return {
    env: base.env,
    homeDir: base.homeDir,
    join: base.join,
    fs: {
      readFile: async (path, signal) => {
        const held = files && cached(path) ? files.bytes(path) : undefined;
        if (held) return held;
        const data = await base.fs.readFile(path, signal);
        stats.note(path, data.length);
        return data;
      },
      readRange: async (path, offset, length, into) => {
        const data = await base.fs.readRange(path, offset, length, into);
        stats.note(path, data.length);
        return data;
      },
      stat: (path) => base.fs.stat(path),
      readdir: (path) => base.fs.readdir(path),
      ...(base.fs.realpath ? { realpath: base.fs.realpath } : {}),
    },
  };
}

/** A platform whose folder listings leave out `hidden` paths, so a listing reads only what is new. */
export function hidingPlatform(base: SessionPlatform, hidden: (path: string) => boolean): SessionPlatform {
  return {
    ...base,
    fs: {
      ...base.fs,
      readdir: async (dir): Promise<DirEntry[]> =>
        (await base.fs.readdir(dir)).filter((e) => !hidden(base.join(dir, e.name))),
    },
  };
}
