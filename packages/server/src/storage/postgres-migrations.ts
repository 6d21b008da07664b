// The PostgreSQL schema, as numbered migrations that cairn applies itself when a server opens the
// database. `schema_migrations` records each one applied. Each runs in its own transaction, so a
// failed one leaves nothing behind, and all of them under one advisory lock, so two server
// processes starting at once apply each migration once: the second waits, then finds them done.
// A migration, once released, is never edited: a change to the schema is a new one at the end.
import type pg from 'pg';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

// Times are milliseconds since the epoch (BIGINT) and orders follow an identity column where
// SQLite's follow its rowid, so both stores answer alike.
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'one person: drive log, chat, permission rules, links, marks, tickets',
    sql: `
CREATE TABLE driven_sessions (
  session_ref TEXT PRIMARY KEY, workstation TEXT NOT NULL, agent_key TEXT NOT NULL, bridge TEXT NOT NULL,
  cwd TEXT NOT NULL, native_session_id TEXT, held_seq BIGINT NOT NULL DEFAULT 0,
  turn_running BOOLEAN NOT NULL DEFAULT false, closed BOOLEAN NOT NULL DEFAULT false
);
CREATE INDEX driven_sessions_open ON driven_sessions (workstation) WHERE NOT closed;
-- JSON rather than JSONB: an event's payload reads back as the workstation sent it, keys in order.
CREATE TABLE driven_events (
  session_ref TEXT NOT NULL REFERENCES driven_sessions (session_ref), seq BIGINT NOT NULL,
  event_name TEXT NOT NULL, payload JSON NOT NULL, PRIMARY KEY (session_ref, seq)
);
CREATE TABLE projects (
  id TEXT PRIMARY KEY, name TEXT NOT NULL, path TEXT NOT NULL UNIQUE,
  created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL
);
CREATE TABLE chat_sessions (
  id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES projects (id), agent TEXT NOT NULL,
  workstation TEXT NOT NULL DEFAULT 'local', native_session_id TEXT, title TEXT NOT NULL, user_title TEXT,
  archived_at BIGINT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL
);
CREATE INDEX chat_sessions_native ON chat_sessions (agent, native_session_id);
CREATE INDEX chat_sessions_project ON chat_sessions (project_id);
-- A message's text as UTF-8 bytes: what a person or an agent wrote may hold a NUL, which TEXT refuses.
CREATE TABLE messages (
  id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES chat_sessions (id), sequence INTEGER NOT NULL,
  role TEXT NOT NULL, content BYTEA NOT NULL, events TEXT NOT NULL, created_at BIGINT NOT NULL,
  images TEXT NOT NULL, output_tokens BIGINT, duration_ms BIGINT, tokens_per_second DOUBLE PRECISION,
  ttft_ms BIGINT, UNIQUE (session_id, sequence)
);
CREATE TABLE settled_permissions (
  id BIGINT GENERATED ALWAYS AS IDENTITY, session_id TEXT NOT NULL REFERENCES chat_sessions (id),
  request_id TEXT NOT NULL, request TEXT NOT NULL, option_id TEXT NOT NULL, settled_by TEXT NOT NULL,
  rule TEXT, settled_at BIGINT NOT NULL, PRIMARY KEY (session_id, request_id)
);
CREATE TABLE session_config (
  id BIGINT GENERATED ALWAYS AS IDENTITY, session_id TEXT NOT NULL REFERENCES chat_sessions (id),
  config_id TEXT NOT NULL, value TEXT NOT NULL, PRIMARY KEY (session_id, config_id)
);
CREATE TABLE permission_rules (
  id TEXT PRIMARY KEY, n BIGINT GENERATED ALWAYS AS IDENTITY, project_path TEXT NOT NULL,
  effect TEXT NOT NULL, rule TEXT NOT NULL, created_at BIGINT NOT NULL, UNIQUE (project_path, effect, rule)
);
CREATE TABLE session_links (
  n BIGINT GENERATED ALWAYS AS IDENTITY, kind TEXT NOT NULL, from_agent TEXT NOT NULL, from_sid TEXT NOT NULL,
  to_agent TEXT NOT NULL, to_sid TEXT NOT NULL, at_item TEXT, via TEXT, created_at BIGINT NOT NULL,
  PRIMARY KEY (from_agent, from_sid, to_agent, to_sid)
);
CREATE INDEX session_links_to ON session_links (to_agent, to_sid);
CREATE TABLE session_marks (
  agent TEXT NOT NULL, sid TEXT NOT NULL, starred BOOLEAN NOT NULL DEFAULT false,
  updated_at BIGINT NOT NULL, PRIMARY KEY (agent, sid)
);
CREATE TABLE session_tags (agent TEXT NOT NULL, sid TEXT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (agent, sid, tag));
CREATE TABLE item_stars (
  n BIGINT GENERATED ALWAYS AS IDENTITY, agent TEXT NOT NULL, sid TEXT NOT NULL, item_uuid TEXT NOT NULL,
  item_type TEXT NOT NULL, agent_id TEXT NOT NULL, nth INTEGER NOT NULL, starred_at BIGINT NOT NULL,
  PRIMARY KEY (agent, sid, item_uuid, item_type, agent_id, nth)
);
-- A ticket is kept as its SHA-256 only; one name, one ticket.
CREATE TABLE workstation_tickets (name TEXT PRIMARY KEY, sha256 BYTEA NOT NULL UNIQUE, issued_at TEXT NOT NULL);
`,
  },
  {
    version: 2,
    name: 'people: users with hashed tokens, workstations they own',
    sql: `
CREATE TABLE users (
  name TEXT PRIMARY KEY, role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
  token_sha256 BYTEA NOT NULL UNIQUE, created_at BIGINT NOT NULL
);
CREATE TABLE workstations (
  name TEXT PRIMARY KEY, owner TEXT NOT NULL REFERENCES users (name),
  visibility TEXT NOT NULL CHECK (visibility IN ('private', 'shared')), created_at BIGINT NOT NULL
);
CREATE INDEX workstations_owner ON workstations (owner);
`,
  },
  {
    version: 3,
    // The rules kept before were folder-wide on every machine; they become the daemon's own
    // machine's ('local'), so another workstation in a folder of the same path is asked again.
    name: 'permission rules kept per workstation as well as folder',
    sql: `
ALTER TABLE permission_rules ADD COLUMN workstation TEXT NOT NULL DEFAULT 'local';
ALTER TABLE permission_rules ALTER COLUMN workstation DROP DEFAULT;
ALTER TABLE permission_rules DROP CONSTRAINT permission_rules_project_path_effect_rule_key;
ALTER TABLE permission_rules ADD CONSTRAINT permission_rules_workstation_project_path_effect_rule_key
  UNIQUE (workstation, project_path, effect, rule);
`,
  },
  {
    version: 4,
    // The head as the workstation sent it, as JSON text, read back whole; what a list filters and
    // orders by is in columns of its own.
    name: 'sessions synced from workstations, and their search documents',
    sql: `
CREATE TABLE synced_sessions (
  workstation TEXT NOT NULL, agent TEXT NOT NULL, sid TEXT NOT NULL, stamp TEXT NOT NULL,
  head TEXT NOT NULL, synced_at BIGINT NOT NULL,
  last_activity_at BIGINT NOT NULL, cwd TEXT NOT NULL, head_active BOOLEAN NOT NULL,
  docs_count INTEGER NOT NULL DEFAULT 0, docs_low BIGINT, docs_high BIGINT,
  PRIMARY KEY (workstation, agent, sid)
);
CREATE INDEX synced_sessions_activity ON synced_sessions (last_activity_at DESC, sid);
-- Their search documents: the words PostgreSQL's full-text search finds, in a column it keeps.
CREATE TABLE synced_docs (
  workstation TEXT NOT NULL, agent TEXT NOT NULL, sid TEXT NOT NULL, key TEXT NOT NULL,
  item_uuid TEXT NOT NULL, item_type TEXT NOT NULL, target TEXT NOT NULL, agent_id TEXT, at BIGINT,
  text TEXT NOT NULL, words TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED,
  PRIMARY KEY (workstation, agent, sid, key),
  FOREIGN KEY (workstation, agent, sid) REFERENCES synced_sessions ON DELETE CASCADE
);
CREATE INDEX synced_docs_words ON synced_docs USING GIN (words);
`,
  },
  {
    version: 5,
    // A row per server process that holds (or held) a workstation's sync connection: the process
    // says so again while it lasts, so that one that died stops counting once its word is old.
    name: 'which server processes hear each syncing workstation',
    sql: `
CREATE TABLE synced_presence (
  workstation TEXT NOT NULL, process TEXT NOT NULL, connected BOOLEAN NOT NULL, heard_at BIGINT NOT NULL,
  PRIMARY KEY (workstation, process)
);
`,
  },
];

