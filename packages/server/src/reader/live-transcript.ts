// A followed session kept up to date as its files grow: each read translates only the records the
// files gained, and extends the items of every lane, their search documents and the summary,
// rather than reading the session again. A read the translation cannot continue (a file written
// anew, a record that changes earlier ones beyond a patch) starts over, and says so. A long
// session's first read goes in parts, so that the daemon answers others while it reads; JSONL files
// are read from disk for it, and later reads take only what the files gained, so that no whole file
// is held in memory. A session kept in a SQLite store is read by its rows, each read taking those
// that changed since the last.
import { setImmediate } from 'node:timers/promises';
import {
  fileEnd,
  findSession,
  heldLinesFrom,
  IncrementalItems,
  type LoadTranscriptError,
  lineParts,
  type Result,
  readParts,
  readSessionFiles,
  type SessionAdapter,
  type SessionPlatform,
  type SessionSummaryWithPrompts,
  type SourceFile,
  StoreSessionTail,
  SummaryFold,
  sessionNotFound,
  splitStorePath,
  type Transcript,
  type TranscriptDelta,
  type TranscriptEvent,
  Translator,
} from '@cairn/transcript';
import type { IndexDoc, UsageRequest } from '../indexing/index-db.js';
import { ItemKeys, type LaneItems, laneDocs } from '../indexing/search-docs.js';
import { RequestsTally } from '../usage/session-requests.js';
import { type ListingFacts, ListingTally } from './listing.js';
import { type FileStamp, isLineFile, ReadStats, SourceFiles } from './source-files.js';

/** What the last read added to what was known before it. */
export interface LiveDelta {
  /** New events, in transcript order. */
  readonly added: readonly TranscriptEvent[];
  /** Per lane, the index of its first new item. */
  readonly newItems: ReadonlyMap<LaneItems, number>;
  /** The search documents of the new items. */
  readonly docs: IndexDoc[];
}

export interface LiveReadOptions {
  /**
   * Leave unread, until the files grow, the lines at the end of what the read finds that the adapter
   * reads only with the next record (a Codex user message, a prompt or injected context by what
   * follows it). Read alone, such a line is a guess, and a wrong guess classifies its lane again
   * when the next record comes, at a cost that grows with the session. `heldBack` tells whether
   * the read left any; a read without this option takes them.
   */
  holdBack?: boolean;
}

export interface LiveTranscriptOptions {
  /** Where the session's JSONL files are held between reads; its own when not given. */
  files?: SourceFiles;
  /** Bytes of the main file each part of a first read takes. */
  partBytes?: number;
}

export class LiveTranscript {
  /** The items of every lane, main first; kept and grown from read to read. */
  lanes: LaneItems[] = [];
  /** What the last read added, or undefined when it read the session from the start. */
  delta: LiveDelta | undefined;
  /** Whether the last read left lines unread for the next one (see LiveReadOptions.holdBack). */
  heldBack = false;
  private translator: Translator | undefined;
  /** The session's adapter, once a read found it: where its parts may be cut. */
  private adapter: SessionAdapter | undefined;
  private items = new IncrementalItems();
  private fold = new SummaryFold();
  private requestsTally = new RequestsTally();
  private readonly tally: ListingTally;
  private readonly keys = new Map<LaneItems, ItemKeys>();
  private readonly files: SourceFiles;
  private readonly partBytes: number;
  /** How far the translation has read each JSONL file. */
  private readonly ends = new Map<string, number>();
  /** A session kept in a SQLite store: the rows held and translated so far. */
  private storeTail: StoreSessionTail | undefined;

  constructor(
    private readonly agent: string,
    options: LiveTranscriptOptions = {},
  ) {
    this.tally = new ListingTally(agent);
    this.files = options.files ?? new SourceFiles(new ReadStats());
    this.partBytes = options.partBytes ?? PART_BYTES;
  }

