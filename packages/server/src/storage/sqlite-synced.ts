// The sessions workstations sync, for a server on SQLite: `synced.sqlite` under `$CAIRN_HOME`, one
// row per session of each workstation with the head it sent as JSON text.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  type SearchTarget,
  type SessionHead,
  SNIPPET_MARK_END,
  SNIPPET_MARK_START,
  type SyncedDoc,
  type SyncedDocsState,
  type SyncedSession,
} from '@cairn/protocol';
import { ownerOnlyFile } from '@cairn/runner/owner-only';
import Database from 'better-sqlite3';
import { ftsExpression } from '../indexing/search-query.js';
import {
  StoreRefused,
  type SyncedPageQuery,
  type SyncedSearchQuery,
  type SyncedSearchRow,
  type SyncedSessionRecord,
  type WorkstationPresence,
} from './server-store.js';

/**
 * How long another process's word that it holds a workstation is kept once a newer word came: a
 * process that ended without saying so is forgotten then, while its last word still dates the
 * workstation until the next.
 */
export const PRESENCE_KEPT_MS = 60 * 60 * 1000;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS synced_sessions (
  workstation TEXT NOT NULL, agent TEXT NOT NULL, sid TEXT NOT NULL, stamp TEXT NOT NULL,
  head TEXT NOT NULL, synced_at INTEGER NOT NULL,
  last_activity_at INTEGER NOT NULL, cwd TEXT NOT NULL, head_active INTEGER NOT NULL,
  docs_count INTEGER NOT NULL DEFAULT 0, docs_low INTEGER, docs_high INTEGER,
  PRIMARY KEY (workstation, agent, sid)
);
CREATE INDEX IF NOT EXISTS synced_sessions_activity ON synced_sessions (last_activity_at DESC, sid);
CREATE TABLE IF NOT EXISTS synced_docs (
  id INTEGER PRIMARY KEY, workstation TEXT NOT NULL, agent TEXT NOT NULL, sid TEXT NOT NULL,
  key TEXT NOT NULL, item_uuid TEXT NOT NULL, item_type TEXT NOT NULL, target TEXT NOT NULL,
  agent_id TEXT, at INTEGER, UNIQUE (workstation, agent, sid, key)
);
CREATE VIRTUAL TABLE IF NOT EXISTS synced_docs_fts USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
CREATE TABLE IF NOT EXISTS synced_presence (
  workstation TEXT NOT NULL, process TEXT NOT NULL, connected INTEGER NOT NULL, heard_at INTEGER NOT NULL,
  PRIMARY KEY (workstation, process)
);
`;

/** A document's text as the server keeps it: without the snippets' marks (a hostile workstation's
 * text cannot fake a match) and without NUL, which PostgreSQL's text refuses. */
export const keptText = (text: string): string => text.replace(/[\u0000\u0002\u0003]/g, ' ');

/** The docs state of a session row, when it holds any. */
export const docsStateOf = (r: DocsColumns): SyncedDocsState | undefined =>
  r.docs_low === null || r.docs_high === null
    ? undefined
    : { count: Number(r.docs_count), low: Number(r.docs_low), high: Number(r.docs_high) };

/** The columns a list is filtered and ordered by, from a head. */
export const listedColumns = (head: SessionHead) => ({
  lastActivityAt: head.last_activity_at ?? 0,
  cwd: head.cwd ?? '',
  active: head.active,
});

interface DocsColumns {
  docs_count: number;
  docs_low: number | null;
  docs_high: number | null;
}

/** A matching document as both stores read it. */
export interface SearchDbRow {
  workstation: string;
  agent: string;
  sid: string;
  item_uuid: string;
  item_type: string;
  target: SearchTarget;
  agent_id: string | null;
  at: number | null;
  head: string;
  snippet: string;
  rank: number;
}

export const searchRow = (r: SearchDbRow, score: number): SyncedSearchRow => ({
  workstation: r.workstation,
  agent: r.agent,
  sid: r.sid,
  itemUuid: r.item_uuid,
  itemType: r.item_type,
  target: r.target,
  ...(r.agent_id === null ? {} : { agentId: r.agent_id }),
  ...(r.at === null ? {} : { at: Number(r.at) }),
  snippet: r.snippet,
  score,
  head: JSON.parse(r.head) as SessionHead,
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

  stamps(workstation: string): { agent: string; sid: string; stamp: string; docs?: SyncedDocsState }[] {
    const rows = this.db
      .prepare(
        'SELECT agent, sid, stamp, docs_count, docs_low, docs_high FROM synced_sessions WHERE workstation = ?',
      )
      .all(workstation) as (Pick<Row, 'agent' | 'sid' | 'stamp'> & DocsColumns)[];
    return rows.map((r) => {
      const docs = docsStateOf(r);
      return { agent: r.agent, sid: r.sid, stamp: r.stamp, ...(docs ? { docs } : {}) };
    });
  }

  putDocs(
    workstation: string,
    session: { agent: string; sid: string },
    docs: { replace: boolean; low: number; high: number; docs: readonly SyncedDoc[] },
  ): SyncedDocsState {
    const names = [workstation, session.agent, session.sid] as const;
    return this.db.transaction(() => {
      const held = this.db
        .prepare('SELECT 1 FROM synced_sessions WHERE workstation = ? AND agent = ? AND sid = ?')
        .get(...names);
      if (!held)
        throw new StoreRefused(`no synced session ${session.sid} of ${workstation} to add documents to`);
      if (docs.replace) this.dropDocs(...names);
      const existing = this.db.prepare(
        'SELECT id FROM synced_docs WHERE workstation = ? AND agent = ? AND sid = ? AND key = ?',
      );
      const dropText = this.db.prepare('DELETE FROM synced_docs_fts WHERE rowid = ?');
      const dropDoc = this.db.prepare('DELETE FROM synced_docs WHERE id = ?');
      const insert = this.db.prepare(
        `INSERT INTO synced_docs (workstation, agent, sid, key, item_uuid, item_type, target, agent_id, at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      const insertText = this.db.prepare('INSERT INTO synced_docs_fts (rowid, text) VALUES (?, ?)');
      for (const d of docs.docs) {
        const before = existing.pluck().get(...names, d.key) as number | undefined;
        if (before !== undefined) {
          dropText.run(before);
          dropDoc.run(before);
        }
        const { lastInsertRowid } = insert.run(
          ...names,
          d.key,
          d.item_uuid,
          d.item_type,
          d.target,
          d.agent_id ?? null,
          d.at ?? null,
        );
        insertText.run(lastInsertRowid, keptText(d.text));
      }
      const count = this.db
        .prepare('SELECT count(*) FROM synced_docs WHERE workstation = ? AND agent = ? AND sid = ?')
        .pluck()
        .get(...names) as number;
      this.db
        .prepare(
          'UPDATE synced_sessions SET docs_count = ?, docs_low = ?, docs_high = ? WHERE workstation = ? AND agent = ? AND sid = ?',
        )
        .run(count, docs.low, docs.high, ...names);
      return { count, low: docs.low, high: docs.high };
    })();
  }

  private dropDocs(workstation: string, agent: string, sid: string): void {
    this.db
      .prepare(
        'DELETE FROM synced_docs_fts WHERE rowid IN (SELECT id FROM synced_docs WHERE workstation = ? AND agent = ? AND sid = ?)',
      )
      .run(workstation, agent, sid);
    this.db
      .prepare('DELETE FROM synced_docs WHERE workstation = ? AND agent = ? AND sid = ?')
      .run(workstation, agent, sid);
  }

  search(q: SyncedSearchQuery): { rows: SyncedSearchRow[]; total?: number } {
    const expression = ftsExpression(q.query);
    if (expression === undefined || q.workstations.length === 0)
      return { rows: [], ...(q.count ? { total: 0 } : {}) };
    const where = ['synced_docs_fts MATCH ?', 'd.workstation IN (SELECT value FROM json_each(?))'];
    const args: unknown[] = [expression, JSON.stringify(q.workstations)];
    if (q.agents !== undefined) {
      where.push('d.agent IN (SELECT value FROM json_each(?))');
      args.push(JSON.stringify(q.agents));
    }
    if (q.targets !== undefined) {
      where.push('d.target IN (SELECT value FROM json_each(?))');
      args.push(JSON.stringify(q.targets));
    }
    if (q.sid !== undefined) {
      where.push('d.sid = ?');
      args.push(q.sid);
    }
    if (q.cwd !== undefined) {
      where.push('instr(s.cwd, ?) > 0');
      args.push(q.cwd);
    }
    if (q.sinceAt !== undefined) {
      where.push('d.at >= ?');
      args.push(q.sinceAt);
    }
    if (q.untilAt !== undefined) {
      where.push('d.at <= ?');
      args.push(q.untilAt);
    }
    const from = `FROM synced_docs_fts JOIN synced_docs d ON d.id = synced_docs_fts.rowid
           JOIN synced_sessions s ON s.workstation = d.workstation AND s.agent = d.agent AND s.sid = d.sid
         WHERE ${where.join(' AND ')}`;
    const rows = this.db
      .prepare(
        `SELECT d.workstation, d.agent, d.sid, d.item_uuid, d.item_type, d.target, d.agent_id, d.at, s.head,
           snippet(synced_docs_fts, 0, ?, ?, '…', 16) AS snippet, bm25(synced_docs_fts) AS rank
         ${from} ORDER BY rank LIMIT ?`,
      )
      .all(SNIPPET_MARK_START, SNIPPET_MARK_END, ...args, q.limit) as SearchDbRow[];
    const total = q.count
      ? (this.db
          .prepare(`SELECT count(*) ${from}`)
          .pluck()
          .get(...args) as number)
      : undefined;
    return { rows: rows.map((r) => searchRow(r, -r.rank)), ...(total === undefined ? {} : { total }) };
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
      for (const s of sessions) {
        this.dropDocs(workstation, s.agent, s.sid);
        removed += drop.run(workstation, s.agent, s.sid).changes;
      }
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

  get(workstation: string, sessions: readonly { agent: string; sid: string }[]): SyncedSessionRecord[] {
    const one = this.db.prepare(
      'SELECT * FROM synced_sessions WHERE workstation = ? AND agent = ? AND sid = ?',
    );
    return sessions.flatMap((s) => {
      const row = one.get(workstation, s.agent, s.sid) as Row | undefined;
      return row ? [syncedRecord(row)] : [];
    });
  }

  find(sid: string, agent?: string): SyncedSessionRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM synced_sessions WHERE sid = ? AND (? IS NULL OR agent = ?)')
      .all(sid, agent ?? null, agent ?? null) as Row[];
    return rows.map(syncedRecord);
  }

  heard(workstation: string, process: string, connected: boolean, now: number): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO synced_presence (workstation, process, connected, heard_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (workstation, process) DO UPDATE SET connected = excluded.connected, heard_at = excluded.heard_at`,
        )
        .run(workstation, process, connected ? 1 : 0, now);
      this.db
        .prepare(
          'DELETE FROM synced_presence WHERE workstation = ? AND process <> ? AND (connected = 0 OR heard_at < ?)',
        )
        .run(workstation, process, now - PRESENCE_KEPT_MS);
    })();
  }

  presence(now: number, freshMs: number): WorkstationPresence[] {
    const rows = this.db
      .prepare(
        `SELECT workstation, max(heard_at) AS heard_at, max(connected = 1 AND heard_at >= ?) AS online
         FROM synced_presence GROUP BY workstation`,
      )
      .all(now - freshMs) as { workstation: string; heard_at: number; online: number }[];
    return rows.map((r) => ({ workstation: r.workstation, online: r.online === 1, heardAt: r.heard_at }));
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
