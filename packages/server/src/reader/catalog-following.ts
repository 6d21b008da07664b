// The catalog's work queue (one task at a time, live changes before background indexing) and its
// following of the files: what the watcher and the rescans saw, compared with the index, and each
// changed session read again.
import { dirname } from 'node:path';
import {
  findAdapter,
  type ListEntry,
  listSessions,
  type SessionAdapter,
  type SessionPlatform,
  splitStorePath,
} from '@cairn/transcript';
import type { FileState } from '../indexing/index-db.js';
import { CatalogIndexing } from './catalog-indexing.js';
import { type SessionEntry, sessionKey, type Task } from './catalog-state.js';
import { withoutTexts } from './head-texts.js';
import { IdleCollect } from './idle-collect.js';
import {
  type FileStamp,
  headPrint,
  hidingPlatform,
  printLength,
  sameStamp,
  servingPlatform,
  stamp,
} from './source-files.js';
import { storeFilesStamp, storeNoticed, storeStamps } from './store-watch.js';
import { SESSION_FILE_NAME, walkRoots } from './watcher.js';

/** Sessions found by a listing told to clients together. */
const HEADS_PER_EMIT = 200;

/** The least time between two stamps of every session of one store (see queueStore). */
const STORE_STAMP_SPACING_MS = 1_000;

export abstract class CatalogFollowing extends CatalogIndexing {
  /** What a burst of work left in the heap is given back once the queue has been quiet a while. */
  protected readonly idleCollect = new IdleCollect();

  // --- the work queue: one task at a time, live changes before background indexing ---

  protected override enqueue(task: Task): Promise<void> {
    return new Promise((resolve, reject) => {
      this.urgent.push(() => task().then(resolve, reject));
      void this.run();
    });
  }

  protected queueIndex(key: string): void {
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
      // The least recent first and the next one last: taken from the end, a queue of 20,000 costs
      // nothing to take from, where taking from the front moved the rest each time.
      const at = (key: string) => this.sessions.get(key)?.head.lastActivityAt ?? 0;
      this.background.sort((a, b) => at(a) - at(b));
      this.backgroundUnsorted = false;
    }
    return this.background.pop();
  }

  private async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.idleCollect.workBegan();
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
        if (!this.closed) this.idleCollect.workDone();
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

  // --- following the files ---

  protected onPaths(paths: Set<string>): void {
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
  protected queueRescan(): Promise<void> {
    if (this.rescan || this.closed) return this.rescan ?? Promise.resolve();
    const walk = walkRoots(
      this.roots.map((r) => r.root),
      this.stores.map((r) => r.root),
      this.watcher?.sawFolder,
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
  protected async reconcile(
    found?: Map<string, FileStamp>,
    within?: (path: string) => boolean,
  ): Promise<void> {
    const walked =
      found ??
      (await walkRoots(
        this.roots.map((r) => r.root),
        this.stores.map((r) => r.root),
        this.watcher?.sawFolder,
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
    // A first listing (the index knows no session yet) reads the heads on the workers, every agent's
    // at once: over thousands of sessions that was most of the daemon thread's first seconds, while
    // the workers waited for it.
    const first = this.workers && ![...this.known.values()].some((k) => k.sessionKey !== '');
    const onWorkers = new Map(
      first
        ? [...agents].map((agent) => [agent, this.workers!.list(agent, (read) => this.stats.add(read))])
        : [],
    );
    for (const agent of agents) {
      for await (const entry of this.sessionsOf(agent, view, onWorkers.get(agent))) {
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
          head: withoutTexts(entry),
          summary: undefined,
          capabilities: undefined,
          indexed: false,
          inFlight: false,
        };
        this.sessions.set(key, e);
        this.options.db.putSession(key, e.agent, e.sid, entry, entry.cwd, entry.lastActivityAt);
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

  /**
   * The agent's sessions as listed on a worker when given, else (and from where a worker stopped)
   * listed here; those a worker already gave are hidden from the second listing by then, as known.
   */
  private async *sessionsOf(
    agent: string,
    view: SessionPlatform,
    onWorker: AsyncIterable<ListEntry> | undefined,
  ): AsyncGenerator<ListEntry> {
    if (onWorker)
      try {
        yield* onWorker;
        return;
      } catch (cause) {
        this.log(`catalog: ${(cause as Error).message}; listing on the daemon's thread`);
      }
    yield* listSessions(view, { agent });
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

  /** Reads what changed in a known session's files and indexes it; forgets a session whose main
   * file is gone. */
  protected override async refreshSession(key: string): Promise<void> {
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
}
