// The storage suite against PostgreSQL, on a throwaway cluster of this file's own; and what only a
// shared database has to get right: its schema migrations, and several server processes (here,
// several pools) writing the same session at once.
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FEED_APPLICATION_NAME } from '../src/storage/postgres-event-feed.js';
import { appliedMigrations, MIGRATIONS, migrate } from '../src/storage/postgres-migrations.js';
import { openPool } from '../src/storage/postgres-pool.js';
import { PostgresServerStore } from '../src/storage/postgres-store.js';
import type { ServerStore } from '../src/storage/server-store.js';
import { corpusEvents, drivenSession, storageSuite } from './storage-suite.js';
import { type PostgresCluster, startPostgresCluster } from './support/postgres-cluster.js';

let cluster: PostgresCluster;
let databases = 0;
/** A new empty database on the cluster: each test starts from nothing. */
const emptyDatabase = (): string => cluster.createDatabase(`store_${++databases}`);

beforeAll(() => {
  cluster = startPostgresCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

const urls = new WeakMap<ServerStore, string>();
async function openAt(url: string): Promise<PostgresServerStore> {
  const store = await PostgresServerStore.open({ connectionString: url, maxConnections: 4 });
  urls.set(store, url);
  return store;
}

/** The tables of the public schema, by name. */
async function tables(pool: pg.Pool): Promise<string[]> {
  const { rows } = await pool.query<{ tablename: string }>(
    `SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`,
  );
  return rows.map((r) => r.tablename);
}

describe('the PostgreSQL store', () => {
  storageSuite({
    fresh: () => openAt(emptyDatabase()),
    async reopen(store) {
      await store.close();
      return openAt(urls.get(store)!);
    },
    async storedUsers(store) {
      const { rows } = await (store as PostgresServerStore).pool.query<{ text: string | null }>(
        'SELECT string_agg(u::text, $1) AS text FROM users u',
        ['\n'],
      );
      return rows[0]?.text ?? '';
    },
  });

  describe('schema migrations', () => {
    it('builds the schema from an empty database, and a second run applies nothing', async () => {
      const pool = openPool(emptyDatabase());
      try {
        expect(await migrate(pool)).toEqual(MIGRATIONS.map((m) => m.version));
        expect(await appliedMigrations(pool)).toEqual(MIGRATIONS.map((m) => m.version));
        const before = await tables(pool);
        expect(before).toEqual(expect.arrayContaining(['schema_migrations', 'driven_events', 'users']));
        expect(await migrate(pool)).toEqual([]);
        expect(await tables(pool)).toEqual(before);
      } finally {
        await pool.end();
      }
    });

    it('numbers its migrations 1, 2, … with none missing', () => {
      expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    });

    it('migration 1 makes the one-person tables, which hold a session before people exist', async () => {
      const pool = openPool(emptyDatabase());
      try {
        expect(await migrate(pool, { target: 1 })).toEqual([1]);
        const made = await tables(pool);
        expect(made).toEqual(
          expect.arrayContaining([
            'chat_sessions',
            'driven_events',
            'driven_sessions',
            'item_stars',
            'messages',
            'permission_rules',
            'projects',
            'session_config',
            'session_links',
            'session_marks',
            'session_tags',
            'settled_permissions',
            'workstation_tickets',
          ]),
        );
        expect(made).not.toContain('users');
        await pool.query(
          `INSERT INTO driven_sessions (session_ref, workstation, agent_key, bridge, cwd) VALUES ('s1', 'w', 'a', 'b', '/')`,
        );
        await pool.query(
          `INSERT INTO driven_events (session_ref, seq, event_name, payload) VALUES ('s1', 1, 'x', '{"b":1,"a":2}')`,
        );
      } finally {
        await pool.end();
      }
    });

    it('migration 2 adds people and workstations, keeping what version 1 held', async () => {
      const url = emptyDatabase();
      const pool = openPool(url);
      try {
        await migrate(pool, { target: 1 });
        await pool.query(
          `INSERT INTO driven_sessions (session_ref, workstation, agent_key, bridge, cwd) VALUES ('s1', 'w', 'a', 'b', '/')`,
        );
        await pool.query(
          `INSERT INTO driven_events (session_ref, seq, event_name, payload) VALUES ('s1', 1, 'x', '{"b":1,"a":2}')`,
        );
        await pool.query(`UPDATE driven_sessions SET held_seq = 1`);
        expect(await migrate(pool, { target: 2 })).toEqual([2]);
        expect(await tables(pool)).toEqual(expect.arrayContaining(['users', 'workstations']));
        await expect(
          pool.query(
            `INSERT INTO workstations (name, owner, visibility, created_at) VALUES ('w', 'nobody', 'shared', 1)`,
          ),
        ).rejects.toThrow(/foreign key/);
        await expect(
          pool.query(
            `INSERT INTO users (name, role, token_sha256, created_at) VALUES ('x', 'root', '\\x00', 1)`,
          ),
        ).rejects.toThrow(/check constraint/);
      } finally {
        await pool.end();
      }
      const store = await openAt(url);
      try {
        expect(await store.drive.events('s1')).toEqual([{ seq: 1, eventName: 'x', payload: { b: 1, a: 2 } }]);
        expect(JSON.stringify((await store.drive.events('s1'))[0]?.payload)).toBe('{"b":1,"a":2}');
      } finally {
        await store.close();
      }
    });

    it("migration 3 keeps rules per workstation, the older folder-wide ones becoming the local machine's", async () => {
      const url = emptyDatabase();
      const pool = openPool(url);
      try {
        await migrate(pool, { target: 2 });
        await pool.query(
          `INSERT INTO permission_rules (id, project_path, effect, rule, created_at)
           VALUES ('r1', '/p', 'allow', 'Bash(npm test*)', 5)`,
        );
        expect(await migrate(pool, { target: 3 })).toEqual([3]);
        // Every rule names its workstation from now on.
        await expect(
          pool.query(
            `INSERT INTO permission_rules (id, project_path, effect, rule, created_at) VALUES ('r2', '/p', 'allow', 'Write', 6)`,
          ),
        ).rejects.toThrow(/null value in column "workstation"/);
      } finally {
        await pool.end();
      }
      const store = await openAt(url);
      try {
        expect(await store.rules.list()).toEqual([
          {
            id: 'r1',
            workstation: 'local',
            projectPath: '/p',
            effect: 'allow',
            rule: 'Bash(npm test*)',
            createdAt: 5,
          },
        ]);
        const away = await store.rules.remember('box', '/p', 'allow', 'Bash(npm test*)');
        expect(away.id).not.toBe('r1');
        expect((await store.rules.list({ workstation: 'box' })).map((r) => r.id)).toEqual([away.id]);
      } finally {
        await store.close();
      }
    });

    it('migration 4 adds the sessions workstations sync, keeping what version 3 held', async () => {
      const url = emptyDatabase();
      const pool = openPool(url);
      try {
        await migrate(pool, { target: 3 });
        await pool.query(
          `INSERT INTO users (name, role, token_sha256, created_at) VALUES ('ada', 'admin', '\\x01', 1)`,
        );
        expect(await tables(pool)).not.toContain('synced_sessions');
        expect(await migrate(pool, { target: 4 })).toEqual([4]);
        expect(await tables(pool)).toContain('synced_sessions');
        expect((await pool.query('SELECT name FROM users')).rows).toEqual([{ name: 'ada' }]);
      } finally {
        await pool.end();
      }
      const store = await openAt(url);
      try {
        const head = {
          agent: 'codex',
          sid: 'r1',
          path: '/home/b/.codex/sessions/r1.jsonl',
          size: 9,
          active: false,
        };
        await store.synced.put('vm', [{ agent: 'codex', sid: 'r1', stamp: 'v1', head }], 3);
        expect(await store.synced.list(['vm'])).toEqual([
          { workstation: 'vm', agent: 'codex', sid: 'r1', stamp: 'v1', head, syncedAt: 3 },
        ]);
      } finally {
        await store.close();
      }
    });

    it('migration 5 adds which processes hear each syncing workstation, keeping what version 4 held', async () => {
      const url = emptyDatabase();
      const pool = openPool(url);
      try {
        await migrate(pool, { target: 4 });
        await pool.query(
          `INSERT INTO synced_sessions (workstation, agent, sid, stamp, head, synced_at, last_activity_at, cwd, head_active)
           VALUES ('vm', 'codex', 'r1', 'v1', '{}', 1, 1, '', false)`,
        );
        expect(await tables(pool)).not.toContain('synced_presence');
        expect(await migrate(pool)).toEqual([5]);
        expect(await tables(pool)).toContain('synced_presence');
        expect((await pool.query('SELECT sid FROM synced_sessions')).rows).toEqual([{ sid: 'r1' }]);
      } finally {
        await pool.end();
      }
      const store = await openAt(url);
      try {
        await store.synced.heard('vm', 'p1', true, 1_000);
        expect(await store.synced.presence(2_000, 30_000)).toEqual([
          { workstation: 'vm', online: true, heardAt: 1_000 },
        ]);
      } finally {
        await store.close();
      }
    });

    it('leaves nothing of a migration that fails, and says which one it was', async () => {
      const pool = openPool(emptyDatabase());
      const broken = [
        ...MIGRATIONS,
        {
          version: MIGRATIONS.length + 1,
          name: 'a broken one',
          sql: 'CREATE TABLE half_made (x integer); SELECT no_such_function();',
        },
      ];
      try {
        await expect(migrate(pool, { migrations: broken })).rejects.toThrow(
          new RegExp(
            `schema migration ${MIGRATIONS.length + 1} \\(a broken one\\) failed: .*no_such_function`,
          ),
        );
        expect(await appliedMigrations(pool)).toEqual(MIGRATIONS.map((m) => m.version));
        expect(await tables(pool)).not.toContain('half_made');
      } finally {
        await pool.end();
      }
    });

    it('refuses a database whose schema is newer than this cairn', async () => {
      const url = emptyDatabase();
      const pool = openPool(url);
      try {
        await migrate(pool);
        await pool.query(`INSERT INTO schema_migrations (version, name) VALUES (99, 'from the future')`);
      } finally {
        await pool.end();
      }
      await expect(PostgresServerStore.open({ connectionString: url })).rejects.toThrow(
        /schema is at version 99, newer than this cairn knows/,
      );
    });

    it('says which database it cannot open, without its password', async () => {
      const url = cluster.url.replace('cairn@/cairn?', 'cairn:secret-password@/no_such_database?');
      const opening = PostgresServerStore.open({ connectionString: url });
      await expect(opening).rejects.toThrow(
        /cannot open the PostgreSQL database .*no_such_database.*does not exist/,
      );
      await expect(opening).rejects.toThrow(/cairn:\*\*\*@/);
      await expect(opening).rejects.not.toThrow(/secret-password/);
    });

    it('applies each migration once when several processes start on an empty database at once', async () => {
      const url = emptyDatabase();
      const pools = Array.from({ length: 4 }, () => openPool(url, 2));
      try {
        const applied = await Promise.all(pools.map((pool) => migrate(pool)));
        expect(applied.flat().sort()).toEqual(MIGRATIONS.map((m) => m.version));
        expect(applied.filter((a) => a.length > 0).length).toBe(1);
        expect(await appliedMigrations(pools[0]!)).toEqual(MIGRATIONS.map((m) => m.version));
      } finally {
        await Promise.all(pools.map((pool) => pool.end()));
      }
    });
  });

  describe('several server processes on one database', () => {
    it('stores each event of a session once and in order when two pools append it at once', async () => {
      const url = emptyDatabase();
      const [one, two] = [await openAt(url), await openAt(url)];
      try {
        const source = corpusEvents();
        // Enough events for many interleavings: the corpus session's lines, again and again.
        const events = Array.from({ length: 600 }, (_, i) => ({ ...source[i % source.length]!, seq: i + 1 }));
        await one.drive.upsert(drivenSession('s1'));
        // Both processes receive the whole stream (a workstation replaying to the one it
        // reconnected to while the other still had it), in batches of different sizes.
        const feed = async (store: ServerStore, size: number) => {
          let stored = 0;
          for (let at = 0; at < events.length; at += size) {
            const outcome = await store.drive.append('s1', events.slice(at, at + size));
            expect(outcome.gapAt).toBeUndefined();
            stored += outcome.stored;
          }
          return stored;
        };
        const stored = await Promise.all([feed(one, 7), feed(two, 11), feed(one, 13), feed(two, 3)]);
        expect(stored.reduce((a, b) => a + b, 0)).toBe(events.length);
        expect(await two.drive.heldSeq('s1')).toBe(events.length);
        const read = await one.drive.events('s1');
        expect(read.map((e) => e.seq)).toEqual(events.map((e) => e.seq));
        expect(read).toEqual(events);
      } finally {
        await Promise.all([one.close(), two.close()]);
      }
    });

    it('refuses the events past a gap whichever pool holds the session’s next seq', async () => {
      const url = emptyDatabase();
      const [one, two] = [await openAt(url), await openAt(url)];
      try {
        const events = corpusEvents().slice(0, 6);
        await one.drive.upsert(drivenSession('s1'));
        await one.drive.append('s1', events.slice(0, 2));
        expect(await two.drive.append('s1', events.slice(3))).toMatchObject({
          stored: 0,
          gapAt: 4,
          heldSeq: 2,
        });
        expect(await two.drive.append('s1', events.slice(2))).toMatchObject({ stored: 4, heldSeq: 6 });
      } finally {
        await Promise.all([one.close(), two.close()]);
      }
    });

    it('tells a subscriber on one process of the events another process stores', async () => {
      const url = emptyDatabase();
      const [one, two] = [await openAt(url), await openAt(url)];
      try {
        const events = corpusEvents();
        await one.drive.upsert(drivenSession('s1'));
        const seen: number[] = [];
        await two.drive.subscribe('s1', 0, (batch) => seen.push(...batch.map((e) => e.seq)));
        for (const event of events) await one.drive.append('s1', [event]);
        await vi.waitFor(() => expect(seen).toEqual(events.map((e) => e.seq)));
      } finally {
        await Promise.all([one.close(), two.close()]);
      }
    });

    it('misses nothing when the listening connection is cut: it listens again and reads on', async () => {
      const url = emptyDatabase();
      const [one, two] = [await openAt(url), await openAt(url)];
      try {
        const events = corpusEvents().slice(0, 20);
        await one.drive.upsert(drivenSession('s1'));
        const seen: number[] = [];
        await two.drive.subscribe('s1', 0, (batch) => seen.push(...batch.map((e) => e.seq)));
        await one.drive.append('s1', events.slice(0, 5));
        await vi.waitFor(() => expect(seen).toEqual([1, 2, 3, 4, 5]));
        const cut = await one.pool.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1',
          [FEED_APPLICATION_NAME],
        );
        expect(cut.rowCount).toBe(1);
        // Stored while neither process listens: read when they listen again.
        await one.drive.append('s1', events.slice(5, 12));
        await vi.waitFor(() => expect(seen).toEqual(events.slice(0, 12).map((e) => e.seq)), {
          timeout: 10_000,
        });
        await one.drive.append('s1', events.slice(12));
        await vi.waitFor(() => expect(seen).toEqual(events.map((e) => e.seq)), { timeout: 10_000 });
      } finally {
        await Promise.all([one.close(), two.close()]);
      }
    });

    it('numbers the messages of one chat without a gap or a double when two pools add at once', async () => {
      const url = emptyDatabase();
      const [one, two] = [await openAt(url), await openAt(url)];
      try {
        const project = await one.chat.project('/p');
        const session = await one.chat.createSession(project.id, 'claude', null);
        const add = (store: ServerStore, n: number) =>
          store.chat.addMessage({
            id: `m${n}`,
            sessionId: session.id,
            role: 'user',
            content: `message ${n}`,
            events: '',
            createdAt: n,
            images: [],
            outputTokens: null,
            durationMs: null,
            tokensPerSecond: null,
            ttftMs: null,
          });
        await Promise.all(Array.from({ length: 40 }, (_, n) => add(n % 2 === 0 ? one : two, n)));
        const sequences = (await two.chat.messages(session.id)).map((m) => m.sequence);
        expect(sequences).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
      } finally {
        await Promise.all([one.close(), two.close()]);
      }
    });

    it('tells every process of the sessions another one synced', async () => {
      const url = emptyDatabase();
      const [a, b] = [await openAt(url), await openAt(url)];
      try {
        const heard: unknown[] = [];
        await b.synced.onChange((change) => heard.push(change));
        const head = { agent: 'codex', sid: 'r1', path: '/p/r1.jsonl', size: 1, active: false };
        await a.synced.put('vm', [{ agent: 'codex', sid: 'r1', stamp: 'v1', head }]);
        await vi.waitFor(() =>
          expect(heard).toEqual([{ workstation: 'vm', sessions: [{ agent: 'codex', sid: 'r1' }] }]),
        );
        expect((await b.synced.list(['vm'])).map((r) => r.sid)).toEqual(['r1']);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it('issues one ticket for a name when two processes issue it at once', async () => {
      const url = emptyDatabase();
      const [one, two] = [await openAt(url), await openAt(url)];
      try {
        const results = await Promise.all([one, two, one, two].map((s) => s.tickets.issue('laptop')));
        expect(results.filter((r) => r.ok).length).toBe(1);
        expect(await one.tickets.list()).toHaveLength(1);
      } finally {
        await Promise.all([one.close(), two.close()]);
      }
    });
  });
});
