// The server's picture of every session: which files make it, what was read of them, its head,
// its summary and its searchable items. It keeps the index in step with the agents' files, reading
// only what changed, and tells the streams what each change made of a transcript.
import { dirname } from 'node:path';
import { getHeapStatistics } from 'node:v8';
import {
  type AdapterContext,
  adapterTable,
  fileLastRecordAt,
  findAdapter,
  HEAD_BYTES,
  type SessionHead as LibHead,
  listSessions,
  loadTranscript,
  readSourceFile,
  SESSION_SUMMARY_VERSION,
  type SessionAdapter,
  type SessionPlatform,
  type SessionSummaryWithPrompts,
  splitStorePath,
  type Transcript,
} from '@cairn/transcript';
import type { FileState, IndexDb, SearchQuery, SearchRow } from './index-db.js';
import {
  type DocBatch,
  docBatches,
  docsOf,
  headFactsOf,
  type IndexJob,
  type PreparedFacts,
  type PreparedIndex,
  prepareIndex,
  type TranscriptHeadFacts,
} from './index-job.js';
import type { IndexWorkers } from './index-workers.js';
import { LISTING_RULES, type ListingFacts } from './listing.js';
import { type LiveDelta, LiveTranscript } from './live-transcript.js';
import { isActive, isBusy, turnInFlight } from './run-state.js';
import { type LaneItems, laneItems, searchDocsInSlices } from './search-docs.js';
import { searchStatement } from './search-query.js';
import { type SearchThread, SearchTooLong } from './search-thread.js';
import {
  type FileStamp,
  headPrint,
  hidingPlatform,
  isLineFile,
  printLength,
  ReadStats,
  SourceFiles,
  sameStamp,
  servingPlatform,
  stamp,
} from './source-files.js';
import { storeFilesStamp, storeNoticed, storeStamps } from './store-watch.js';
import { SESSION_FILE_NAME, Watcher, walkRoots } from './watcher.js';

/** Where under each agent's home its sessions live; the whole home for an agent not named here. */
const SESSION_FOLDERS: Readonly<Record<string, readonly string[]>> = {
  'claude-code': ['projects'],
  codex: ['sessions', 'archived_sessions'],
  'gemini-cli': ['tmp'],
  'qwen-code': ['projects'],
  // The older JSON tree; their SQLite stores beside it are read for their sessions (STORE_AGENTS).
  opencode: ['storage'],
  kilo: ['storage'],
  'copilot-cli': ['session-state'],
  // pi's homes are its sessions folders themselves.
  pi: [''],
};

/** Agents that keep sessions in SQLite stores at the top of their homes (each session a file of its own). */
const STORE_AGENTS: ReadonlySet<string> = new Set(['opencode', 'kilo']);

/** A library head with the listing facts the server read from the transcript. */
export type CatalogHead = LibHead & { listing?: ListingFacts };

export interface SessionEntry {
  key: string;
  agent: string;
  sid: string;
  head: CatalogHead;
  summary: SessionSummaryWithPrompts | undefined;
  capabilities: string[] | undefined;
  indexed: boolean;
  /** The last translation left a turn open on the main lane. */
  inFlight: boolean;
  /** Why the last read failed, when it did. */
  error?: string;
}

export interface Loaded {
  transcript: Transcript;
  lanes: LaneItems[];
}

export interface TranscriptChange extends Loaded {
  key: string;
  /** A file shrank, was replaced or left the session: what was known of it before no longer holds. */
  replaced: boolean;
  /** For a followed session read on from where the last read stopped: what this read added. */
  delta?: LiveDelta;
}

export interface IndexProgress {
  state: 'ready' | 'building';
  done: number;
  total: number;
}

export interface CatalogOptions {
  readonly platform: SessionPlatform;
  readonly db: IndexDb;
  readonly log?: (line: string) => void;
  readonly rescanMs?: number;
  /** Watch the homes for changes; off for one-shot uses. */
  readonly watch?: boolean;
  /** Worker threads for reading sessions whole; without them every read runs on this thread. */
  readonly workers?: IndexWorkers;
  /** The thread searches run on; without it they run on this thread. */
  readonly searches?: SearchThread;
  /** The bytes of growing sessions nobody follows whose translations are kept (see keepsTail);
   * from the heap's limit when absent. */
  readonly tailBytes?: number;
}

/** A session is known by its main file: one id can stand under two folders, and both are listed. */
export const sessionKey = (agent: string, mainPath: string): string => `${agent}:${mainPath}`;

/** Sessions found by a listing told to clients together. */
const HEADS_PER_EMIT = 200;

/** Transcripts read for requests kept in memory, the most recent ones. */
const RECENT_LOADS = 4;

type Task = () => Promise<void>;

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

/** The least time between two stamps of every session of one store (see queueStore). */
const STORE_STAMP_SPACING_MS = 1_000;

