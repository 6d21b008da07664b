// The agents' files as the server reads them: counted, cached for the sessions being followed, and
// grown by reading only the bytes appended since the last complete record.
import { createHash } from 'node:crypto';
import { open, readFile, stat } from 'node:fs/promises';
import type { DirEntry, SessionPlatform } from '@cairn/transcript';

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
  try {
    const s = await stat(path);
    return s.isFile() ? { size: s.size, mtimeMs: s.mtimeMs, ino: s.ino } : undefined;
  } catch {
    return undefined;
  }
}

/** How many of a file's first bytes tell a rewritten file from one that grew. */
export const HEAD_PRINT_BYTES = 4096;

/** A digest of `bytes` (a file's first bytes), tagged with how many there were. */
export const printOf = (bytes: Uint8Array): string =>
  bytes.length === 0
    ? ''
    : `${bytes.length}:${createHash('sha256').update(bytes).digest('base64url').slice(0, 22)}`;

/** The print of a file's first min(`upTo`, HEAD_PRINT_BYTES) bytes; undefined when it cannot be read. */
export async function headPrint(path: string, upTo: number): Promise<string | undefined> {
  try {
    return printOf(await readRange(path, 0, Math.min(upTo, HEAD_PRINT_BYTES)));
  } catch {
    return undefined;
  }
}

/** How many bytes a print covers. */
export const printLength = (print: string): number => (print === '' ? 0 : Number(print.split(':', 1)[0]));

export const sameStamp = (a: FileStamp, b: FileStamp): boolean =>
  a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;

/** JSONL files grow by whole lines; anything else (a JSON document, a compressed rollout) is read whole. */
export const isLineFile = (path: string): boolean => path.endsWith('.jsonl');

/** How long a file must sit unchanged before an unterminated last line counts as complete. */
export const SETTLED_MS = 5_000;

interface Cached {
  data: Buffer;
  /** Bytes of `data` in use: the file up to the end of its last complete record. */
  offset: number;
  stamp: FileStamp;
}

export type Refresh =
  | { kind: 'unchanged'; stamp: FileStamp; offset: number }
  | { kind: 'appended'; stamp: FileStamp; offset: number; bytes: number }
  | { kind: 'replaced'; stamp: FileStamp; offset: number }
  | { kind: 'gone' };

/**
 * Session files in memory, up to the end of their last complete record. A refresh reads what was
 * appended since; a file that shrank, was replaced (another inode) or whose old end no longer
 * closes a line is read again whole. The cache holds at most `budget` bytes, least recently used
 * files leaving first.
 */
export class SourceFiles {
  private readonly cache = new Map<string, Cached>();
  private held = 0;

  constructor(
    readonly stats: ReadStats,
    private readonly budget = 256 * 1024 * 1024,
  ) {}

  has(path: string): boolean {
    return this.cache.has(path);
  }

  offsetOf(path: string): number | undefined {
    return this.cache.get(path)?.offset;
  }

  drop(path: string): void {
    const c = this.cache.get(path);
    if (!c) return;
    this.held -= c.data.length;
    this.cache.delete(path);
  }

  /** Brings the cached copy of `path` up to date, reading it whole when it is not cached yet. */
  async refresh(path: string): Promise<Refresh> {
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
    return this.readWhole(path, now);
  }

  /** The print of the cached copy's first bytes, up to `upTo`; undefined when not cached. */
  printOf(path: string, upTo: number): string | undefined {
    const c = this.cache.get(path);
    return c ? printOf(c.data.subarray(0, Math.min(upTo, c.offset, HEAD_PRINT_BYTES))) : undefined;
  }

  /** The cached bytes, up to the last complete record; read whole (and cached) when absent. */
  async bytes(path: string): Promise<Uint8Array> {
    let c = this.cache.get(path);
    if (!c) {
      const r = await this.readWhole(path, await stamp(path));
      if (r.kind === 'gone') throw Object.assign(new Error(`ENOENT: ${path}`), { code: 'ENOENT' });
      c = this.cache.get(path)!;
    }
    this.touch(path, c);
    return c.data.subarray(0, c.offset);
  }

  private async append(path: string, c: Cached, now: FileStamp): Promise<Refresh | undefined> {
    // The first bytes, and one byte before the old end (it closed a line), tell whether the old
    // content is still there or the file was written anew in place.
    const first = Math.min(c.offset, HEAD_PRINT_BYTES);
    if (first > 0) {
      const head = await readRange(path, 0, first);
      this.stats.note(path, head.length);
      if (Buffer.compare(head, c.data.subarray(0, first)) !== 0) return undefined;
    }
    const from = c.offset === 0 ? 0 : c.offset - 1;
    const chunk = await readRange(path, from, now.size - from);
    this.stats.note(path, chunk.length);
    if (c.offset > 0 && chunk[0] !== 10) return undefined;
    const fresh = c.offset === 0 ? chunk : chunk.subarray(1);
    const nl = fresh.lastIndexOf(10);
    c.stamp = now;
    if (nl === -1) return { kind: 'unchanged', stamp: now, offset: c.offset };
    const complete = fresh.subarray(0, nl + 1);
    this.grow(c, c.offset + complete.length);
    complete.copy(c.data, c.offset);
    c.offset += complete.length;
    this.evict();
    return { kind: 'appended', stamp: now, offset: c.offset, bytes: complete.length };
  }

  private async readWhole(path: string, at: FileStamp | undefined): Promise<Refresh> {
    let data: Buffer;
    try {
      data = await readFile(path);
    } catch {
      this.drop(path);
      return { kind: 'gone' };
    }
    this.stats.note(path, data.length);
    const now = at ?? { size: data.length, mtimeMs: Date.now(), ino: 0 };
    const offset = completeLength(path, data, now);
    this.drop(path);
    const c: Cached = { data, offset, stamp: { ...now, size: data.length } };
    this.cache.set(path, c);
    this.held += data.length;
    this.evict(path);
    return { kind: 'replaced', stamp: c.stamp, offset };
  }

  private grow(c: Cached, needed: number): void {
    if (needed <= c.data.length) return;
    const next = Buffer.allocUnsafe(Math.max(needed, Math.ceil(c.data.length * 1.5), 64 * 1024));
    c.data.copy(next, 0, 0, c.offset);
    this.held += next.length - c.data.length;
    c.data = next;
  }

  private touch(path: string, c: Cached): void {
    this.cache.delete(path);
    this.cache.set(path, c);
  }

  private evict(keep?: string): void {
    for (const [path, c] of this.cache) {
      if (this.held <= this.budget) return;
      if (path === keep) continue;
      this.held -= c.data.length;
      this.cache.delete(path);
    }
  }
}

/**
 * Where the complete records of a file end. A JSONL file's unterminated last line waits for its end
 * unless the file has sat unchanged long enough to be finished; other files count whole.
 */
export function completeLength(path: string, data: Uint8Array, at: FileStamp, now = Date.now()): number {
  if (!isLineFile(path) || data.length === 0 || data[data.length - 1] === 10) return data.length;
  if (now - at.mtimeMs >= SETTLED_MS) return data.length;
  return data.lastIndexOf(10) + 1;
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
        if (files && cached(path)) return files.bytes(path);
        const data = await base.fs.readFile(path, signal);
        stats.note(path, data.length);
        return data;
      },
      readRange: async (path, offset, length) => {
        const data = await base.fs.readRange(path, offset, length);
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
