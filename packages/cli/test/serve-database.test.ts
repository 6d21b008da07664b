// `cairn serve --database`: the server's state in PostgreSQL. Two serve processes start on one
// database (the second from CAIRN_DATABASE_URL), the connection string is shown without its
// password, and a string that is not PostgreSQL's, or a database that is not there, is refused
// with a clear error.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresCluster, startPostgresCluster } from '../../server/test/support/postgres-cluster.js';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/cairn.js');
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

interface Serve {
  readonly child: ChildProcess;
  out: string;
  err: string;
  readonly exited: Promise<number | null>;
}

function serve(args: string[], extra: NodeJS.ProcessEnv = {}): Serve {
  const root = mkdtempSync(join(tmpdir(), 'cairn-serve-db-'));
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--no-demo', ...args], {
    env: { PATH: process.env.PATH, HOME: root, CAIRN_HOME: join(root, '.cairn'), ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const served: Serve = { child, out: '', err: '', exited };
  child.stdout!.on('data', (chunk) => {
    served.out += chunk;
  });
  child.stderr!.on('data', (chunk) => {
    served.err += chunk;
  });
  stops.push(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  });
  return served;
}

async function serving(s: Serve): Promise<void> {
  await expect
    .poll(() => s.out.includes('cairn: serving at') || s.child.exitCode !== null, { timeout: 30_000 })
    .toBe(true);
  expect(s.child.exitCode, s.err).toBeNull();
}

describe('cairn serve --database', () => {
  it('runs two servers on one PostgreSQL database, showing its address without the password', async () => {
    const url = withPassword(cluster.createDatabase('serve_two'));
    const first = serve(['--database', url]);
    const second = serve([], { CAIRN_DATABASE_URL: url });
    await serving(first);
    await serving(second);
    for (const s of [first, second]) {
      expect(s.err).toContain('cairn: state in PostgreSQL at postgresql://cairn:***@/serve_two');
      expect(s.out + s.err).not.toContain(PASSWORD);
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
    expect(wrong.err).toContain('--database takes a PostgreSQL connection string');
    expect(wrong.err).not.toContain(PASSWORD);

    const missing = serve(['--database', withPassword(cluster.url.replace('@/cairn?', '@/no_such_db?'))]);
    expect(await missing.exited).not.toBe(0);
    expect(missing.err).toContain('cannot open the PostgreSQL database postgresql://cairn:***@/no_such_db');
    expect(missing.err).not.toContain(PASSWORD);
  }, 60_000);
});
