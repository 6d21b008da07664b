// The catalog reading sessions into the index: a followed or growing session read on from where
// its last read stopped, any other read whole (on a worker thread when there are workers, a few
// prepared ahead of the queue), and its head, summary, documents and files recorded.
import { getHeapStatistics } from 'node:v8';
import {
  type AdapterContext,
  fileLastRecordAt,
  findAdapter,
  HEAD_BYTES,
  readSourceFile,
  SESSION_SUMMARY_VERSION,
  splitStorePath,
} from '@cairn/transcript';
import type { FileState, IndexDoc, UsageRequest } from '../indexing/index-db.js';
import {
  type DocBatch,
  docBatches,
  docsAtMost,
  docsOf,
  headFactsOf,
  type IndexJob,
  type PreparedFacts,
  type PreparedIndex,
  prepareIndex,
  type TranscriptHeadFacts,
} from '../indexing/index-job.js';
import { INDEX_IN_PARTS_BYTES, prepareInParts } from '../indexing/index-parts.js';
import { searchDocsInSlices } from '../indexing/search-docs.js';
import {
  type CatalogHead,
  CatalogState,
  type Loaded,
  listedSummary,
  type SessionEntry,
  sharedCapabilities,
  type TranscriptChange,
} from './catalog-state.js';
import { withoutTexts, withTexts } from './head-texts.js';
import { LiveTranscript } from './live-transcript.js';
import { turnInFlight } from './run-state.js';
import { type FileStamp, headPrint, isLineFile, sameStamp, servingPlatform, stamp } from './source-files.js';

interface IndexOptions {
  /** Keep the session's files in the cache, for reads of what they gain. */
  cache: boolean;
  /** A file was written anew: a followed session's translation starts over. */
  replaced?: boolean;
  /** A kept translation's read takes the lines the last one held back. */
  release?: boolean;
}

/** How long a kept translation's read leaves unread a line whose meaning waits on the next record. */
const HOLD_MS = 500;

/** How many times its last whole read's length a session read whole again waits for the next. */
const WHOLE_READ_SPACING = 20;

/** Document keys read from the index in one turn of the event loop: 10-20 ms of work. */
const DOC_KEY_PAGE = 5_000;

/** How long the writes of sessions read on the workers wait to share a commit (IndexDb.holdCommits). */
const HELD_COMMIT_MS = 250;

/** A growing session nobody follows lets its translation go after this long without growing. */
const TAIL_IDLE_MS = 10 * 60_000;

/**
 * The bytes of the sessions nobody follows whose translations are kept (see keepsTail): a
 * translation holds about twice its files' bytes, so a sixteenth of the heap's limit keeps
 * these within an eighth of it (256 MB of sessions under the usual 4 GB).
 */
const tailBudgetBytes = (): number => Math.floor(getHeapStatistics().heap_size_limit / 16);

export abstract class CatalogIndexing extends CatalogState {
  /**
   * The index's documents of a session, as a read from the start found them, while that read's
   * translation holds lines back: the next read's items from those lines are in the index already.
   */
  private readonly indexedWhileHeld = new Map<string, ReadonlySet<string>>();
  /** The requests last written of each session kept translated: a read that goes on from the last
   * one writes the usage rows from the first request that differs, not every row again. */
  private readonly usageWritten = new Map<string, UsageRequest[]>();

  /**
   * Reads a session and records its documents, summary and files: a followed one, or one kept
   * translated as it grows, read on from where its last read stopped, any other whole (on a worker
   * thread when there are workers).
   */
  protected async index(key: string, opts: IndexOptions): Promise<void> {
    const e = this.sessions.get(key);
    if (!e) return;
    // A file written anew starts a followed session's translation over.
    if (opts.replaced) this.forgetLive(key);
    let live = this.live.get(key);
    if (!live && (this.followed.has(key) || (await this.keepsTail(e, opts)))) {
      live = new LiveTranscript(e.agent, { files: this.files });
      this.live.set(key, live);
    }
    if (live) await this.indexLive(e, live, opts);
    else if (!e.indexed) await this.indexWhole(e, opts);
    else if (!this.deferWhole(key)) {
      const started = Date.now();
      await this.indexWhole(e, opts);
      this.wholeReads.set(key, { end: Date.now(), took: Date.now() - started });
    }
    if (this.tailed.has(key)) this.tailed.set(key, { bytes: await this.sessionBytes(key), at: Date.now() });
  }

