// `cairn serve --max-workstations N --max-event-rate N`: the agent wire's limits from the command
// line reach the server (the workstation past the limit is refused at `/agent`, told why), and a
// value that is not a whole number from 1 is refused before anything starts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueTicket } from '@cairn/server';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnServe } from '../../server/test/support/server-process.js';
import { bearer, upgradeTo } from '../../server/test/support/upgrade.js';

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

const serve = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnServe({
    home: mkdtempSync(join(tmpdir(), 'cairn-serve-limits-')),
    args,
    env,
    onCleanup: (stop) => stops.push(stop),
    stop: 'SIGTERM',
  });

/** The answer to an upgrade to `/agent`; a socket that opens stays open, holding its place. */
const upgrade = (port: string, ticket: string) =>
  upgradeTo(`ws://127.0.0.1:${port}/agent`, {
    headers: bearer(ticket),
    hold: (ws) => stops.push(async () => ws.terminate()),
  });

describe('cairn serve with the agent wire limits', () => {
  it('refuses the workstation past --max-workstations, saying why', async () => {
    const s = serve(['--max-workstations', '1', '--max-event-rate', '500']);
    const port = new URL(await s.serving).port;
    expect(await upgrade(port, issueTicket(s.cairnHome, 'one'))).toEqual({ status: 101, body: '' });
    expect(await upgrade(port, issueTicket(s.cairnHome, 'two'))).toEqual({
      status: 503,
      body: 'workstation limit reached: this server takes 1 at once; try again later\n',
    });
  }, 60_000);

  it('refuses a limit that is not a whole number from 1, from a flag or its variable', async () => {
    const zero = serve(['--max-event-rate', '0']);
    expect(await zero.exited).toBe(2);
    expect(zero.err()).toContain('--max-event-rate takes a whole number from 1, got 0');
    const words = serve([], { CAIRN_MAX_WORKSTATIONS: 'many' });
    expect(await words.exited).toBe(2);
    expect(words.err()).toContain('--max-workstations takes a whole number from 1, got many');
  }, 60_000);
});