/** A growing session nobody follows lets its translation go after this long without growing. */
const TAIL_IDLE_MS = 10 * 60_000;

/**
 * The bytes of the sessions nobody follows whose translations are kept (see keepsTail): a
 * translation holds about twice its files' bytes, so a sixteenth of the heap's limit keeps
 * these within an eighth of it (256 MB of sessions under the usual 4 GB).
 */
const tailBudgetBytes = (): number => Math.floor(getHeapStatistics().heap_size_limit / 16);

export class Catalog {
  readonly stats = new ReadStats();
  readonly files: SourceFiles;
  private readonly known = new Map<string, FileState>();
  private readonly sessions = new Map<string, SessionEntry>();
  private readonly followed = new Map<string, number>();
  private readonly latest = new Map<string, Loaded>();
  /** Translations of followed sessions and of growing ones (`tailed`), continued on each read
   * instead of started over. */
  private readonly live = new Map<string, LiveTranscript>();
  /** Sessions nobody follows whose translation is kept because they grow: their bytes when last
   * read and when that was. */
  private readonly tailed = new Map<string, { bytes: number; at: number }>();
  /** Sessions read whole again when they changed: when the last such read ended and how long it took. */
  private readonly wholeReads = new Map<string, { end: number; took: number }>();
  /** Sessions whose read waits for its turn (see deferWhole), each with the timer that will read it. */
  private readonly deferred = new Map<string, NodeJS.Timeout>();
  /** Followed sessions whose last read held lines back, each with the read that will take them. */
  private readonly releases = new Map<string, NodeJS.Timeout>();
  private readonly recent = new Map<string, { signature: string; loaded: Loaded }>();
  private readonly roots: { root: string; agent: string }[] = [];
  /** The homes whose SQLite stores hold sessions (STORE_AGENTS). */
  private readonly stores: { root: string; agent: string }[] = [];
  /** Each agent's homes as configured now: the index holds only sessions under them. */
  private readonly homes: { home: string; agent: string }[] = [];
  private readonly urgent: Task[] = [];
  /** Sessions to index when nothing is urgent, the most recently active first (see nextBackground). */
  private readonly background: string[] = [];
  /** Keys were queued since the background queue was last put in order. */
  private backgroundUnsorted = false;
  private readonly queued = new Set<string>();
  /** Background sessions being prepared on the workers ahead of their turn. */
  private readonly preparing = new Map<string, Promise<PreparedIndex>>();
  private running = false;
  private idle: (() => void)[] = [];
  private watcher: Watcher | undefined;
  /** The rescan asked for whose comparison has not started yet. */
  private rescan: Promise<void> | undefined;
  /** Stores whose sessions are to be stamped again (a notice on the store or its log), each with
   * the timer that will; when each was last stamped; followed store sessions queued for a read. */
  private readonly storesQueued = new Map<string, NodeJS.Timeout>();
  private readonly storeStampedAt = new Map<string, number>();
  private readonly storeFollowQueued = new Set<string>();
  /** The store's files as they were when a followed session's last read, or a store's last stamp, began. */
  private readonly storeFollowReadAt = new Map<string, string>();
  private readonly storeStampedFiles = new Map<string, string>();
  private progress = { done: 0, total: 0 };
  private progressLoggedAt = 0;
  private closed = false;
  /** Changes count as activity only once the first walk is done and while the index is not being
   * recorded again: what changed while the daemon was not looking says nothing of now. */
  private observing = false;
  /** When the daemon last saw a session's files change, by key. */
  private readonly grewAt = new Map<string, number>();
  /** Each file's last record time as last read, with the stamp it was read at. */
  private readonly lastRecords = new Map<string, { stamp: FileStamp; at: number | undefined }>();
  private readonly transcriptListeners = new Set<(change: TranscriptChange) => void>();
  private readonly headListeners = new Set<(changed: SessionEntry[], removed: SessionEntry[]) => void>();

  /** Whether the start's comparison of the files with the index is over: every session is listed. */
  private listingDone = false;
  private markListed: () => void = () => {};
  private readonly listing = new Promise<void>((resolve) => {
    this.markListed = resolve;
  });

  /** Settles once every session on disk is listed (the start's first look at the files). */
  listed(): Promise<void> {
    return this.listing;
  }

  /** Rebuilds of a damaged index whose record of the sessions again has not ended: until then
   * the sessions it will queue are not counted in the progress yet. */
  private rebuildsPending = 0;

  /** The check of the index's pages that follows the start (IndexDb.checkPages). */
  private pageCheck: Promise<void> | undefined;

  private get workers(): IndexWorkers | undefined {
    return this.options.workers;
  }

