// The PostgreSQL store's smaller parts: permission rules, links, marks, tickets, people and their
// workstations. Each answers as its SQLite counterpart does, orders included (text sorted
// byte-wise, as SQLite does, whatever the database's collation).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  parsePermissionRule,
  type RememberedPermissionRule,
  type SessionLink,
  type SessionLinkKind,
  type SessionLinkVia,
  type SessionMarks,
} from '@cairn/protocol';
import type pg from 'pg';
import { PROJECT_RULE_SOURCE, RuleRefused } from '../chat/permission-rule-store.js';
import { isWorkstationName } from '../drive/tickets.js';
import {
  checkName,
  checkRole,
  checkVisibility,
  newToken,
  tokenDigest,
  toUser,
  toWorkstation,
  type UserDb,
  type WorkstationDb,
} from './accounts.js';
import { type ItemRow, itemKey, toItem } from './marks-store.js';
import { inTransaction, type Queryable } from './postgres-pool.js';
import {
  type LinkRecords,
  type MarkRecords,
  type PermissionRuleRecords,
  StoreRefused,
  type TicketRecords,
  type UserRecords,
  type WorkstationRecords,
} from './server-store.js';

/** PostgreSQL's code for a row that names a row that is not there. */
const FOREIGN_KEY_VIOLATION = '23503';
const codeOf = (error: unknown): string | undefined => (error as { code?: string }).code;

interface RuleDb {
  id: string;
  workstation: string;
  project_path: string;
  effect: RememberedPermissionRule['effect'];
  rule: string;
  created_at: number;
}
const toRemembered = (r: RuleDb): RememberedPermissionRule => ({
  id: r.id,
  workstation: r.workstation,
  projectPath: r.project_path,
  effect: r.effect,
  rule: r.rule,
  createdAt: r.created_at,
});

export function permissionRuleRecords(pool: pg.Pool): PermissionRuleRecords {
  return {
    async list(filter = {}) {
      const { rows } = await pool.query<RuleDb>(
        `SELECT * FROM permission_rules
         WHERE ($1::text IS NULL OR workstation = $1) AND ($2::text IS NULL OR project_path = $2)
         ORDER BY workstation COLLATE "C", project_path COLLATE "C", created_at, n`,
        [filter.workstation ?? null, filter.projectPath ?? null],
      );
      return rows.map(toRemembered);
    },
    async remember(workstation, projectPath, effect, text) {
      const parsed = parsePermissionRule(text, effect, PROJECT_RULE_SOURCE);
      if (!parsed.ok) throw new RuleRefused(parsed.error);
      const rule = parsed.rule.text;
      await pool.query(
        `INSERT INTO permission_rules (id, workstation, project_path, effect, rule, created_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (workstation, project_path, effect, rule) DO NOTHING`,
        [randomUUID(), workstation, projectPath, effect, rule, Date.now()],
      );
      const { rows } = await pool.query<RuleDb>(
        `SELECT * FROM permission_rules
         WHERE workstation = $1 AND project_path = $2 AND effect = $3 AND rule = $4`,
        [workstation, projectPath, effect, rule],
      );
      return toRemembered(rows[0]!);
    },
    async revoke(id) {
      return ((await pool.query('DELETE FROM permission_rules WHERE id = $1', [id])).rowCount ?? 0) > 0;
    },
  };
}

interface LinkDb {
  kind: string;
  from_agent: string;
  from_sid: string;
  to_agent: string;
  to_sid: string;
  at_item: string | null;
  via: string | null;
  created_at: number;
}
const toLink = (r: LinkDb): SessionLink => ({
  kind: r.kind as SessionLinkKind,
  from: { agent: r.from_agent, sid: r.from_sid },
  to: { agent: r.to_agent, sid: r.to_sid },
  ...(r.at_item === null ? {} : { at_item: r.at_item }),
  ...(r.via === null ? {} : { via: r.via as SessionLinkVia }),
  created_at: r.created_at,
});

export function linkRecords(pool: pg.Pool): LinkRecords {
  return {
    async add(link) {
      await pool.query(
        `INSERT INTO session_links (kind, from_agent, from_sid, to_agent, to_sid, at_item, via, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT (from_agent, from_sid, to_agent, to_sid) DO UPDATE SET
           kind = excluded.kind, at_item = excluded.at_item, via = excluded.via, created_at = excluded.created_at`,
        [
          link.kind,
          link.from.agent,
          link.from.sid,
          link.to.agent,
          link.to.sid,
          link.at_item ?? null,
          link.via ?? null,
          link.created_at,
        ],
      );
      return link;
    },
    async read(filter = {}) {
      const { rows } = await pool.query<LinkDb>(
        `SELECT * FROM session_links
         WHERE (($1::text IS NULL OR from_agent = $1) AND ($2::text IS NULL OR from_sid = $2))
            OR (($1::text IS NULL OR to_agent = $1) AND ($2::text IS NULL OR to_sid = $2))
         ORDER BY created_at, n`,
        [filter.agent ?? null, filter.sid ?? null],
      );
      return rows.map(toLink);
    },
  };
}

