// The runner's journal: every frame a driven session produces is stored here, numbered per session
// with no gap, before it goes on the wire. After a dropped connection or a restart the journal is
// what the server is offered and backfilled from; `acked` is how far the server said it holds.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { ownerOnlyFile } from './owner-only.js';

export interface JournalSession {
  readonly sessionRef: string;
  readonly agentKey: string;
  readonly bridge: string;
  readonly cwd: string;
  readonly nativeSessionId: string | null;
  /** The `agent_open` frame the session was opened with, to reopen it after a restart. */
  readonly openFrame: Record<string, unknown>;
  readonly maxSeq: number;
  readonly ackedSeq: number;
  readonly closed: boolean;
}

export interface JournalEntry {
  readonly seq: number;
  /** The frame exactly as it went (or will go) on the wire. */
  readonly frame: Record<string, unknown>;
  /** Its size as stored JSON, in bytes. */
  readonly bytes: number;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS sessions (
  session_ref TEXT PRIMARY KEY,
  agent_key TEXT NOT NULL,
  bridge TEXT NOT NULL,
  cwd TEXT NOT NULL,
  native_session_id TEXT,
  open_frame TEXT NOT NULL,
  acked_seq INTEGER NOT NULL DEFAULT 0,
  closed INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS agent_processes (
  pid INTEGER PRIMARY KEY,
  started TEXT NOT NULL,
  mark TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS entries (
  session_ref TEXT NOT NULL,
  seq INTEGER NOT NULL,
  frame TEXT NOT NULL,
  PRIMARY KEY (session_ref, seq)
) WITHOUT ROWID;
`;

export class Journal {
  private readonly db: Database.Database;
  private readonly insertEntry: Database.Statement;
  private readonly setAcked: Database.Statement;
  private readonly maxSeqs = new Map<string, number>();
  /** The last ack written per session: an ack comes with every burst of events, most repeat it. */
  private readonly ackedSeqs = new Map<string, number>();

  private constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.db = new Database(ownerOnlyFile(path));
    this.db.pragma('journal_mode = WAL');
    // A crash of the machine may lose the last few frames; a crash of the process loses none.
    this.db.pragma('synchronous = NORMAL');
    // `cairn serve` and a `cairn run` may share the file.
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    // Journals from before process trees were marked.
    const columns = this.db.prepare('PRAGMA table_info(agent_processes)').all() as { name: string }[];
    if (!columns.some((c) => c.name === 'mark')) {
      this.db.exec("ALTER TABLE agent_processes ADD COLUMN mark TEXT NOT NULL DEFAULT ''");
    }
    this.insertEntry = this.db.prepare('INSERT INTO entries (session_ref, seq, frame) VALUES (?, ?, ?)');
    this.setAcked = this.db.prepare(
      'UPDATE sessions SET acked_seq = MAX(acked_seq, ?) WHERE session_ref = ?',
    );
    const rows = this.db
      .prepare(
        `SELECT s.session_ref, COALESCE(MAX(e.seq), 0) AS max_seq FROM sessions s
         LEFT JOIN entries e ON e.session_ref = s.session_ref GROUP BY s.session_ref`,
      )
      .all() as { session_ref: string; max_seq: number }[];
    for (const row of rows) this.maxSeqs.set(row.session_ref, row.max_seq);
  }

  static open(path: string): Journal {
    return new Journal(path);
  }

  /** Records a session (or updates its native id and open frame when it is known again). */
  upsertSession(session: Omit<JournalSession, 'maxSeq' | 'ackedSeq' | 'closed'>): void {
    this.db
      .prepare(
        `INSERT INTO sessions (session_ref, agent_key, bridge, cwd, native_session_id, open_frame)
         VALUES (@sessionRef, @agentKey, @bridge, @cwd, @nativeSessionId, @openFrame)
         ON CONFLICT (session_ref) DO UPDATE SET agent_key = excluded.agent_key, bridge = excluded.bridge,
           cwd = excluded.cwd, native_session_id = COALESCE(excluded.native_session_id, native_session_id),
           open_frame = excluded.open_frame, closed = 0`,
      )
      .run({ ...session, openFrame: JSON.stringify(session.openFrame) });
    if (!this.maxSeqs.has(session.sessionRef)) this.maxSeqs.set(session.sessionRef, 0);
  }

  setNativeSessionId(sessionRef: string, nativeSessionId: string): void {
    this.db
      .prepare('UPDATE sessions SET native_session_id = ? WHERE session_ref = ?')
      .run(nativeSessionId, sessionRef);
  }

  /**
   * Numbers and stores one frame. `build` receives the next seq and returns the frame to store; it
   * runs synchronously, so frames are numbered in the order this is called. Frames stored since the
   * last `commit()` share one transaction: commit before sending what was stored.
   */
  append<F extends object>(sessionRef: string, build: (seq: number) => F): F {
    const current = this.maxSeqs.get(sessionRef);
    if (current === undefined) throw new Error(`journal: no session ${sessionRef}`);
    const seq = current + 1;
    const frame = build(seq);
    if (!this.db.inTransaction) this.db.exec('BEGIN');
    this.insertEntry.run(sessionRef, seq, JSON.stringify(frame));
    this.maxSeqs.set(sessionRef, seq);
    return frame;
  }

  /** Makes everything appended so far durable. */
  commit(): void {
    if (this.db.inTransaction) this.db.exec('COMMIT');
  }

  maxSeq(sessionRef: string): number {
    return this.maxSeqs.get(sessionRef) ?? 0;
  }

  /** The server holds everything through `throughSeq`; never moves backwards. */
  ack(sessionRef: string, throughSeq: number): void {
    const seq = Math.min(throughSeq, this.maxSeq(sessionRef));
    if (seq <= (this.ackedSeqs.get(sessionRef) ?? 0)) return;
    this.setAcked.run(seq, sessionRef);
    this.ackedSeqs.set(sessionRef, seq);
  }

  /** Entries with seq > `afterSeq`, in order, at most `limit`. */
  read(sessionRef: string, afterSeq: number, limit = 1000): JournalEntry[] {
    const rows = this.db
      .prepare('SELECT seq, frame FROM entries WHERE session_ref = ? AND seq > ? ORDER BY seq LIMIT ?')
      .all(sessionRef, afterSeq, limit) as { seq: number; frame: string }[];
    return rows.map((row) => ({
      seq: row.seq,
      frame: JSON.parse(row.frame) as Record<string, unknown>,
      bytes: Buffer.byteLength(row.frame),
    }));
  }

  session(sessionRef: string): JournalSession | undefined {
    const row = this.db.prepare('SELECT * FROM sessions WHERE session_ref = ?').get(sessionRef) as
      | SessionRow
      | undefined;
    return row && { ...toSession(row), maxSeq: this.maxSeq(sessionRef) };
  }

  /** Sessions not closed, oldest first. */
  openSessions(): JournalSession[] {
    const rows = this.db
      .prepare('SELECT * FROM sessions WHERE closed = 0 ORDER BY rowid')
      .all() as SessionRow[];
    return rows.map((row) => ({ ...toSession(row), maxSeq: this.maxSeq(row.session_ref) }));
  }

  markClosed(sessionRef: string): void {
    this.db.prepare('UPDATE sessions SET closed = 1 WHERE session_ref = ?').run(sessionRef);
  }

  /**
   * A process tree this workstation started: its leader (whose group and session it heads), the
   * leader's start time, and the mark its environment passes to every descendant.
   */
  recordProcess(pid: number, started: string, mark = ''): void {
    this.db
      .prepare('INSERT OR REPLACE INTO agent_processes (pid, started, mark) VALUES (?, ?, ?)')
      .run(pid, started, mark);
  }

  forgetProcess(pid: number): void {
    this.db.prepare('DELETE FROM agent_processes WHERE pid = ?').run(pid);
  }

  processes(): { pid: number; started: string; mark: string }[] {
    return this.db.prepare('SELECT pid, started, mark FROM agent_processes').all() as {
      pid: number;
      started: string;
      mark: string;
    }[];
  }

  /** Bytes the journal's entries take, for the benchmark. */
  entryBytes(sessionRef: string): number {
    const row = this.db
      .prepare('SELECT COALESCE(SUM(LENGTH(frame)), 0) AS bytes FROM entries WHERE session_ref = ?')
      .get(sessionRef) as { bytes: number };
    return row.bytes;
  }

  close(): void {
    this.commit();
    this.db.close();
  }
}

interface SessionRow {
  session_ref: string;
  agent_key: string;
  bridge: string;
  cwd: string;
  native_session_id: string | null;
  open_frame: string;
  acked_seq: number;
  closed: number;
}

function toSession(row: SessionRow): JournalSession {
  return {
    sessionRef: row.session_ref,
    agentKey: row.agent_key,
    bridge: row.bridge,
    cwd: row.cwd,
    nativeSessionId: row.native_session_id,
    openFrame: JSON.parse(row.open_frame) as Record<string, unknown>,
    maxSeq: 0,
    ackedSeq: row.acked_seq,
    closed: row.closed === 1,
  };
}