  constructor(private readonly options: CatalogOptions) {
    this.files = new SourceFiles(this.stats);
    this.loadStored();
    options.db.onRebuilt(() => {
      if (this.closed) return;
      // Building from the moment the damage is found: the search that found it answers from an
      // empty index, and the record of the sessions again waits its turn in the queue.
      this.rebuildsPending++;
      void this.enqueue(() => this.recordAgain()).finally(() => {
        this.rebuildsPending--;
      });
    });
    for (const adapter of adapterTable()) {
      for (const home of adapter.homes(options.platform)) {
        this.homes.push({ home, agent: adapter.id });
        if (STORE_AGENTS.has(adapter.id)) this.stores.push({ root: home, agent: adapter.id });
        for (const sub of SESSION_FOLDERS[adapter.id] ?? ['']) {
          this.roots.push({ root: sub === '' ? home : options.platform.join(home, sub), agent: adapter.id });
        }
      }
    }
  }

  /** What the index recorded; nothing when reading it found the file damaged (it starts empty). */
  private loadStored(): void {
    const db = this.options.db;
    const generation = db.generation;
    const files = db.files();
    const stored = db.sessions<CatalogHead, SessionSummaryWithPrompts>();
    if (db.generation !== generation) return;
    for (const [path, f] of files) this.known.set(path, f);
    for (const s of stored) {
      this.sessions.set(s.key, {
        key: s.key,
        agent: s.agent,
        sid: s.sid,
        head: s.head,
        summary: s.summaryVersion === SESSION_SUMMARY_VERSION ? s.summary : undefined,
        capabilities: s.capabilities,
        // A session indexed before the listing facts existed, or under older rules, is read again for them.
        indexed:
          s.indexed &&
          s.summaryVersion === SESSION_SUMMARY_VERSION &&
          s.head.listing?.rules === LISTING_RULES,
        inFlight: false,
      });
    }
  }

  /**
   * The index was found damaged while serving and started again empty: every file counts as new,
   * so each session is listed and indexed again; one whose files are gone meanwhile is removed.
   * The sessions stay listed while that runs.
   */
  private async recordAgain(): Promise<void> {
    const before = new Map(this.sessions);
    this.known.clear();
    for (const e of this.sessions.values()) e.indexed = false;
    const observing = this.observing;
    this.observing = false;
    try {
      await this.reconcile();
    } finally {
      this.observing = observing;
    }
    for (const [key, e] of before) if (this.sessions.get(key) === e) this.remove(e);
  }

  get agents(): string[] {
    return adapterTable().map((a) => a.id);
  }

  /**
   * Brings the index up to date with the files (reading only what changed), then keeps it so. The
   * catalog answers meanwhile: with the sessions listed so far until `listed()` settles.
   */
  async start(): Promise<void> {
    try {
      await this.enqueue(() => this.reconcile());
    } finally {
      this.listingDone = true;
      this.markListed();
    }
    this.observing = true;
    for (const e of this.sessions.values()) if (!e.indexed) this.queueIndex(e.key);
    const { db, searches } = this.options;
    this.pageCheck = db.checkPages(searches ? (file) => searches.checkPages(file) : undefined);
    if (this.options.watch !== false) {
      this.watcher = new Watcher({
        roots: this.roots.map((r) => r.root),
        flatRoots: this.stores.map((r) => r.root),
        onChange: (paths) => this.onPaths(paths),
        onRescan: () => this.queueRescan(),
        ...(this.options.rescanMs === undefined ? {} : { rescanMs: this.options.rescanMs }),
      });
      this.watcher.start();
    }
  }

  close(): void {
    this.closed = true;
    this.watcher?.close();
    for (const timer of [...this.releases.values(), ...this.deferred.values(), ...this.storesQueued.values()])
      clearTimeout(timer);
    this.storesQueued.clear();
    this.releases.clear();
    this.deferred.clear();
  }

  /** Resolves when no work is queued: the index matches the files as last seen. */
  async settled(): Promise<void> {
    // Damage the check finds queues the index's rebuild, which this then waits for.
    await this.pageCheck;
    if (!this.running && this.urgent.length === 0 && this.background.length === 0 && this.deferred.size === 0)
      return;
    await new Promise<void>((resolve) => this.idle.push(resolve));
  }

  onTranscript(listener: (change: TranscriptChange) => void): () => void {
    this.transcriptListeners.add(listener);
    return () => this.transcriptListeners.delete(listener);
  }

  onHeads(listener: (changed: SessionEntry[], removed: SessionEntry[]) => void): () => void {
    this.headListeners.add(listener);
    return () => this.headListeners.delete(listener);
  }

  indexProgress(): IndexProgress {
    const building =
      !this.listingDone ||
      this.rebuildsPending > 0 ||
      this.background.length > 0 ||
      this.progress.done < this.progress.total;
    return { state: building ? 'building' : 'ready', done: this.progress.done, total: this.progress.total };
  }

  all(): SessionEntry[] {
    return [...this.sessions.values()];
  }

  get(key: string): SessionEntry | undefined {
    return this.sessions.get(key);
  }

  /** find, and when the session is not listed yet, again once every session is. */
  async findListed(sid: string, agent?: string): Promise<SessionEntry | undefined> {
    const found = this.find(sid, agent);
    if (found || this.listingDone) return found;
    await this.listing;
    return this.find(sid, agent);
  }

