// A person's stars and tags on sessions and items. They live in a database of their own under
// `$CAIRN_HOME` (never in the index, which is a cache that a damaged or outdated index replaces)
// and never in an agent's folders.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { SessionMarks, StarredItem } from '@cairn/protocol';
import { ownerOnlyFile } from '@cairn/runner/owner-only';
import Database from 'better-sqlite3';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS session_marks (
  agent TEXT NOT NULL, sid TEXT NOT NULL, starred INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL, PRIMARY KEY (agent, sid)
);
CREATE TABLE IF NOT EXISTS session_tags (
  agent TEXT NOT NULL, sid TEXT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (agent, sid, tag)
);
CREATE TABLE IF NOT EXISTS item_stars (
  agent TEXT NOT NULL, sid TEXT NOT NULL, item_uuid TEXT NOT NULL, item_type TEXT NOT NULL,
  agent_id TEXT NOT NULL, nth INTEGER NOT NULL, starred_at INTEGER NOT NULL,
  PRIMARY KEY (agent, sid, item_uuid, item_type, agent_id, nth)
);
`;

export interface MarksChange {
  readonly starred?: boolean;
  readonly tags?: readonly string[];
  readonly starItems?: readonly StarredItem[];
  readonly unstarItems?: readonly StarredItem[];
}

interface MarkRow {
  agent: string;
  sid: string;
  starred: number;
  updated_at: number;
}

/** A starred item's row, as both stores keep it. */
export interface ItemRow {
  item_uuid: string;
  item_type: string;
  agent_id: string;
  nth: number;
}

// An absent part of an item's pointer is stored as '' (or -1), so the key stays one row per item.
export const itemKey = (i: StarredItem): [string, string, string, number] => [
  i.item_uuid,
  i.item_type ?? '',
  i.agent_id ?? '',
  i.nth ?? -1,
];

export function toItem(r: ItemRow): StarredItem {
  const item: StarredItem = { item_uuid: r.item_uuid };
  if (r.item_type !== '') item.item_type = r.item_type;
  if (r.agent_id !== '') item.agent_id = r.agent_id;
  if (r.nth >= 0) item.nth = r.nth;
  return item;
}

/** The index of the first tag holding a control character, which a tag may not. */
export function badTag(tags: readonly string[]): number | undefined {
  const i = tags.findIndex((t) => /[\u0000-\u001f\u007f-\u009f]/.test(t) || t.trim() === '');
  return i === -1 ? undefined : i;
}

export class MarksStore {
  private readonly db: Database.Database;

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.db = new Database(ownerOnlyFile(path));
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
  }

  /** Every session with a mark, the latest marked first; narrowed to one agent or one session. */
  read(filter: { agent?: string; sid?: string } = {}): SessionMarks[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM session_marks WHERE (@agent IS NULL OR agent = @agent) AND (@sid IS NULL OR sid = @sid)
         ORDER BY updated_at DESC, agent, sid`,
      )
      .all({ agent: filter.agent ?? null, sid: filter.sid ?? null }) as MarkRow[];
    return rows
      .map((r) => this.marksOf(r))
      .filter((m) => m.starred || m.tags.length > 0 || m.items.length > 0);
  }

  /** Applies a change to one session's marks and answers them as they now are. */
  write(agent: string, sid: string, change: MarksChange, now = Date.now()): SessionMarks {
    const apply = this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO session_marks (agent, sid, starred, updated_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (agent, sid) DO UPDATE SET updated_at = excluded.updated_at`,
        )
        .run(agent, sid, change.starred ? 1 : 0, now);
      if (change.starred !== undefined)
        this.db
          .prepare('UPDATE session_marks SET starred = ? WHERE agent = ? AND sid = ?')
          .run(change.starred ? 1 : 0, agent, sid);
      if (change.tags !== undefined) {
        this.db.prepare('DELETE FROM session_tags WHERE agent = ? AND sid = ?').run(agent, sid);
        const insert = this.db.prepare(
          'INSERT OR IGNORE INTO session_tags (agent, sid, tag) VALUES (?, ?, ?)',
        );
        for (const tag of change.tags) insert.run(agent, sid, tag.trim());
      }
      const star = this.db.prepare(
        `INSERT OR IGNORE INTO item_stars (agent, sid, item_uuid, item_type, agent_id, nth, starred_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const item of change.starItems ?? []) star.run(agent, sid, ...itemKey(item), now);
      const unstar = this.db.prepare(
        `DELETE FROM item_stars WHERE agent = ? AND sid = ? AND item_uuid = ? AND item_type = ?
         AND agent_id = ? AND nth = ?`,
      );
      for (const item of change.unstarItems ?? []) unstar.run(agent, sid, ...itemKey(item));
      const row = this.db
        .prepare('SELECT * FROM session_marks WHERE agent = ? AND sid = ?')
        .get(agent, sid) as MarkRow;
      const marks = this.marksOf(row);
      // A session left with no mark at all leaves no row behind.
      if (!marks.starred && marks.tags.length === 0 && marks.items.length === 0)
        this.db.prepare('DELETE FROM session_marks WHERE agent = ? AND sid = ?').run(agent, sid);
      return marks;
    });
    return apply();
  }

  close(): void {
    this.db.close();
  }

  private marksOf(r: MarkRow): SessionMarks {
    const tags = this.db
      .prepare('SELECT tag FROM session_tags WHERE agent = ? AND sid = ? ORDER BY tag')
      .pluck()
      .all(r.agent, r.sid) as string[];
    const items = this.db
      .prepare(
        'SELECT item_uuid, item_type, agent_id, nth FROM item_stars WHERE agent = ? AND sid = ? ORDER BY starred_at, rowid',
      )
      .all(r.agent, r.sid) as ItemRow[];
    return {
      agent: r.agent,
      sid: r.sid,
      starred: r.starred === 1,
      tags,
      items: items.map(toItem),
      updated_at: r.updated_at,
    };
  }
}