  /** Reads what the session's files gained since the last read (all of them the first time). */
  async read(
    platform: SessionPlatform,
    path: string,
    options: LiveReadOptions = {},
  ): Promise<Result<Transcript, LoadTranscriptError>> {
    this.heldBack = false;
    const found = await findSession(platform, { agent: this.agent, path });
    if (!found.ok) return found;
    const { adapter, paths } = found.value;
    this.adapter = adapter;
    const first = this.translator === undefined;
    this.translator ??= new Translator(adapter);
    const before = new Map(this.lanes.map((l) => [l, l.keys.length]));
    const store = paths.length === 1 ? splitStorePath(paths[0]!) : undefined;
    const pushed = store
      ? await this.readStoreRows(adapter.id, paths[0]!, store)
      : adapter.incremental && paths.length > 0 && paths.every(isLineFile)
        ? await this.readLineFiles(platform, paths, options.holdBack ?? false)
        : await this.readWholeFiles(platform, paths, first);
    if (!pushed.ok) return pushed;
    const { t, fresh } = pushed.value;
    // Read on from the last read (one push): what it added to each lane is new.
    const newItems = new Map<LaneItems, number>();
    const docs: IndexDoc[] = [];
    if (!fresh)
      for (const lane of this.lanes) {
        const from = before.get(lane) ?? 0;
        if (lane.keys.length === from) continue;
        newItems.set(lane, from);
        laneDocs(lane, from, docs);
      }
    const { added } = pushed.value.delta;
    this.delta = fresh ? undefined : { added, newItems, docs };
    return { ok: true, value: t };
  }

  /**
   * Files held whole (a JSON document, a compressed rollout) or an adapter that cannot go on from
   * where it stopped: every read hands over the whole files. A long session's first read goes in
   * parts, letting the daemon answer others between them.
   */
  private async readWholeFiles(
    platform: SessionPlatform,
    paths: readonly string[],
    first: boolean,
  ): Promise<Pushed> {
    const files = await readSessionFiles(platform, paths);
    if (!files.ok) return this.failed(files);
    if (!first) return this.push(files.value, 'on');
    const parts = lineParts(files.value, this.partBytes, this.adapter?.keepWithNext);
    for (const [i, part] of parts.slice(0, -1).entries()) {
      const pushed = this.push(part, i === 0 ? 'start' : 'on');
      if (!pushed.ok) return pushed;
      await setImmediate();
    }
    return this.fresh(this.push(files.value, parts.length > 1 ? 'on' : 'start'));
  }

  /**
   * A session kept in a SQLite store: each read takes from the store the rows that changed since
   * the last one, and the translation goes on from the first message they touch (see
   * StoreSessionTail). Store sessions are counted by the bytes of the rows read.
   */
  private async readStoreRows(
    agent: string,
    path: string,
    store: { db: string; id: string },
  ): Promise<Pushed> {
    this.storeTail ??= new StoreSessionTail(agent, store.db, store.id);
    let read: Awaited<ReturnType<StoreSessionTail['read']>>;
    try {
      read = await this.storeTail.read();
    } catch (cause) {
      const why = cause instanceof Error ? cause.message : String(cause);
      return this.failed({
        ok: false,
        error: { _tag: 'ReadFailed', file: store.db, message: `cannot read ${path}: ${why}` },
      });
    }
    this.files.stats.note(path, read.bytes);
    return { ok: true, value: this.absorb(this.storeTail.snapshot(), read.delta, read.delta.rewritten) };
  }

