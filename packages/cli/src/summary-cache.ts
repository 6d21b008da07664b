// The numbers of sessions that have not changed since the last `cairn summary --all`, kept in
// $CAIRN_HOME/summaries.sqlite: a session whose files all carry the stamps they had when it was
// summed up is not read again, so a run costs what changed rather than the whole history. An
// entry holds for the build that wrote it only, since another build may count differently.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { ownerOnlyFile } from '@cairn/runner/owner-only';
import type { SessionFileStamp, SessionSummaryWithPrompts } from '@cairn/transcript';
import Database from 'better-sqlite3';

/** The build's id, from the bundler; absent when running from source, which then keeps nothing. */
declare const CAIRN_BUILD: string | undefined;
export const buildId = (): string | undefined => (typeof CAIRN_BUILD === 'string' ? CAIRN_BUILD : undefined);

/** Changes when the tables below do: a file of another layout is emptied and laid out anew. */
const LAYOUT = 1;

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
-- stamps: stampsKey of the session's files as they were read.
CREATE TABLE sessions (path TEXT PRIMARY KEY, agent TEXT NOT NULL, stamps TEXT NOT NULL, summary TEXT NOT NULL);
`;

/** Stamps as the cache compares them: the same files, sizes and times give the same text. */
export const stampsKey = (stamps: readonly SessionFileStamp[]): string =>
  JSON.stringify(stamps.map((s) => [s.path, s.size, s.mtimeMs]));

export interface CachedSummary {
  path: string;
  agent: string;
  stamps: string;
  summary: SessionSummaryWithPrompts;
}

interface Row {
  agent: string;
  stamps: string;
  summary: string;
}

export class SummaryCache {
  private readonly hits = new Set<string>();

  private constructor(
    private readonly db: Database.Database,
    private readonly rows: Map<string, Row>,
  ) {}

  /** Opens (or makes) the cache at `file` for build `build`; throws what SQLite or the folder throws. */
  static open(file: string, build: string): SummaryCache {
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
      const rows = new Map<string, Row>();
      for (const r of db.prepare('SELECT path, agent, stamps, summary FROM sessions').all() as (Row & {
        path: string;
      })[])
        rows.set(r.path, { agent: r.agent, stamps: r.stamps, summary: r.summary });
      return new SummaryCache(db, rows);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  /** Whether anything is kept for the session at `path` (else its stamps need not be taken). */
  holds(path: string): boolean {
    return this.rows.has(path);
  }

  /** The summary kept for the session at `path`, when its files still carry `stamps` (a stampsKey). */
  lookup(path: string, stamps: string): SessionSummaryWithPrompts | undefined {
    const row = this.rows.get(path);
    if (row === undefined || row.stamps !== stamps) return undefined;
    const summary = parseSummary(row.summary);
    if (summary !== undefined) this.hits.add(path);
    return summary;
  }

  /**
   * Keeps this run's outcome: the sessions it took from here and those it summed up afresh. Of
   * the agent the run covered (every agent when undefined), nothing else stays.
   */
  save(fresh: readonly CachedSummary[], agent: string | undefined): void {
    const stale = [...this.rows].filter(
      ([path, row]) => !this.hits.has(path) && (agent === undefined || row.agent === agent),
    );
    if (fresh.length === 0 && stale.length === 0) return;
    const remove = this.db.prepare('DELETE FROM sessions WHERE path = ?');
    const put = this.db.prepare(
      'INSERT OR REPLACE INTO sessions (path, agent, stamps, summary) VALUES (?, ?, ?, ?)',
    );
    this.db.transaction(() => {
      for (const [path] of stale) remove.run(path);
      for (const f of fresh) put.run(f.path, f.agent, f.stamps, JSON.stringify(f.summary));
    })();
  }

  close(): void {
    this.db.close();
  }
}

const NUMBERS = new Set([
  'compactions',
  'durationMs',
  'failedTools',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'requests',
  'subagents',
  'turns',
]);

const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** A stored summary, or undefined when the text is not one (the session is then read again). */
function parseSummary(text: string): SessionSummaryWithPrompts | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  for (const [key, v] of Object.entries(value)) {
    if (NUMBERS.has(key) ? isCount(v) : key === 'contextShape' && Array.isArray(v) && v.every(isCount))
      continue;
    return undefined;
  }
  return value as SessionSummaryWithPrompts;
}
