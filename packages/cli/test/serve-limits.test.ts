// `cairn serve --max-workstations N --max-event-rate N`: the agent wire's limits from the command
// line reach the server (the workstation past the limit is refused at `/agent`, told why), and a
// value that is not a whole number from 1 is refused before anything starts.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { issueTicket } from '@cairn/server';
import { afterEach, describe, expect, it } from 'vitest';
import { bearer, upgradeTo } from '../../server/test/support/upgrade.js';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/cairn.js');

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

interface Serve {
  readonly child: ChildProcess;
  readonly cairnHome: string;
  out: string;
  err: string;
  readonly exited: Promise<number | null>;
}

function serve(args: string[], extra: NodeJS.ProcessEnv = {}): Serve {
  const root = mkdtempSync(join(tmpdir(), 'cairn-serve-limits-'));
  const cairnHome = join(root, '.cairn');
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--no-demo', ...args], {
    env: { PATH: process.env.PATH, HOME: root, CAIRN_HOME: cairnHome, ...extra },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const served: Serve = { child, cairnHome, out: '', err: '', exited };
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

/** The answer to an upgrade to `/agent`; a socket that opens stays open, holding its place. */
const upgrade = (port: string, ticket: string) =>
  upgradeTo(`ws://127.0.0.1:${port}/agent`, {
    headers: bearer(ticket),
    hold: (ws) => stops.push(async () => ws.terminate()),
  });

describe('cairn serve with the agent wire limits', () => {
  it('refuses the workstation past --max-workstations, saying why', async () => {
    const s = serve(['--max-workstations', '1', '--max-event-rate', '500']);
    await expect
      .poll(() => s.out.includes('cairn: serving at') || s.child.exitCode !== null, { timeout: 30_000 })
      .toBe(true);
    expect(s.child.exitCode, s.err).toBeNull();
    const port = /:(\d+)\//.exec(s.out)![1]!;
    expect(await upgrade(port, issueTicket(s.cairnHome, 'one'))).toEqual({ status: 101, body: '' });
    expect(await upgrade(port, issueTicket(s.cairnHome, 'two'))).toEqual({
      status: 503,
      body: 'workstation limit reached: this server takes 1 at once; try again later\n',
    });
  }, 60_000);

  it('refuses a limit that is not a whole number from 1, from a flag or its variable', async () => {
    const zero = serve(['--max-event-rate', '0']);
    expect(await zero.exited).toBe(2);
    expect(zero.err).toContain('--max-event-rate takes a whole number from 1, got 0');
    const words = serve([], { CAIRN_MAX_WORKSTATIONS: 'many' });
    expect(await words.exited).toBe(2);
    expect(words.err).toContain('--max-workstations takes a whole number from 1, got many');
  }, 60_000);
});
