// The index: a SQLite cache of what the agents' files hold, rebuilt from them whenever it is missing,
// unreadable, damaged or of another schema. Session heads and summaries, the read state of every file,
// and a full-text index of what the sessions said and did.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Usage } from '@cairn/transcript';
import type Database from 'better-sqlite3';
import {
  createDatabase,
  isDamage,
  type OpenOutcome,
  openOrRebuild,
  pageCheck,
  stored,
} from './index-file.js';
import { type SearchQuery, type SearchRow, type SearchTarget, searchStatement } from './search-query.js';

export {
  INDEX_SCHEMA_VERSION,
  IndexDamage,
  isDamage,
  type OpenOutcome,
  pageCheck,
} from './index-file.js';
export type { SearchQuery, SearchRow, SearchTarget } from './search-query.js';
export { ftsExpression, SEARCH_TARGETS } from './search-query.js';

/** A document longer than this is indexed by its beginning; a session is still found by it. */
export const MAX_DOC_CHARS = 64 * 1024;

export interface FileState {
  path: string;
  /** The key (`agent:main path`) of the session the file belongs to; '' for a file under a home that is
   * no session's. */
  sessionKey: string;
  size: number;
  mtimeMs: number;
  ino: number;
  /** Bytes read: the end of the last complete record. */
  offset: number;
  /** A digest of the file's first bytes and of those before `offset` (see `headPrint`), to tell a
   * file written anew from one that grew; '' before the file was read. */
  head: string;
}

export interface StoredSession<Head = unknown, Summary = unknown> {
  key: string;
  agent: string;
  sid: string;
  head: Head;
  lastActivityAt: number | undefined;
  summary: Summary | undefined;
  capabilities: string[] | undefined;
  summaryVersion: number | undefined;
  /** The full-text documents and the summary are those of the files as they are recorded in `files`. */
  indexed: boolean;
}

export interface IndexDoc {
  /** Unique within the session: which item of which lane. */
  itemKey: string;
  agentId?: string;
  itemUuid: string;
  itemType: string;
  target: SearchTarget;
  at?: number;
  text: string;
}

/** A request with a time, a model and tokens, as a session's read found it. */
export interface UsageRequest {
  at: number;
  model: string;
  usage: Usage;
}

/** What the usage reports take from a session's read: its requests, folder and title, or its error. */
export type SessionUsage = { requests: UsageRequest[]; project?: string; title?: string } | { error: string };

/** The texts of a head that the index keeps and memory does not: long, and read a page at a time. */
export interface HeadTexts {
  title?: string;
  firstPrompt?: string;
}

/** Keys per query when head texts are read. */
const HEAD_TEXTS_BATCH = 500;

/** After this many rebuilds in one process the file is given up on and the index lives in memory. */
const MAX_REBUILDS = 3;

const MARKS = /[\u0002\u0003]/g;

export class IndexDb {
  private handle: Database.Database;
  /** Statements prepared on the current handle, by their SQL. */
  private statements = new Map<string, Database.Statement>();
  private depth = 0;
  private rebuilds = 0;
  private readonly rebuiltListeners = new Set<(reason: string) => void>();
  /** Counts the times the index was found damaged while serving and started again empty. */
  generation = 0;

  private constructor(
    private readonly path: string,
    opened: { db: Database.Database; outcome: OpenOutcome },
    private readonly log: (line: string) => void,
  ) {
    this.handle = opened.db;
    this.outcome = opened.outcome;
  }

  readonly outcome: OpenOutcome;

  get db(): Database.Database {
    return this.handle;
  }

  /**
   * The database's file, for another connection to read (the search thread, the page check): the
   * writes held for one commit (holdCommits) are committed first, so that it reads them too.
   * Undefined while the index lives in memory.
   */
  get file(): string | undefined {
    this.commitHeld();
    return this.handle.memory ? undefined : this.handle.name;
  }

  /** The commit of the write transaction holdCommits opened, while one is open. */
  private held: ReturnType<typeof setTimeout> | undefined;