  /**
   * Whether a session nobody follows keeps its translation from read to read: one seen to grow
   * after its first index (an agent at work in it) is read on from where it stopped, not whole
   * again at each append, while its bytes and those of the others so kept fit the budget; the
   * least recently grown make room, and one idle for TAIL_IDLE_MS lets go. Sessions that changed
   * while the daemon was away are read whole, on the workers, as before.
   */
  private async keepsTail(e: SessionEntry, opts: IndexOptions): Promise<boolean> {
    if (!e.indexed || opts.replaced || !this.grewAt.has(e.key)) return false;
    // Kept only where a read goes on from the last one's end; one that reads again what it holds
    // is better left to the workers.
    const adapter = findAdapter(e.agent);
    if (!adapter?.incremental || adapter.readsInParts === false) return false;
    if (!e.head.files.every(isLineFile)) return false;
    const now = Date.now();
    for (const [key, t] of this.tailed) if (now - t.at > TAIL_IDLE_MS) this.untail(key);
    const bytes = await this.sessionBytes(e.key);
    const budget = this.options.tailBytes ?? tailBudgetBytes();
    if (bytes > budget) return false;
    let used = bytes;
    for (const t of this.tailed.values()) used += t.bytes;
    for (const [key, t] of [...this.tailed].sort((a, b) => a[1].at - b[1].at)) {
      if (used <= budget) break;
      this.untail(key);
      used -= t.bytes;
    }
    this.tailed.set(e.key, { bytes, at: now });
    return true;
  }

  /**
   * Whether a session read whole again when it changes waits before its next read: one too large
   * to keep translated, growing all the time, would otherwise keep a worker reading it from the
   * start without pause. Between two such reads passes WHOLE_READ_SPACING times what the last one
   * took; the changes meanwhile are read together when the wait ends.
   */
  private deferWhole(key: string): boolean {
    const last = this.wholeReads.get(key);
    const wait = last ? last.end + WHOLE_READ_SPACING * last.took - Date.now() : 0;
    if (wait <= 0) return false;
    if (!this.deferred.has(key)) {
      const timer = setTimeout(() => {
        this.deferred.delete(key);
        if (!this.closed) void this.enqueue(() => this.refreshSession(key));
      }, wait);
      timer.unref();
      this.deferred.set(key, timer);
    }
    return true;
  }

  private untail(key: string): void {
    this.tailed.delete(key);
    if (this.followed.has(key)) return;
    this.latest.delete(key);
    this.forgetLive(key);
  }

