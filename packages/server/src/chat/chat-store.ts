// What the chat keeps: projects (folders a user declared), chat sessions (a project, an agent and
// the agent's own session id) and their messages, each with a per-session sequence. SQLite under
// `$CAIRN_HOME`; unlike the index this is the user's own state, not a cache.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { ownerOnlyFile } from '@cairn/runner/owner-only';
import Database from 'better-sqlite3';

export interface ProjectRow {
  id: string;
  name: string;
  path: string;
  createdAt: number;
  updatedAt: number;
}

export interface ChatSessionRow {
  id: string;
  projectId: string;
  agent: string;
  /** The workstation the agent runs on. */
  workstation: string;
  nativeSessionId: string | null;
  /** The person's title when they chose one, else the agent's (or the first prompt's). */
  title: string;
  createdAt: number;
  updatedAt: number;
  /** The person chose the title; the agent's later titles no longer replace it. */
  renamed?: boolean;
  /** Left out of the default list. */
  archived?: boolean;
}

export interface ImageRow {
  data?: string;
  url?: string;
  mimeType: string;
}

export interface MessageRow {
  id: string;
  sessionId: string;
  sequence: number;
  role: 'user' | 'assistant' | 'system';
  content: string;
  /** Newline-delimited JSON of the turn's replayable events (assistant messages). */
  events: string;
  createdAt: number;
  images: ImageRow[];
  outputTokens: number | null;
  durationMs: number | null;
  tokensPerSecond: number | null;
  ttftMs: number | null;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS projects (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, path TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS chat_sessions (
  id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES projects(id), agent TEXT NOT NULL,
  native_session_id TEXT, title TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS chat_sessions_native ON chat_sessions (agent, native_session_id);
CREATE TABLE IF NOT EXISTS messages (
  id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES chat_sessions(id), sequence INTEGER NOT NULL,
  role TEXT NOT NULL, content TEXT NOT NULL, events TEXT NOT NULL, created_at INTEGER NOT NULL,
  images TEXT NOT NULL, output_tokens INTEGER, duration_ms INTEGER, tokens_per_second REAL, ttft_ms INTEGER,
  UNIQUE (session_id, sequence)
);
CREATE TABLE IF NOT EXISTS settled_permissions (
  session_id TEXT NOT NULL REFERENCES chat_sessions(id), request_id TEXT NOT NULL,
  request TEXT NOT NULL, option_id TEXT NOT NULL, by TEXT NOT NULL, settled_at INTEGER NOT NULL,
  PRIMARY KEY (session_id, request_id)
);
CREATE TABLE IF NOT EXISTS session_config (
  session_id TEXT NOT NULL REFERENCES chat_sessions(id), config_id TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY (session_id, config_id)
);
`;

/** How many settled permission cards a session keeps to show again. */
export const SETTLED_PERMISSIONS_KEPT = 200;

export interface SettledPermissionRow {
  /** The `permission_request` event as the tabs got it. */
  request: Record<string, unknown>;
  optionId: string;
  by: string;
  /** The permission rule that answered it, when no one had to. */
  rule?: { rule: string; effect: 'allow' | 'deny'; source: string };
}

export class ChatStore {
  private readonly db: Database.Database;

  constructor(path: string) {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.db = new Database(ownerOnlyFile(path));
    this.db.pragma('journal_mode = WAL');
    // As the journal and the drive log: a crash of the process loses nothing, and a message saved
    // at a turn's start or end costs no flush to disk on the thread that streams every chat.
    this.db.pragma('synchronous = NORMAL');
    this.db.pragma('busy_timeout = 5000');
    this.db.exec(SCHEMA);
    // Stores made before sessions could run on any workstation ran them all on the local one.
    const columns = this.db.prepare('PRAGMA table_info(chat_sessions)').all() as { name: string }[];
    if (!columns.some((c) => c.name === 'workstation'))
      this.db.exec(`ALTER TABLE chat_sessions ADD COLUMN workstation TEXT NOT NULL DEFAULT 'local'`);
    // Stores made before permission rules answered requests have no column for the rule.
    const settledColumns = this.db.prepare('PRAGMA table_info(settled_permissions)').all() as {
      name: string;
    }[];
    if (!settledColumns.some((c) => c.name === 'rule'))
      this.db.exec('ALTER TABLE settled_permissions ADD COLUMN rule TEXT');
    // Stores made before chats could be renamed and archived by the person.
    if (!columns.some((c) => c.name === 'user_title'))
      this.db.exec('ALTER TABLE chat_sessions ADD COLUMN user_title TEXT');
    if (!columns.some((c) => c.name === 'archived_at'))
      this.db.exec('ALTER TABLE chat_sessions ADD COLUMN archived_at INTEGER');
  }

  /** The project of a folder, created when it is new. */
  project(path: string, name?: string): ProjectRow {
    const found = this.db.prepare('SELECT * FROM projects WHERE path = ?').get(path) as ProjectDb | undefined;
    if (found) return toProject(found);
    const now = Date.now();
    const row: ProjectRow = {
      id: randomUUID(),
      name: name ?? basename(path),
      path,
      createdAt: now,
      updatedAt: now,
    };
    this.db
      .prepare('INSERT INTO projects (id, name, path, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
      .run(row.id, row.name, row.path, row.createdAt, row.updatedAt);
    return row;
  }

  /** A permission request is over: keep its card, and only the latest few per session. */
  settlePermission(sessionId: string, settled: SettledPermissionRow): void {
    const requestId = String(settled.request.requestId);
    this.db
      .prepare(
        `INSERT OR REPLACE INTO settled_permissions (session_id, request_id, request, option_id, by, settled_at, rule)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        sessionId,
        requestId,
        JSON.stringify(settled.request),
        settled.optionId,
        settled.by,
        Date.now(),
        settled.rule ? JSON.stringify(settled.rule) : null,
      );
    this.db
      .prepare(
        `DELETE FROM settled_permissions WHERE session_id = ? AND rowid NOT IN
           (SELECT rowid FROM settled_permissions WHERE session_id = ? ORDER BY rowid DESC LIMIT ?)`,
      )
      .run(sessionId, sessionId, SETTLED_PERMISSIONS_KEPT);
  }

