// The index's file: its schema, and a sound database at its path whatever was there before (none,
// a damaged file, another schema version, something that is not a file). `index-db.ts` runs the
// queries on what this opens.
import { lstatSync, renameSync, rmSync } from 'node:fs';
import { ownerOnlyFile } from '@cairn/runner/owner-only';
import Database from 'better-sqlite3';

/** Bumped whenever a table changes shape or a stored value changes meaning; an older file is rebuilt. */
export const INDEX_SCHEMA_VERSION = 6;

export type OpenOutcome = 'opened' | 'created' | 'rebuilt-corrupt' | 'rebuilt-schema' | 'in-memory';

/** A value the index holds that cannot be what was written: the file is damaged. */
export class IndexDamage extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IndexDamage';
  }
}

/** SQLite's ways of saying the file is not (or no longer) a sound database. */
const DAMAGE_CODES = /^SQLITE_(CORRUPT|NOTADB)/;

/** Whether an error thrown by a query means the file is damaged, not that the query was wrong. */
export const isDamage = (cause: unknown): boolean =>
  cause instanceof IndexDamage || (cause instanceof Database.SqliteError && DAMAGE_CODES.test(cause.code));

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  key TEXT NOT NULL UNIQUE,
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
  offset INTEGER NOT NULL,
  head TEXT NOT NULL DEFAULT ''
);
CREATE INDEX files_session ON files(session_key);
-- A document names its session by the session's row id: the key (a path) on every row and in the
-- index made the table twice the size of the text it points at, and its writes the slower half.
CREATE TABLE docs (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL,
  item_key TEXT NOT NULL,
  agent_id TEXT,
  item_uuid TEXT NOT NULL,
  item_type TEXT NOT NULL,
  target TEXT NOT NULL,
  at INTEGER
);
CREATE INDEX docs_session ON docs(session_id);
CREATE VIRTUAL TABLE docs_fts USING fts5(text, tool_output, tokenize = 'unicode61 remove_diacritics 2');
-- What the usage reports count, per session: its folder and title as the read found them (or why
-- the read failed), and each request with a time, a model and tokens, as the agent recorded it.
-- Requests are kept one a row, not summed by hour or day: a billing window starts and ends at a
-- request's own millisecond, a session row at its first and last request, and a zone may be a
-- quarter hour off UTC. Costs are priced when a report is made, so a new price catalog needs no
-- new read. A session's rows go in together, in its order (rowid), and are replaced whole, or from
-- the first request a growing session's read changed.
CREATE TABLE usage_sessions (
  session_id INTEGER PRIMARY KEY,
  project TEXT,
  title TEXT,
  error TEXT
);
CREATE TABLE usage_requests (
  session_id INTEGER NOT NULL,
  at INTEGER NOT NULL,
  model TEXT NOT NULL,
  input INTEGER NOT NULL,
  output INTEGER NOT NULL,
  cache_read INTEGER NOT NULL,
  cache_write INTEGER NOT NULL,
  cache_write_1h INTEGER NOT NULL,
  reasoning INTEGER NOT NULL
);
CREATE INDEX usage_requests_session ON usage_requests(session_id);
`;

/** A JSON value as the index stored it; one that does not parse means the file is damaged. */
export function stored(text: string, key: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new IndexDamage(`a stored value of ${key} does not parse`);
  }
}

function configure(db: Database.Database): void {
  db.pragma('journal_mode = WAL');
  // No syncs: the index is a cache of the agents' files. A crash of the machine may lose its last
  // writes or damage it, and a damaged index is found when opened and rebuilt; an app crash loses
  // nothing. Without them a cold index's writes take a sixth less of the daemon's thread.
  db.pragma('synchronous = OFF');
  db.pragma('busy_timeout = 2000');
}

export function createDatabase(path: string): Database.Database {
  const db = new Database(ownerOnlyFile(path));
  configure(db);
  db.exec(SCHEMA);
  db.pragma(`user_version = ${INDEX_SCHEMA_VERSION}`);
  return db;
}

/**
 * The database at `path`: the one there when it is sound and of this schema, else a new one. A file
 * is removed (it is a cache); anything else at that path is moved aside, never deleted. When no
 * file can be made there, the index lives in memory for this run.
 */
export function openOrRebuild(
  path: string,
  log: (line: string) => void,
  options: { discard?: boolean } = {},
): { db: Database.Database; outcome: OpenOutcome } {
  let outcome: OpenOutcome = 'created';
  const kind = entryKind(path);
  if (kind === 'file' && !options.discard) {
    const existing = tryOpen(path);
    if (existing.ok) return { db: existing.db, outcome: 'opened' };
    outcome = existing.reason === 'schema' ? 'rebuilt-schema' : 'rebuilt-corrupt';
    log(
      existing.reason === 'schema'
        ? `index: ${path} has another schema version; rebuilding it from the agents' files`
        : `index: ${path} is unreadable (${existing.message}); rebuilding it from the agents' files`,
    );
  }
  try {
    if (kind === 'file') removeDatabase(path);
    else if (kind === 'other') {
      const aside = `${path}.unusable-${Date.now()}`;
      renameSync(path, aside);
      outcome = 'rebuilt-corrupt';
      log(
        `index: ${path} is not a file; moved it to ${aside} and rebuilding the index from the agents' files`,
      );
    }
    for (const suffix of ['-wal', '-shm', '-journal']) {
      if (entryKind(`${path}${suffix}`) === 'other')
        renameSync(`${path}${suffix}`, `${path}${suffix}.unusable-${Date.now()}`);
    }
    return { db: createDatabase(path), outcome };
  } catch (cause) {
    log(
      `index: cannot keep an index at ${path} (${(cause as Error).message}); keeping it in memory until restart`,
    );
    return { db: createDatabase(':memory:'), outcome: 'in-memory' };
  }
}

function entryKind(path: string): 'none' | 'file' | 'other' {
  try {
    return lstatSync(path).isFile() ? 'file' : 'other';
  } catch {
    return 'none';
  }
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
    // Every page is checked after the start instead (checkPages): reading the whole file here held
    // up each start by as long as the file takes to read.
    for (const table of [
      'meta',
      'sessions',
      'files',
      'docs',
      'docs_fts',
      'usage_sessions',
      'usage_requests',
    ]) {
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

/** SQLite's quick_check of `db`: 'ok', or what it found first; damage it cannot read past, as its message. */
export function pageCheck(db: Database.Database): string {
  try {
    return String(db.pragma('quick_check(1)', { simple: true }));
  } catch (cause) {
    if (isDamage(cause)) return (cause as Error).message;
    throw cause;
  }
}

function removeDatabase(path: string): void {
  for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${path}${suffix}`, { force: true });
}