  private async indexLive(e: SessionEntry, live: LiveTranscript, opts: IndexOptions): Promise<void> {
    // A store session's stamp is that of the rows its read took (a stamp of the store would go over
    // every row of it in the store's indexes); it is recorded once what the read found is on its way
    // to the clients.
    const store = splitStorePath(e.head.path) !== undefined;
    const before = store ? undefined : await this.stampFiles(e, true);
    const read = live.read(this.platform(), e.head.path, { holdBack: !opts.release });
    const loaded = await read.catch((cause: unknown) => {
      // A defect in translation fails this session alone, and says so, rather than the caller.
      this.forgetLive(e.key);
      return { ok: false as const, error: { message: `reading it failed: ${String(cause)}` } };
    });
    if (!loaded.ok) {
      await this.recordFailure(e, before ?? (await this.stampFiles(e, true)), loaded.error.message);
      return;
    }
    if (store && live.delta) {
      if (live.delta.added.length > 0 && this.observing) this.grewAt.set(e.key, Date.now());
      const change: TranscriptChange = {
        key: e.key,
        transcript: loaded.value,
        lanes: live.lanes,
        replaced: false,
        delta: live.delta,
      };
      this.latest.set(e.key, { transcript: loaded.value, lanes: live.lanes });
      for (const listener of this.transcriptListeners) listener(change);
    }
    const kept = store ? live.storeStamp() : undefined;
    const stamps = before ?? (kept ? new Map([[e.head.path, kept]]) : await this.stampFiles(e, true));
    if (live.heldBack) this.armRelease(e.key);
    else this.cancelRelease(e.key);
    const t = loaded.value;
    const lanes = live.lanes;
    const summary = live.summary(t);
    const facts: PreparedFacts = {
      summary,
      capabilities: [...t.capabilities],
      inFlight: turnInFlight(t),
      listing: live.listing(t),
      session: headFactsOf(t),
      // A copy: the live transcript's list goes on growing with its next read.
      requests: live.requests().slice(),
    };
    // Read on, the documents are the new items'. Read from the start, the session was most often
    // indexed already: only the items the index lacks are made documents.
    let known: Set<string> | undefined;
    if (!live.delta && !opts.replaced) {
      known = await this.docKeysInPages(e.key);
      if (!known) return;
    }
    const docs = docBatches(
      live.delta ? this.unindexed(e.key, live.delta.docs) : await searchDocsInSlices(lanes, known),
    );
    // Lines a read from the start held back were read whole when the session was indexed: the
    // index has their items, which the read that takes them must not add again.
    if (known && live.heldBack) this.indexedWhileHeld.set(e.key, known);
    else if (!live.heldBack) this.indexedWhileHeld.delete(e.key);
    if (!(await this.record(e, stamps, facts, docs, { ...opts, onlyNew: true }))) return;
    const loadedNow: Loaded = { transcript: t, lanes };
    this.latest.set(e.key, loadedNow);
    const change: TranscriptChange = { key: e.key, ...loadedNow, replaced: opts.replaced ?? false };
    if (live.delta) change.delta = live.delta;
    if (!store || !live.delta) for (const listener of this.transcriptListeners) listener(change);
    this.emitHeads([e], []);
  }