/** The advisory lock the migrations run under: cairn's own key, the same in every process. */
const MIGRATION_LOCK = '7146290371024118577';

export interface MigrateOptions {
  /** Stop after this version (the tests step through them one by one). */
  readonly target?: number;
  readonly migrations?: readonly Migration[];
}

/** Applies the migrations not yet applied, in order; answers the versions it applied. */
export async function migrate(pool: pg.Pool, options: MigrateOptions = {}): Promise<number[]> {
  const migrations = options.migrations ?? MIGRATIONS;
  const newest = migrations.at(-1)?.version ?? 0;
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (
           version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
      );
      const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
      const done = new Set(rows.map((r) => r.version));
      const ahead = rows.map((r) => r.version).filter((v) => v > newest);
      if (ahead.length > 0)
        throw new Error(
          `the database's schema is at version ${Math.max(...ahead)}, newer than this cairn knows (${newest}): upgrade cairn`,
        );
      const applied: number[] = [];
      for (const migration of migrations) {
        if (done.has(migration.version)) continue;
        if (options.target !== undefined && migration.version > options.target) break;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
            migration.version,
            migration.name,
          ]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw new Error(
            `schema migration ${migration.version} (${migration.name}) failed: ${(error as Error).message}`,
          );
        }
        applied.push(migration.version);
      }
      return applied;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } catch (error) {
    broken = error as Error;
    throw error;
  } finally {
    // After a failure the connection is closed rather than handed back, whatever state it is in.
    client.release(broken);
  }
}

/** The versions applied to a database, in order. */
export async function appliedMigrations(pool: pg.Pool): Promise<number[]> {
  const { rows } = await pool.query<{ version: number }>(
    `SELECT version FROM schema_migrations ORDER BY version`,
  );
  return rows.map((r) => r.version);
}
