// An OpenCode-family SQLite store made for tests: the tables OpenCode's own schema declares
// (session, message, part, project, todo; written out here from its Drizzle definitions), filled
// from a JSON storage tree as OpenCode's migration from that tree fills them.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export const STORE_SCHEMA = `
CREATE TABLE project (
  id TEXT PRIMARY KEY NOT NULL,
  worktree TEXT NOT NULL,
  vcs TEXT,
  name TEXT,
  time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL
);
CREATE TABLE session (
  id TEXT PRIMARY KEY NOT NULL,
  project_id TEXT NOT NULL REFERENCES project(id) ON DELETE CASCADE,
  workspace_id TEXT,
  parent_id TEXT,
  slug TEXT NOT NULL,
  directory TEXT NOT NULL,
  path TEXT,
  title TEXT NOT NULL,
  version TEXT NOT NULL,
  share_url TEXT,
  summary_additions INTEGER,
  summary_deletions INTEGER,
  summary_files INTEGER,
  summary_diffs TEXT,
  cost REAL NOT NULL DEFAULT 0,
  tokens_input INTEGER NOT NULL DEFAULT 0,
  tokens_output INTEGER NOT NULL DEFAULT 0,
  tokens_reasoning INTEGER NOT NULL DEFAULT 0,
  tokens_cache_read INTEGER NOT NULL DEFAULT 0,
  tokens_cache_write INTEGER NOT NULL DEFAULT 0,
  revert TEXT,
  permission TEXT,
  agent TEXT,
  model TEXT,
  time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL,
  time_compacting INTEGER,
  time_archived INTEGER
);
CREATE INDEX session_project_idx ON session (project_id);
CREATE INDEX session_parent_idx ON session (parent_id);
CREATE TABLE message (
  id TEXT PRIMARY KEY NOT NULL,
  session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE part (
  id TEXT PRIMARY KEY NOT NULL,
  message_id TEXT NOT NULL REFERENCES message(id) ON DELETE CASCADE,
  session_id TEXT NOT NULL,
  time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
CREATE TABLE todo (
  session_id TEXT NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  content TEXT NOT NULL,
  status TEXT NOT NULL,
  priority TEXT NOT NULL,
  position INTEGER NOT NULL,
  time_created INTEGER NOT NULL,
  time_updated INTEGER NOT NULL,
  PRIMARY KEY (session_id, position)
);
`;

type Json = Record<string, unknown>;

const readJson = (path: string): Json => JSON.parse(readFileSync(path, 'utf8')) as Json;

function jsonFilesUnder(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names.flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? jsonFilesUnder(p) : n.endsWith('.json') ? [p] : [];
  });
}

const omit = (o: Json, keys: string[]): Json =>
  Object.fromEntries(Object.entries(o).filter(([k]) => !keys.includes(k)));
const timeOf = (o: Json, key: 'created' | 'updated' | 'start'): number | undefined => {
  const t = o.time as Json | undefined;
  return typeof t?.[key] === 'number' ? (t[key] as number) : undefined;
};

/** Counts of what went in, for tests that check nothing was lost. */
export interface StoreFill {
  sessions: number;
  messages: number;
  parts: number;
}

/** Creates `db` (WAL mode, as OpenCode keeps it) and fills it from the trees; returns the counts. */
export function buildStore(db: string, storages: readonly string[]): StoreFill {
  const conn = new Database(db);
  try {
    conn.pragma('journal_mode = WAL');
    conn.exec(STORE_SCHEMA);
    const fill: StoreFill = { sessions: 0, messages: 0, parts: 0 };
    const sessionOfMessage = new Map<string, string>();
    const projects = new Set<string>();
    for (const storage of storages) fillFrom(conn, storage, fill, sessionOfMessage, projects);
    return fill;
  } finally {
    conn.close();
  }
}

function fillFrom(
  conn: Database.Database,
  storage: string,
  fill: StoreFill,
  sessionOfMessage: Map<string, string>,
  projects: Set<string>,
): void {
  conn.transaction(() => {
    for (const f of jsonFilesUnder(join(storage, 'session'))) {
      const s = readJson(f);
      const project = String(s.projectID ?? 'global');
      if (!projects.has(project)) {
        projects.add(project);
        conn
          .prepare('INSERT INTO project (id, worktree, time_created, time_updated) VALUES (?, ?, 0, 0)')
          .run(project, '/');
      }
      const created = timeOf(s, 'created') ?? 0;
      conn
        .prepare(
          `INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, summary_additions,
             summary_deletions, summary_files, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          s.id,
          project,
          s.parentID ?? null,
          s.slug ?? String(s.id),
          s.directory ?? '',
          s.title ?? '',
          s.version ?? '',
          (s.summary as Json | undefined)?.additions ?? null,
          (s.summary as Json | undefined)?.deletions ?? null,
          (s.summary as Json | undefined)?.files ?? null,
          created,
          timeOf(s, 'updated') ?? created,
        );
      fill.sessions++;
    }
    for (const f of jsonFilesUnder(join(storage, 'message'))) {
      const m = readJson(f);
      const created = timeOf(m, 'created') ?? 0;
      sessionOfMessage.set(String(m.id), String(m.sessionID));
      conn
        .prepare(
          'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)',
        )
        .run(m.id, m.sessionID, created, created, JSON.stringify(omit(m, ['id', 'sessionID'])));
      fill.messages++;
    }
    for (const f of jsonFilesUnder(join(storage, 'part'))) {
      const p = readJson(f);
      // A part without a messageID is named by its folder (part/<messageID>/<partID>.json).
      const messageId = String(p.messageID ?? f.split('/').at(-2));
      const created = timeOf(p, 'start') ?? 0;
      conn
        .prepare(
          'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)',
        )
        .run(
          p.id,
          messageId,
          p.sessionID ?? sessionOfMessage.get(messageId) ?? '',
          created,
          created,
          JSON.stringify(omit(p, ['id', 'sessionID', 'messageID'])),
        );
      fill.parts++;
    }
  })();
}
