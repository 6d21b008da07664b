// The sessions workstations sync, for a server on SQLite: `synced.sqlite` under `$CAIRN_HOME`, one
// row per session of each workstation with the head it sent as JSON text.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SessionHead, SyncedSession } from '@cairn/protocol';
import { ownerOnlyFile } from '@cairn/runner/owner-only';
import Database from 'better-sqlite3';
import type { SyncedSessionRecord } from './server-store.js';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS synced_sessions (
  workstation TEXT NOT NULL, agent TEXT NOT NULL, sid TEXT NOT NULL, stamp TEXT NOT NULL,
  head TEXT NOT NULL, synced_at INTEGER NOT NULL, PRIMARY KEY (workstation, agent, sid)
);
`;

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
      `INSERT INTO synced_sessions (workstation, agent, sid, stamp, head, synced_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (workstation, agent, sid) DO UPDATE SET stamp = excluded.stamp, head = excluded.head,
         synced_at = excluded.synced_at`,
    );
    this.db.transaction(() => {
      for (const s of sessions) upsert.run(workstation, s.agent, s.sid, s.stamp, JSON.stringify(s.head), now);
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

  close(): void {
    this.db.close();
  }
}
