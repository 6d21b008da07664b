// The requests of sessions that have not changed since the last `cairn usage`, kept in
// $CAIRN_HOME/usage.sqlite: a session whose files all carry the stamps they had when it was read is
// not read again. As with the summary cache, an entry holds for the build that wrote it only, since
// another build may count or price differently.
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { ownerOnlyFile } from '@cairn/runner/owner-only';
import Database from 'better-sqlite3';
import type { UsageEntry } from './usage-report.js';

/** Changes when the table or the entries' form does: a file of another layout is laid out anew. */
const LAYOUT = 1;

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- stamps: stampsKey of the session's files as they were read; entries: JSON of UsageEntry[].
CREATE TABLE sessions (path TEXT PRIMARY KEY, agent TEXT NOT NULL, stamps TEXT NOT NULL, entries TEXT NOT NULL);
`;

export interface CachedEntries {
  path: string;
  agent: string;
  stamps: string;
  entries: UsageEntry[];
}

export class UsageCache {
  private readonly hits = new Set<string>();

  private constructor(
    private readonly db: Database.Database,
    private readonly rows: Map<string, { agent: string; stamps: string; entries: string }>,
  ) {}

  /** Opens (or makes) the cache; a damaged file is made anew; throws what SQLite or the folder throws. */
  static open(file: string, build: string): UsageCache {
    try {
      return UsageCache.openOnce(file, build);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code !== 'SQLITE_NOTADB' && code !== 'SQLITE_CORRUPT') throw error;
      // Only cairn writes the file and it holds nothing that cannot be counted again.
      for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
      return UsageCache.openOnce(file, build);
    }
  }

  private static openOnce(file: string, build: string): UsageCache {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const db = new Database(ownerOnlyFile(file), { timeout: 2_000 });
    try {
      db.pragma('journal_mode = WAL');
      if (db.pragma('user_version', { simple: true }) !== LAYOUT)
        db.transaction(() => {
          db.exec('DROP TABLE IF EXISTS sessions; DROP TABLE IF EXISTS meta;');
          db.exec(SCHEMA);
          db.pragma(`user_version = ${LAYOUT}`);
        })();
      const stored = db.prepare("SELECT value FROM meta WHERE key = 'build'").pluck().get();
      if (stored !== build)
        db.transaction(() => {
          db.exec('DELETE FROM sessions');
          db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('build', ?)").run(build);
        })();
      const rows = new Map<string, { agent: string; stamps: string; entries: string }>();
      for (const r of db.prepare('SELECT path, agent, stamps, entries FROM sessions').all() as {
        path: string;
        agent: string;
        stamps: string;
        entries: string;
      }[])
        rows.set(r.path, r);
      return new UsageCache(db, rows);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  holds(path: string): boolean {
    return this.rows.has(path);
  }

  /** The entries kept for the session at `path`, when its files still carry `stamps`. */
  lookup(path: string, stamps: string): UsageEntry[] | undefined {
    const row = this.rows.get(path);
    if (row === undefined || row.stamps !== stamps) return undefined;
    let entries: unknown;
    try {
      entries = JSON.parse(row.entries);
    } catch {
      return undefined;
    }
    if (!Array.isArray(entries)) return undefined;
    this.hits.add(path);
    return entries as UsageEntry[];
  }

  /** Keeps this run's sessions; of the agent the run covered (every agent when undefined), nothing else stays. */
  save(fresh: readonly CachedEntries[], agent: string | undefined): void {
    const stale = [...this.rows].filter(
      ([path, row]) => !this.hits.has(path) && (agent === undefined || row.agent === agent),
    );
    if (fresh.length === 0 && stale.length === 0) return;
    const remove = this.db.prepare('DELETE FROM sessions WHERE path = ?');
    const put = this.db.prepare(
      'INSERT OR REPLACE INTO sessions (path, agent, stamps, entries) VALUES (?, ?, ?, ?)',
    );
    this.db.transaction(() => {
      for (const [path] of stale) remove.run(path);
      for (const f of fresh) put.run(f.path, f.agent, f.stamps, JSON.stringify(f.entries));
    })();
  }

  close(): void {
    this.db.close();
  }
}