  /**
   * Lets the writes of the next `ms` share one transaction, committed when the time is up (or when
   * another connection is to read the file, or at close). The cold index records thousands of
   * small sessions, and a commit each wrote a new full-text segment each, which the index then
   * merged again and again: one commit per batch of sessions costs about half as much. Writes in
   * between nest in it as savepoints; this connection reads them at once.
   */
  holdCommits(ms: number): void {
    if (this.closed || this.held !== undefined || this.handle.inTransaction) return;
    this.guard(
      'write',
      () => {
        this.handle.exec('BEGIN');
        this.held = setTimeout(() => this.commitHeld(), ms);
      },
      () => undefined,
    );
  }

  /** Commits the transaction holdCommits opened, if one is open. */
  commitHeld(): void {
    // Never inside a transaction of its own: that one commits or rolls back as a savepoint.
    if (this.held === undefined || this.depth > 0) return;
    clearTimeout(this.held);
    this.held = undefined;
    this.guard(
      'write',
      () => {
        if (this.handle.inTransaction) this.handle.exec('COMMIT');
      },
      () => undefined,
    );
  }

  /** The statement for `sql`, prepared once per handle: a session's record runs the same few many times. */
  private stmt(sql: string): Database.Statement {
    let s = this.statements.get(sql);
    if (!s) {
      s = this.handle.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  /**
   * Opens the index at `path`, or makes a new one when there is none, when the file is not a
   * sound database, or when it was written by another schema version. `log` hears why.
   */
  static open(path: string, log: (line: string) => void = () => {}): IndexDb {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    return new IndexDb(path, openOrRebuild(path, log), log);
  }

  /** Called with the reason whenever the index was found damaged while serving and is now empty:
   * everything it held must be recorded again from the agents' files. */
  onRebuilt(listener: (reason: string) => void): () => void {
    this.rebuiltListeners.add(listener);
    return () => this.rebuiltListeners.delete(listener);
  }

  /**
   * Runs one use of the database. When SQLite reports the file damaged, the index starts again
   * empty, listeners hear it, and the use answers `empty` (what a new index holds). Inside a
   * transaction the damage is passed up, so the transaction is undone before the file is dropped.
   */
  private closed = false;

  private guard<T>(what: string, use: () => T, empty: () => T): T {
    // Work still in flight when the server stops finds the index closed: it reads and writes nothing.
    if (this.closed) return empty();
    try {
      return use();
    } catch (cause) {
      if (!isDamage(cause) || this.depth > 0) throw cause;
      this.recover(`${what}: ${(cause as Error).message}`);
      return empty();
    }
  }

  private recover(reason: string): void {
    this.rebuilds++;
    // What the held transaction wrote goes with the file; listeners record it again.
    clearTimeout(this.held);
    this.held = undefined;
    this.statements = new Map();
    try {
      if (this.handle.open) this.handle.close();
    } catch {
      // A damaged file may refuse even to close cleanly; it is dropped either way.
    }
    if (this.rebuilds > MAX_REBUILDS) {
      this.log(`index: ${this.path} keeps failing (${reason}); keeping the index in memory until restart`);
      this.handle = createDatabase(':memory:');
    } else {
      this.log(`index: ${this.path} is damaged (${reason}); rebuilding it from the agents' files`);
      this.handle = openOrRebuild(this.path, this.log, { discard: true }).db;
    }
    this.generation++;
    for (const listener of this.rebuiltListeners) listener(reason);
  }

  /**
   * Reads every page of an index opened from disk (SQLite's quick_check), through `check` (another
   * thread's connection) when given, else on this thread; damage found starts the index again as
   * damage met while serving does. A start opens the file without this, so a large index is served
   * at once and checked meanwhile.
   */
  async checkPages(check?: (file: string) => Promise<string | undefined>): Promise<void> {
    const file = this.file;
    if (file === undefined || this.outcome !== 'opened' || this.generation > 0 || this.closed) return;
    let result: string | undefined;
    try {
      result = check ? await check(file) : pageCheck(this.handle);
    } catch (cause) {
      if (!this.closed) this.log(`index: could not check ${file}: ${(cause as Error).message}`);
      return;
    }
    // Nothing to do when the file was dropped meanwhile, for damage found another way or at close.
    if (result === undefined || result === 'ok' || this.closed || this.generation > 0) return;
    this.recover(`integrity check: ${result}`);
  }

  close(): void {
    this.commitHeld();
    this.closed = true;
    if (this.db.open) this.db.close();
  }

  /** Runs `fn` in one transaction; damage found inside it undoes it and starts the index again. */
  transaction(fn: () => void): void {
    this.guard(
      'write',
      () => {
        this.depth++;
        try {
          this.db.transaction(fn)();
        } finally {
          this.depth--;
        }
      },
      () => undefined,
    );
  }

  // --- files ---

  files(): Map<string, FileState> {
    return this.guard(
      'reading files',
      () => this.readFiles(),
      () => new Map(),
    );
  }

  private readFiles(): Map<string, FileState> {
    const rows = this.stmt(
      'SELECT path, session_key, size, mtime_ms, ino, offset, head FROM files',
    ).all() as {
      path: string;
      session_key: string;
      size: number;
      mtime_ms: number;
      ino: number;
      offset: number;
      head: string;
    }[];
    return new Map(
      rows.map((r) => [
        r.path,
        {
          path: r.path,
          sessionKey: r.session_key,
          size: r.size,
          mtimeMs: r.mtime_ms,
          ino: r.ino,
          offset: r.offset,
          head: r.head,
        },
      ]),
    );
  }

  putFile(f: FileState): void {
    this.write(() =>
      this.stmt(
        `INSERT INTO files (path, session_key, size, mtime_ms, ino, offset, head) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(path) DO UPDATE SET session_key = excluded.session_key, size = excluded.size,
           mtime_ms = excluded.mtime_ms, ino = excluded.ino, offset = excluded.offset, head = excluded.head`,
      ).run(f.path, f.sessionKey, f.size, f.mtimeMs, f.ino, f.offset, f.head),
    );
  }

  deleteFile(path: string): void {
    this.write(() => this.stmt('DELETE FROM files WHERE path = ?').run(path));
  }

  /** A change to record; lost with a damaged file, which the catalog then records again whole. */
  private write(change: () => unknown): void {
    this.guard(
      'write',
      () => {
        change();
      },
      () => undefined,
    );
  }

  // --- sessions ---

  /** Every session recorded; a stored value that does not parse means the file is damaged. */
  sessions<Head, Summary>(): StoredSession<Head, Summary>[] {
    return this.guard(
      'reading sessions',
      () => this.readSessions<Head, Summary>(),
      () => [],
    );
  }

  private readSessions<Head, Summary>(): StoredSession<Head, Summary>[] {
    const rows = this.stmt(
      'SELECT key, agent, sid, head, last_activity_at, summary, capabilities, summary_version, indexed FROM sessions',
    ).all() as {
      key: string;
      agent: string;
      sid: string;
      head: string;
      last_activity_at: number | null;
      summary: string | null;
      capabilities: string | null;
      summary_version: number | null;
      indexed: number;
    }[];
    return rows.map((r) => ({
      key: r.key,
      agent: r.agent,
      sid: r.sid,
      head: stored(r.head, r.key) as Head,
      lastActivityAt: r.last_activity_at ?? undefined,
      summary: r.summary === null ? undefined : (stored(r.summary, r.key) as Summary),
      capabilities: r.capabilities === null ? undefined : (stored(r.capabilities, r.key) as string[]),
      summaryVersion: r.summary_version ?? undefined,
      indexed: r.indexed === 1,
    }));
  }

  /** The summary recorded of one session when it was made under `version`. */
  summaryOf<Summary>(key: string, version: number): Summary | undefined {
    return this.guard(
      'reading a summary',
      () => {
        const row = this.stmt('SELECT summary, summary_version FROM sessions WHERE key = ?').get(key) as
          | { summary: string | null; summary_version: number | null }
          | undefined;
        if (row?.summary == null || row.summary_version !== version) return undefined;
        return stored(row.summary, key) as Summary;
      },
      () => undefined,
    );
  }

  /**
   * The title and first prompt of each session of `keys` as its recorded head holds them, read in
   * one query per few hundred keys: memory keeps the heads without them (see HeadTexts).
   */
  headTexts(keys: readonly string[]): Map<string, HeadTexts> {
    return this.guard(
      'reading heads',
      () => {
        const out = new Map<string, HeadTexts>();
        const select = this.stmt(
          `SELECT key, json_extract(head, '$.title'), json_extract(head, '$.firstPrompt') FROM sessions
           WHERE key IN (SELECT value FROM json_each(?))`,
        ).raw(true);
        for (let i = 0; i < keys.length; i += HEAD_TEXTS_BATCH) {
          const batch = JSON.stringify(keys.slice(i, i + HEAD_TEXTS_BATCH));
          for (const [key, title, firstPrompt] of select.all(batch) as [string, unknown, unknown][]) {
            const texts: HeadTexts = {};
            if (typeof title === 'string') texts.title = title;
            if (typeof firstPrompt === 'string') texts.firstPrompt = firstPrompt;
            out.set(key, texts);
          }
        }
        return out;
      },
      () => new Map(),
    );
  }

  /** Records a session's head; a changed head leaves it to be indexed again. */
  putSession(
    key: string,
    agent: string,
    sid: string,
    head: unknown,
    cwd: string | undefined,
    lastActivityAt?: number,
  ) {
    const text = JSON.stringify(head);
    this.write(() =>
      this.stmt(
        `INSERT INTO sessions (key, agent, sid, head, cwd, last_activity_at, indexed) VALUES (?, ?, ?, ?, ?, ?, 0)
         ON CONFLICT(key) DO UPDATE SET agent = excluded.agent, sid = excluded.sid, head = excluded.head,
           cwd = excluded.cwd, last_activity_at = excluded.last_activity_at`,
      ).run(key, agent, sid, text, cwd ?? null, lastActivityAt ?? null),
    );
  }

  setIndexed(key: string, indexed: boolean): void {
    this.write(() => this.stmt('UPDATE sessions SET indexed = ? WHERE key = ?').run(indexed ? 1 : 0, key));
  }

  putSummary(key: string, summary: unknown, capabilities: readonly string[], version: number): void {
    const texts = [JSON.stringify(summary), JSON.stringify(capabilities)] as const;
    this.write(() =>
      this.stmt('UPDATE sessions SET summary = ?, capabilities = ?, summary_version = ? WHERE key = ?').run(
        texts[0],
        texts[1],
        version,
        key,
      ),
    );
  }

  removeSession(key: string): void {
    this.write(() => {
      this.deleteDocs(key);
      this.deleteUsage(key);
      this.stmt('DELETE FROM sessions WHERE key = ?').run(key);
      this.stmt('DELETE FROM files WHERE session_key = ?').run(key);
    });
  }

  // --- usage ---

  /** Each session's usage changes in this process, by key: a reader of the index keeps what it made
   * of a session's requests until its count moves. Absent: as the index held it when opened. */
  private readonly usageChanges = new Map<string, number>();
  private usageChangeCount = 0;

  /** Moves whenever the session's usage is written or dropped (see usageChanges). */
  usageVersion(sessionKey: string): number {
    return this.usageChanges.get(sessionKey) ?? 0;
  }

  /**
   * Replaces what the usage reports know of a recorded session. With `keep`, the first `keep` of its
   * requests are those it holds already (a growing session's read went on from the last one): only
   * the rows after them are written again. Rows it does not hold are written whole.
   */
  putUsage(sessionKey: string, usage: SessionUsage, keep = 0): void {
    this.write(() => {
      if (keep > 0 && !('error' in usage) && this.putUsageAfter(sessionKey, usage, keep)) return;
      const sessionId = this.deleteUsage(sessionKey);
      if (sessionId === undefined) return;
      if ('error' in usage) {
        this.stmt('INSERT INTO usage_sessions (session_id, error) VALUES (?, ?)').run(sessionId, usage.error);
        return;
      }
      this.stmt('INSERT INTO usage_sessions (session_id, project, title) VALUES (?, ?, ?)').run(
        sessionId,
        usage.project ?? null,
        usage.title ?? null,
      );
      this.insertRequests(sessionId, usage.requests);
    });
  }

  /** Writes the requests after the first `keep`, when the session holds those; false when not. */
  private putUsageAfter(
    sessionKey: string,
    usage: Extract<SessionUsage, { requests: unknown }>,
    keep: number,
  ): boolean {
    const held = this.stmt(
      'SELECT s.id AS id, u.error AS error FROM sessions s JOIN usage_sessions u ON u.session_id = s.id WHERE s.key = ?',
    ).get(sessionKey) as { id: number; error: string | null } | undefined;
    if (held === undefined || held.error !== null) return false;
    const rows = this.stmt('SELECT count(*) FROM usage_requests WHERE session_id = ?')
      .pluck()
      .get(held.id) as number;
    if (rows < keep) return false;
    this.usageChanges.set(sessionKey, ++this.usageChangeCount);
    this.stmt('UPDATE usage_sessions SET project = ?, title = ? WHERE session_id = ?').run(
      usage.project ?? null,
      usage.title ?? null,
      held.id,
    );
    if (rows > keep) {
      const from = this.stmt(
        'SELECT rowid FROM usage_requests WHERE session_id = ? ORDER BY rowid LIMIT 1 OFFSET ?',
      )
        .pluck()
        .get(held.id, keep) as number;
      this.stmt('DELETE FROM usage_requests WHERE session_id = ? AND rowid >= ?').run(held.id, from);
    }
    this.insertRequests(held.id, usage.requests.slice(keep));
    return true;
  }

  private insertRequests(sessionId: number, requests: readonly UsageRequest[]): void {
    const insert = this.stmt(
      `INSERT INTO usage_requests (session_id, at, model, input, output, cache_read, cache_write, cache_write_1h, reasoning)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const { at, model, usage: u } of requests)
      insert.run(
        sessionId,
        at,
        model,
        u.inputTokens,
        u.outputTokens,
        u.cacheReadTokens ?? 0,
        u.cacheWriteTokens ?? 0,
        u.cacheWrite1hTokens ?? 0,
        u.reasoningTokens ?? 0,
      );
  }

  /** The session's row id, its usage gone. */
  private deleteUsage(sessionKey: string): number | undefined {
    this.usageChanges.set(sessionKey, ++this.usageChangeCount);
    const sessionId = this.stmt('SELECT id FROM sessions WHERE key = ?').pluck().get(sessionKey) as
      | number
      | undefined;
    if (sessionId === undefined) return undefined;
    this.stmt('DELETE FROM usage_sessions WHERE session_id = ?').run(sessionId);
    this.stmt('DELETE FROM usage_requests WHERE session_id = ?').run(sessionId);
    return sessionId;
  }

  /**
   * What the usage reports know of the sessions, by session key, each one's requests in its order:
   * of every session, or of those of `keys` (one query each, for a few).
   */
  usage(keys?: readonly string[]): Map<string, SessionUsage> {
    return this.guard(
      'reading usage',
      () => this.readUsage(keys),
      () => new Map(),
    );
  }

  /**
   * The sessions whose usage the index keeps, with each one's agent and id: enough to make their
   * report entries at a start, before the catalog has listed them.
   */
  usageSessions(): { key: string; agent: string; sid: string }[] {
    return this.guard(
      'listing usage',
      () =>
        this.stmt(
          'SELECT s.key AS key, s.agent AS agent, s.sid AS sid FROM usage_sessions u JOIN sessions s ON s.id = u.session_id',
        ).all() as { key: string; agent: string; sid: string }[],
      () => [],
    );
  }

  private readUsage(keys: readonly string[] | undefined): Map<string, SessionUsage> {
    if (keys !== undefined) {
      const out = new Map<string, SessionUsage>();
      for (const key of keys) for (const [k, usage] of this.readUsageWhere(key)) out.set(k, usage);
      return out;
    }
    return this.readUsageWhere(undefined);
  }

  private readUsageWhere(key: string | undefined): Map<string, SessionUsage> {
    const byId = new Map<number, SessionUsage>();
    const out = new Map<string, SessionUsage>();
    const one = key !== undefined;
    const sessions = this.stmt(
      `SELECT u.session_id, s.key, u.project, u.title, u.error FROM usage_sessions u JOIN sessions s ON s.id = u.session_id${one ? ' WHERE s.key = ?' : ''}`,
    )
      .raw(true)
      .all(...(one ? [key] : [])) as [number, string, string | null, string | null, string | null][];
    for (const [id, key, project, title, error] of sessions) {
      const usage: SessionUsage =
        error !== null
          ? { error }
          : {
              requests: [],
              ...(project !== null ? { project } : {}),
              ...(title !== null ? { title } : {}),
            };
      byId.set(id, usage);
      out.set(key, usage);
    }
    // Rows as the arrays SQLite hands back: one object per request is made once, below.
    const sessionId = one ? sessions[0]?.[0] : undefined;
    if (one && sessionId === undefined) return out;
    const rows = this.stmt(
      `SELECT session_id, at, model, input, output, cache_read, cache_write, cache_write_1h, reasoning FROM usage_requests${one ? ' WHERE session_id = ?' : ''} ORDER BY rowid`,
    )
      .raw(true)
      .all(...(one ? [sessionId] : [])) as Array<
      [number, number, string, number, number, number, number, number, number]
    >;
    for (const [id, at, model, input, output, read, write, write1h, reasoning] of rows) {
      const usage = byId.get(id);
      if (!usage || 'error' in usage) continue;
      usage.requests.push({
        at,
        model,
        usage: {
          inputTokens: input,
          outputTokens: output,
          cacheReadTokens: read,
          cacheWriteTokens: write,
          cacheWrite1hTokens: write1h,
          reasoningTokens: reasoning,
        },
      });
    }
    return out;
  }

  // --- full text ---

  /**
   * The keys of a session's documents past row `afterId`, at most `limit` of them, in row order,
   * with the last one's row: a long session's keys are read a page at a time.
   */
  docKeyPage(sessionKey: string, afterId: number, limit: number): { keys: string[]; lastId: number } {
    return this.guard(
      'reading documents',
      () => {
        const rows = this.stmt(
          'SELECT id, item_key AS key FROM docs WHERE session_id = (SELECT id FROM sessions WHERE key = ?) AND id > ? ORDER BY id LIMIT ?',
        ).all(sessionKey, afterId, limit) as { id: number; key: string }[];
        return { keys: rows.map((r) => r.key), lastId: rows.at(-1)?.id ?? afterId };
      },
      () => ({ keys: [], lastId: afterId }),
    );
  }

  /**
   * A session's documents whose rows are outside `[low, high]` (all of them when the range is
   * empty), in row order past `afterId`, at most `limit`, with their text: what a machine's sync
   * sends. A session's documents are only ever added above every row or below every row, so those
   * outside a range already sent are the ones added since.
   */
  docsOutside(
    sessionKey: string,
    range: { low: number; high: number } | undefined,
    afterId: number,
    limit: number,
  ): (IndexDoc & { id: number })[] {
    return this.guard(
      'reading documents',
      () => {
        const rows = this.stmt(
          `SELECT d.id, d.item_key, d.agent_id, d.item_uuid, d.item_type, d.target, d.at,
             coalesce(f.text, f.tool_output) AS text
           FROM docs d JOIN docs_fts f ON f.rowid = d.id
           WHERE d.session_id = (SELECT id FROM sessions WHERE key = ?) AND d.id > ?
             AND (d.id < ? OR d.id > ?)
           ORDER BY d.id LIMIT ?`,
        ).all(
          sessionKey,
          afterId,
          range?.low ?? Number.MAX_SAFE_INTEGER,
          range?.high ?? Number.MAX_SAFE_INTEGER,
          limit,
        ) as {
          id: number;
          item_key: string;
          agent_id: string | null;
          item_uuid: string;
          item_type: string;
          target: SearchTarget;
          at: number | null;
          text: string | null;
        }[];
        return rows.map((r) => ({
          id: r.id,
          itemKey: r.item_key,
          ...(r.agent_id === null ? {} : { agentId: r.agent_id }),
          itemUuid: r.item_uuid,
          itemType: r.item_type,
          target: r.target,
          ...(r.at === null ? {} : { at: r.at }),
          text: r.text ?? '',
        }));
      },
      () => [],
    );
  }

  /** How many documents a session has, all of them or those of rows within `[low, high]`. */
  sessionDocCount(sessionKey: string, range?: { low: number; high: number }): number {
    return this.guard(
      'counting documents',
      () =>
        this.stmt(
          `SELECT count(*) FROM docs WHERE session_id = (SELECT id FROM sessions WHERE key = ?)
             AND id >= ? AND id <= ?`,
        )
          .pluck()
          .get(
            sessionKey,
            range?.low ?? Number.MIN_SAFE_INTEGER,
            range?.high ?? Number.MAX_SAFE_INTEGER,
          ) as number,
      () => 0,
    );
  }

  /**
   * Adds a session's documents. Their row ids run against activity (lower is newer), which lets a
   * search for a common word rank only the newest of its matches (searchStatement): documents go
   * above every other, or from `place.next` on when placeOf gave them a place below; `place.next`
   * then moves past what was added.
   */
  addDocs(sessionKey: string, docs: readonly IndexDoc[], place?: { next: number }): void {
    this.write(() => this.insertDocs(sessionKey, docs, place));
  }

  /**
   * Where `count` documents of a session last active at `lastActivityAt` go: undefined (above
   * every document) when it is no newer than the session whose documents are highest, as each
   * session of a cold index is, since those go from the newest to the oldest; else the first of
   * `count` row ids below every document's, as for what a session being written gains.
   */
  placeOf(count: number, lastActivityAt: number | undefined): number | undefined {
    return this.guard(
      'placing documents',
      () => {
        const top = this.stmt(
          'SELECT s.last_activity_at FROM docs d JOIN sessions s ON s.id = d.session_id ORDER BY d.id DESC LIMIT 1',
        )
          .pluck()
          .get() as number | null | undefined;
        if (top === undefined || (lastActivityAt ?? 0) <= (top ?? 0)) return undefined;
        const lowest = this.stmt('SELECT min(id) FROM docs').pluck().get() as number;
        return lowest - count;
      },
      () => undefined,
    );
  }

  private insertDocs(sessionKey: string, docs: readonly IndexDoc[], place?: { next: number }): void {
    // Documents belong to a recorded session; without its row they could never be found.
    const sessionId = this.stmt('SELECT id FROM sessions WHERE key = ?').pluck().get(sessionKey) as
      | number
      | undefined;
    if (sessionId === undefined) return;
    // A null id is SQLite's next above the highest.
    const insertDoc = this.stmt(
      'INSERT INTO docs (id, session_id, item_key, agent_id, item_uuid, item_type, target, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const insertText = this.stmt('INSERT INTO docs_fts (rowid, text, tool_output) VALUES (?, ?, ?)');
    for (const d of docs) {
      const text = d.text.replace(MARKS, ' ').slice(0, MAX_DOC_CHARS);
      const { lastInsertRowid } = insertDoc.run(
        place ? place.next++ : null,
        sessionId,
        d.itemKey,
        d.agentId ?? null,
        d.itemUuid,
        d.itemType,
        d.target,
        d.at ?? null,
      );
      if (d.target === 'tool_output') insertText.run(lastInsertRowid, null, text);
      else insertText.run(lastInsertRowid, text, null);
    }
  }

  clearDocs(sessionKey: string): void {
    this.write(() => this.deleteDocs(sessionKey));
  }

  private deleteDocs(sessionKey: string): void {
    const sessionId = this.stmt('SELECT id FROM sessions WHERE key = ?').pluck().get(sessionKey);
    if (sessionId === undefined) return;
    this.stmt('DELETE FROM docs_fts WHERE rowid IN (SELECT id FROM docs WHERE session_id = ?)').run(
      sessionId,
    );
    this.stmt('DELETE FROM docs WHERE session_id = ?').run(sessionId);
  }

  /** Best matches first; an empty list when the query has no searchable word. */
  search(q: SearchQuery): SearchRow[] {
    return this.guard(
      'search',
      () => {
        const statement = searchStatement(q);
        return statement ? (this.db.prepare(statement.sql).all(...statement.params) as SearchRow[]) : [];
      },
      () => [],
    );
  }

  docCount(): number {
    return this.guard(
      'counting documents',
      () => this.stmt('SELECT count(*) FROM docs').pluck().get() as number,
      () => 0,
    );
  }
}