  /**
   * The index's keys of a session's documents. A read from the start may have just translated a
   * long session, whose keys are a long list too: they are read a page at a time, letting others in
   * between. Undefined when the server closed meanwhile.
   */
  private async docKeysInPages(key: string): Promise<Set<string> | undefined> {
    const known = new Set<string>();
    for (let after = Number.MIN_SAFE_INTEGER; ; ) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.closed) return undefined;
      const page = this.options.db.docKeyPage(key, after, DOC_KEY_PAGE);
      for (const k of page.keys) known.add(k);
      if (page.keys.length < DOC_KEY_PAGE) return known;
      after = page.lastId;
    }
  }

  /**
   * After a kept translation's read held lines back, a read that takes them HOLD_MS later, unless
   * an append comes first (its read takes them with what follows): a line a writer stops after is
   * still shown, a moment late.
   */
  private armRelease(key: string): void {
    this.cancelRelease(key);
    const timer = setTimeout(() => {
      this.releases.delete(key);
      if (this.closed || !this.live.has(key)) return;
      void this.enqueue(() => this.index(key, { cache: true, release: true }));
    }, HOLD_MS);
    timer.unref();
    this.releases.set(key, timer);
  }

  private cancelRelease(key: string): void {
    clearTimeout(this.releases.get(key));
    this.releases.delete(key);
  }

  protected forgetLive(key: string): void {
    this.live.delete(key);
    this.usageWritten.delete(key);
    this.tailed.delete(key);
    this.indexedWhileHeld.delete(key);
    this.cancelRelease(key);
  }

  /** A read on's documents, less those the index already had when lines were held back. */
  private unindexed(key: string, docs: readonly IndexDoc[]): readonly IndexDoc[] {
    const indexed = this.indexedWhileHeld.get(key);
    return indexed ? docs.filter((d) => !indexed.has(d.itemKey)) : docs;
  }

  private async indexWhole(e: SessionEntry, opts: IndexOptions): Promise<void> {
    const job: IndexJob = { agent: e.agent, path: e.head.path, files: e.head.files };
    if (readInParts(e)) {
      await this.indexInParts(e, job);
      return;
    }
    let prepared: PreparedIndex;
    if (this.workers) {
      // Nobody follows it: a worker reads its files from disk, so none of their bytes need be kept here.
      for (const f of job.files) this.files.drop(f);
      const ahead = this.preparing.get(e.key);
      this.preparing.delete(e.key);
      prepared = await (ahead ?? this.prepareOnWorker(job));
      // Prepared ahead of its turn: a file that changed since is read again, now. One read now
      // stands for the files as stamped before it; what they gained meanwhile, the next read takes.
      if (ahead && !(await this.sameStamps(prepared.stamps))) prepared = await this.prepareOnWorker(job);
    } else {
      await this.stampFiles(e, opts.cache);
      prepared = await prepareIndex(this.platform(), job);
    }
    // A worker that died took no stamps: the files as they are now, so that the session is not read
    // again (and the worker lost again) before they change.
    const stamps = new Map(prepared.stamps.length > 0 ? prepared.stamps : await this.stampFiles(e, false));
    const prints = this.takeMarks(stamps, prepared.marks);
    if (!prepared.ok) {
      await this.recordFailure(e, stamps, prepared.error, prints);
      return;
    }
    const { docs, ...facts } = prepared;
    // Sessions read on the workers come one after another in a cold index: their writes share commits.
    if (this.workers) this.options.db.holdCommits(HELD_COMMIT_MS);
    const recorded = await this.record(e, stamps, facts, docs, { ...opts, onlyNew: false }, prints);
    // The last of them committed at once: other connections read an index that has settled.
    if (this.background.length === 0) this.options.db.commitHeld();
    if (!recorded) return;
    this.emitHeads([e], []);
  }

  /**
   * Reads a large session a part at a time (see prepareInParts), on a worker when there are
   * workers, writing each batch of its documents as it comes and its facts once the read is done.
   */
  private async indexInParts(e: SessionEntry, job: IndexJob): Promise<void> {
    // Read from disk a part at a time: none of its bytes are kept here.
    for (const f of job.files) this.files.drop(f);
    const parts = this.workers
      ? this.workers.prepareInParts(job, (count) => this.stats.add(count))
      : prepareInParts(this.platform(), job);
    const db = this.options.db;
    let began:
      | { stamps: Map<string, FileStamp>; prints?: Map<string, string>; start: RecordStart }
      | undefined;
    let have: Set<string> | undefined;
    for await (const part of parts) {
      if (part.kind === 'start') {
        const stamps = new Map(part.stamps);
        const prints = this.takeMarks(stamps, part.marks);
        const start = await this.startRecord(e, stamps, prints);
        have = start && (await this.docKeysInPages(e.key));
        if (!start || !have) return;
        began = { stamps, start, ...(prints ? { prints } : {}) };
      } else if (part.kind === 'end') {
        const stamps = began?.stamps ?? new Map(await this.stampFiles(e, false));
        if (!part.facts.ok) {
          await this.recordFailure(e, stamps, part.facts.error, began?.prints);
          return;
        }
        if (!began) return;
        this.finishRecord(e, began.stamps, part.facts, began.start, { replaced: false, lastBatch: [] });
        if (this.background.length === 0) db.commitHeld();
        this.emitHeads([e], []);
        return;
      } else if (!began || !have) return;
      else if (part.kind === 'restart') {
        this.log(`index: ${e.agent} ${e.sid}: read whole after all: ${part.why}`);
        db.transaction(() => db.clearDocs(e.key));
        have = new Set();
      } else {
        const batch = unknownDocs(part.batch, have);
        // Batches from a worker share commits, as the sessions a cold index reads on the workers do.
        if (this.workers) db.holdCommits(HELD_COMMIT_MS);
        // Placed a batch at a time: the count of the session's documents is known only at the end.
        const below = db.placeOf(batch.length, began.start.lastActivityAt);
        db.transaction(() => db.addDocs(e.key, batch, below === undefined ? undefined : { next: below }));
        await new Promise((resolve) => setImmediate(resolve));
        if (this.closed) return;
      }
    }
  }

  /**
   * The marks a worker made beside its read, for the files stamped as it stamped them: their last
   * record times are remembered as a read of the file here would have, and their prints answered
   * for readPoints, so that this thread reads none of these files again.
   */
  private takeMarks(
    stamps: Map<string, FileStamp>,
    marks: PreparedIndex['marks'],
  ): Map<string, string> | undefined {
    if (!marks) return undefined;
    const prints = new Map<string, string>();
    for (const [f, m] of marks) {
      const st = stamps.get(f);
      if (!st) continue;
      this.lastRecords.set(f, { stamp: st, at: m.lastRecordAt });
      prints.set(f, m.print);
    }
    return prints;
  }

  /** The session's files' stamps, refreshing the cached bytes of those it holds (or is to hold). */
  private async stampFiles(e: SessionEntry, cache: boolean): Promise<Map<string, FileStamp>> {
    const stamps = new Map<string, FileStamp>();
    for (const f of e.head.files) {
      // A store session is read by its rows (LiveTranscript), never held as an export here.
      if ((cache || this.files.has(f)) && !splitStorePath(f)) {
        const r = await this.files.refresh(f);
        if (r.kind !== 'gone') stamps.set(f, r.stamp);
      } else {
        const st = await stamp(f);
        if (st) stamps.set(f, st);
      }
    }
    return stamps;
  }

  private async sameStamps(stamps: readonly [string, FileStamp][]): Promise<boolean> {
    for (const [f, st] of stamps) {
      const now = await stamp(f);
      if (!now || !sameStamp(now, st)) return false;
    }
    return true;
  }

  // --- preparing sessions on worker threads, a few ahead of the queue ---

  /** Starts preparing the next background sessions: two per worker, so that each has its next one
   * queued when it finishes, while this thread writes what came back. */
  protected prefetch(): void {
    if (!this.workers) return;
    for (const key of this.background.slice(-2 * this.workers.threads).reverse()) {
      const e = this.sessions.get(key);
      // A large session is read in parts when its turn comes, its documents written as they come.
      if (!e || e.indexed || this.preparing.has(key) || this.followed.has(key) || readInParts(e)) continue;
      this.preparing.set(
        key,
        this.prepareOnWorker({ agent: e.agent, path: e.head.path, files: e.head.files }),
      );
    }
  }

  /** Never rejects: a worker that died on a session (out of memory, say) is that session's error. */
  private async prepareOnWorker(job: IndexJob): Promise<PreparedIndex> {
    try {
      const { prepared, read } = await this.workers!.run(job);
      this.stats.add(read);
      return prepared;
    } catch (cause) {
      const why = cause instanceof Error ? cause.message : String(cause);
      return { ok: false, error: `the worker reading it stopped: ${why}`, stamps: [] };
    }
  }

  /** Writes what a read found; false when the server closed meanwhile (its database is gone). */
  private async record(
    e: SessionEntry,
    stamps: Map<string, FileStamp>,
    facts: PreparedFacts,
    docs: readonly DocBatch[],
    /** `onlyNew` when `docs` hold only documents the index lacks. */
    opts: { replaced?: boolean; onlyNew: boolean },
    /** Prints a worker made of files at their stamped sizes. */
    known?: Map<string, string>,
  ): Promise<boolean> {
    const start = await this.startRecord(e, stamps, known);
    if (!start) return false;
    const key = e.key;
    const db = this.options.db;
    if (opts.replaced) db.transaction(() => db.clearDocs(key));
    // Otherwise the index says which it has.
    const have = opts.onlyNew || opts.replaced ? new Set<string>() : await this.docKeysInPages(key);
    if (!have) return false;
    // Row ids run against activity: what a session newer than the last one placed gains goes below
    // every document (see IndexDb.placeOf).
    const below = db.placeOf(docsAtMost(docs), start.lastActivityAt);
    const place = below === undefined ? undefined : { next: below };
    // A long session's documents go in batch by batch, with requests answered in between. Should the
    // daemon stop meanwhile, the session is not marked read, and its next read adds the rest.
    const last = docs.length - 1;
    for (let i = 0; i < last; i++) {
      const batch = unknownDocs(docs[i]!, have);
      db.transaction(() => db.addDocs(key, batch, place));
      await new Promise((resolve) => setImmediate(resolve));
      if (this.closed) return false;
    }
    const lastBatch = last >= 0 ? unknownDocs(docs[last]!, have) : [];
    this.finishRecord(e, stamps, facts, start, { replaced: opts.replaced ?? false, lastBatch, place });
    return true;
  }

  /** What recording a read needs of its files before any document is written; undefined when the
   * server closed meanwhile. */
  private async startRecord(
    e: SessionEntry,
    stamps: Map<string, FileStamp>,
    known?: Map<string, string>,
  ): Promise<RecordStart | undefined> {
    const { offsets, prints } = await this.readPoints(stamps, known);
    const lastActivityAt = await this.lastActivity(e.agent, stamps);
    return this.closed ? undefined : { offsets, prints, lastActivityAt };
  }

  /** Records the read's facts, its files and its last documents in one transaction: the session is
   * then marked read. */
  private finishRecord(
    e: SessionEntry,
    stamps: Map<string, FileStamp>,
    facts: PreparedFacts,
    { offsets, prints, lastActivityAt }: RecordStart,
    opts: { replaced: boolean; lastBatch: readonly IndexDoc[]; place?: { next: number } | undefined },
  ): void {
    delete e.error;
    e.inFlight = facts.inFlight;
    const key = e.key;
    const db = this.options.db;
    // The whole head, its texts from the index, is what is recorded; memory keeps it without them.
    const head = withTranscriptFacts(withTexts(e.head, db.headTexts([key]).get(key)), facts.session, stamps, {
      lastActivityAt,
      replaced: opts.replaced,
      firstPrompt: facts.summary.prompts?.[0],
    });
    head.listing = facts.listing;
    const texts = { title: head.title, firstPrompt: head.firstPrompt };
    e.head = withoutTexts(head);
    e.summary = listedSummary(facts.summary);
    e.capabilities = sharedCapabilities(facts.capabilities);
    db.transaction(() => {
      db.addDocs(key, opts.lastBatch, opts.place);
      const whole = withTexts(e.head, texts);
      db.putSession(key, e.agent, e.sid, whole, whole.cwd, whole.lastActivityAt);
      db.putSummary(key, facts.summary, facts.capabilities, SESSION_SUMMARY_VERSION);
      const written = this.usageWritten.get(key);
      const keep = written && !opts.replaced ? sameRequests(written, facts.requests) : 0;
      db.putUsage(
        key,
        {
          requests: facts.requests,
          ...(facts.session.cwd !== undefined ? { project: facts.session.cwd } : {}),
          ...(facts.session.title !== undefined ? { title: facts.session.title } : {}),
        },
        keep,
      );
      // Copies: a read that goes on may change an event's usage in place.
      if (this.live.has(key)) {
        const kept = written ?? [];
        kept.length = keep;
        for (let i = keep; i < facts.requests.length; i++) {
          const { at, model, usage } = facts.requests[i]!;
          kept.push({ at, model, usage: { ...usage } });
        }
        this.usageWritten.set(key, kept);
      } else this.usageWritten.delete(key);
      for (const [f, st] of stamps)
        this.putFile({ path: f, sessionKey: key, ...st, offset: offsets.get(f)!, head: prints.get(f)! });
      db.setIndexed(key, true);
    });
    e.indexed = true;
  }

  /** A session whose read failed is indexed with its error, so that it is not read again until it changes. */
  private async recordFailure(
    e: SessionEntry,
    stamps: Map<string, FileStamp>,
    error: string,
    known?: Map<string, string>,
  ): Promise<void> {
    const { offsets, prints } = await this.readPoints(stamps, known);
    if (this.closed) return;
    e.error = error;
    this.log(`index: ${e.agent} ${e.sid}: ${error}`);
    this.options.db.transaction(() => {
      for (const [f, st] of stamps)
        this.putFile({ path: f, sessionKey: e.key, ...st, offset: offsets.get(f)!, head: prints.get(f)! });
      this.options.db.putUsage(e.key, { error });
      this.usageWritten.delete(e.key);
      this.options.db.setIndexed(e.key, true);
    });
    e.indexed = true;
  }

  /** Where each file's read stopped, and the print of its bytes up to there. */
  private async readPoints(stamps: Map<string, FileStamp>, known?: Map<string, string>) {
    const offsets = new Map<string, number>();
    // Read without the cache, a file counts whole: the adapter saw a torn last line as a skipped record.
    for (const [f, st] of stamps) offsets.set(f, this.files.offsetOf(f) ?? st.size);
    const prints = new Map<string, string>();
    for (const [f, st] of stamps) {
      const offset = offsets.get(f)!;
      const print = offset === st.size ? known?.get(f) : undefined;
      prints.set(f, print ?? (await this.printAt(f, offset)));
    }
    return { offsets, prints };
  }

  /** A session's last activity from its records: each file's last record time (read again only
   * for a file that changed), else the files' latest modification time in whole ms. */
  private async lastActivity(agent: string, stamps: Map<string, FileStamp>): Promise<number | undefined> {
    const adapter = findAdapter(agent);
    let recorded: number | undefined;
    let modified: number | undefined;
    for (const [f, st] of stamps) {
      let memo = this.lastRecords.get(f);
      if (!memo || !sameStamp(memo.stamp, st)) {
        let at: number | undefined;
        try {
          at = adapter ? await fileLastRecordAt(this.adapterContext(), adapter, f, st.size) : undefined;
        } catch {
          at = undefined;
        }
        memo = { stamp: st, at };
        this.lastRecords.set(f, memo);
      }
      if (memo.at !== undefined) recorded = Math.max(recorded ?? memo.at, memo.at);
      modified = Math.max(modified ?? 0, Math.floor(st.mtimeMs));
    }
    return recorded ?? modified;
  }

  protected putFile(f: FileState): void {
    this.known.set(f.path, f);
    this.options.db.putFile(f);
  }

  private forgetFiles(e: SessionEntry): void {
    for (const [path, k] of this.known) {
      if (k.sessionKey === e.key) {
        this.known.delete(path);
        this.lastRecords.delete(path);
        this.files.drop(path);
      }
    }
  }

  protected remove(e: SessionEntry): void {
    this.forgetFiles(e);
    this.sessions.delete(e.key);
    this.latest.delete(e.key);
    this.forgetLive(e.key);
    this.grewAt.delete(e.key);
    this.wholeReads.delete(e.key);
    clearTimeout(this.deferred.get(e.key));
    this.deferred.delete(e.key);
    this.options.db.removeSession(e.key);
    this.emitHeads([], [e]);
  }

  protected emitHeads(changed: SessionEntry[], removed: SessionEntry[]): void {
    for (const listener of this.headListeners) listener(changed, removed);
  }

  protected adapterContext(): AdapterContext {
    const platform = servingPlatform(this.options.platform, this.stats);
    return {
      platform,
      readHead: async (path: string) =>
        path.endsWith('.zst')
          ? (await readSourceFile(platform, path)).data.subarray(0, HEAD_BYTES)
          : platform.fs.readRange(path, 0, HEAD_BYTES),
    };
  }

  /** The print of a file's first bytes as this read saw them. */
  protected async printAt(path: string, offset: number): Promise<string> {
    return this.files.printOf(path, offset) ?? (await headPrint(path, offset)) ?? '';
  }
}

