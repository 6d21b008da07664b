// The index: a SQLite cache of what the agents' files hold, rebuilt from them whenever it is missing,
// unreadable or of another schema. Session heads and summaries, the read state of every file, and a
// full-text index of what the sessions said and did.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';

/** Bumped whenever a table changes shape or a stored value changes meaning; an older file is rebuilt. */
export const INDEX_SCHEMA_VERSION = 2;

/** What search looks in. `tool_output` sits in its own FTS column so that leaving it out is a
 * column filter of the index itself, not a scan of its matches. */
export type SearchTarget = 'prompt' | 'assistant' | 'thinking' | 'tool_input' | 'tool_output';
export const SEARCH_TARGETS: readonly SearchTarget[] = [
  'prompt',
  'assistant',
  'thinking',
  'tool_input',
  'tool_output',
];

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

export interface SearchQuery {
  query: string;
  targets?: readonly SearchTarget[];
  agents?: readonly string[];
  sid?: string;
  cwd?: string;
  sinceAt?: number;
  untilAt?: number;
  limit: number;
  offset: number;
}

export interface SearchRow {
  sessionKey: string;
  agent: string;
  sid: string;
  agentId: string | null;
  itemUuid: string;
  itemType: string;
  target: SearchTarget;
  at: number | null;
  snippet: string;
  score: number;
}