  /** The session a sid names, of `agent` when given; the most recent when several share the sid
   * (two agents, or one session id under two folders). */
  find(sid: string, agent?: string): SessionEntry | undefined {
    const id = agent === undefined ? undefined : (findAdapter(agent)?.id ?? agent);
    let best: SessionEntry | undefined;
    for (const e of this.sessions.values()) {
      if (e.sid !== sid || (id !== undefined && e.agent !== id)) continue;
      if (!best || (e.head.lastActivityAt ?? 0) > (best.head.lastActivityAt ?? 0)) best = e;
    }
    return best;
  }

  /** A turn is open and the daemon saw the files change recently: not what the files' times say. */
  busy(e: SessionEntry, now = Date.now()): boolean {
    return isBusy(e.inFlight, this.grewAt.get(e.key), now);
  }

  active(e: SessionEntry, now = Date.now()): boolean {
    return isActive(this.busy(e, now), this.grewAt.get(e.key), now);
  }

  /** Best matches first, searched on the search thread when there is one. */
  async search(q: SearchQuery): Promise<SearchRow[]> {
    const { db, searches } = this.options;
    const statement = searchStatement(q);
    if (statement === undefined) return [];
    const file = db.file;
    if (searches && file !== undefined) {
      try {
        return await searches.run({ file, generation: db.generation, statement });
      } catch (cause) {
        // Searched again here, it would hold up the whole daemon as long.
        if (cause instanceof SearchTooLong) throw cause;
        // A damaged index included: this thread's search finds the damage and starts the rebuild.
        this.log(`search: on the search thread: ${(cause as Error).message}; searching here instead`);
      }
    }
    return db.search(q);
  }

  /** A platform reading the agents' files as the catalog does: counted, from the cache when held. */
  platform(): SessionPlatform {
    return servingPlatform(this.options.platform, this.stats, this.files, (p) => this.files.has(p));
  }

  /**
   * Starts following a session: its files stay cached so that appends are read alone, and the
   * transcript is kept. Answers the transcript as the files are now.
   */
  async follow(key: string): Promise<Loaded | undefined> {
    this.followed.set(key, (this.followed.get(key) ?? 0) + 1);
    let loaded: Loaded | undefined;
    await this.enqueue(async () => {
      if (!this.latest.has(key)) await this.index(key, { cache: true });
      else await this.refreshSession(key);
      loaded = this.latest.get(key);
    });
    return loaded;
  }

  /** The bytes of a session's files as they are now (a file gone counts none). */
  async sessionBytes(key: string): Promise<number> {
    let bytes = 0;
    for (const f of this.sessions.get(key)?.head.files ?? []) bytes += (await stamp(f))?.size ?? 0;
    return bytes;
  }

  /** The newest transcript of a followed session. */
  latestOf(key: string): Loaded | undefined {
    return this.latest.get(key);
  }

  unfollow(key: string): void {
    const n = (this.followed.get(key) ?? 0) - 1;
    if (n > 0) {
      this.followed.set(key, n);
      return;
    }
    this.followed.delete(key);
    this.storeFollowReadAt.delete(key);
    // A session that grows keeps its translation for the reads of what it gains.
    if (this.tailed.has(key)) return;
    this.latest.delete(key);
    this.forgetLive(key);
  }

  /** The transcript of a session as the files are now, through the cache when it holds them. */
  async load(key: string): Promise<Loaded | undefined> {
    const kept = this.latest.get(key);
    if (kept) {
      await this.enqueue(() => this.refreshSession(key));
      return this.latest.get(key);
    }
    const e = this.sessions.get(key);
    if (!e) return undefined;
    // A client pages through one session in several requests: the files unchanged, the read is reused.
    const stamps = (await Promise.all(e.head.files.map(stamp))).map((st) =>
      st ? `${st.size}:${st.mtimeMs}:${st.ino}` : '-',
    );
    const signature = `${e.head.path}|${stamps.join('|')}`;
    const hit = this.recent.get(key);
    if (hit?.signature === signature) return hit.loaded;
    const loaded = await loadTranscript(this.platform(), { agent: e.agent, path: e.head.path });
    if (!loaded.ok) return undefined;
    const result = { transcript: loaded.value, lanes: laneItems(loaded.value) };
    this.recent.delete(key);
    this.recent.set(key, { signature, loaded: result });
    for (const old of this.recent.keys()) {
      if (this.recent.size <= RECENT_LOADS) break;
      this.recent.delete(old);
    }
    return result;
  }

  // --- the work queue: one task at a time, live changes before background indexing ---

  private enqueue(task: Task): Promise<void> {
    return new Promise((resolve, reject) => {
      this.urgent.push(() => task().then(resolve, reject));
      void this.run();
    });
  }

