// `cairn serve --database`: the server's state in PostgreSQL. Two serve processes start on one
// database (the second from CAIRN_DATABASE_URL), the connection string is shown without its
// password, and a string that is not PostgreSQL's, or a database that is not there, is refused
// with a clear error.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresCluster, startPostgresCluster } from '../../server/test/support/postgres-cluster.js';
import { spawnServe } from '../../server/test/support/server-process.js';

const PASSWORD = 'not-to-be-shown-7c1f';

let cluster: PostgresCluster;
beforeAll(() => {
  cluster = startPostgresCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** The cluster trusts its socket: any password gets in, and none may be printed. */
const withPassword = (url: string) => url.replace('postgresql://cairn@', `postgresql://cairn:${PASSWORD}@`);

const serve = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnServe({
    home: mkdtempSync(join(tmpdir(), 'cairn-serve-db-')),
    args,
    env,
    onCleanup: (stop) => stops.push(stop),
    stop: 'SIGTERM',
  });

describe('cairn serve --database', () => {
  it('runs two servers on one PostgreSQL database, showing its address without the password', async () => {
    const url = withPassword(cluster.createDatabase('serve_two'));
    const first = serve(['--database', url]);
    const second = serve([], { CAIRN_DATABASE_URL: url });
    await first.serving;
    await second.serving;
    for (const s of [first, second]) {
      expect(s.err()).toContain('cairn: state in PostgreSQL at postgresql://cairn:***@/serve_two');
      expect(s.out() + s.err()).not.toContain(PASSWORD);
    }
    // The schema the servers share was made once, by whichever came first.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>(
        `SELECT count(*) AS n FROM pg_tables WHERE schemaname = 'public' AND tablename = 'driven_events'`,
      );
      expect(Number(rows[0]!.n)).toBe(1);
    } finally {
      await client.end();
    }
  }, 60_000);

  it('refuses a connection string that is not PostgreSQL’s, and a database that is not there', async () => {
    const wrong = serve(['--database', `mysql://cairn:${PASSWORD}@localhost/cairn`]);
    expect(await wrong.exited).toBe(2);
    expect(wrong.err()).toContain('--database takes a PostgreSQL connection string');
    expect(wrong.err()).not.toContain(PASSWORD);

    const missing = serve(['--database', withPassword(cluster.url.replace('@/cairn?', '@/no_such_db?'))]);
    expect(await missing.exited).not.toBe(0);
    expect(missing.err()).toContain('cannot open the PostgreSQL database postgresql://cairn:***@/no_such_db');
    expect(missing.err()).not.toContain(PASSWORD);
  }, 60_000);
});