export type OpenOutcome = 'opened' | 'created' | 'rebuilt-corrupt' | 'rebuilt-schema';

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (
  key TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  sid TEXT NOT NULL,
  head TEXT NOT NULL,
  cwd TEXT,
  last_activity_at INTEGER,
  summary TEXT,
  capabilities TEXT,
  summary_version INTEGER,
  indexed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sessions_activity ON sessions(last_activity_at DESC);
CREATE INDEX sessions_sid ON sessions(sid);
CREATE TABLE files (
  path TEXT PRIMARY KEY,
  session_key TEXT NOT NULL,
  size INTEGER NOT NULL,
  mtime_ms REAL NOT NULL,
  ino INTEGER NOT NULL,
  offset INTEGER NOT NULL
);
CREATE INDEX files_session ON files(session_key);
CREATE TABLE docs (
  id INTEGER PRIMARY KEY,
  session_key TEXT NOT NULL,
  item_key TEXT NOT NULL,
  agent_id TEXT,
  item_uuid TEXT NOT NULL,
  item_type TEXT NOT NULL,
  target TEXT NOT NULL,
  at INTEGER
);
CREATE INDEX docs_session ON docs(session_key, item_key);
CREATE VIRTUAL TABLE docs_fts USING fts5(text, tool_output, tokenize = 'unicode61 remove_diacritics 2');
`;

const MARKS = /[\u0002\u0003]/g;

export class IndexDb {
  private constructor(
    readonly db: Database.Database,
    readonly outcome: OpenOutcome,
  ) {}

  /**
   * Opens the index at `path`, or makes a new one when there is none, when the file is not a
   * readable database, or when it was written by another schema version. `log` hears why.
   */
  static open(path: string, log: (line: string) => void = () => {}): IndexDb {
    mkdirSync(dirname(path), { recursive: true });
    let outcome: OpenOutcome = existsSync(path) ? 'opened' : 'created';
    if (outcome === 'opened') {
      const existing = tryOpen(path);
      if (existing.ok) return new IndexDb(existing.db, 'opened');
      outcome = existing.reason === 'schema' ? 'rebuilt-schema' : 'rebuilt-corrupt';
      log(
        existing.reason === 'schema'
          ? `index: ${path} has another schema version; rebuilding it from the agents' files`
          : `index: ${path} is unreadable (${existing.message}); rebuilding it from the agents' files`,
      );
      removeDatabase(path);
    }
    const db = new Database(path);
    configure(db);
    db.exec(SCHEMA);
    db.pragma(`user_version = ${INDEX_SCHEMA_VERSION}`);
    return new IndexDb(db, outcome);
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  // --- files ---

  files(): Map<string, FileState> {
    const rows = this.db
      .prepare('SELECT path, session_key, size, mtime_ms, ino, offset FROM files')
      .all() as {
      path: string;
      session_key: string;
      size: number;
      mtime_ms: number;
      ino: number;
      offset: number;
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
        },
      ]),
    );
  }

  putFile(f: FileState): void {
    this.db
      .prepare(
        `INSERT INTO files (path, session_key, size, mtime_ms, ino, offset) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(path) DO UPDATE SET session_key = excluded.session_key, size = excluded.size,
           mtime_ms = excluded.mtime_ms, ino = excluded.ino, offset = excluded.offset`,
      )
      .run(f.path, f.sessionKey, f.size, f.mtimeMs, f.ino, f.offset);
  }

  deleteFile(path: string): void {
    this.db.prepare('DELETE FROM files WHERE path = ?').run(path);
  }

  // --- sessions ---

  sessions<Head, Summary>(): StoredSession<Head, Summary>[] {
    const rows = this.db
      .prepare(
        'SELECT key, agent, sid, head, last_activity_at, summary, capabilities, summary_version, indexed FROM sessions',
      )
      .all() as {
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
      head: JSON.parse(r.head) as Head,
      lastActivityAt: r.last_activity_at ?? undefined,
      summary: r.summary === null ? undefined : (JSON.parse(r.summary) as Summary),
      capabilities: r.capabilities === null ? undefined : (JSON.parse(r.capabilities) as string[]),
      summaryVersion: r.summary_version ?? undefined,
      indexed: r.indexed === 1,
    }));
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
    this.db
      .prepare(
        `INSERT INTO sessions (key, agent, sid, head, cwd, last_activity_at, indexed) VALUES (?, ?, ?, ?, ?, ?, 0)
         ON CONFLICT(key) DO UPDATE SET agent = excluded.agent, sid = excluded.sid, head = excluded.head,
           cwd = excluded.cwd, last_activity_at = excluded.last_activity_at`,
      )
      .run(key, agent, sid, JSON.stringify(head), cwd ?? null, lastActivityAt ?? null);
  }

  setIndexed(key: string, indexed: boolean): void {
    this.db.prepare('UPDATE sessions SET indexed = ? WHERE key = ?').run(indexed ? 1 : 0, key);
  }

  putSummary(key: string, summary: unknown, capabilities: readonly string[], version: number): void {
    this.db
      .prepare('UPDATE sessions SET summary = ?, capabilities = ?, summary_version = ? WHERE key = ?')
      .run(JSON.stringify(summary), JSON.stringify(capabilities), version, key);
  }

  removeSession(key: string): void {
    this.clearDocs(key);
    this.db.prepare('DELETE FROM sessions WHERE key = ?').run(key);
    this.db.prepare('DELETE FROM files WHERE session_key = ?').run(key);
  }

  // --- full text ---

  docKeys(sessionKey: string): Set<string> {
    const rows = this.db
      .prepare('SELECT item_key FROM docs WHERE session_key = ?')
      .pluck()
      .all(sessionKey) as string[];
    return new Set(rows);
  }

  addDocs(sessionKey: string, docs: readonly IndexDoc[]): void {
    const insertDoc = this.db.prepare(
      'INSERT INTO docs (session_key, item_key, agent_id, item_uuid, item_type, target, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    const insertText = this.db.prepare('INSERT INTO docs_fts (rowid, text, tool_output) VALUES (?, ?, ?)');
    for (const d of docs) {
      const text = d.text.replace(MARKS, ' ').slice(0, MAX_DOC_CHARS);
      const { lastInsertRowid } = insertDoc.run(
        sessionKey,
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
    this.db
      .prepare('DELETE FROM docs_fts WHERE rowid IN (SELECT id FROM docs WHERE session_key = ?)')
      .run(sessionKey);
    this.db.prepare('DELETE FROM docs WHERE session_key = ?').run(sessionKey);
  }

  /** Best matches first; an empty list when the query has no searchable word. */
  search(q: SearchQuery): SearchRow[] {
    const expr = ftsExpression(q.query);
    if (expr === undefined) return [];
    const targets = q.targets && q.targets.length > 0 ? q.targets : SEARCH_TARGETS;
    const withOutput = targets.includes('tool_output');
    const withText = targets.some((t) => t !== 'tool_output');
    const match =
      withOutput && withText ? expr : withOutput ? `{tool_output} : (${expr})` : `{text} : (${expr})`;
    const where: string[] = ['docs_fts MATCH ?'];
    const params: unknown[] = [match];
    if (targets.length < SEARCH_TARGETS.length) {
      where.push(`d.target IN (${targets.map(() => '?').join(', ')})`);
      params.push(...targets);
    }
    if (q.agents && q.agents.length > 0) {
      where.push(`s.agent IN (${q.agents.map(() => '?').join(', ')})`);
      params.push(...q.agents);
    }
    if (q.sid !== undefined) {
      where.push('s.sid = ?');
      params.push(q.sid);
    }
    if (q.cwd !== undefined) {
      where.push("instr(coalesce(s.cwd, ''), ?) > 0");
      params.push(q.cwd);
    }
    if (q.sinceAt !== undefined) {
      where.push('d.at >= ?');
      params.push(q.sinceAt);
    }
    if (q.untilAt !== undefined) {
      where.push('d.at <= ?');
      params.push(q.untilAt);
    }
    params.push(q.limit, q.offset);
    const sql = `
      SELECT d.session_key AS sessionKey, s.agent AS agent, s.sid AS sid, d.agent_id AS agentId,
             d.item_uuid AS itemUuid, d.item_type AS itemType, d.target AS target, d.at AS at,
             snippet(docs_fts, -1, char(2), char(3), '…', 16) AS snippet, -bm25(docs_fts) AS score
      FROM docs_fts
      JOIN docs d ON d.id = docs_fts.rowid
      JOIN sessions s ON s.key = d.session_key
      WHERE ${where.join(' AND ')}
      ORDER BY bm25(docs_fts), d.id
      LIMIT ? OFFSET ?`;
    return this.db.prepare(sql).all(...params) as SearchRow[];
  }

  docCount(): number {
    return this.db.prepare('SELECT count(*) FROM docs').pluck().get() as number;
  }
}

/**
 * A user's query as an FTS5 expression: every word and every quoted phrase must occur, each
 * taken literally (FTS5's own operators and column syntax are not the user's to reach); a word
 * ending in `*` matches as a prefix.
 */
export function ftsExpression(query: string): string | undefined {
  const terms: string[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  for (let m = re.exec(query); m !== null; m = re.exec(query)) {
    const phrase = m[1];
    const word = m[2];
    if (phrase !== undefined) {
      if (/[\p{L}\p{N}]/u.test(phrase)) terms.push(quote(phrase));
    } else if (word !== undefined) {
      const prefix = word.endsWith('*') && word.length > 1;
      const bare = prefix ? word.slice(0, -1) : word;
      if (!/[\p{L}\p{N}]/u.test(bare)) continue;
      terms.push(prefix ? `${quote(bare)} *` : quote(bare));
    }
  }
  return terms.length === 0 ? undefined : terms.join(' AND ');
}

const quote = (text: string): string => `"${text.replaceAll('"', '""')}"`;

function configure(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 2000');
}

function tryOpen(
  path: string,
): { ok: true; db: Database.Database } | { ok: false; reason: 'schema' | 'corrupt'; message: string } {
  let db: Database.Database | undefined;
  try {
    db = new Database(path, { fileMustExist: true });
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version !== INDEX_SCHEMA_VERSION) {
      db.close();
      return { ok: false, reason: 'schema', message: `schema ${version}` };
    }
    configure(db);
    // Touching every table makes a damaged file fail here rather than in the middle of serving.
    for (const table of ['meta', 'sessions', 'files', 'docs', 'docs_fts']) {
      db.prepare(`SELECT * FROM ${table} LIMIT 1`).all();
    }
    return { ok: true, db };
  } catch (cause) {
    try {
      db?.close();
    } catch {
      // Closing a database that failed to open has nothing more to tell.
    }
    return { ok: false, reason: 'corrupt', message: (cause as Error).message };
  }
}

function removeDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
}
