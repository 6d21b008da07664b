// The sessions workstations sync, for a team's server on PostgreSQL: one row per session of each
// workstation, a batch written in one statement.
import type pg from 'pg';
import type { SyncedSessionRecords } from './server-store.js';
import { listedColumns, syncedRecord } from './sqlite-synced.js';

/** The channel of the notices; the payload is the workstation's name. */
export const SYNCED_CHANNEL = 'cairn_synced';

/**
 * The synced sessions over `pool`; `listen` hears the channel's notices on the process's listening
 * connection (see EventFeed).
 */
export function syncedSessionRecords(
  pool: pg.Pool,
  listen: (listener: (workstation: string | undefined) => void) => Promise<() => void>,
): SyncedSessionRecords {
  return {
    async stamps(workstation) {
      const { rows } = await pool.query<{ agent: string; sid: string; stamp: string }>(
        'SELECT agent, sid, stamp FROM synced_sessions WHERE workstation = $1',
        [workstation],
      );
      return rows;
    },
    async put(workstation, sessions, now = Date.now()) {
      if (sessions.length === 0) return;
      // A session twice in one batch keeps its last version, as the SQLite store's upserts do.
      const last = new Map(sessions.map((s) => [`${s.agent}\u0000${s.sid}`, s]));
      const rows = [...last.values()];
      // The notice goes with the statement: every process hears it once the rows are committed.
      await pool.query(
        `WITH stored AS (
           INSERT INTO synced_sessions
             (workstation, agent, sid, stamp, head, synced_at, last_activity_at, cwd, head_active)
           SELECT $1, a, s, st, h, $6, la, c, ac
           FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $7::bigint[], $8::text[], $9::boolean[])
             AS u (a, s, st, h, la, c, ac)
           ON CONFLICT (workstation, agent, sid) DO UPDATE SET stamp = excluded.stamp, head = excluded.head,
             synced_at = excluded.synced_at, last_activity_at = excluded.last_activity_at, cwd = excluded.cwd,
             head_active = excluded.head_active
           RETURNING 1)
         SELECT pg_notify('${SYNCED_CHANNEL}', $1) FROM (SELECT 1 FROM stored LIMIT 1) AS any_stored`,
        [
          workstation,
          rows.map((s) => s.agent),
          rows.map((s) => s.sid),
          rows.map((s) => s.stamp),
          rows.map((s) => JSON.stringify(s.head)),
          now,
          rows.map((s) => listedColumns(s.head).lastActivityAt),
          rows.map((s) => listedColumns(s.head).cwd),
          rows.map((s) => listedColumns(s.head).active),
        ],
      );
    },
    async remove(workstation, sessions) {
      if (sessions.length === 0) return 0;
      const { rows } = await pool.query<{ removed: number }>(
        `WITH gone AS (
           DELETE FROM synced_sessions WHERE workstation = $1
             AND (agent, sid) IN (SELECT * FROM unnest($2::text[], $3::text[]))
           RETURNING 1),
         counted AS (SELECT count(*)::int AS removed FROM gone)
         SELECT removed, CASE WHEN removed > 0 THEN pg_notify('${SYNCED_CHANNEL}', $1) END FROM counted`,
        [workstation, sessions.map((s) => s.agent), sessions.map((s) => s.sid)],
      );
      return rows[0]?.removed ?? 0;
    },
    async list(workstations) {
      const { rows } = await pool.query(
        'SELECT * FROM synced_sessions WHERE $1::text[] IS NULL OR workstation = ANY($1)',
        [workstations === undefined ? null : [...workstations]],
      );
      return rows.map(syncedRecord);
    },
    async find(sid, agent) {
      const { rows } = await pool.query(
        'SELECT * FROM synced_sessions WHERE sid = $1 AND ($2::text IS NULL OR agent = $2)',
        [sid, agent ?? null],
      );
      return rows.map(syncedRecord);
    },
    async workstationsHeld() {
      const { rows } = await pool.query<{ workstation: string }>(
        'SELECT DISTINCT workstation FROM synced_sessions',
      );
      return rows.map((r) => r.workstation);
    },
    async page(q) {
      const where = ['workstation = ANY($1)'];
      const args: unknown[] = [[...q.workstations]];
      const arg = (value: unknown) => {
        args.push(value);
        return `$${args.length}`;
      };
      if (q.agents !== undefined) where.push(`agent = ANY(${arg([...q.agents])})`);
      if (q.cwd !== undefined) where.push(`strpos(cwd, ${arg(q.cwd)}) > 0`);
      if (q.sinceAt !== undefined) where.push(`last_activity_at >= ${arg(q.sinceAt)}`);
      if (q.active !== undefined)
        where.push(`(head_active AND synced_at > ${arg(q.now - q.activeMs)}) = ${arg(q.active)}`);
      const filter = where.join(' AND ');
      const counted = await pool.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM synced_sessions WHERE ${filter}`,
        args,
      );
      const { rows } = await pool.query(
        `SELECT * FROM synced_sessions WHERE ${filter} ORDER BY last_activity_at DESC, sid COLLATE "C" LIMIT ${arg(q.limit)}`,
        args,
      );
      return { rows: rows.map(syncedRecord), total: counted.rows[0]?.total ?? 0 };
    },
    onChange: listen,
  };
}
