// `cairn workstation`: tickets are issued once per name, listed without their secrets, revoked by
// name; a workstation takes its ticket from CAIRN_TICKET or a file, never from the command line.
import { type ChildProcess, spawn } from 'node:child_process';
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunningServer, startServer } from '@cairn/server';
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../server/test/helpers.js';
import { cairn, corpusEnv } from './run.js';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/cairn.js');

const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

const temp = () => mkdtempSync(join(tmpdir(), 'cairn-cli-ws-'));

/** An environment with a CAIRN_HOME of its own and nothing else of cairn's. */
function homeEnv(): NodeJS.ProcessEnv & { CAIRN_HOME: string } {
  const root = temp();
  return { PATH: process.env.PATH, HOME: root, CAIRN_HOME: join(root, '.cairn') };
}

/** A server over an empty home under `root`, without a workstation of its own. */
async function serverIn(root: string): Promise<RunningServer> {
  const server = await startServer({
    env: { HOME: root },
    homeDir: root,
    cairnHome: join(root, 'server'),
    demo: false,
    localWorkstation: false,
    port: 0,
  });
  stops.push(() => server.close());
  return server;
}

describe('cairn workstation ticket', () => {
  it('issues one ticket per name: a second is refused until --replace, which revokes the first', () => {
    const env = homeEnv();
    const first = cairn(['workstation', 'ticket', 'laptop'], env);
    expect(first.status).toBe(0);
    const ticket = first.stdout.trim();
    expect(ticket).toMatch(/^[\w-]{32}$/);
    expect(first.stderr).toContain('CAIRN_TICKET');
    expect(readFileSync(join(env.CAIRN_HOME, 'workstations.json'), 'utf8')).not.toContain(ticket);

    const again = cairn(['workstation', 'ticket', 'laptop'], env);
    expect(again.status).toBe(1);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe(
      'cairn workstation: workstation laptop already has a ticket; revoke it first, or issue with --replace\n',
    );

    const replaced = cairn(['workstation', 'ticket', 'laptop', '--replace', '--json'], env);
    expect(replaced.status).toBe(0);
    const answer = JSON.parse(replaced.stdout);
    expect(answer).toMatchObject({ name: 'laptop', replaced: 1 });
    expect(answer.ticket).not.toBe(ticket);
    expect(answer.issued_at).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('lists names and dates without the secrets, and revokes by name', () => {
    const env = homeEnv();
    const laptop = cairn(['workstation', 'ticket', 'laptop'], env).stdout.trim();
    const nas = cairn(['workstation', 'ticket', 'nas'], env).stdout.trim();
    const listed = cairn(['workstation', 'ticket', '--list'], env);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toMatch(/^laptop {2}\d{4}-\d\d-\d\dT\S+Z\nnas {5}\d{4}-\d\d-\d\dT\S+Z\n$/);
    const json = cairn(['workstation', 'ticket', '--list', '--json'], env);
    expect(JSON.parse(json.stdout).map((t: { name: string }) => t.name)).toEqual(['laptop', 'nas']);
    for (const out of [listed.stdout, json.stdout]) {
      expect(out).not.toContain(laptop);
      expect(out).not.toContain(nas);
    }

    const revoked = cairn(['workstation', 'ticket', '--revoke', 'laptop', '--json'], env);
    expect(revoked.status).toBe(0);
    expect(JSON.parse(revoked.stdout)).toEqual({ name: 'laptop', revoked: 1 });
    const twice = cairn(['workstation', 'ticket', '--revoke', 'laptop'], env);
    expect(twice.status).toBe(1);
    expect(twice.stderr).toBe('cairn workstation: workstation laptop has no ticket\n');
    expect(JSON.parse(cairn(['workstation', 'ticket', '--list', '--json'], env).stdout)).toEqual([
      { name: 'nas', issued_at: expect.any(String) },
    ]);
    // With the name free again, a new ticket needs no --replace.
    expect(cairn(['workstation', 'ticket', 'laptop'], env).status).toBe(0);
  });

  it('refuses wrong arguments with usage errors', () => {
    const env = homeEnv();
    const cases: [string[], RegExp][] = [
      [['workstation', 'ticket'], /a ticket needs a workstation name/],
      [['workstation', 'ticket', 'a b'], /not a workstation name: 'a b'/],
      [['workstation', 'ticket', 'x', 'y'], /unexpected argument 'y'/],
      [['workstation', 'ticket', 'local'], /'local' is the daemon's own workstation, which needs no ticket/],
      [['workstation', 'ticket', '--list', 'x'], /--list takes no name/],
      [['workstation', 'ticket', '--revoke', 'x', '--replace'], /--revoke takes one name/],
      [['workstation', 'ticket', '--revoke'], /--revoke needs a value/],
      [['workstation', '--list'], /go with `cairn workstation ticket`/],
      [
        ['workstation', 'ticket', 'x', '--server', 'http://h'],
        /--server, --ticket-file and --sync are for running/,
      ],
      [['workstation', 'ticket', 'x', '--sync'], /--server, --ticket-file and --sync are for running/],
      [
        ['workstation', '--server', 'http://127.0.0.1:1,127.0.0.1:2'],
        /--server takes the server's address, like http:\/\/127\.0\.0\.1:4000 \(got '127\.0\.0\.1:2'\)/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = cairn(args, env);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toMatch(message);
      expect(r.stderr, args.join(' ')).toContain('usage: cairn workstation');
    }
  });
});

describe('cairn workstation --server', () => {
  it('refuses a ticket on the command line, saying where it belongs', () => {
    for (const args of [
      ['workstation', '--server', 'http://127.0.0.1:1', '--ticket', 'secret'],
      ['workstation', '--server', 'http://127.0.0.1:1', '--ticket=secret'],
      ['workstation', '--ticket'],
    ]) {
      const r = cairn(args, homeEnv());
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/^cairn workstation: --ticket would show the ticket to every user/);
      expect(r.stderr).toContain('CAIRN_TICKET');
      expect(r.stderr).toContain('--ticket-file');
    }
  });

  it('needs a ticket from CAIRN_TICKET or a readable file', () => {
    const env = homeEnv();
    const none = cairn(['workstation', '--server', 'http://127.0.0.1:1'], env);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/a ticket is needed: set CAIRN_TICKET or name a file with --ticket-file/);
    const missing = cairn(
      ['workstation', '--server', 'http://127.0.0.1:1', '--ticket-file', '/nonexistent/t'],
      env,
    );
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/cannot read the ticket file \/nonexistent\/t/);
    const empty = join(temp(), 'empty');
    writeFileSync(empty, '\n', { mode: 0o600 });
    const blank = cairn(['workstation', '--server', 'http://127.0.0.1:1', '--ticket-file', empty], env);
    expect(blank.status).toBe(1);
    expect(blank.stderr).toMatch(/does not hold a ticket/);
  });

  it('connects with a ticket read from --ticket-file, and with one from CAIRN_TICKET', async () => {
    const root = temp();
    const server = await serverIn(root);
    const url = `http://127.0.0.1:${server.port}`;
    const serverEnv = { PATH: process.env.PATH, HOME: root, CAIRN_HOME: server.home };
    const issue = (name: string) => cairn(['workstation', 'ticket', name], serverEnv).stdout.trim();

    const start = (name: string, args: string[], extra: NodeJS.ProcessEnv = {}): ChildProcess => {
      const home = join(root, name);
      mkdirSync(home, { recursive: true });
      const child = spawn(process.execPath, [bin, 'workstation', '--server', url, ...args], {
        env: { PATH: process.env.PATH, HOME: home, CAIRN_HOME: home, ...extra },
        stdio: 'ignore',
      });
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      stops.push(async () => {
        if (child.exitCode === null) child.kill('SIGTERM');
        await exited;
      });
      return child;
    };
    const file = join(root, 'laptop.ticket');
    writeFileSync(file, `${issue('laptop')}\n`, { mode: 0o600 });
    const viaFile = start('laptop', ['--ticket-file', file]);
    start('nas', [], { CAIRN_TICKET: issue('nas') });
    expect(await server.drive.wire.waitForWorkstation('laptop', 20_000)).toBe(true);
    expect(await server.drive.wire.waitForWorkstation('nas', 20_000)).toBe(true);
    // No ticket in any workstation's command line.
    const argv = readFileSync(`/proc/${viaFile.pid}/cmdline`, 'utf8');
    expect(argv).toContain('--ticket-file');
    expect(argv).not.toContain(readFileSync(file, 'utf8').trim());
  }, 60_000);
});

describe('cairn workstation --sync', () => {
  it('puts its machine’s sessions in the server’s list, marked with the machine', async () => {
    const root = temp();
    const server = await serverIn(root);
    const serverEnv = { PATH: process.env.PATH, HOME: root, CAIRN_HOME: server.home };
    const ticket = cairn(['workstation', 'ticket', 'laptop'], serverEnv).stdout.trim();
    // The machine: the corpus's agents' homes, and a cairn home of its own.
    const machine = corpusEnv();
    const child = spawn(
      process.execPath,
      [bin, 'workstation', '--server', `http://127.0.0.1:${server.port}`, '--sync'],
      { env: { ...machine, CAIRN_HOME: join(root, 'laptop'), CAIRN_TICKET: ticket } },
    );
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    stops.push(async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    });
    // What the machine itself lists: `cairn sessions` over the same homes.
    const own = (
      JSON.parse(cairn(['sessions', '--json', '--limit', '1000'], machine).stdout) as {
        sessions: { agent: string; id: string }[];
      }
    ).sessions;
    expect(own.length).toBeGreaterThan(5);
    await expect.poll(() => stderr, { timeout: 30_000 }).toMatch(/this machine's sessions are synced/);
    const client = await Client.open(server);
    stops.push(() => client.close());
    const reply = await client.request('session_list', { limit: 2000 });
    const listed = reply.sessions as { agent: string; sid: string; workstation?: string }[];
    expect(listed.map((s) => `${s.agent}:${s.sid}`).sort()).toEqual(
      own.map((s) => `${s.agent}:${s.id}`).sort(),
    );
    expect(listed.every((s) => s.workstation === 'laptop')).toBe(true);
  }, 60_000);
});

describe('what the CLI keeps under $CAIRN_HOME', () => {
  it('is its owner’s alone: the summary cache, dumps and tickets', () => {
    const env = corpusEnv();
    const home = env.CAIRN_HOME!;
    expect(cairn(['summary', '--all', '--json'], env).status).toBe(0);
    const sid = JSON.parse(cairn(['sessions', '--json'], env).stdout).sessions[0].id as string;
    expect(cairn(['dump', sid], env).status).toBe(0);
    expect(cairn(['workstation', 'ticket', 'laptop'], env).status).toBe(0);
    const walk = (path: string): [string, number][] => {
      const st = lstatSync(path);
      const here: [string, number] = [path.slice(home.length) || '/', st.mode & 0o777];
      return st.isDirectory() ? [here, ...readdirSync(path).flatMap((n) => walk(join(path, n)))] : [here];
    };
    const entries = walk(home);
    expect(entries.map(([p]) => p)).toEqual(
      expect.arrayContaining(['/', '/summaries.sqlite', '/dumps', '/workstations.json', '/instance-id']),
    );
    for (const [path, mode] of entries)
      expect(mode, path).toBe(lstatSync(join(home, path)).isDirectory() ? 0o700 : 0o600);
  }, 60_000);
});
