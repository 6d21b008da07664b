// `cairn server user …` and `cairn server workstation …`: a team server's people and machines in
// its PostgreSQL database. A token or ticket is printed once and kept as its SHA-256 only; the
// database's address is never printed with its password; without a database the commands say so.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PostgresCluster, startPostgresCluster } from '../../server/test/support/postgres-cluster.js';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/cairn.js');
const PASSWORD = 'never-printed-91ab';

let cluster: PostgresCluster;
let url: string;
beforeAll(() => {
  cluster = startPostgresCluster();
  // The cluster trusts its socket: any password gets in, and none may be printed.
  url = cluster
    .createDatabase('people_cli')
    .replace('postgresql://cairn@', `postgresql://cairn:${PASSWORD}@`);
});
afterAll(async () => {
  await cluster?.stop();
});

function cairn(args: string[], env: NodeJS.ProcessEnv = {}) {
  const home = mkdtempSync(join(tmpdir(), 'cairn-server-cli-'));
  const run = spawnSync(process.execPath, [bin, 'server', ...args], {
    env: { PATH: process.env.PATH, HOME: home, CAIRN_HOME: join(home, '.cairn'), ...env },
    encoding: 'utf8',
  });
  expect(run.stdout + run.stderr).not.toContain(PASSWORD);
  return { status: run.status, out: run.stdout, err: run.stderr };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();

async function query<T extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

describe('cairn server user', () => {
  it('adds people with a token shown once and kept hashed, lists them, renews a token and removes them', async () => {
    const added = cairn(['user', 'add', 'ada', '--role', 'admin', '--database', url]);
    expect(added.status, added.err).toBe(0);
    const token = added.out.trim();
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(added.err).toContain('the token of ada (admin); it is shown only now');

    const member = cairn(['user', 'add', 'bob', '--json'], { CAIRN_DATABASE_URL: url });
    expect(member.status, member.err).toBe(0);
    const bob = JSON.parse(member.out);
    expect(bob).toEqual({
      name: 'bob',
      role: 'member',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      token: expect.any(String),
    });

    // Only the digests are in the database.
    const rows = await query<{ name: string; token_sha256: Buffer }>(
      'SELECT name, token_sha256 FROM users ORDER BY name',
    );
    expect(rows).toEqual([
      { name: 'ada', token_sha256: sha256(token) },
      { name: 'bob', token_sha256: sha256(bob.token) },
    ]);
    expect(JSON.stringify(await query('SELECT * FROM users'))).not.toContain(token);

    const listed = cairn(['user', 'list', '--json', '--database', url]);
    expect(JSON.parse(listed.out).map((u: { name: string; role: string }) => [u.name, u.role])).toEqual([
      ['ada', 'admin'],
      ['bob', 'member'],
    ]);
    const plain = cairn(['user', 'list', '--database', url]);
    expect(plain.out).toMatch(/^ada {2}admin {3}\d{4}-\d\d-\d\d \d\d:\d\d\nbob {2}member {2}/);
    expect(plain.out).not.toContain(token);

    const renewed = cairn(['user', 'token', 'bob', '--database', url]);
    expect(renewed.status, renewed.err).toBe(0);
    const fresh = renewed.out.trim();
    expect(fresh).not.toBe(bob.token);
    expect(renewed.err).toContain('the old one no longer signs in');
    expect(
      (await query<{ token_sha256: Buffer }>("SELECT token_sha256 FROM users WHERE name = 'bob'"))[0],
    ).toEqual({
      token_sha256: sha256(fresh),
    });

    const taken = cairn(['user', 'add', 'ada', '--database', url]);
    expect(taken).toMatchObject({ status: 1, err: 'cairn server: there is already a user named ada\n' });
    const removed = cairn(['user', 'remove', 'bob', '--database', url]);
    expect(removed).toMatchObject({ status: 0, out: 'removed user bob\n' });
    expect(cairn(['user', 'remove', 'bob', '--database', url])).toMatchObject({
      status: 1,
      err: 'cairn server: no user named bob\n',
    });
  }, 60_000);

  it('refuses without a database, a wrong role or name, and an address that is not PostgreSQL’s', () => {
    const none = cairn(['user', 'list']);
    expect(none.status).toBe(2);
    expect(none.err).toContain('give --database or set CAIRN_DATABASE_URL');
    const role = cairn(['user', 'add', 'eve', '--role', 'owner', '--database', url]);
    expect(role.status).toBe(2);
    expect(role.err).toContain("--role is admin or member, got 'owner'");
    const name = cairn(['user', 'add', 'a b', '--database', url]);
    expect(name.status).toBe(2);
    expect(name.err).toContain('not a user name: "a b"');
    const mysql = cairn(['user', 'list', '--database', `mysql://cairn:${PASSWORD}@localhost/x`]);
    expect(mysql.status).toBe(2);
    expect(mysql.err).toContain('--database takes a PostgreSQL connection string');
    const missing = cairn(['user', 'list', '--database', url.replace('/people_cli?', '/no_such_db?')]);
    expect(missing.status).toBe(1);
    expect(missing.err).toContain('cannot open the PostgreSQL database postgresql://cairn:***@/no_such_db');
  }, 60_000);
});

describe('cairn server workstation', () => {
  it('registers a workstation to a user with its ticket shown once, lists and removes it', async () => {
    expect(cairn(['user', 'add', 'olga', '--database', url]).status).toBe(0);
    const added = cairn([
      'workstation',
      'add',
      'laptop',
      '--owner',
      'olga',
      '--shared',
      '--json',
      '--database',
      url,
    ]);
    expect(added.status, added.err).toBe(0);
    const laptop = JSON.parse(added.out);
    expect(laptop).toMatchObject({
      name: 'laptop',
      owner: 'olga',
      visibility: 'shared',
      ticket: expect.any(String),
    });
    expect(await query('SELECT name, sha256 FROM workstation_tickets WHERE name = $1', ['laptop'])).toEqual([
      { name: 'laptop', sha256: sha256(laptop.ticket) },
    ]);

    const box = cairn(['workstation', 'add', 'box', '--owner', 'olga', '--database', url]);
    expect(box.status, box.err).toBe(0);
    expect(box.err).toContain('the ticket of box (private, owned by olga); it is shown only now');

    const listed = cairn(['workstation', 'list', '--json', '--database', url]);
    const rows = JSON.parse(listed.out);
    expect(rows.map((w: { name: string; visibility: string }) => [w.name, w.visibility])).toEqual([
      ['box', 'private'],
      ['laptop', 'shared'],
    ]);
    expect(rows[1].ticket_issued_at).toEqual(laptop.ticket_issued_at);
    expect(listed.out).not.toContain(laptop.ticket);

    expect(cairn(['workstation', 'add', 'nas', '--owner', 'nobody', '--database', url])).toMatchObject({
      status: 1,
      err: 'cairn server: no user named nobody to own workstation nas\n',
    });
    expect(cairn(['workstation', 'add', 'local', '--owner', 'olga', '--database', url]).status).toBe(2);
    expect(cairn(['user', 'remove', 'olga', '--database', url])).toMatchObject({
      status: 1,
      err: 'cairn server: user olga still owns workstations: box, laptop; remove them first\n',
    });
    expect(cairn(['workstation', 'remove', 'laptop', '--database', url])).toMatchObject({ status: 0 });
    expect(await query('SELECT name FROM workstation_tickets WHERE name = $1', ['laptop'])).toEqual([]);
    expect(cairn(['workstation', 'remove', 'laptop', '--database', url]).status).toBe(1);
  }, 60_000);
});