interface MarkDb {
  agent: string;
  sid: string;
  starred: boolean;
  updated_at: number;
}
async function marksOf(db: Queryable, r: MarkDb): Promise<SessionMarks> {
  const tags = await db.query<{ tag: string }>(
    'SELECT tag FROM session_tags WHERE agent = $1 AND sid = $2 ORDER BY tag COLLATE "C"',
    [r.agent, r.sid],
  );
  const items = await db.query<ItemRow>(
    `SELECT item_uuid, item_type, agent_id, nth FROM item_stars WHERE agent = $1 AND sid = $2
     ORDER BY starred_at, n`,
    [r.agent, r.sid],
  );
  return {
    agent: r.agent,
    sid: r.sid,
    starred: r.starred,
    tags: tags.rows.map((t) => t.tag),
    items: items.rows.map(toItem),
    updated_at: r.updated_at,
  };
}

export function markRecords(pool: pg.Pool): MarkRecords {
  return {
    async read(filter = {}) {
      const { rows } = await pool.query<MarkDb>(
        `SELECT * FROM session_marks WHERE ($1::text IS NULL OR agent = $1) AND ($2::text IS NULL OR sid = $2)
         ORDER BY updated_at DESC, agent COLLATE "C", sid COLLATE "C"`,
        [filter.agent ?? null, filter.sid ?? null],
      );
      const marks = await Promise.all(rows.map((r) => marksOf(pool, r)));
      return marks.filter((m) => m.starred || m.tags.length > 0 || m.items.length > 0);
    },
    write: (agent, sid, change, now = Date.now()) =>
      inTransaction(pool, async (client) => {
        await client.query(
          `INSERT INTO session_marks (agent, sid, starred, updated_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (agent, sid) DO UPDATE SET updated_at = excluded.updated_at`,
          [agent, sid, change.starred === true, now],
        );
        if (change.starred !== undefined)
          await client.query('UPDATE session_marks SET starred = $1 WHERE agent = $2 AND sid = $3', [
            change.starred,
            agent,
            sid,
          ]);
        if (change.tags !== undefined) {
          await client.query('DELETE FROM session_tags WHERE agent = $1 AND sid = $2', [agent, sid]);
          await client.query(
            `INSERT INTO session_tags (agent, sid, tag) SELECT $1, $2, tag FROM unnest($3::text[]) AS t (tag)
             ON CONFLICT DO NOTHING`,
            [agent, sid, change.tags.map((t) => t.trim())],
          );
        }
        for (const item of change.starItems ?? [])
          await client.query(
            `INSERT INTO item_stars (agent, sid, item_uuid, item_type, agent_id, nth, starred_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
            [agent, sid, ...itemKey(item), now],
          );
        for (const item of change.unstarItems ?? [])
          await client.query(
            `DELETE FROM item_stars WHERE agent = $1 AND sid = $2 AND item_uuid = $3 AND item_type = $4
             AND agent_id = $5 AND nth = $6`,
            [agent, sid, ...itemKey(item)],
          );
        const { rows } = await client.query<MarkDb>(
          'SELECT * FROM session_marks WHERE agent = $1 AND sid = $2',
          [agent, sid],
        );
        const marks = await marksOf(client, rows[0]!);
        // A session left with no mark at all leaves no row behind.
        if (!marks.starred && marks.tags.length === 0 && marks.items.length === 0)
          await client.query('DELETE FROM session_marks WHERE agent = $1 AND sid = $2', [agent, sid]);
        return marks;
      }),
  };
}

const ticketDigest = (ticket: string): Buffer => createHash('sha256').update(ticket, 'utf8').digest();

export function ticketRecords(pool: pg.Pool): TicketRecords {
  return {
    async issue(name, options = {}) {
      if (!isWorkstationName(name)) throw new Error(`not a workstation name: ${JSON.stringify(name)}`);
      return inTransaction(pool, async (client) => {
        // Issues for one name take turns, whichever server process they reach.
        await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('cairn ticket ' || $1, 0))`, [
          name,
        ]);
        const held = await client.query('SELECT 1 FROM workstation_tickets WHERE name = $1', [name]);
        const replaced = held.rowCount ?? 0;
        if (replaced > 0 && !options.replace) {
          return {
            ok: false,
            error: {
              _tag: 'TicketExists',
              name,
              message: `workstation ${name} already has a ticket; revoke it first, or issue with --replace`,
            },
          } as const;
        }
        await client.query('DELETE FROM workstation_tickets WHERE name = $1', [name]);
        const ticket = randomBytes(24).toString('base64url');
        const issuedAt = (options.now ?? new Date()).toISOString();
        await client.query('INSERT INTO workstation_tickets (name, sha256, issued_at) VALUES ($1, $2, $3)', [
          name,
          ticketDigest(ticket),
          issuedAt,
        ]);
        return { ok: true, ticket, name, issuedAt, replaced } as const;
      });
    },
    async owner(ticket) {
      const { rows } = await pool.query<{ name: string }>(
        'SELECT name FROM workstation_tickets WHERE sha256 = $1',
        [ticketDigest(ticket)],
      );
      return rows[0]?.name;
    },
    async revoke(name) {
      return (await pool.query('DELETE FROM workstation_tickets WHERE name = $1', [name])).rowCount ?? 0;
    },
    async list() {
      const { rows } = await pool.query<{ name: string; issued_at: string }>(
        'SELECT name, issued_at FROM workstation_tickets',
      );
      return rows
        .map((r) => ({ name: r.name, issuedAt: r.issued_at }))
        .sort((a, b) => a.issuedAt.localeCompare(b.issuedAt) || a.name.localeCompare(b.name));
    },
  };
}

