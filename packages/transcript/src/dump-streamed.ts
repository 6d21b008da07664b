// A dump, and the items a view of a selection prints, put out while the session is still being read:
// its main file a part at a time, each part's settled items selected, redacted and written, then
// dropped. Output starts after the first part, and memory holds a part and what is still open rather
// than the session. The bytes are those of writeDump (or of the items buildDump selects).
//
// What the file leaves to the whole read, answering 'whole': a subagent's dump and bounds by record
// (`since_uuid`, `until_uuid`), whose heads name them, and any session whose later parts change what
// was already put out. The items of a view take those too (see SettledItems).
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { type FileHandle, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type {
  DumpIdEntry,
  DumpPreset,
  SessionDumpFile,
  SessionDumpWriteArgs,
  SessionDumpWriteResult,
  TranscriptItem,
} from '@cairn/protocol';
import {
  type DumpWriteFailed,
  insideAny,
  instanceId,
  readDumpPresets,
  type WriteDumpError,
  type WriteDumpOptions,
} from './dump-io.js';
import { dumpSelection } from './items/dump.js';
import { IdsLedger } from './items/ids.js';
import { markdownHeadBlocks, markdownIdsBlocks, markdownItemBlocks } from './items/markdown.js';
import type { Selection } from './items/select.js';
import type { SessionTarget } from './model.js';
import type { SessionPlatform } from './platform.js';
import { redactItems } from './redact/items.js';
import { type RedactionCounts, redactValue } from './redact/redact.js';
import { err, type LoadTranscriptError, ok, type Result } from './result.js';
import {
  placed,
  readsWhole,
  type SessionPartStep,
  type SessionPartsOptions,
  sessionParts,
} from './session-parts.js';
import { type SettledItem, SettledItems } from './settled-items.js';

export type StreamOptions = SessionPartsOptions;

/**
 * The session's steps, as the dump's items are taken from them: once a step is taken, its events
 * are classified and die with it rather than living to the end, where the translation can let them
 * go (its later events then keep their seqs and compaction marks).
 */
async function* itemSteps(
  platform: SessionPlatform,
  target: SessionTarget,
  options: StreamOptions,
): AsyncGenerator<SessionPartStep> {
  for await (const step of sessionParts(platform, target, options)) {
    yield step;
    if (readsWhole(step) || !step.ok) return;
    const { t, letGo, main } = step.value;
    if (letGo(placed(t.events, main))) t.skipped.length = 0;
  }
}

/** Whether a dump file is one a read in parts writes (see the file's head). */
const streams = (args: Pick<SessionDumpWriteArgs, 'agent_id' | 'since_uuid' | 'until_uuid'>): boolean =>
  args.agent_id === undefined && args.since_uuid === undefined && args.until_uuid === undefined;

/**
 * The items a dump of `args` would hold (unredacted), each handed to `onItem` as soon as it is
 * settled. Answers how many were handed out; 'whole' (with that count) when the session must be read
 * whole instead: the items handed out so far are those a whole read begins with, unless a later part
 * changed one of them.
 */
export async function streamDumpItems(
  platform: SessionPlatform,
  target: SessionTarget,
  args: SessionDumpWriteArgs,
  presets: readonly DumpPreset[],
  /** 'enough' when the caller has what it wanted: the rest of the session is not read. */
  onItem: (item: TranscriptItem) => unknown,
  options: StreamOptions & {
    /** Called after each part's items: a printer puts them out rather than waiting for a full batch. */
    readonly afterPart?: () => void | Promise<void>;
  } = {},
): Promise<Result<{ items: number; whole: boolean }, WriteDumpError | LoadTranscriptError>> {
  const sel = dumpSelection(args, presets);
  if (!sel.ok) return sel;
  const settled = new SettledItems(sel.value, args);
  let items = 0;
  for await (const step of itemSteps(platform, target, options)) {
    if (readsWhole(step)) return ok({ items, whole: true });
    if (!step.ok) return step;
    const out = settled.take(step.value.t, step.value.delta, step.value.last, step.value.main);
    if (out === 'whole') return ok({ items, whole: true });
    for (const s of out) {
      const answer = await onItem(s.item);
      items++;
      if (answer === 'enough') {
        await options.afterPart?.();
        return ok({ items, whole: false });
      }
    }
    await options.afterPart?.();
  }
  return ok({ items, whole: false });
}

/** Characters of text redacted in one scan, as redactDumpFile batches them. */
const REDACT_BATCH_CHARS = 4 * 1024 * 1024;
/** Characters of the strings whose first look for secrets is remembered across parts, at most. */
const MAX_LOOKED_CHARS = 16 * 1024 * 1024;
/** Text gathered to about this many characters before each write to the file. */
const WRITE_CHARS = 1024 * 1024;

/** A dump request whose session id may be left to the session itself. */
export type StreamedDumpArgs = Omit<SessionDumpWriteArgs, 'sid'> & { readonly sid?: string | undefined };

/**
 * writeDump's file and answer, written while the session is read; 'whole' when the request or the
 * session needs the whole read (nothing is then left on disk). The session id the file names is the
 * session's own when `args` gives none. Expected failures are values; an abort rejects with
 * `signal.reason`.
 */
export async function writeDumpStreamed(
  platform: SessionPlatform,
  target: SessionTarget,
  args: StreamedDumpArgs,
  options: WriteDumpOptions & StreamOptions,
): Promise<Result<SessionDumpWriteResult, WriteDumpError | LoadTranscriptError> | 'whole'> {
  if (!streams(args)) return 'whole';
  let presets = options.presets;
  if (presets === undefined) {
    const read = await readDumpPresets(options.home);
    if (!read.ok) return read;
    presets = read.value;
  }
  const sel = dumpSelection({ sid: '', ...args }, presets);
  if (!sel.ok) return sel;
  const writtenAt = options.now ?? Date.now();
  const format = args.format ?? 'json';

  let path = '';
  let instance = '';
  let writer: DumpFileWriter | undefined;
  const files: TempFile[] = [];
  const failed = (cause: unknown): Result<never, DumpWriteFailed> => {
    if (options.signal?.aborted) throw options.signal.reason;
    return err({
      _tag: 'DumpWriteFailed',
      path,
      message: `cannot write ${path}: ${(cause as Error).message}`,
    });
  };
  try {
    const settled = new SettledItems(sel.value, args);
    for await (const step of itemSteps(platform, target, options)) {
      if (readsWhole(step)) return 'whole';
      if (!step.ok) return step;
      const { t, delta, last } = step.value;
      if (!writer) {
        // Where the file goes is known once the session's first part has named it.
        const sid = args.sid ?? t.session.id;
        const stamp = new Date(writtenAt).toISOString().replace(/[:.]/g, '-');
        path =
          options.out === undefined
            ? join(options.home, 'dumps', `${safeName(sid)}-${stamp}.dump.${format}`)
            : resolve(options.out);
        const refused = await insideAny(path, options.forbidden ?? []);
        if (refused !== undefined)
          return err({
            _tag: 'DumpPathRefused',
            path,
            message: `refusing to write ${path}: it is inside ${refused}, which belongs to an agent`,
          });
        const id = await instanceId(options.home);
        if (!id.ok) return id;
        instance = id.value;
        options.signal?.throwIfAborted();
        try {
          files.push(await TempFile.beside(path), ...(format === 'md' ? [await TempFile.beside(path)] : []));
        } catch (cause) {
          return failed(cause);
        }
        writer = new DumpFileWriter(
          sel.value,
          { ...args, sid },
          t.agent,
          writtenAt,
          format,
          args.redact !== false,
        );
        if (format === 'json') await files[0]!.write(await writer.jsonHead());
      }
      const out = settled.take(t, delta, last, step.value.main);
      if (out === 'whole') return 'whole';
      options.signal?.throwIfAborted();
      // JSON goes straight to the file; Markdown's items go to a file of their own, since the head
      // before them counts them.
      await (files[1] ?? files[0]!).write(await writer.items(out));
    }
    const [file, body] = files as [TempFile | undefined, TempFile | undefined];
    if (!writer || !file) return 'whole';
    if (!body) await file.write(await writer.jsonTail());
    else {
      await file.write(writer.markdownHead());
      await body.flush();
      await file.copyFrom(body.path);
      await file.write(await writer.markdownTail());
    }
    await file.close();
    options.signal?.throwIfAborted();
    await rename(file.path, path);
    return ok({
      path,
      instance,
      entries: settled.entries,
      ids: writer.ids ?? [],
      bytes: file.bytes,
      ...(writer.counts && { redacted: writer.counts }),
    });
  } catch (cause) {
    return failed(cause);
  } finally {
    for (const f of files) await f.discard();
  }
}

const safeName = (s: string): string => s.replace(/[^A-Za-z0-9._-]/g, '_');

/** A dump's text, a piece at a time: the head, the items as they settle, the ids ledger last. */
class DumpFileWriter {
  /** The secrets redacted so far; undefined when the dump is not redacted. */
  counts: RedactionCounts | undefined;
  /** The ledger as written (redacted when the dump is), once the tail is. */
  ids: DumpIdEntry[] | undefined;
  private readonly ledger = new IdsLedger();
  private written = 0;
  /** Markdown: results drawn under their call ahead of their place, by uuid, and their redacted copy. */
  private readonly ahead = new Map<string, TranscriptItem>();
  private readonly looked = new Map<string, boolean>();

  constructor(
    private readonly selection: Selection,
    private readonly args: SessionDumpWriteArgs,
    private readonly agent: string,
    private readonly writtenAt: number,
    private readonly format: 'json' | 'md',
    redact: boolean,
  ) {
    if (redact) this.counts = {};
  }

  /** The fields before `items`, in buildDump's order. */
  private head(): Omit<SessionDumpFile, 'items' | 'ids'> {
    const a = this.args;
    return {
      sid: a.sid,
      agent: this.agent,
      written_at: this.writtenAt,
      types: [...this.selection.elements],
      ...(a.since_at === undefined ? {} : { since_at: a.since_at }),
      ...(a.until_at === undefined ? {} : { until_at: a.until_at }),
    };
  }

  private async redacted<T>(value: T): Promise<T> {
    if (!this.counts) return value;
    const r = await redactValue(value);
    this.add(r.counts);
    return r.value as T;
  }

  private add(more: RedactionCounts): void {
    for (const [kind, n] of Object.entries(more)) this.counts![kind] = (this.counts![kind] ?? 0) + n;
  }

  /** `JSON.stringify(file, null, 2)` up to the items' array. */
  async jsonHead(): Promise<string> {
    const head = await this.redacted(this.head());
    let text = '{\n';
    for (const [key, value] of Object.entries(head))
      text += `  ${JSON.stringify(key)}: ${indented(JSON.stringify(value, null, 2), '  ')},\n`;
    return text;
  }

  /** The text of the next settled items. */
  async items(settled: readonly SettledItem[]): Promise<string> {
    if (settled.length === 0) return '';
    // Each item redacted once: a result drawn under its call already was, with it.
    const toRedact = new Map<string, TranscriptItem>();
    const queue = (item: TranscriptItem) => {
      if (!this.ahead.has(item.uuid) && !toRedact.has(item.uuid)) toRedact.set(item.uuid, item);
    };
    for (const s of settled) {
      this.ledger.add(s.item);
      queue(s.item);
      if (this.format === 'md' && s.result) queue(s.result);
    }
    const redacted = new Map<string, TranscriptItem>();
    if (this.counts) {
      const items = [...toRedact.values()];
      const r = await redactItems(items, REDACT_BATCH_CHARS, this.looked);
      // The first look's answers carried from part to part, as over a whole dump, within bounds.
      let chars = 0;
      for (const text of this.looked.keys()) chars += text.length;
      if (chars > MAX_LOOKED_CHARS) this.looked.clear();
      this.add(r.counts);
      items.forEach((item, i) => {
        redacted.set(item.uuid, r.items[i]!);
      });
    }
    const as = (item: TranscriptItem) => redacted.get(item.uuid) ?? item;
    const pieces: string[] = [];
    for (const s of settled) {
      if (this.format === 'json') {
        const text = `${indented(JSON.stringify(as(s.item), null, 2), '    ')}`;
        pieces.push(this.written++ === 0 ? `  "items": [\n    ${text}` : `,\n    ${text}`);
        continue;
      }
      this.written++;
      const drawnAhead = this.ahead.get(s.item.uuid);
      if (drawnAhead) {
        // Drawn under its call already.
        this.ahead.delete(s.item.uuid);
        continue;
      }
      let result: TranscriptItem | undefined;
      if (s.result && (s.item as { role?: unknown }).role !== 'result') {
        result = as(s.result);
        this.ahead.set(s.result.uuid, result);
      }
      for (const block of markdownItemBlocks(as(s.item), result)) pieces.push(`\n\n${block}`);
    }
    return pieces.join('');
  }

  /** The ledger, redacted when the dump is. */
  private async ledgerEntries(): Promise<DumpIdEntry[]> {
    this.ids = await this.redacted(this.ledger.entries());
    return this.ids;
  }

  /** The end of the JSON: the items' array closed, and the ids. */
  async jsonTail(): Promise<string> {
    const items = this.written === 0 ? '  "items": [],\n' : '\n  ],\n';
    const ids = await this.ledgerEntries();
    return `${items}  "ids": ${indented(JSON.stringify(ids, null, 2), '  ')}\n}\n`;
  }

  /** The Markdown dump's head, which counts the items. */
  markdownHead(): string {
    return [...markdownHeadBlocks(this.head(), this.written)].join('\n\n');
  }

  /** The Markdown dump's end: the ids table, and the final newline. */
  async markdownTail(): Promise<string> {
    const ids = await this.ledgerEntries();
    return `${[...markdownIdsBlocks(ids)].map((b) => `\n\n${b}`).join('')}\n`;
  }
}

const indented = (text: string, by: string): string => text.replaceAll('\n', `\n${by}`);

/** A file written beside its destination, buffered, renamed over it or removed. */
class TempFile {
  bytes = 0;
  private held: string[] = [];
  private chars = 0;
  private closed = false;

  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  static async beside(path: string): Promise<TempFile> {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const temp = join(
      dirname(path),
      `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`,
    );
    return new TempFile(temp, await open(temp, 'wx', 0o600));
  }

  async write(text: string): Promise<void> {
    if (text === '') return;
    this.held.push(text);
    this.chars += text.length;
    if (this.chars >= WRITE_CHARS) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.held.length === 0) return;
    const chunk = Buffer.from(this.held.join(''));
    this.held = [];
    this.chars = 0;
    this.bytes += chunk.length;
    await this.handle.writeFile(chunk);
  }

  /** Appends another file's bytes, a chunk at a time. */
  async copyFrom(path: string): Promise<void> {
    await this.flush();
    for await (const chunk of createReadStream(path)) {
      const bytes = chunk as Buffer;
      this.bytes += bytes.length;
      await this.handle.writeFile(bytes);
    }
  }

  async close(): Promise<void> {
    await this.flush();
    if (!this.closed) await this.handle.close();
    this.closed = true;
  }

  async discard(): Promise<void> {
    if (!this.closed) await this.handle.close().catch(() => {});
    this.closed = true;
    await rm(this.path, { force: true }).catch(() => {});
  }
}
