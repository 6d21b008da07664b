// What a command worked out from each session (its numbers, its requests), kept in a SQLite file
// under $CAIRN_HOME: a session whose files all carry the stamps they had when it was read is not
// read again, so a run costs what changed rather than the whole history. An entry holds for the
// build that wrote it only, since another build may count differently.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ownerOnlyFile } from '@cairn/runner/owner-only';
import Database from 'better-sqlite3';

/** Changes when the tables below do: a file of another layout is emptied and laid out anew. */
const LAYOUT = 1;

/** One session's value as a run worked it out; `stamps` is the stampsKey of its files as read. */
export interface Kept<T> {
  path: string;
  agent: string;
  stamps: string;
  value: T;
}

interface Row {
  agent: string;
  stamps: string;
  text: string;
}

export class StampedCache<T> {
  private readonly hits = new Set<string>();

  private constructor(
    private readonly db: Database.Database,
    private readonly rows: Map<string, Row>,
    private readonly column: string,
    private readonly parse: (text: string) => T | undefined,
  ) {}

  /**
   * Opens (or makes) the cache at `file` for build `build`, its values kept as JSON in `column` and
   * read back through `parse` (undefined: not a value, the session is read again). Throws what
   * SQLite or the folder throws.
   */
  static open<T>(
    file: string,
    build: string,
    column: string,
    parse: (text: string) => T | undefined,
  ): StampedCache<T> {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    const db = new Database(ownerOnlyFile(file), { timeout: 2_000 });
    try {
      db.pragma('journal_mode = WAL');
      if (db.pragma('user_version', { simple: true }) !== LAYOUT)
        db.transaction(() => {
          db.exec('DROP TABLE IF EXISTS sessions; DROP TABLE IF EXISTS meta;');
          db.exec(`
            CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE sessions (path TEXT PRIMARY KEY, agent TEXT NOT NULL, stamps TEXT NOT NULL, ${column} TEXT NOT NULL);
          `);
          db.pragma(`user_version = ${LAYOUT}`);
        })();
      const stored = db.prepare("SELECT value FROM meta WHERE key = 'build'").pluck().get();
      if (stored !== build)
        db.transaction(() => {
          db.exec('DELETE FROM sessions');
          db.prepare("INSERT OR REPLACE INTO meta (key, value) VALUES ('build', ?)").run(build);
        })();
      const rows = new Map<string, Row>();
      const all = db.prepare(`SELECT path, agent, stamps, ${column} AS text FROM sessions`).all();
      for (const r of all as (Row & { path: string })[])
        rows.set(r.path, { agent: r.agent, stamps: r.stamps, text: r.text });
      return new StampedCache(db, rows, column, parse);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Whether anything is kept for the session at `path` (else its stamps need not be taken). */
  holds(path: string): boolean {
    return this.rows.has(path);
  }

  /** The value kept for the session at `path`, when its files still carry `stamps` (a stampsKey). */
  lookup(path: string, stamps: string): T | undefined {
    const row = this.rows.get(path);
    if (row === undefined || row.stamps !== stamps) return undefined;
    const value = this.parse(row.text);
    if (value !== undefined) this.hits.add(path);
    return value;
  }

  /**
   * Keeps this run's outcome: the sessions it took from here and those it worked out afresh. Of
   * the agent the run covered (every agent when undefined), nothing else stays.
   */
  save(fresh: readonly Kept<T>[], agent: string | undefined): void {
    const stale = [...this.rows].filter(
      ([path, row]) => !this.hits.has(path) && (agent === undefined || row.agent === agent),
    );
    if (fresh.length === 0 && stale.length === 0) return;
    const remove = this.db.prepare('DELETE FROM sessions WHERE path = ?');
    const put = this.db.prepare(
      `INSERT OR REPLACE INTO sessions (path, agent, stamps, ${this.column}) VALUES (?, ?, ?, ?)`,
    );
    this.db.transaction(() => {
      for (const [path] of stale) remove.run(path);
      for (const f of fresh) put.run(f.path, f.agent, f.stamps, JSON.stringify(f.value));
    })();
  }

  close(): void {
    this.db.close();
  }
}
