// The sessions workstations sync, for a team's server on PostgreSQL: one row per session of each
// workstation, a batch written in one statement.
import type pg from 'pg';
import type { SyncedSessionRecords } from './server-store.js';
import { syncedRecord } from './sqlite-synced.js';

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
           INSERT INTO synced_sessions (workstation, agent, sid, stamp, head, synced_at)
           SELECT $1, a, s, st, h, $6 FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) AS u (a, s, st, h)
           ON CONFLICT (workstation, agent, sid) DO UPDATE SET stamp = excluded.stamp, head = excluded.head,
             synced_at = excluded.synced_at
           RETURNING 1)
         SELECT pg_notify('${SYNCED_CHANNEL}', $1) FROM (SELECT 1 FROM stored LIMIT 1) AS any_stored`,
        [
          workstation,
          rows.map((s) => s.agent),
          rows.map((s) => s.sid),
          rows.map((s) => s.stamp),
          rows.map((s) => JSON.stringify(s.head)),
          now,
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
    onChange: listen,
  };
}
