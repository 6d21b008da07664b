// A person signs in to a team's server (state in PostgreSQL) in a real browser with their own
// token: the page connects with it as it does with the daemon's, keeps it in its origin's storage,
// and what it asks for is answered for that person; a token that is no one's is refused as ever.
import { startServer } from '@cairn/server';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresServerStore } from '../../server/src/storage/postgres-store.js';
import { type PostgresCluster, startPostgresCluster } from '../../server/test/support/postgres-cluster.js';
import { buildUi, homeEnv, launch, openPage, tempDir } from './harness.js';

const SLOW = 120_000;

let webRoot: string;
let browser: Browser;
let cluster: PostgresCluster;

beforeAll(async () => {
  cluster = startPostgresCluster();
  [webRoot, browser] = await Promise.all([buildUi(), launch()]);
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await cluster?.stop();
});

describe('signing in to a team server', () => {
  it(
    'connects with a user’s own token, sees only what is theirs, and refuses a token that is no one’s',
    async () => {
      const url = cluster.createDatabase('sign_in');
      const store = await PostgresServerStore.open({ connectionString: url, maxConnections: 2 });
      const { token } = await store.users.add('mike', 'member');
      await store.users.add('olga', 'member');
      await store.workstations.add('olga-box', 'olga', 'private');
      await store.workstations.add('team-box', 'olga', 'shared');
      for (const name of ['olga-box', 'team-box']) expect((await store.tickets.issue(name)).ok).toBe(true);
      const env = homeEnv(tempDir('cairn-home-'));
      const cairnHome = tempDir('cairn-state-');
      const server = await startServer({
        env,
        homeDir: env.HOME,
        cairnHome,
        webRoot,
        port: 0,
        waitForIndex: true,
        demo: false,
        rescanMs: 60_000,
        database: url,
      });
      try {
        const base = `http://127.0.0.1:${server.port}/`;
        const { page, context, errors } = await openPage(browser, {
          server,
          cairnHome,
          base,
          entry: `${base}?token=${token}`,
        });
        await page.waitForSelector('.conn.conn-open', { timeout: 20_000 });
        expect(page.url()).toBe(base);
        // The page keeps mike's token, and the server answers it as mike's: the shared machine
        // (offline, known by its ticket) is listed, olga's private one is not.
        const seen = await page.evaluate(async () => {
          const kept = localStorage.getItem('cairn.token');
          for (let i = 0; i < 100; i++) {
            const res = await fetch('api/workstations', { headers: { authorization: `Bearer ${kept}` } });
            const names = ((await res.json()) as { workstations: { name: string }[] }).workstations.map(
              (w) => w.name,
            );
            if (names.length > 0) return { kept, names };
            await new Promise((r) => setTimeout(r, 100));
          }
          return { kept, names: [] as string[] };
        });
        expect(seen).toEqual({ kept: token, names: ['team-box'] });
        expect(errors).toEqual([]);

        const stranger = await context.newPage();
        const refused = await stranger.goto(`${base}?token=not-anyones-token`);
        expect(refused?.status()).toBe(401);
        expect(await stranger.locator('body').textContent()).toContain('missing or wrong token');
        await context.close();
      } finally {
        await server.close();
        await store.close();
      }
    },
    SLOW,
  );
});
