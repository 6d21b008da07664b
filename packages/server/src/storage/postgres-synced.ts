// The sessions workstations sync, for a team's server on PostgreSQL: one row per session of each
// workstation, a batch written in one statement.
import { SNIPPET_MARK_END, SNIPPET_MARK_START } from '@cairn/protocol';
import type pg from 'pg';
import { inTransaction } from './postgres-pool.js';
import { tsQuery } from './postgres-search.js';
import type { SyncedSessionRecords } from './server-store.js';
import { StoreRefused, type SyncedChange, syncedNotice } from './server-store.js';
import {
  docsStateOf,
  keptText,
  listedColumns,
  PRESENCE_KEPT_MS,
  type SearchDbRow,
  searchRow,
  syncedRecord,
} from './sqlite-synced.js';

/** The channel of the notices; the payload is the workstation's name. */
export const SYNCED_CHANNEL = 'cairn_synced';

/**
 * The synced sessions over `pool`; `listen` hears the channel's notices on the process's listening
 * connection (see EventFeed).
 */
export function syncedSessionRecords(
  pool: pg.Pool,
  listen: (listener: (change: SyncedChange | undefined) => void) => Promise<() => void>,
): SyncedSessionRecords {
  return {
    async stamps(workstation) {
      const { rows } = await pool.query(
        'SELECT agent, sid, stamp, docs_count, docs_low, docs_high FROM synced_sessions WHERE workstation = $1',
        [workstation],
      );
      return rows.map((r) => {
        const docs = docsStateOf(r);
        return { agent: r.agent, sid: r.sid, stamp: r.stamp, ...(docs ? { docs } : {}) };
      });
    },
    putDocs: (workstation, session, docs) =>
      inTransaction(pool, async (client) => {
        const names = [workstation, session.agent, session.sid];
        const held = await client.query(
          'SELECT 1 FROM synced_sessions WHERE workstation = $1 AND agent = $2 AND sid = $3 FOR UPDATE',
          names,
        );
        if (held.rowCount === 0)
          throw new StoreRefused(`no synced session ${session.sid} of ${workstation} to add documents to`);
        if (docs.replace)
          await client.query(
            'DELETE FROM synced_docs WHERE workstation = $1 AND agent = $2 AND sid = $3',
            names,
          );
        if (docs.docs.length > 0) {
          // A key twice in one frame keeps its last document, as the SQLite store's do.
          const last = [...new Map(docs.docs.map((d) => [d.key, d])).values()];
          await client.query(
            `INSERT INTO synced_docs (workstation, agent, sid, key, item_uuid, item_type, target, agent_id, at, text)
             SELECT $1, $2, $3, k, u, ty, ta, ag, at, tx
             FROM unnest($4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::text[])
               AS d (k, u, ty, ta, ag, at, tx)
             ON CONFLICT (workstation, agent, sid, key) DO UPDATE SET item_uuid = excluded.item_uuid,
               item_type = excluded.item_type, target = excluded.target, agent_id = excluded.agent_id,
               at = excluded.at, text = excluded.text`,
            [
              ...names,
              last.map((d) => d.key),
              last.map((d) => d.item_uuid),
              last.map((d) => d.item_type),
              last.map((d) => d.target),
              last.map((d) => d.agent_id ?? null),
              last.map((d) => d.at ?? null),
              last.map((d) => keptText(d.text)),
            ],
          );
        }
        const { rows } = await client.query<{ count: number }>(
          `UPDATE synced_sessions SET docs_low = $4, docs_high = $5, docs_count = (
             SELECT count(*) FROM synced_docs WHERE workstation = $1 AND agent = $2 AND sid = $3)
           WHERE workstation = $1 AND agent = $2 AND sid = $3 RETURNING docs_count AS count`,
          [...names, docs.low, docs.high],
        );
        return { count: Number(rows[0]?.count ?? 0), low: docs.low, high: docs.high };
      }),
    async search(q) {
      const query = tsQuery(q.query);
      if (query === undefined || q.workstations.length === 0)
        return { rows: [], ...(q.count ? { total: 0 } : {}) };
      const args: unknown[] = [query, [...q.workstations]];
      const arg = (value: unknown) => {
        args.push(value);
        return `$${args.length}`;
      };
      const where = ["d.words @@ to_tsquery('simple', $1)", 'd.workstation = ANY($2)'];
      if (q.agents !== undefined) where.push(`d.agent = ANY(${arg([...q.agents])})`);
      if (q.targets !== undefined) where.push(`d.target = ANY(${arg([...q.targets])})`);
      if (q.sid !== undefined) where.push(`d.sid = ${arg(q.sid)}`);
      if (q.cwd !== undefined) where.push(`strpos(s.cwd, ${arg(q.cwd)}) > 0`);
      if (q.sinceAt !== undefined) where.push(`d.at >= ${arg(q.sinceAt)}`);
      if (q.untilAt !== undefined) where.push(`d.at <= ${arg(q.untilAt)}`);
      const filter = where.join(' AND ');
      const from = `FROM synced_docs d JOIN synced_sessions s USING (workstation, agent, sid) WHERE ${filter}`;
      // Counted before the page's own arguments are added: the count reads the filter's only.
      const total = q.count
        ? Number(
            (await pool.query<{ total: number }>(`SELECT count(*)::int AS total ${from}`, [...args])).rows[0]
              ?.total ?? 0,
          )
        : undefined;
      const marks = `StartSel=${SNIPPET_MARK_START}, StopSel=${SNIPPET_MARK_END}, MaxWords=24, MinWords=8`;
      const { rows } = await pool.query<SearchDbRow>(
        `SELECT d.workstation, d.agent, d.sid, d.item_uuid, d.item_type, d.target, d.agent_id, d.at, s.head,
           ts_headline('simple', d.text, to_tsquery('simple', $1), ${arg(marks)}) AS snippet,
           ts_rank(d.words, to_tsquery('simple', $1)) AS rank
         ${from} ORDER BY rank DESC LIMIT ${arg(q.limit)}`,
        args,
      );
      return {
        rows: rows.map((r) => searchRow(r, Number(r.rank))),
        ...(total === undefined ? {} : { total }),
      };
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
         SELECT pg_notify('${SYNCED_CHANNEL}', $10) FROM (SELECT 1 FROM stored LIMIT 1) AS any_stored`,
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
          syncedNotice(workstation, rows),
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
         SELECT removed, CASE WHEN removed > 0 THEN pg_notify('${SYNCED_CHANNEL}', $4) END FROM counted`,
        [
          workstation,
          sessions.map((s) => s.agent),
          sessions.map((s) => s.sid),
          syncedNotice(workstation, sessions),
        ],
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
    async get(workstation, sessions) {
      if (sessions.length === 0) return [];
      const { rows } = await pool.query(
        `SELECT * FROM synced_sessions WHERE workstation = $1
           AND (agent, sid) IN (SELECT * FROM unnest($2::text[], $3::text[]))`,
        [workstation, sessions.map((s) => s.agent), sessions.map((s) => s.sid)],
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
    async heard(workstation, process, connected, now = Date.now()) {
      await inTransaction(pool, async (client) => {
        await client.query(
          `INSERT INTO synced_presence (workstation, process, connected, heard_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (workstation, process) DO UPDATE SET connected = excluded.connected, heard_at = excluded.heard_at`,
          [workstation, process, connected, now],
        );
        await client.query(
          'DELETE FROM synced_presence WHERE workstation = $1 AND process <> $2 AND (NOT connected OR heard_at < $3)',
          [workstation, process, now - PRESENCE_KEPT_MS],
        );
      });
    },
    async presence(now, freshMs) {
      const { rows } = await pool.query<{ workstation: string; heard_at: string; online: boolean }>(
        `SELECT workstation, max(heard_at) AS heard_at, bool_or(connected AND heard_at >= $1) AS online
         FROM synced_presence GROUP BY workstation`,
        [now - freshMs],
      );
      return rows.map((r) => ({ workstation: r.workstation, online: r.online, heardAt: Number(r.heard_at) }));
    },
    onChange: listen,
  };
}
