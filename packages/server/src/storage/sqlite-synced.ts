// The sessions workstations sync, for a server on SQLite: `synced.sqlite` under `$CAIRN_HOME`, one
// row per session of each workstation with the head it sent as JSON text.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SessionHead, SyncedSession } from '@cairn/protocol';
import { ownerOnlyFile } from '@cairn/runner/owner-only';
import Database from 'better-sqlite3';
import type { SyncedPageQuery, SyncedSessionRecord } from './server-store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS synced_sessions (
  workstation TEXT NOT NULL, agent TEXT NOT NULL, sid TEXT NOT NULL, stamp TEXT NOT NULL,
  head TEXT NOT NULL, synced_at INTEGER NOT NULL,
  last_activity_at INTEGER NOT NULL, cwd TEXT NOT NULL, head_active INTEGER NOT NULL,
  PRIMARY KEY (workstation, agent, sid)
);
CREATE INDEX IF NOT EXISTS synced_sessions_activity ON synced_sessions (last_activity_at DESC, sid);
`;

/** The columns a list is filtered and ordered by, from a head. */
export const listedColumns = (head: SessionHead) => ({
  lastActivityAt: head.last_activity_at ?? 0,
  cwd: head.cwd ?? '',
  active: head.active,
});

interface Row {
  workstation: string;
  agent: string;
  sid: string;
  stamp: string;
  head: string;
  synced_at: number;
}

export const syncedRecord = (r: Row): SyncedSessionRecord => ({
  workstation: r.workstation,
  agent: r.agent,
  sid: r.sid,
  stamp: r.stamp,
  head: JSON.parse(r.head) as SessionHead,
  syncedAt: Number(r.synced_at),
});

export class SqliteSynced {
  private readonly db: Database.Database;

  constructor(path: string) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.db = new Database(ownerOnlyFile(path));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
  }

  stamps(workstation: string): { agent: string; sid: string; stamp: string }[] {
    return this.db
      .prepare('SELECT agent, sid, stamp FROM synced_sessions WHERE workstation = ?')
      .all(workstation) as { agent: string; sid: string; stamp: string }[];
  }

  put(workstation: string, sessions: readonly SyncedSession[], now: number): void {
    const upsert = this.db.prepare(
      `INSERT INTO synced_sessions (workstation, agent, sid, stamp, head, synced_at, last_activity_at, cwd, head_active)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (workstation, agent, sid) DO UPDATE SET stamp = excluded.stamp, head = excluded.head,
         synced_at = excluded.synced_at, last_activity_at = excluded.last_activity_at, cwd = excluded.cwd,
         head_active = excluded.head_active`,
    );
    this.db.transaction(() => {
      for (const s of sessions) {
        const c = listedColumns(s.head);
        upsert.run(
          workstation,
          s.agent,
          s.sid,
          s.stamp,
          JSON.stringify(s.head),
          now,
          c.lastActivityAt,
          c.cwd,
          c.active ? 1 : 0,
        );
      }
    })();
  }

  remove(workstation: string, sessions: readonly { agent: string; sid: string }[]): number {
    const drop = this.db.prepare(
      'DELETE FROM synced_sessions WHERE workstation = ? AND agent = ? AND sid = ?',
    );
    return this.db.transaction(() => {
      let removed = 0;
      for (const s of sessions) removed += drop.run(workstation, s.agent, s.sid).changes;
      return removed;
    })();
  }

  list(workstations?: readonly string[]): SyncedSessionRecord[] {
    const rows =
      workstations === undefined
        ? (this.db.prepare('SELECT * FROM synced_sessions').all() as Row[])
        : (this.db
            .prepare('SELECT * FROM synced_sessions WHERE workstation IN (SELECT value FROM json_each(?))')
            .all(JSON.stringify(workstations)) as Row[]);
    return rows.map(syncedRecord);
  }

  find(sid: string, agent?: string): SyncedSessionRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM synced_sessions WHERE sid = ? AND (? IS NULL OR agent = ?)')
      .all(sid, agent ?? null, agent ?? null) as Row[];
    return rows.map(syncedRecord);
  }

  workstationsHeld(): string[] {
    return this.db.prepare('SELECT DISTINCT workstation FROM synced_sessions').pluck().all() as string[];
  }

  page(q: SyncedPageQuery): { rows: SyncedSessionRecord[]; total: number } {
    const where = [`workstation IN (SELECT value FROM json_each(?))`];
    const args: unknown[] = [JSON.stringify(q.workstations)];
    if (q.agents !== undefined) {
      where.push('agent IN (SELECT value FROM json_each(?))');
      args.push(JSON.stringify(q.agents));
    }
    if (q.cwd !== undefined) {
      where.push('instr(cwd, ?) > 0');
      args.push(q.cwd);
    }
    if (q.sinceAt !== undefined) {
      where.push('last_activity_at >= ?');
      args.push(q.sinceAt);
    }
    if (q.active !== undefined) {
      where.push(`(head_active = 1 AND synced_at > ?) = ?`);
      args.push(q.now - q.activeMs, q.active ? 1 : 0);
    }
    const filter = where.join(' AND ');
    const total = this.db
      .prepare(`SELECT count(*) FROM synced_sessions WHERE ${filter}`)
      .pluck()
      .get(...args) as number;
    const rows = this.db
      .prepare(`SELECT * FROM synced_sessions WHERE ${filter} ORDER BY last_activity_at DESC, sid LIMIT ?`)
      .all(...args, q.limit) as Row[];
    return { rows: rows.map(syncedRecord), total };
  }

  close(): void {
    this.db.close();
  }
}