  /** Oldest first. */
  settledPermissions(sessionId: string): SettledPermissionRow[] {
    const rows = this.db
      .prepare(
        'SELECT request, option_id, by, rule FROM settled_permissions WHERE session_id = ? ORDER BY rowid',
      )
      .all(sessionId) as { request: string; option_id: string; by: string; rule: string | null }[];
    return rows.map((r) => ({
      request: JSON.parse(r.request) as Record<string, unknown>,
      optionId: r.option_id,
      by: r.by,
      ...(r.rule ? { rule: JSON.parse(r.rule) as SettledPermissionRow['rule'] } : {}),
    }));
  }

  /** The person chose this value of a config option (mode, model, …): kept to set it again whenever
   * the agent session is opened anew. */
  setConfigValue(sessionId: string, configId: string, value: string | boolean): void {
    // Deleted and inserted, so the rowid orders the options by when they were last chosen.
    this.db
      .prepare('DELETE FROM session_config WHERE session_id = ? AND config_id = ?')
      .run(sessionId, configId);
    this.db
      .prepare('INSERT INTO session_config (session_id, config_id, value) VALUES (?, ?, ?)')
      .run(sessionId, configId, JSON.stringify(value));
  }

  forgetConfigValue(sessionId: string, configId: string): void {
    this.db
      .prepare('DELETE FROM session_config WHERE session_id = ? AND config_id = ?')
      .run(sessionId, configId);
  }

  /** Every workstation some chat session runs on. */
  workstations(): string[] {
    const rows = this.db.prepare('SELECT DISTINCT workstation FROM chat_sessions').all() as {
      workstation: string;
    }[];
    return rows.map((r) => r.workstation);
  }

