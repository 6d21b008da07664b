// Reading an OpenCode-family SQLite store (opencode.db, kilo.db) without ever writing to it: every
// connection is read-only, nothing checkpoints the write-ahead log, nothing is created beside the
// store, and a store that is busy is tried again a few times and then reported, never waited on
// for long. The rows of one session are handed to the translation as read, message and part rows
// with their data parsed (or, for a caller that wants bytes, as lines of JSON,
// `{"table","rowid","row"}`); a row's pointer names its table and rowid. Connections are kept
// between reads: a snapshot while its file stays the same, and one to a store its agent has open
// only for the reads that follow at once.
import {
  closeSync,
  copyFileSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

/** A row of the store as one line of a session's export. */
export interface StoreLine {
  table: string;
  rowid: number;
  row: Record<string, unknown>;
}

/** A session as the `session` table lists it, read without touching its messages. */
export interface StoreSessionRow {
  id: string;
  parentId?: string;
  directory?: string;
  title?: string;
  version?: string;
  created?: number;
  updated?: number;
  model?: string;
}

/** The tables a pointer may name; anything else is refused before it reaches a statement. */
export const STORE_TABLES: ReadonlySet<string> = new Set(['session', 'message', 'part', 'project', 'todo']);

/** What is used of a better-sqlite3 connection (its own types stay out of the library's). */
interface Statement {
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
  run(...params: unknown[]): unknown;
  raw(on: boolean): Statement;
}
export interface Db {
  prepare(sql: string): Statement;
  close(): void;
  readonly inTransaction: boolean;
}
type DbConstructor = new (
  source: string | Buffer,
  options: { readonly: boolean; fileMustExist?: boolean; timeout?: number },
) => Db;

let driver: Promise<DbConstructor> | undefined;

/** better-sqlite3, loaded on first use so that reading other agents never needs the addon. */
const loadDriver = (): Promise<DbConstructor> => {
  driver ??= import('better-sqlite3').then((m) => (m.default ?? m) as unknown as DbConstructor);
  return driver;
};

const BUSY_CODES = new Set(['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_BUSY_RECOVERY', 'SQLITE_BUSY_SNAPSHOT']);
const isBusy = (cause: unknown): boolean =>
  BUSY_CODES.has((cause as { code?: string } | undefined)?.code ?? '');

/** How often, and how long apart, a busy store is tried again before the read gives up. */
const BUSY_TRIES = 4;
/** How long SQLite itself waits on a lock within one try. */
const BUSY_WAIT_MS = 250;
const BUSY_PAUSE_MS = 150;

export class StoreBusy extends Error {
  constructor(db: string) {
    super(`${db}: the database is locked (busy) and could not be read; try again`);
    this.name = 'StoreBusy';
  }
}

/** A connection as openStore gives it, and what is to be done with it once read. */
interface Opened {
  conn: Db;
  /** Kept for the next read (a snapshot, or a connection to a store opened where it is). */
  keep: boolean;
  /** Opened where the store is: each read runs in a read transaction of its own. */
  inPlace?: boolean;
  done?: () => void;
}

/**
 * `work` on a read-only connection to `db`: one kept from an earlier read while the store's file
 * stays the same, else a new one (closed afterwards when it cannot be kept). A read-only connection
 * never writes the database or its log, and never checkpoints or deletes the log when it closes.
 * On a store opened where it is, `work` runs in one read transaction, ended before this returns:
 * all its statements see the same commit, and no old snapshot is held between reads.
 */
export async function withStore<T>(db: string, work: (conn: Db) => T): Promise<T> {
  const Driver = await loadDriver();
  for (let attempt = 1; ; attempt++) {
    let opened: Opened | undefined;
    try {
      opened = openStore(Driver, db);
      return opened.inPlace ? inReadTransaction(opened.conn, work) : work(opened.conn);
    } catch (cause) {
      // A kept connection that failed is not trusted with the next try.
      if (opened?.inPlace) dropInPlace(db);
      if (!isBusy(cause)) throw cause;
      if (attempt >= BUSY_TRIES) throw new StoreBusy(db);
      await new Promise((resolve) => setTimeout(resolve, BUSY_PAUSE_MS * attempt));
    } finally {
      if (opened && !opened.keep) opened.conn.close();
      opened?.done?.();
    }
  }
}

function inReadTransaction<T>(conn: Db, work: (conn: Db) => T): T {
  prepared(conn, 'BEGIN').run();
  try {
    return work(conn);
  } finally {
    if (conn.inTransaction) prepared(conn, 'COMMIT').run();
  }
}

/**
 * A connection to a store opened where it is (its agent running), kept for the reads that follow
 * at once: opening one, and preparing its statements, costs more than a small session's read, and
 * a load asks the store twice (is the session there, then its rows), a listing or an index many
 * times. It is closed when the event loop next turns, because an open connection to a store in WAL
 * mode holds a shared lock on it all along (an agent then cannot take the store for itself, nor
 * remove its log when it quits). Keyed by the file's device and inode: a store replaced by another
 * file is opened afresh. No transaction is held between reads.
 */
interface InPlace {
  conn: Db;
  dev: number;
  ino: number;
}
const inPlaceKept = new Map<string, InPlace>();

function dropInPlace(db: string): void {
  const kept = inPlaceKept.get(db);
  if (!kept) return;
  inPlaceKept.delete(db);
  kept.conn.close();
}

function keepInPlace(db: string, conn: Db, dev: number, ino: number): void {
  inPlaceKept.set(db, { conn, dev, ino });
  setImmediate(() => {
    if (inPlaceKept.get(db)?.conn === conn) dropInPlace(db);
  });
}

/**
 * A store read whole into memory, kept while its file stays the same (the agent is not running): the
 * same file (device and inode: not another put in its place) of the same size and time.
 */
interface Snapshot {
  readonly size: number;
  readonly mtimeMs: number;
  readonly dev: number;
  readonly ino: number;
  readonly conn: Db;
}
const snapshots = new Map<string, Snapshot>();
const SNAPSHOTS_KEPT = 4;

/**
 * A connection to `db` that creates nothing in the agent's folder. SQLite makes a store's `-shm`
 * index and `-wal` log when a reader opens a store in WAL mode without them (and the driver takes
 * no URI, so no `immutable` open): only when both are there is the store opened where it is.
 * Otherwise the agent is not running and the file is whole: it is read into memory, marked as not
 * in WAL mode, and opened from there. A log left without its index (a crash) is read from a copy.
 */
function openStore(Driver: DbConstructor, db: string): Opened {
  // Without a log the index beside it does not matter: the store is not opened in place then. Each
  // read looks again (a caller that noted the files before reading must get rows as new as those).
  const wal = sizeOf(`${db}-wal`);
  const shm = wal === undefined ? undefined : sizeOf(`${db}-shm`);
  const { size, mtimeMs, dev, ino } = statSync(db);
  const kept = snapshots.get(db);
  // The snapshot of a store unchanged since, whose agent has not started: no need to look again at
  // its header (a snapshot is only made of a store in WAL mode).
  if (
    kept &&
    kept.size === size &&
    kept.mtimeMs === mtimeMs &&
    kept.ino === ino &&
    kept.dev === dev &&
    shm === undefined &&
    !wal
  )
    return { conn: kept.conn, keep: true };
  if ((shm !== undefined && wal !== undefined) || !walMode(db)) {
    const live = inPlaceKept.get(db);
    if (live && live.dev === dev && live.ino === ino) return { conn: live.conn, keep: true, inPlace: true };
    dropInPlace(db);
    const conn = new Driver(db, { readonly: true, fileMustExist: true, timeout: BUSY_WAIT_MS });
    keepInPlace(db, conn, dev, ino);
    return { conn, keep: true, inPlace: true };
  }
  // The agent stopped since a connection was kept where the store is: it is read another way now.
  dropInPlace(db);
  if ((wal ?? 0) > 0) {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-store-'));
    const copy = join(dir, basename(db));
    copyFileSync(db, copy);
    copyFileSync(`${db}-wal`, `${copy}-wal`);
    return {
      conn: new Driver(copy, { readonly: true, fileMustExist: true }),
      keep: false,
      done: () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  kept?.conn.close();
  snapshots.delete(db);
  const bytes = readFileSync(db);
  // Bytes 18 and 19 say WAL (2); an image in memory has no log to read.
  if (bytes.length >= 20 && bytes[18] === 2) bytes[18] = bytes[19] = 1;
  const conn = new Driver(bytes, { readonly: true });
  if (snapshots.size >= SNAPSHOTS_KEPT) {
    const [oldest] = snapshots;
    if (oldest) {
      oldest[1].conn.close();
      snapshots.delete(oldest[0]);
    }
  }
  snapshots.set(db, { size, mtimeMs, dev, ino, conn });
  return { conn, keep: true };
}

// Asked of files that are most often absent: no error is made for a missing one (making one costs
// more than the look itself).
const sizeOf = (path: string): number | undefined => statSync(path, { throwIfNoEntry: false })?.size;

/** Statements prepared once per connection: a kept snapshot serves many sessions' reads. */
const statements = new WeakMap<Db, Map<string, Statement>>();

/**
 * `raw`: a statement that gives each row as an array of its columns, which costs less than an
 * object keyed by their names.
 */
export function prepared(conn: Db, sql: string, raw = false): Statement {
  let kept = statements.get(conn);
  if (!kept) {
    kept = new Map();
    statements.set(conn, kept);
  }
  const key = raw ? `raw:${sql}` : sql;
  let statement = kept.get(key);
  if (!statement) {
    statement = conn.prepare(sql);
    if (raw) statement.raw(true);
    kept.set(key, statement);
  }
  return statement;
}

/** Whether the store's header says WAL mode (its write and read versions are 2). */
function walMode(db: string): boolean {
  const header = Buffer.alloc(20);
  const fd = openSync(db, 'r');
  try {
    return readSync(fd, header, 0, 20, 0) === 20 && header[18] === 2;
  } finally {
    closeSync(fd);
  }
}

/** Each table's columns, asked once per connection (a kept one serves many reads). */
const columnsKept = new WeakMap<Db, Map<string, Set<string>>>();
function columnsOf(conn: Db, table: string): Set<string> {
  let tables = columnsKept.get(conn);
  if (!tables) {
    tables = new Map();
    columnsKept.set(conn, tables);
  }
  let cols = tables.get(table);
  if (!cols) {
    cols = new Set(
      (conn.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => c.name),
    );
    tables.set(table, cols);
  }
  return cols;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** The model a `session.model` column names (`{"id","providerID"}`), when it names one. */
function modelOf(v: unknown): string | undefined {
  if (typeof v !== 'string') return undefined;
  try {
    const m = JSON.parse(v) as unknown;
    return m && typeof m === 'object' ? text((m as Record<string, unknown>).id) : undefined;
  } catch {
    return undefined;
  }
}

/** Every top-level session of a store, from the session table alone (children are lanes of theirs). */
export function listStoreSessions(db: string): Promise<StoreSessionRow[]> {
  return withStore(db, (conn) => {
    const cols = columnsOf(conn, 'session');
    if (!cols.has('id')) throw new Error(`${db}: no session table with an id column`);
    const want = [
      'id',
      'parent_id',
      'directory',
      'title',
      'version',
      'time_created',
      'time_updated',
      'model',
    ];
    const select = want.filter((c) => cols.has(c)).join(', ');
    const top = cols.has('parent_id') ? 'WHERE parent_id IS NULL' : '';
    const order = cols.has('time_created') ? 'ORDER BY time_created, id' : 'ORDER BY id';
    const rows = prepared(conn, `SELECT ${select} FROM session ${top} ${order}`).all() as Record<
      string,
      unknown
    >[];
    return rows.flatMap((r): StoreSessionRow[] => {
      const id = text(r.id);
      if (id === undefined) return [];
      const s: StoreSessionRow = { id };
      const parentId = text(r.parent_id);
      if (parentId !== undefined) s.parentId = parentId;
      const directory = text(r.directory);
      if (directory !== undefined) s.directory = directory;
      const title = text(r.title);
      if (title !== undefined) s.title = title;
      const version = text(r.version);
      if (version !== undefined) s.version = version;
      const created = num(r.time_created);
      if (created !== undefined) s.created = created;
      const updated = num(r.time_updated);
      if (updated !== undefined) s.updated = updated;
      const model = modelOf(r.model);
      if (model !== undefined) s.model = model;
      return [s];
    });
  });
}

/** Whether the store holds a session with this id (a child session counts). */
export async function storeHasSession(db: string, id: string): Promise<boolean> {
  const has = (conn: Db) => prepared(conn, 'SELECT 1 FROM session WHERE id = ?').get(id) !== undefined;
  // A kept snapshot that holds the session says so without a look at the files: the read that
  // follows looks, and finds the session gone if it went since. A no is always asked of the store.
  const kept = snapshots.get(db);
  if (kept && has(kept.conn)) return true;
  return withStore(db, has);
}

/**
 * A row as a session's read takes it. Its `row` holds the columns as selected, `__rowid` among them
 * (left in rather than copied out of every row; the export leaves it out).
 */
const readLine = (table: string, r: Record<string, unknown>): StoreLine => ({
  table,
  rowid: r.__rowid as number,
  row: r,
});

/** The `IN` list of `n` ids, one placeholder each (a session with no children: one). */
const idList = (n: number): string =>
  n === 1 ? '= ?' : `IN (${Array.from({ length: n }, () => '?').join(', ')})`;

/**
 * The rows of one session and of the sessions it started (children, at any depth): its session rows
 * first, then messages in the order they were made, then their parts (by message, then id). Each
 * statement is prepared once per connection, and a session without children is read through the
 * session indexes alone.
 */
export function readStoreSession(db: string, id: string): Promise<StoreLine[]> {
  return withStore(db, (conn) => readSessionRows(conn, id));
}

function readSessionRows(conn: Db, id: string): StoreLine[] {
  const sessions = sessionTree(conn, id);
  if (sessions.length === 0) return [];
  const ids = sessions.map((s) => s.id);
  const out: StoreLine[] = [];
  for (const s of sessions) out.push(readLine('session', s));
  const list = idList(ids.length);
  const messages = prepared(
    conn,
    `SELECT _rowid_ AS __rowid, * FROM message WHERE session_id ${list} ORDER BY time_created, id`,
  ).all(...ids) as Record<string, unknown>[];
  for (const m of messages) out.push(readLine('message', m));
  // Ordered here rather than by SQLite, which would sort the rows' data along with their keys.
  const parts = prepared(conn, `SELECT _rowid_ AS __rowid, * FROM part WHERE session_id ${list}`).all(
    ...ids,
  ) as Record<string, unknown>[];
  parts.sort(byMessageThenId);
  for (const p of parts) out.push(readLine('part', p));
  return out;
}

/** The columns of each table that a translation reads. */
const SESSION_COLUMNS = ['id', 'parent_id', 'directory', 'title', 'version', 'time_created', 'time_updated'];
const MESSAGE_COLUMNS = 'id, session_id, time_created, data';
const PART_COLUMNS = 'id, session_id, message_id, time_created, data';

/** The statements of a translation's read, made once per connection. */
interface TranslationReads {
  sessionById: Statement;
  sessionChildren: Statement;
  /** Of a session without children; a tree's ids make statements of their own. */
  messages: Statement;
  parts: Statement;
}
const translationReads = new WeakMap<Db, TranslationReads | null>();

/** null when a table lacks a column a translation reads (of a session row, those it has are read). */
function translationReadsOf(conn: Db): TranslationReads | null {
  let reads = translationReads.get(conn);
  if (reads !== undefined) return reads;
  const has = (table: string, wanted: string) => {
    const cols = columnsOf(conn, table);
    return wanted.split(', ').every((c) => cols.has(c));
  };
  const sessionCols = columnsOf(conn, 'session');
  reads = null;
  if (
    sessionCols.has('id') &&
    sessionCols.has('parent_id') &&
    has('message', MESSAGE_COLUMNS) &&
    has('part', PART_COLUMNS)
  ) {
    const sessionColumns = SESSION_COLUMNS.filter((c) => sessionCols.has(c)).join(', ');
    reads = {
      sessionById: conn.prepare(`SELECT _rowid_ AS __rowid, ${sessionColumns} FROM session WHERE id = ?`),
      sessionChildren: conn.prepare(
        `SELECT _rowid_ AS __rowid, ${sessionColumns} FROM session WHERE parent_id = ?`,
      ),
      messages: conn.prepare(messagesSql(1)).raw(true),
      parts: conn.prepare(partsSql(1)).raw(true),
    };
  }
  translationReads.set(conn, reads);
  return reads;
}

// The cells of a row as the statements below give them. `session_id` comes last, and only when a
// tree of sessions is read: of a single session it is always the session's own id (the rows are
// found by it), and a column less makes each row cheaper to take from SQLite.
const ROWID = 0;
const ID = 1;
const M_TIME = 2;
const M_DATA = 3;
const M_SESSION = 4;
const P_MESSAGE = 2;
const P_TIME = 3;
const P_DATA = 4;
const P_SESSION = 5;
const messagesSql = (n: number): string =>
  `SELECT _rowid_, id, time_created, data${n === 1 ? '' : ', session_id'} FROM message WHERE session_id ${idList(n)} ORDER BY time_created, id`;
const partsSql = (n: number): string =>
  `SELECT _rowid_, id, message_id, time_created, data${n === 1 ? '' : ', session_id'} FROM part WHERE session_id ${idList(n)}`;

/** What a read for a translation gives as a row's data when its `data` is not JSON text. */
export const DATA_NOT_JSON: unique symbol = Symbol('data is not JSON');

/**
 * A message or part row as read for a translation, made straight from the columns SQLite gives (no
 * object keyed by column names, and no JSON text kept once parsed): its keys, and its `data` parsed,
 * with the row's `time_created` as `time.created` where the data records no time, as the tree's
 * files record it. `data` is DATA_NOT_JSON when the column is text that does not parse, and the
 * column's value as it is when that is no text.
 */
export interface ParsedStoreRow {
  table: 'message' | 'part';
  rowid: number;
  id: unknown;
  sessionId: unknown;
  messageId: unknown;
  data: unknown;
}

/** A row of a session read for a translation: a session row as stored, or a parsed message or part. */
export type SessionStoreRow = StoreLine | ParsedStoreRow;

/** The data of a row read for a translation (see ParsedStoreRow). */
function parsedData(raw: unknown, timeCreated: unknown): unknown {
  if (typeof raw !== 'string') {
    // A value that is no text is no data a translation fills in: completed on a copy.
    if (isRecord(raw) && raw.time === undefined && typeof timeCreated === 'number')
      return { ...raw, time: { created: timeCreated } };
    return raw;
  }
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return DATA_NOT_JSON;
  }
  if (isRecord(data) && data.time === undefined && typeof timeCreated === 'number')
    data.time = { created: timeCreated };
  return data;
}

const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * readStoreSession for a translation: the same rows in the same order, with only the columns the
 * translation reads (an export wants every column as stored), message and part rows parsed as they
 * come from SQLite (ParsedStoreRow). A store whose tables lack one of those columns is read as
 * readStoreSession reads it.
 */
export function readStoreSessionToTranslate(db: string, id: string): Promise<SessionStoreRow[]> {
  return withStore(db, (conn): SessionStoreRow[] => {
    const reads = translationReadsOf(conn);
    if (reads === null) return readSessionRows(conn, id);
    const sessions = sessionTree(conn, id, reads.sessionById, reads.sessionChildren);
    if (sessions.length === 0) return [];
    const out: SessionStoreRow[] = [];
    for (const s of sessions) out.push(readLine('session', s));
    const ids = sessions.map((s) => s.id);
    const one = ids.length === 1;
    const only = ids[0];
    const messages = (one ? reads.messages : prepared(conn, messagesSql(ids.length), true)).all(
      ...ids,
    ) as unknown[][];
    for (const m of messages)
      out.push({
        table: 'message',
        rowid: m[ROWID] as number,
        id: m[ID],
        sessionId: one ? only : m[M_SESSION],
        messageId: undefined,
        data: parsedData(m[M_DATA], m[M_TIME]),
      });
    const parts = (one ? reads.parts : prepared(conn, partsSql(ids.length), true)).all(...ids) as unknown[][];
    parts.sort(cellsByMessageThenId);
    for (const p of parts)
      out.push({
        table: 'part',
        rowid: p[ROWID] as number,
        id: p[ID],
        sessionId: one ? only : p[P_SESSION],
        messageId: p[P_MESSAGE],
        data: parsedData(p[P_DATA], p[P_TIME]),
      });
    return out;
  });
}

/**
 * byMessageThenId for part rows as SQLite gives them (partsSql's cells), compared without asking
 * each value's kind when both are text, as a store's ids always are.
 */
function cellsByMessageThenId(a: unknown[], b: unknown[]): number {
  const am = a[P_MESSAGE];
  const bm = b[P_MESSAGE];
  const ai = a[ID];
  const bi = b[ID];
  if (typeof am !== 'string' || typeof bm !== 'string' || typeof ai !== 'string' || typeof bi !== 'string')
    return compareSql(am, bm) || compareSql(ai, bi);
  if (am !== bm) return am < bm ? -1 : 1;
  return ai < bi ? -1 : ai > bi ? 1 : 0;
}

/** How deep a tree of sessions is followed (a cycle of parent ids ends there too). */
const TREE_DEPTH = 64;

/**
 * The session rows of `id` and of the sessions it started, at any depth, ordered by `time_created`
 * and id. Looked up row by row through the id and parent indexes: a recursive query costs more
 * than that for the single session most trees are.
 */
function sessionTree(
  conn: Db,
  id: string,
  byId = prepared(conn, 'SELECT _rowid_ AS __rowid, * FROM session WHERE id = ?'),
  children = prepared(conn, 'SELECT _rowid_ AS __rowid, * FROM session WHERE parent_id = ?'),
): Record<string, unknown>[] {
  const root = byId.get(id) as Record<string, unknown> | undefined;
  if (root === undefined) return [];
  const out = [root];
  const seen = new Set<unknown>([root.id]);
  let level = [root];
  for (let depth = 0; level.length > 0 && depth < TREE_DEPTH; depth++) {
    const next: Record<string, unknown>[] = [];
    for (const s of level)
      for (const c of children.all(s.id) as Record<string, unknown>[])
        if (!seen.has(c.id)) {
          seen.add(c.id);
          next.push(c);
        }
    out.push(...next);
    level = next;
  }
  return out.length === 1 ? out : out.sort(bySqlOrder);
}

/** SQLite's order of values of mixed kinds: NULL, then numbers, then text, then anything else. */
const kindRank = (v: unknown): number =>
  v === null || v === undefined
    ? 0
    : typeof v === 'number' || typeof v === 'bigint'
      ? 1
      : typeof v === 'string'
        ? 2
        : 3;
const compareSql = (a: unknown, b: unknown): number => {
  const ka = kindRank(a);
  const kb = kindRank(b);
  if (ka !== kb) return ka - kb;
  if (ka === 0) return 0;
  return (a as number) < (b as number) ? -1 : (a as number) > (b as number) ? 1 : 0;
};
/** `ORDER BY message_id, id`. */
const byMessageThenId = (a: Record<string, unknown>, b: Record<string, unknown>): number =>
  compareSql(a.message_id, b.message_id) || compareSql(a.id, b.id);
/** `ORDER BY time_created, id`. */
const bySqlOrder = (a: Record<string, unknown>, b: Record<string, unknown>): number =>
  compareSql(a.time_created, b.time_created) || compareSql(a.id, b.id);

/** A session's rows (readStoreSession) as lines of JSON, `{"table","rowid","row"}`, each row as stored. */
export async function exportStoreSession(db: string, id: string): Promise<Uint8Array> {
  const out: string[] = [];
  for (const { table, rowid, row } of await readStoreSession(db, id)) {
    const { __rowid, ...stored } = row;
    out.push(JSON.stringify({ table, rowid, row: stored }));
  }
  return new TextEncoder().encode(out.length > 0 ? `${out.join('\n')}\n` : '');
}

/** One row as stored (its columns as JSON), or undefined when the row is gone. */
export function readStoreRow(db: string, table: string, rowid: number): Promise<Uint8Array | undefined> {
  if (!STORE_TABLES.has(table)) return Promise.reject(new Error(`${table}: not a table of the store`));
  return withStore(db, (conn) => {
    const row = prepared(conn, `SELECT * FROM "${table}" WHERE _rowid_ = ?`).get(rowid);
    return row === undefined ? undefined : new TextEncoder().encode(JSON.stringify(row));
  });
}

/**
 * What tells a store session's rows changed, in the shape of a file's stamp: `mtimeMs` is the latest
 * `time_updated` of its sessions, and `ino` a digest of how many message and part rows it and its
 * children have and their highest rowids, read from the tables' session indexes alone (a row
 * rewritten in place shows once a row is added after it, as every model step adds its
 * step-finish). The store keeps no byte count per session: `size` is 0.
 */
export interface StoreStamp {
  size: number;
  mtimeMs: number;
  ino: number;
}

interface RawCounts {
  parent?: string;
  updated: number;
  messages: number;
  lastMessage: number;
  parts: number;
  lastPart: number;
}

const fnv = (text: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
};

function countsOf(conn: Db, ids?: readonly string[]): Map<string, RawCounts> {
  const where = ids ? `WHERE ${'session_id'} IN (${ids.map(() => '?').join(', ')})` : '';
  const sWhere = ids ? `WHERE id IN (${ids.map(() => '?').join(', ')})` : '';
  const args = ids ?? [];
  const out = new Map<string, RawCounts>();
  for (const r of prepared(conn, `SELECT id, parent_id, time_updated FROM session ${sWhere}`).all(
    ...args,
  ) as {
    id: string;
    parent_id: string | null;
    time_updated: number | null;
  }[]) {
    const c: RawCounts = {
      updated: num(r.time_updated) ?? 0,
      messages: 0,
      lastMessage: 0,
      parts: 0,
      lastPart: 0,
    };
    if (r.parent_id) c.parent = r.parent_id;
    out.set(r.id, c);
  }
  const grouped = (table: string) =>
    prepared(
      conn,
      `SELECT session_id AS id, count(*) AS n, max(_rowid_) AS last FROM ${table} ${where} GROUP BY session_id`,
    ).all(...args) as { id: string; n: number; last: number }[];
  for (const r of grouped('message')) {
    const c = out.get(r.id);
    if (c) Object.assign(c, { messages: r.n, lastMessage: r.last });
  }
  for (const r of grouped('part')) {
    const c = out.get(r.id);
    if (c) Object.assign(c, { parts: r.n, lastPart: r.last });
  }
  return out;
}

/** The stamps of the top-level sessions of `counts`, each with its children's rows rolled in. */
function rollUp(counts: Map<string, RawCounts>): Map<string, StoreStamp> {
  const root = (id: string): string => {
    let at = id;
    for (let depth = 0; depth < 64; depth++) {
      const parent = counts.get(at)?.parent;
      if (parent === undefined || !counts.has(parent)) return at;
      at = parent;
    }
    return at;
  };
  const sums = new Map<string, RawCounts>();
  for (const [id, c] of counts) {
    const r = root(id);
    const s = sums.get(r) ?? { updated: 0, messages: 0, lastMessage: 0, parts: 0, lastPart: 0 };
    s.updated = Math.max(s.updated, c.updated);
    s.messages += c.messages;
    s.parts += c.parts;
    s.lastMessage = Math.max(s.lastMessage, c.lastMessage);
    s.lastPart = Math.max(s.lastPart, c.lastPart);
    sums.set(r, s);
  }
  const out = new Map<string, StoreStamp>();
  for (const [id, s] of sums) out.set(id, storeStampOf(s));
  return out;
}

/** The stamp of a session tree's rows, from their counts, highest rowids and latest update. */
export const storeStampOf = (s: Omit<RawCounts, 'parent'>): StoreStamp => ({
  size: 0,
  mtimeMs: s.updated,
  ino: fnv(`${s.messages}:${s.lastMessage}:${s.parts}:${s.lastPart}`),
});

/** The stamp of every top-level session of a store, by id: one pass over its session indexes. */
export function storeSessionStamps(db: string): Promise<Map<string, StoreStamp>> {
  return withStore(db, (conn) => rollUp(countsOf(conn)));
}

/** The ids of a session and of the sessions it started, at any depth. */
export const SESSION_TREE_IDS =
  'WITH RECURSIVE tree(id) AS (SELECT ? UNION SELECT s.id FROM session s JOIN tree t ON s.parent_id = t.id) SELECT id FROM tree';

/** The stamp of one session of a store (its children's rows rolled in); undefined when it is gone. */
export function storeSessionStamp(db: string, id: string): Promise<StoreStamp | undefined> {
  return withStore(db, (conn) => {
    const ids = (prepared(conn, SESSION_TREE_IDS).all(id) as { id: string }[]).map((r) => r.id);
    const counts = countsOf(conn, ids);
    if (!counts.has(id)) return undefined;
    return rollUp(counts).get(id);
  });
}