  /**
   * JSONL files: each read hands the translation only the bytes the files gained since it last read
   * them, from the cache where they were just read; nothing holds a whole file. A first read, or
   * one the translation cannot go on from, reads them from disk in parts.
   */
  private async readLineFiles(
    platform: SessionPlatform,
    paths: readonly string[],
    holdBack: boolean,
  ): Promise<Pushed> {
    const ends: number[] = [];
    // A file read anew (written in place, replaced) since the translation read it: from the start.
    let anew = false;
    for (const p of paths) {
      const refreshed = await this.files.refresh(p);
      if (refreshed.kind === 'gone') return this.failed({ ok: false, error: sessionNotFound(p) });
      if (refreshed.kind === 'replaced' && this.ends.has(p)) anew = true;
      ends.push(refreshed.offset);
    }
    if (this.ends.size > 0 && !anew) {
      const tails = await this.tails(platform, paths, ends, holdBack);
      if (tails) {
        const pushed = this.push(tails, 'tail');
        if (!pushed.ok || pushed.value !== 'rewrite') return pushed as Pushed;
      }
    }
    // Held lines of the tail are read (or held) again from the start.
    this.heldBack = false;
    return this.fresh(await this.fromStart(platform, paths, ends, holdBack));
  }

  /**
   * Each file's bytes past where the translation read it, up to `ends`, less the lines held back
   * when `holdBack`; undefined when one shrank.
   */
  private async tails(
    platform: SessionPlatform,
    paths: readonly string[],
    ends: readonly number[],
    holdBack: boolean,
  ): Promise<SourceFile[] | undefined> {
    const files: SourceFile[] = [];
    const keepWithNext = holdBack ? this.adapter?.keepWithNext : undefined;
    for (const [i, path] of paths.entries()) {
      const from = this.ends.get(path) ?? 0;
      const end = ends[i]!;
      if (end < from) return undefined;
      let data = this.files.tail(path, from) ?? (await platform.fs.readRange(path, from, end - from));
      const held = keepWithNext ? heldLinesFrom(data, keepWithNext) : data.length;
      if (held < data.length) {
        data = data.subarray(0, held);
        this.heldBack = true;
      }
      files.push({ path, data, start: from });
    }
    return files;
  }

  /**
   * The files from their start: the main one a part at a time, the others whole with its last,
   * less the lines at the main file's end held back when `holdBack`.
   */
  private async fromStart(
    platform: SessionPlatform,
    paths: readonly string[],
    ends: readonly number[],
    holdBack: boolean,
  ) {
    this.ends.clear();
    const keepWithNext = holdBack ? this.adapter?.keepWithNext : undefined;
    const [main, ...others] = paths as [string, ...string[]];
    let pushed: Pushed | undefined;
    for await (const part of readParts(
      platform,
      main,
      this.partBytes,
      undefined,
      ends[0],
      this.adapter?.keepWithNext,
    )) {
      let read: SourceFile = part;
      if (part.last && keepWithNext) {
        const held = heldLinesFrom(part.data, keepWithNext);
        if (held < part.data.length) {
          read = { ...part, data: part.data.subarray(0, held) };
          this.heldBack = true;
        }
      }
      const files: SourceFile[] = [read];
      if (part.last)
        for (const [i, path] of others.entries())
          files.push({ path, data: await platform.fs.readRange(path, 0, ends[i + 1]!) });
      const next = pushed ? this.push(files, 'tail') : this.push(files, 'start');
      if (next.ok && next.value === 'rewrite') {
        // A part changed what earlier ones made: the files whole, at once.
        this.heldBack = false;
        const whole: SourceFile[] = [];
        for (const [i, path] of paths.entries())
          whole.push({ path, data: await platform.fs.readRange(path, 0, ends[i]!) });
        return this.push(whole, 'start');
      }
      pushed = next as Pushed;
      if (!pushed.ok) return pushed;
      if (!part.last) await setImmediate();
    }
    return pushed!;
  }

  /** Whatever its parts were, this was the session's first read: every item is new. */
  private fresh(pushed: Pushed): Pushed {
    if (pushed.ok) pushed.value.fresh = true;
    return pushed;
  }