  private queueIndex(key: string): void {
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.background.push(key);
    this.backgroundUnsorted = true;
    this.progress.total++;
    void this.run();
  }

  /**
   * The next session to index in the background: the most recently active of those queued, so that
   * a first index fills in the sessions at the top of the list first, whatever agent or folder they
   * are in, and a session that grew unwatched goes before older ones.
   */
  private nextBackground(): string | undefined {
    if (this.backgroundUnsorted) {
      const at = (key: string) => this.sessions.get(key)?.head.lastActivityAt ?? 0;
      this.background.sort((a, b) => at(b) - at(a));
      this.backgroundUnsorted = false;
    }
    return this.background.shift();
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (!this.closed) {
        const task = this.urgent.shift();
        if (task) {
          await task().catch((cause) => this.log(`catalog: ${(cause as Error).stack ?? cause}`));
          continue;
        }
        const key = this.nextBackground();
        if (key === undefined) break;
        this.queued.delete(key);
        this.prefetch();
        const e = this.sessions.get(key);
        if (e && !e.indexed) {
          await this.index(key, { cache: this.followed.has(key) }).catch((cause) =>
            this.log(`index: ${key}: ${(cause as Error).stack ?? cause}`),
          );
        }
        this.progress.done++;
        this.logProgress();
        // Let requests in between sessions.
        await new Promise((resolve) => setImmediate(resolve));
      }
    } finally {
      this.running = false;
      if (this.urgent.length === 0 && this.background.length === 0 && this.deferred.size === 0) {
        const waiting = this.idle;
        this.idle = [];
        for (const resolve of waiting) resolve();
      }
    }
  }

  private logProgress(): void {
    const { done, total } = this.progress;
    const now = Date.now();
    if (done < total && now - this.progressLoggedAt < 1000) return;
    this.progressLoggedAt = now;
    const mb = (this.stats.bytes / 1e6).toFixed(1);
    this.log(`index: ${done}/${total} sessions indexed (${mb} MB read)`);
  }

  private log(line: string): void {
    this.options.log?.(line);
  }

  // --- following the files ---

  private onPaths(paths: Set<string>): void {
    const keys = new Set<string>();
    let unknown = false;
    for (const path of paths) {
      const store = storeNoticed(
        path,
        this.stores.map((r) => r.root),
      );
      if (store === 'other') continue;
      if (store !== undefined) {
        this.queueStore(store);
        continue;
      }
      const k = this.known.get(path);
      if (k && k.sessionKey !== '') keys.add(k.sessionKey);
      else if (SESSION_FILE_NAME.test(path) || !/\.[A-Za-z0-9]+$/.test(path)) unknown = true;
    }
    for (const key of keys) void this.enqueue(() => this.refreshSession(key));
    if (unknown) void this.queueRescan();
  }

  /**
   * A store changed (its file or its log): its sessions are stamped again, and only those whose
   * stamp moved are read; a session new to it is listed, one gone from it removed. Several notices
   * on one store before its turn make one look.
   */
  private queueStore(db: string): void {
    if (this.closed) return;
    // Each read opens the store, which touches its log's attributes (not its bytes or their time):
    // the notice that makes comes back here. A read that began with the store's files as they are
    // now saw all there is, so it is not made again until they change (an agent holding the store
    // locked would otherwise have it tried again and again).
    const files = storeFilesStamp(db);
    // The followed sessions of the store first: their live reads find what changed by themselves,
    // and their frames need not wait for the stamps of every session of the store.
    for (const key of this.followed.keys()) {
      const path = this.sessions.get(key)?.head.path;
      if (path === undefined || splitStorePath(path)?.db !== db || this.storeFollowQueued.has(key)) continue;
      if (this.storeFollowReadAt.get(key) === files) continue;
      this.storeFollowQueued.add(key);
      void this.enqueue(() => {
        this.storeFollowQueued.delete(key);
        this.storeFollowReadAt.set(key, storeFilesStamp(db));
        return this.refreshSession(key);
      });
    }
    if (this.storesQueued.has(db) || this.storeStampedFiles.get(db) === files) return;
    // A store written without pause (an agent streaming) is stamped whole at most once a
    // STORE_STAMP_SPACING_MS: each stamp goes over the session indexes of the whole store.
    const wait = (this.storeStampedAt.get(db) ?? 0) + STORE_STAMP_SPACING_MS - Date.now();
    const timer = setTimeout(
      () =>
        void this.enqueue(async () => {
          this.storesQueued.delete(db);
          this.storeStampedFiles.set(db, storeFilesStamp(db));
          const found = await storeStamps(db).catch((cause: unknown) => {
            // Busy or half-written now: the next notice, or the next walk, looks again.
            this.log(`catalog: ${db}: ${(cause as Error).message ?? cause}; skipped until it changes again`);
            return undefined;
          });
          this.storeStampedAt.set(db, Date.now());
          if (found) await this.reconcile(found, (path) => splitStorePath(path)?.db === db);
        }),
      Math.max(0, wait),
    );
    timer.unref();
    this.storesQueued.set(db, timer);
  }

  /**
   * Walks the homes, then compares what it found in the work queue; resolves when the walk is done.
   * The walk runs beside the queue rather than in it: over thousands of files it takes seconds, which
   * the index would otherwise wait out at every rescan. A rescan asked for before the last one's
   * comparison started is that one.
   */
  private queueRescan(): Promise<void> {
    if (this.rescan || this.closed) return this.rescan ?? Promise.resolve();
    const walk = walkRoots(
      this.roots.map((r) => r.root),
      this.stores.map((r) => r.root),
    );
    const rescan = walk.then(
      () => undefined,
      () => undefined,
    );
    this.rescan = rescan;
    const compare = async (walked: Map<string, FileStamp> | undefined) => {
      if (this.rescan === rescan) this.rescan = undefined;
      await this.reconcile(walked);
    };
    // A walk that failed is taken again inside the comparison, where a failure is logged.
    walk
      .then(
        (walked) => this.enqueue(() => compare(walked)),
        () => this.enqueue(() => compare(undefined)),
      )
      .catch((cause: unknown) => this.log(`catalog: rescan: ${(cause as Error).stack ?? cause}`));
    return rescan;
  }

  /** Compares every file the walk found (the homes are walked now when none is given) with what
   * the index recorded of it; only the files `within` names when given (one store's sessions). */
  private async reconcile(found?: Map<string, FileStamp>, within?: (path: string) => boolean): Promise<void> {
    const walked =
      found ??
      (await walkRoots(
        this.roots.map((r) => r.root),
        this.stores.map((r) => r.root),
      ));
    // The index covers the homes configured now. A session recorded under a home that no longer is
    // (CLAUDE_CONFIG_DIR pointed elsewhere) leaves it, though its files are still there: else it
    // stayed listed beside its copy in the new home, and a search found both.
    if (!within)
      for (const e of [...this.sessions.values()]) if (!this.inHomes(e.agent, e.head.path)) this.remove(e);
    const changed = new Set<string>();
    const fresh: string[] = [];
    for (const [path, st] of walked) {
      const k = this.known.get(path);
      if (!k) fresh.push(path);
      else if (!sameStamp(k, st)) {
        if (k.sessionKey !== '') changed.add(k.sessionKey);
        else fresh.push(path);
      }
    }
    for (const [path, k] of this.known) {
      if (walked.has(path) || (within && !within(path))) continue;
      if (k.sessionKey !== '') changed.add(k.sessionKey);
      else {
        this.known.delete(path);
        this.options.db.deleteFile(path);
      }
    }
    if (fresh.length > 0) {
      for (const key of await this.discover(fresh, walked)) changed.add(key);
    }
    for (const key of changed) await this.refreshSession(key);
  }

  /** New sessions among `fresh` files, listed without reading any file already known; answers the
   * known sessions that gained a file. */
  private async discover(fresh: readonly string[], walked: Map<string, FileStamp>): Promise<Set<string>> {
    const agents = new Set<string>();
    for (const path of fresh) {
      const root =
        this.roots.find((r) => path.startsWith(`${r.root}/`)) ??
        this.stores.find((r) => path.startsWith(`${r.root}/`));
      if (root) agents.add(root.agent);
    }
    const hidden = (path: string) => (this.known.get(path)?.sessionKey ?? '') !== '';
    const view = hidingPlatform(servingPlatform(this.options.platform, this.stats), hidden);
    const claimed = new Set<string>();
    const added: SessionEntry[] = [];
    for (const agent of agents) {
      for await (const entry of listSessions(view, { agent })) {
        if ('ref' in entry) {
          const st = walked.get(entry.ref);
          if (st) this.putFile({ path: entry.ref, sessionKey: '', ...st, offset: 0, head: '' });
          claimed.add(entry.ref);
          continue;
        }
        const key = sessionKey(entry.agent, entry.path);
        // A listing that cannot see a known session's hidden files may take a new file of it for
        // a session of its own (a subagent file of a session whose main file is known): the file
        // is left for ownerOf.
        if (this.sessions.has(key) && this.hasKnownFiles(key)) continue;
        const e: SessionEntry = {
          key,
          agent: entry.agent,
          sid: entry.id,
          head: entry,
          summary: undefined,
          capabilities: undefined,
          indexed: false,
          inFlight: false,
        };
        this.sessions.set(key, e);
        this.options.db.putSession(key, e.agent, e.sid, e.head, e.head.cwd, e.head.lastActivityAt);
        this.options.db.setIndexed(key, false);
        for (const f of entry.files) {
          const st = walked.get(f) ?? (await stamp(f));
          if (st) this.putFile({ path: f, sessionKey: key, ...st, offset: 0, head: '' });
          claimed.add(f);
        }
        if (this.observing) this.grewAt.set(key, Date.now());
        added.push(e);
        this.queueIndex(key);
        // A long first listing reaches clients as it goes.
        if (added.length === HEADS_PER_EMIT) this.emitHeads(added.splice(0), []);
      }
    }
    // A file no listing claimed may be a new file of a known session: a subagent's, most often.
    const grown = new Set<string>();
    for (const path of fresh) {
      if (claimed.has(path)) continue;
      const owner = await this.ownerOf(path);
      if (owner) grown.add(owner);
      else {
        const st = walked.get(path);
        if (st) this.putFile({ path, sessionKey: '', ...st, offset: 0, head: '' });
      }
    }
    if (added.length > 0) this.emitHeads(added, []);
    return grown;
  }

  /** Whether `path` is under one of the agent's homes as configured now. */
  private inHomes(agent: string, path: string): boolean {
    return this.homes.some((h) => h.agent === agent && path.startsWith(`${h.home}/`));
  }

  private hasKnownFiles(key: string): boolean {
    for (const k of this.known.values()) if (k.sessionKey === key) return true;
    return false;
  }

  /** The known session whose files now include `path`, looking only at sessions the path names. */
  private async ownerOf(path: string): Promise<string | undefined> {
    for (const e of this.sessions.values()) {
      if (!path.includes(e.sid) || !path.startsWith(`${dirname(e.head.path)}/`)) continue;
      const adapter = findAdapter(e.agent);
      if (!adapter) continue;
      const files = await adapter.sessionFiles(this.adapterContext(), e.head.path);
      if (files.ok && files.value.includes(path)) return e.key;
    }
    return undefined;
  }

  private adapterContext(): AdapterContext {
    const platform = servingPlatform(this.options.platform, this.stats);
    return {
      platform,
      readHead: async (path: string) =>
        path.endsWith('.zst')
          ? (await readSourceFile(platform, path)).data.subarray(0, HEAD_BYTES)
          : platform.fs.readRange(path, 0, HEAD_BYTES),
    };
  }

  /** Reads what changed in a known session's files and indexes it; forgets a session whose main
   * file is gone. */
  private async refreshSession(key: string): Promise<void> {
    const e = this.sessions.get(key);
    if (!e) return;
    const adapter = findAdapter(e.agent);
    if (!adapter) return;
    const files = await adapter.sessionFiles(this.adapterContext(), e.head.path);
    if (!files.ok) {
      if (files.error._tag === 'SessionNotFound') this.remove(e);
      return;
    }
    let changed = !e.indexed;
    let replaced = false;
    let grew = false;
    // A store session read live finds what changed by itself (the rows past its last read): its
    // stamp, which goes over every row of it, is not taken first.
    if (this.live.has(key) && splitStorePath(e.head.path)) {
      await this.index(key, { cache: true });
      return;
    }
    for (const f of files.value) {
      const st = await stamp(f);
      const k = this.known.get(f);
      if (!st) continue;
      if (k && k.sessionKey === key && sameStamp(k, st)) continue;
      changed = true;
      grew = true;
      if (k && k.sessionKey === key && (await this.rewritten(f, k, st, adapter))) replaced = true;
    }
    for (const [path, k] of this.known) {
      if (k.sessionKey === key && !files.value.includes(path)) {
        replaced = true;
        this.known.delete(path);
        this.lastRecords.delete(path);
        this.options.db.deleteFile(path);
      }
    }
    if (!changed && !replaced) return;
    if (this.observing && (grew || replaced)) this.grewAt.set(key, Date.now());
    e.head = { ...e.head, files: files.value };
    await this.index(key, { cache: this.followed.has(key) || e.indexed, replaced });
  }

  /**
   * Whether a known file was written anew rather than grown: another inode, fewer bytes than were
   * read, or first bytes that are no longer those read (a file rewritten in place).
   */
  private async rewritten(
    path: string,
    k: FileState,
    now: FileStamp,
    adapter: SessionAdapter,
  ): Promise<boolean> {
    // A store session's stamp counts rows: its live read tells rows rewritten or deleted itself.
    if (splitStorePath(path)) return false;
    // A document the agent rewrites in place changes its first bytes at each write; its
    // translation sets the new bytes against the last ones itself.
    if (adapter.rewrittenInPlace?.(path)) return now.ino !== k.ino || now.size < k.offset;
    if (now.ino !== k.ino || now.size < k.offset) return true;
    if (k.head === '') return false;
    const print = await headPrint(path, printLength(k.head));
    return print !== undefined && print !== k.head;
  }

  /** The print of a file's first bytes as this read saw them. */
  private async printAt(path: string, offset: number): Promise<string> {
    return this.files.printOf(path, offset) ?? (await headPrint(path, offset)) ?? '';
  }

  /**
   * Reads a session and records its documents, summary and files: a followed one, or one kept
   * translated as it grows, read on from where its last read stopped, any other whole (on a worker
   * thread when there are workers).
   */
  private async index(key: string, opts: IndexOptions): Promise<void> {
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
    };
    // Read on, the documents are the new items'. Read from the start, the session was most often
    // indexed already: only the items the index lacks are made documents.
    let known: Set<string> | undefined;
    if (!live.delta && !opts.replaced) {
      known = await this.docKeysInPages(e.key);
      if (!known) return;
    }
    const docs = docBatches(live.delta ? live.delta.docs : await searchDocsInSlices(lanes, known));
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
    for (let after = 0; ; ) {
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

  private forgetLive(key: string): void {
    this.live.delete(key);
    this.tailed.delete(key);
    this.cancelRelease(key);
  }

  private async indexWhole(e: SessionEntry, opts: IndexOptions): Promise<void> {
    const job: IndexJob = { agent: e.agent, path: e.head.path, files: e.head.files };
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
    if (!prepared.ok) {
      await this.recordFailure(e, stamps, prepared.error);
      return;
    }
    const { docs, ...facts } = prepared;
    if (!(await this.record(e, stamps, facts, docs, { ...opts, onlyNew: false }))) return;
    this.emitHeads([e], []);
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
  private prefetch(): void {
    if (!this.workers) return;
    for (const key of this.background.slice(0, 2 * this.workers.threads)) {
      const e = this.sessions.get(key);
      if (!e || e.indexed || this.preparing.has(key) || this.followed.has(key)) continue;
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
  ): Promise<boolean> {
    const { offsets, prints } = await this.readPoints(stamps);
    const lastActivityAt = await this.lastActivity(e.agent, stamps);
    if (this.closed) return false;
    delete e.error;
    e.inFlight = facts.inFlight;
    e.head = withTranscriptFacts(e.head, facts.session, stamps, {
      lastActivityAt,
      replaced: opts.replaced ?? false,
      firstPrompt: facts.summary.prompts?.[0],
    });
    e.head.listing = facts.listing;
    e.summary = facts.summary;
    e.capabilities = facts.capabilities;
    const key = e.key;
    const db = this.options.db;
    if (opts.replaced) db.transaction(() => db.clearDocs(key));
    // Otherwise the index says which it has.
    const have = opts.onlyNew || opts.replaced ? new Set<string>() : await this.docKeysInPages(key);
    if (!have) return false;
    const fresh = (batch: DocBatch) => {
      const all = docsOf(batch);
      return have.size === 0 ? all : all.filter((d) => !have.has(d.itemKey));
    };
    // A long session's documents go in batch by batch, with requests answered in between. Should the
    // daemon stop meanwhile, the session is not marked read, and its next read adds the rest.
    const last = docs.length - 1;
    for (let i = 0; i < last; i++) {
      const batch = fresh(docs[i]!);
      db.transaction(() => db.addDocs(key, batch));
      await new Promise((resolve) => setImmediate(resolve));
      if (this.closed) return false;
    }
    const lastBatch = last >= 0 ? fresh(docs[last]!) : [];
    db.transaction(() => {
      db.addDocs(key, lastBatch);
      db.putSession(key, e.agent, e.sid, e.head, e.head.cwd, e.head.lastActivityAt);
      db.putSummary(key, facts.summary, facts.capabilities, SESSION_SUMMARY_VERSION);
      for (const [f, st] of stamps)
        this.putFile({ path: f, sessionKey: key, ...st, offset: offsets.get(f)!, head: prints.get(f)! });
      db.setIndexed(key, true);
    });
    e.indexed = true;
    return true;
  }

  /** A session whose read failed is indexed with its error, so that it is not read again until it changes. */
  private async recordFailure(e: SessionEntry, stamps: Map<string, FileStamp>, error: string): Promise<void> {
    const { offsets, prints } = await this.readPoints(stamps);
    if (this.closed) return;
    e.error = error;
    this.log(`index: ${e.agent} ${e.sid}: ${error}`);
    this.options.db.transaction(() => {
      for (const [f, st] of stamps)
        this.putFile({ path: f, sessionKey: e.key, ...st, offset: offsets.get(f)!, head: prints.get(f)! });
      this.options.db.setIndexed(e.key, true);
    });
    e.indexed = true;
  }

  /** Where each file's read stopped, and the print of its bytes up to there. */
  private async readPoints(stamps: Map<string, FileStamp>) {
    const offsets = new Map<string, number>();
    // Read without the cache, a file counts whole: the adapter saw a torn last line as a skipped record.
    for (const [f, st] of stamps) offsets.set(f, this.files.offsetOf(f) ?? st.size);
    const prints = new Map<string, string>();
    for (const [f] of stamps) prints.set(f, await this.printAt(f, offsets.get(f)!));
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

  private putFile(f: FileState): void {
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

  private remove(e: SessionEntry): void {
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

  private emitHeads(changed: SessionEntry[], removed: SessionEntry[]): void {
    for (const listener of this.headListeners) listener(changed, removed);
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