/**
 * The head after a full read: sizes from the files, the last activity from their records, and
 * facts the listing's head could not reach (a title written late) from the transcript. When a
 * file was written anew, nothing the listing read of the old one holds: every fact comes from the
 * transcript.
 */
function withTranscriptFacts(
  head: CatalogHead,
  session: TranscriptHeadFacts,
  stamps: Map<string, FileStamp>,
  read: { lastActivityAt: number | undefined; replaced: boolean; firstPrompt: string | undefined },
): CatalogHead {
  const next: CatalogHead = { ...head };
  let size = 0;
  for (const f of head.files) size += stamps.get(f)?.size ?? 0;
  if (stamps.size > 0) next.size = size;
  if (read.lastActivityAt !== undefined) next.lastActivityAt = read.lastActivityAt;
  if (head.files[0] === head.path) delete next.mainFileMissing;
  else next.mainFileMissing = true;
  if (read.replaced) {
    for (const field of ['title', 'cwd', 'startedAt', 'firstPrompt', 'gitBranch'] as const)
      delete next[field];
    if (read.firstPrompt !== undefined) next.firstPrompt = read.firstPrompt;
  }
  // A first prompt past the bytes a listing reads (a long injected preamble before it) is known now.
  if (next.firstPrompt === undefined && read.firstPrompt !== undefined) next.firstPrompt = read.firstPrompt;
  if (next.title === undefined && session.title !== undefined) next.title = session.title;
  if (next.cwd === undefined && session.cwd !== undefined) next.cwd = session.cwd;
  if (next.startedAt === undefined && session.startedAt !== undefined) next.startedAt = session.startedAt;
  return next;
}

