// The server's picture of every session: which files make it, what was read of them, its head,
// its summary and its searchable items. It keeps the index in step with the agents' files, reading
// only what changed, and tells the streams what each change made of a transcript. This file holds
// what the rest of the server asks of it; the layers below are catalog-following (the work queue
// and the files' changes), catalog-indexing (reading sessions into the index) and catalog-state.
import {
  adapterTable,
  findAdapter,
  loadTranscript,
  SESSION_SUMMARY_VERSION,
  type SessionSummaryWithPrompts,
} from '@cairn/transcript';
import type { HeadTexts, SearchQuery, SearchRow, SessionUsage } from '../indexing/index-db.js';
import { laneItems } from '../indexing/search-docs.js';
import { searchStatement } from '../indexing/search-query.js';
import { SearchTooLong } from '../indexing/search-thread.js';
import { CatalogFollowing } from './catalog-following.js';
import type { IndexProgress, Loaded, SessionEntry, TranscriptChange } from './catalog-state.js';
import { isActive, isBusy } from './run-state.js';
import { stamp } from './source-files.js';
import { Watcher } from './watcher.js';

export {
  type CatalogHead,
  type CatalogOptions,
  type IndexProgress,
  type Loaded,
  type SessionEntry,
  sessionKey,
  type TranscriptChange,
} from './catalog-state.js';

/** Transcripts read for requests kept in memory, the most recent ones. */
const RECENT_LOADS = 4;

export class Catalog extends CatalogFollowing {
  /**
   * The index was found damaged while serving and started again empty: every file counts as new,
   * so each session is listed and indexed again; one whose files are gone meanwhile is removed.
   * The sessions stay listed while that runs.
   */
  protected override async recordAgain(): Promise<void> {
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
    this.idleCollect.close();
    for (const timer of [...this.releases.values(), ...this.deferred.values(), ...this.storesQueued.values()])
      clearTimeout(timer);
    this.storesQueued.clear();
    this.releases.clear();
    this.deferred.clear();
  }

  /** Resolves once the folders found at the start are watched: a change from then on is heard at once,
   * where before it may wait for the interval walk. */
  async watched(): Promise<void> {
    await this.watcher?.attached();
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

  /** What the index keeps for the usage reports, of every session or of `keys`; current for the
   * sessions indexed. */
  usage(keys?: readonly string[]): Map<string, SessionUsage> {
    return this.options.db.usage(keys);
  }

  /** Changes whenever what the index keeps of the session for the usage reports may have. */
  usageVersion(key: string): string {
    const db = this.options.db;
    return `${db.generation}.${db.usageVersion(key)}`;
  }

  get(key: string): SessionEntry | undefined {
    return this.sessions.get(key);
  }

  /** The titles and first prompts of `entries`, which memory's heads leave to the index. */
  headTexts(entries: readonly SessionEntry[]): Map<string, HeadTexts> {
    return this.options.db.headTexts(entries.map((e) => e.key));
  }

  /** The whole summary of an indexed session, prompts and the context's shape included: the
   * index's (memory keeps only the numbers the list shows). */
  fullSummary(e: SessionEntry): SessionSummaryWithPrompts | undefined {
    if (!e.indexed || !e.summary) return undefined;
    return this.options.db.summaryOf<SessionSummaryWithPrompts>(e.key, SESSION_SUMMARY_VERSION);
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

  /** Readies the search thread for a search soon to come (a person opened the list). */
  warmSearch(): void {
    const { db, searches } = this.options;
    const file = searches && db.file;
    if (file) searches.warm({ file, generation: db.generation });
  }

  /** The search threads running now, and how many were readied ahead of a search. */
  get searchThreads(): { live: number; warmed: number } {
    const { searches } = this.options;
    return { live: searches?.liveThreads ?? 0, warmed: searches?.warmed ?? 0 };
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
    // The files changed: the older read goes before the new one is made, not after, so that a long
    // session is not held twice at once.
    if (hit) this.recent.delete(key);
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
}