export function userRecords(pool: pg.Pool): UserRecords {
  return {
    async add(name, role, now = Date.now()) {
      checkName('user', name);
      checkRole(role);
      const token = newToken();
      const { rowCount } = await pool.query(
        `INSERT INTO users (name, role, token_sha256, created_at) VALUES ($1, $2, $3, $4)
         ON CONFLICT (name) DO NOTHING`,
        [name, role, tokenDigest(token), now],
      );
      if (rowCount === 0) throw new StoreRefused(`there is already a user named ${name}`);
      return { user: { name, role, createdAt: now }, token };
    },
    async renewToken(name) {
      const token = newToken();
      const { rowCount } = await pool.query('UPDATE users SET token_sha256 = $1 WHERE name = $2', [
        tokenDigest(token),
        name,
      ]);
      return rowCount === 0 ? undefined : token;
    },
    async get(name) {
      const { rows } = await pool.query<UserDb>('SELECT name, role, created_at FROM users WHERE name = $1', [
        name,
      ]);
      return rows[0] && toUser(rows[0]);
    },
    async byToken(token) {
      const { rows } = await pool.query<UserDb>(
        'SELECT name, role, created_at FROM users WHERE token_sha256 = $1',
        [tokenDigest(token)],
      );
      return rows[0] && toUser(rows[0]);
    },
    async list() {
      const { rows } = await pool.query<UserDb>(
        'SELECT name, role, created_at FROM users ORDER BY name COLLATE "C"',
      );
      return rows.map(toUser);
    },
    async remove(name) {
      const owned = async () =>
        (
          await pool.query<{ name: string }>(
            'SELECT name FROM workstations WHERE owner = $1 ORDER BY name COLLATE "C"',
            [name],
          )
        ).rows.map((r) => r.name);
      const refuse = (names: string[]) =>
        new StoreRefused(`user ${name} still owns workstations: ${names.join(', ')}; remove them first`);
      const before = await owned();
      if (before.length > 0) throw refuse(before);
      try {
        return ((await pool.query('DELETE FROM users WHERE name = $1', [name])).rowCount ?? 0) > 0;
      } catch (error) {
        // A workstation registered meanwhile: the foreign key keeps the user.
        if (codeOf(error) === FOREIGN_KEY_VIOLATION) throw refuse(await owned());
        throw error;
      }
    },
  };
}

export function workstationRecords(pool: pg.Pool): WorkstationRecords {
  return {
    async add(name, owner, visibility, now = Date.now()) {
      checkName('workstation', name);
      checkVisibility(visibility);
      const unknownOwner = () => new StoreRefused(`no user named ${owner} to own workstation ${name}`);
      let rowCount: number | null;
      try {
        ({ rowCount } = await pool.query(
          `INSERT INTO workstations (name, owner, visibility, created_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (name) DO NOTHING`,
          [name, owner, visibility, now],
        ));
      } catch (error) {
        if (codeOf(error) === FOREIGN_KEY_VIOLATION) throw unknownOwner();
        throw error;
      }
      if (rowCount === 0) throw new StoreRefused(`there is already a workstation named ${name}`);
      return { name, owner, visibility, createdAt: now };
    },
    async get(name) {
      const { rows } = await pool.query<WorkstationDb>('SELECT * FROM workstations WHERE name = $1', [name]);
      return rows[0] && toWorkstation(rows[0]);
    },
    async list(filter = {}) {
      const { rows } = await pool.query<WorkstationDb>(
        'SELECT * FROM workstations WHERE ($1::text IS NULL OR owner = $1) ORDER BY name COLLATE "C"',
        [filter.owner ?? null],
      );
      return rows.map(toWorkstation);
    },
    async setVisibility(name, visibility) {
      checkVisibility(visibility);
      const { rowCount } = await pool.query('UPDATE workstations SET visibility = $1 WHERE name = $2', [
        visibility,
        name,
      ]);
      return (rowCount ?? 0) > 0;
    },
    async remove(name) {
      return ((await pool.query('DELETE FROM workstations WHERE name = $1', [name])).rowCount ?? 0) > 0;
    },
  };
}