/** What a read's record needs of its files, taken before its documents are written. */
interface RecordStart {
  offsets: Map<string, number>;
  prints: Map<string, string>;
  lastActivityAt: number | undefined;
}

/** A batch's documents less those the index has. */
function unknownDocs(batch: DocBatch, have: ReadonlySet<string>): readonly IndexDoc[] {
  const all = docsOf(batch);
  return have.size === 0 ? all : all.filter((d) => !have.has(d.itemKey));
}

/** A session too large to be read whole for the index: read a part at a time (see prepareInParts). */
const readInParts = (e: SessionEntry): boolean =>
  e.head.size >= INDEX_IN_PARTS_BYTES && !splitStorePath(e.head.path);

/** How many requests at the start of `b` are those at the start of `a`. */
function sameRequests(a: readonly UsageRequest[], b: readonly UsageRequest[]): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  for (; i < n; i++) {
    const [x, y] = [a[i]!, b[i]!];
    if (x.at !== y.at || x.model !== y.model) break;
    const [u, v] = [x.usage, y.usage];
    if (
      u.inputTokens !== v.inputTokens ||
      u.outputTokens !== v.outputTokens ||
      (u.cacheReadTokens ?? 0) !== (v.cacheReadTokens ?? 0) ||
      (u.cacheWriteTokens ?? 0) !== (v.cacheWriteTokens ?? 0) ||
      (u.cacheWrite1hTokens ?? 0) !== (v.cacheWrite1hTokens ?? 0) ||
      (u.reasoningTokens ?? 0) !== (v.reasoningTokens ?? 0)
    )
      break;
  }
  return i;
}