  /**
   * Brings the translation, the items, their keys, the listing tally and the summary up to
   * `files`, noting how far each was read. `start` begins a read from the files' start (every lane
   * anew), `on` goes on from whole files, `tail` from files that may hold only the bytes past where
   * the last push stopped; 'rewrite' means the translation cannot go on from them (and is empty
   * again). Each part of a long first read is taken in full here, so that nothing after the last
   * part has the whole session to walk.
   */
  private push(
    files: readonly SourceFile[],
    how: 'tail',
  ): Result<PushedValue | 'rewrite', LoadTranscriptError>;
  private push(files: readonly SourceFile[], how: 'start' | 'on'): Pushed;
  private push(
    files: readonly SourceFile[],
    how: 'start' | 'on' | 'tail',
  ): Result<PushedValue | 'rewrite', LoadTranscriptError> {
    const pushed = how === 'tail' ? this.translator!.pushTail(files) : this.translator!.push(files);
    if (!pushed.ok) return this.failed(pushed);
    if (pushed.value === 'rewrite') return { ok: true, value: 'rewrite' };
    for (const f of files) this.ends.set(f.path, fileEnd(f));
    return { ok: true, value: this.absorb(this.translator!.snapshot(), pushed.value, how === 'start') };
  }

  /** Brings the items, their keys, the listing tally and the summary up to what `delta` did to `t`. */
  private absorb(t: Transcript, delta: TranscriptDelta, start: boolean): PushedValue {
    const change = this.items.update(t, delta);
    this.fold.update(t, delta);
    const fresh = start || delta.rewritten || change.reread.size > 0;
    this.keyLanes(t, fresh);
    this.tally.update(t, fresh ? undefined : [...delta.added, ...delta.updated], this.lanes);
    this.requestsTally.update(t, fresh ? undefined : delta);
    return { t, delta, fresh };
  }

  /** The lanes as the items now have them, each keeping its keys unless `fresh`, with keys for its new items. */
  private keyLanes(t: Transcript, fresh: boolean): void {
    const before = new Map(this.lanes.map((l) => [l.agentId ?? '', l]));
    const lanes: LaneItems[] = [];
    for (const c of this.items.all(t)) {
      const agentId = c.isMain ? undefined : c.laneId;
      let lane = fresh ? undefined : before.get(agentId ?? '');
      if (!lane) {
        lane = { agentId, classification: c.classification, keys: [] };
        this.keys.set(lane, new ItemKeys(agentId ?? ''));
      }
      lane.classification = c.classification;
      this.keys.get(lane)!.extend(lane);
      lanes.push(lane);
    }
    for (const old of this.lanes) if (!lanes.includes(old)) this.keys.delete(old);
    this.lanes = lanes;
  }

  private failed<E>(result: { ok: false; error: E }): { ok: false; error: E } {
    this.forget();
    return result;
  }

  /** A store session's stamp as of the last read, from the rows it read (see StoreSessionTail.stamp). */
  storeStamp(): FileStamp | undefined {
    return this.storeTail?.stamp();
  }

  summary(t: Transcript): SessionSummaryWithPrompts {
    return this.fold.summary(t);
  }

  listing(t: Transcript): ListingFacts {
    return this.tally.facts(t);
  }

  /** The requests the usage reports count, as `sessionRequests` of the last read's transcript gives them. */
  requests(): UsageRequest[] {
    return this.requestsTally.requests();
  }

  private forget(): void {
    this.translator = undefined;
    this.storeTail = undefined;
    this.ends.clear();
    this.items = new IncrementalItems();
    this.fold = new SummaryFold();
    this.requestsTally = new RequestsTally();
    this.lanes = [];
    this.keys.clear();
    this.delta = undefined;
  }
}

interface PushedValue {
  t: Transcript;
  delta: TranscriptDelta;
  /** This read went from the start rather than on from the last one. */
  fresh: boolean;
}
type Pushed = Result<PushedValue, LoadTranscriptError>;

/** Bytes of a session's main file taken by each part of a first read: a few hundredths of a second's
 * work, and parsed lines that die young (see loadTranscript's parts). */
const PART_BYTES = 1024 * 1024;
