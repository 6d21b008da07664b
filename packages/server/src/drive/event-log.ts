// The server's record of every session it drives: which workstation and agent it runs on, and the
// events it received, each once, in the workstation's seq order. What is stored here is what the
// server acks; after any reconnect or restart it asks the workstation only for what comes after.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ownerOnlyFile } from '@cairn/runner/owner-only';
import Database from 'better-sqlite3';

export interface DrivenSessionRecord {
  readonly sessionRef: string;
  readonly workstation: string;
  readonly agentKey: string;
  readonly bridge: string;
  readonly cwd: string;
  readonly nativeSessionId: string | null;
  /** The highest seq held; every seq from 1 to it is stored. */
  readonly heldSeq: number;
  /** A prompt went out and its `agent_turn_done` has not come back. */
  readonly turnRunning: boolean;
  readonly closed: boolean;
}

export interface LoggedEvent {
  readonly seq: number;
  /** `agent_turn_done` for a turn's end; otherwise the agent event's name. */
  readonly eventName: string;
  readonly payload: Record<string, unknown>;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS driven_sessions (
  session_ref TEXT PRIMARY KEY,
  workstation TEXT NOT NULL,
  agent_key TEXT NOT NULL,
  bridge TEXT NOT NULL,
  cwd TEXT NOT NULL,
  native_session_id TEXT,
  held_seq INTEGER NOT NULL DEFAULT 0,
  turn_running INTEGER NOT NULL DEFAULT 0,
  closed INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS driven_events (
  session_ref TEXT NOT NULL,
  seq INTEGER NOT NULL,
  event_name TEXT NOT NULL,
  payload TEXT NOT NULL,
  PRIMARY KEY (session_ref, seq)
) WITHOUT ROWID;
`;

export class EventLog {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement;
  private readonly setHeld: Database.Statement;
  private readonly held = new Map<string, number>();

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.db = new Database(ownerOnlyFile(path));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = NORMAL');
    this.db.exec(SCHEMA);
    this.insert = this.db.prepare(
      'INSERT OR IGNORE INTO driven_events (session_ref, seq, event_name, payload) VALUES (?, ?, ?, ?)',
    );
    this.setHeld = this.db.prepare('UPDATE driven_sessions SET held_seq = ? WHERE session_ref = ?');
  }

  upsert(record: Omit<DrivenSessionRecord, 'heldSeq' | 'turnRunning' | 'closed'>): void {
    this.db
      .prepare(
        `INSERT INTO driven_sessions (session_ref, workstation, agent_key, bridge, cwd, native_session_id)
         VALUES (@sessionRef, @workstation, @agentKey, @bridge, @cwd, @nativeSessionId)
         ON CONFLICT (session_ref) DO UPDATE SET workstation = excluded.workstation,
           native_session_id = COALESCE(excluded.native_session_id, native_session_id), closed = 0`,
      )
      .run(record);
  }

  setNativeSessionId(sessionRef: string, nativeSessionId: string): void {
    this.db
      .prepare('UPDATE driven_sessions SET native_session_id = ? WHERE session_ref = ?')
      .run(nativeSessionId, sessionRef);
  }

  setTurnRunning(sessionRef: string, running: boolean): void {
    this.db
      .prepare('UPDATE driven_sessions SET turn_running = ? WHERE session_ref = ?')
      .run(running ? 1 : 0, sessionRef);
  }

  close(sessionRef: string): void {
    this.db
      .prepare('UPDATE driven_sessions SET closed = 1, turn_running = 0 WHERE session_ref = ?')
      .run(sessionRef);
  }

  get(sessionRef: string): DrivenSessionRecord | undefined {
    const row = this.db.prepare('SELECT * FROM driven_sessions WHERE session_ref = ?').get(sessionRef) as
      | Row
      | undefined;
    return row && toRecord(row);
  }

  /** Open sessions of one workstation. */
  ofWorkstation(workstation: string): DrivenSessionRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM driven_sessions WHERE workstation = ? AND closed = 0')
      .all(workstation) as Row[];
    return rows.map(toRecord);
  }

  heldSeq(sessionRef: string): number {
    let seq = this.held.get(sessionRef);
    if (seq === undefined) {
      seq = this.get(sessionRef)?.heldSeq ?? 0;
      this.held.set(sessionRef, seq);
    }
    return seq;
  }

  /**
   * Stores the event when it is the next one; an event already held is a repeat and is ignored,
   * one past a gap is refused (the caller asks for a backfill). Returns what happened. Events
   * stored since the last `commit()` share one transaction.
   */
  append(sessionRef: string, event: LoggedEvent): 'stored' | 'repeat' | 'gap' {
    const held = this.heldSeq(sessionRef);
    if (event.seq <= held) return 'repeat';
    if (event.seq !== held + 1) return 'gap';
    if (!this.db.inTransaction) this.db.exec('BEGIN');
    this.insert.run(sessionRef, event.seq, event.eventName, JSON.stringify(event.payload));
    this.setHeld.run(event.seq, sessionRef);
    this.held.set(sessionRef, event.seq);
    return 'stored';
  }

  /** Makes every event appended so far durable; acks go out only after this. */
  commit(): void {
    if (this.db.inTransaction) this.db.exec('COMMIT');
  }

  /** Events after `afterSeq`, in order. */
  events(sessionRef: string, afterSeq = 0, limit = 10_000): LoggedEvent[] {
    const rows = this.db
      .prepare(
        'SELECT seq, event_name, payload FROM driven_events WHERE session_ref = ? AND seq > ? ORDER BY seq LIMIT ?',
      )
      .all(sessionRef, afterSeq, limit) as { seq: number; event_name: string; payload: string }[];
    return rows.map((r) => ({
      seq: r.seq,
      eventName: r.event_name,
      payload: JSON.parse(r.payload) as Record<string, unknown>,
    }));
  }

  shutdown(): void {
    this.commit();
    this.db.close();
  }
}

interface Row {
  session_ref: string;
  workstation: string;
  agent_key: string;
  bridge: string;
  cwd: string;
  native_session_id: string | null;
  held_seq: number;
  turn_running: number;
  closed: number;
}

function toRecord(row: Row): DrivenSessionRecord {
  return {
    sessionRef: row.session_ref,
    workstation: row.workstation,
    agentKey: row.agent_key,
    bridge: row.bridge,
    cwd: row.cwd,
    nativeSessionId: row.native_session_id,
    heldSeq: row.held_seq,
    turnRunning: row.turn_running === 1,
    closed: row.closed === 1,
  };
}