  /** The chosen config values, in the order they were chosen. */
  configValues(sessionId: string): { configId: string; value: string | boolean }[] {
    const rows = this.db
      .prepare('SELECT config_id, value FROM session_config WHERE session_id = ? ORDER BY rowid')
      .all(sessionId) as { config_id: string; value: string }[];
    return rows.map((r) => ({ configId: r.config_id, value: JSON.parse(r.value) as string | boolean }));
  }

  projectById(id: string): ProjectRow | undefined {
    const row = this.db.prepare('SELECT * FROM projects WHERE id = ?').get(id) as ProjectDb | undefined;
    return row && toProject(row);
  }

  /** Newest first. */
  projects(): (ProjectRow & { sessionCount: number })[] {
    const rows = this.db
      .prepare(
        `SELECT p.*, (SELECT COUNT(*) FROM chat_sessions s WHERE s.project_id = p.id) AS session_count
         FROM projects p ORDER BY p.updated_at DESC`,
      )
      .all() as (ProjectDb & { session_count: number })[];
    return rows.map((r) => ({ ...toProject(r), sessionCount: r.session_count }));
  }

  createSession(
    projectId: string,
    agent: string,
    nativeSessionId: string | null,
    title = 'New chat',
    workstation = 'local',
  ): ChatSessionRow {
    const now = Date.now();
    const row: ChatSessionRow = {
      id: randomUUID(),
      projectId,
      agent,
      workstation,
      nativeSessionId,
      title,
      createdAt: now,
      updatedAt: now,
    };
    this.db
      .prepare(
        `INSERT INTO chat_sessions (id, project_id, agent, workstation, native_session_id, title, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        row.id,
        row.projectId,
        row.agent,
        row.workstation,
        row.nativeSessionId,
        row.title,
        row.createdAt,
        row.updatedAt,
      );
    this.db.prepare('UPDATE projects SET updated_at = ? WHERE id = ?').run(now, projectId);
    return row;
  }

  session(id: string): ChatSessionRow | undefined {
    const row = this.db.prepare('SELECT * FROM chat_sessions WHERE id = ?').get(id) as SessionDb | undefined;
    return row && toSession(row);
  }

  sessionByNative(agent: string, nativeSessionId: string): ChatSessionRow | undefined {
    const row = this.db
      .prepare('SELECT * FROM chat_sessions WHERE agent = ? AND native_session_id = ?')
      .get(agent, nativeSessionId) as SessionDb | undefined;
    return row && toSession(row);
  }

  /** Newest first; with `archived`, only archived ones or only the others. */
  sessions(projectId?: string, archived?: boolean): (ChatSessionRow & { messageCount: number })[] {
    const where = [
      ...(projectId ? ['s.project_id = ?'] : []),
      ...(archived === undefined ? [] : [`s.archived_at IS ${archived ? 'NOT ' : ''}NULL`]),
    ];
    const rows = this.db
      .prepare(
        `SELECT s.*, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS message_count
         FROM chat_sessions s ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY s.updated_at DESC`,
      )
      .all(...(projectId ? [projectId] : [])) as (SessionDb & { message_count: number })[];
    return rows.map((r) => ({ ...toSession(r), messageCount: r.message_count }));
  }

  setNativeSessionId(id: string, nativeSessionId: string): void {
    this.db.prepare('UPDATE chat_sessions SET native_session_id = ? WHERE id = ?').run(nativeSessionId, id);
  }

  /** The agent's title (or the first prompt's): shown unless the person chose one. */
  rename(id: string, title: string): void {
    this.db.prepare('UPDATE chat_sessions SET title = ? WHERE id = ?').run(title, id);
  }

  /** The person's title, which stands over the agent's from now on. */
  renameByPerson(id: string, title: string): void {
    this.db.prepare('UPDATE chat_sessions SET user_title = ? WHERE id = ?').run(title, id);
  }

  archive(id: string, archived: boolean): void {
    this.db
      .prepare('UPDATE chat_sessions SET archived_at = ? WHERE id = ?')
      .run(archived ? Date.now() : null, id);
  }

  /** Forgets a chat: its row, messages, settled cards and chosen options. Nothing outside this
   * store is touched; the agent's own files stay as they are. */
  deleteSession(id: string): void {
    this.db.transaction(() => {
      for (const table of ['messages', 'settled_permissions', 'session_config'])
        this.db.prepare(`DELETE FROM ${table} WHERE session_id = ?`).run(id);
      this.db.prepare('DELETE FROM chat_sessions WHERE id = ?').run(id);
    })();
  }

  /** Appends a message with the next sequence of its session. */
  addMessage(message: Omit<MessageRow, 'sequence'>): MessageRow {
    return this.db.transaction(() => this.insertMessage(message))();
  }

  private insertMessage(message: Omit<MessageRow, 'sequence'>): MessageRow {
    const next = (
      this.db
        .prepare('SELECT COALESCE(MAX(sequence), 0) + 1 AS n FROM messages WHERE session_id = ?')
        .get(message.sessionId) as {
        n: number;
      }
    ).n;
    const row: MessageRow = { ...message, sequence: next };
    this.db
      .prepare(
        `INSERT INTO messages (id, session_id, sequence, role, content, events, created_at, images, output_tokens,
           duration_ms, tokens_per_second, ttft_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        row.id,
        row.sessionId,
        row.sequence,
        row.role,
        row.content,
        row.events,
        row.createdAt,
        JSON.stringify(row.images),
        row.outputTokens,
        row.durationMs,
        row.tokensPerSecond,
        row.ttftMs,
      );
    this.db.prepare('UPDATE chat_sessions SET updated_at = ? WHERE id = ?').run(row.createdAt, row.sessionId);
    return row;
  }

  messages(sessionId: string): MessageRow[] {
    const rows = this.db
      .prepare('SELECT * FROM messages WHERE session_id = ? ORDER BY sequence')
      .all(sessionId) as MessageDb[];
    return rows.map(toMessage);
  }

  close(): void {
    this.db.close();
  }
}

// The tables' rows as stored, and the rows the chat hands out: shared with the PostgreSQL store,
// whose tables have the same columns.
export interface ProjectDb {
  id: string;
  name: string;
  path: string;
  created_at: number;
  updated_at: number;
}
export interface SessionDb {
  id: string;
  project_id: string;
  agent: string;
  workstation: string;
  native_session_id: string | null;
  title: string;
  created_at: number;
  updated_at: number;
  user_title: string | null;
  archived_at: number | null;
}
export interface MessageDb {
  id: string;
  session_id: string;
  sequence: number;
  role: MessageRow['role'];
  content: string;
  events: string;
  created_at: number;
  images: string;
  output_tokens: number | null;
  duration_ms: number | null;
  tokens_per_second: number | null;
  ttft_ms: number | null;
}

export const toProject = (r: ProjectDb): ProjectRow => ({
  id: r.id,
  name: r.name,
  path: r.path,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});
export const toSession = (r: SessionDb): ChatSessionRow => ({
  id: r.id,
  projectId: r.project_id,
  agent: r.agent,
  workstation: r.workstation,
  nativeSessionId: r.native_session_id,
  title: r.user_title ?? r.title,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  ...(r.user_title === null ? {} : { renamed: true }),
  ...(r.archived_at === null ? {} : { archived: true }),
});
export const toMessage = (r: MessageDb): MessageRow => ({
  id: r.id,
  sessionId: r.session_id,
  sequence: r.sequence,
  role: r.role,
  content: r.content,
  events: r.events,
  createdAt: r.created_at,
  images: JSON.parse(r.images) as ImageRow[],
  outputTokens: r.output_tokens,
  durationMs: r.duration_ms,
  tokensPerSecond: r.tokens_per_second,
  ttftMs: r.ttft_ms,
});
