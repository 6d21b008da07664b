// The daemon's own workstation has no ticket for another process to guess or read: it is joined
// in process, its name cannot be claimed over the network, and a link that closes comes back.
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { issueTicket } from '../src/index.js';
import { homeEnv, serve, tempDir } from './helpers.js';

const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** Connects to /agent with a bearer and says hello; resolves with the upgrade status and the close reason. */
function tryWorkstation(port: number, ticket: string) {
  return new Promise<{ status: number; closed?: string }>((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/agent`, {
      headers: { authorization: `Bearer ${ticket}` },
    });
    ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0 }));
    ws.on('open', () => ws.send(JSON.stringify({ t: 'agent_hello', ticket })));
    ws.on('close', (_code, reason) => resolve({ status: 101, closed: reason.toString() }));
    ws.on('error', () => {});
  });
}

describe('the local workstation', () => {
  it('cannot be guessed from the daemon’s pid and start time, nor taken over by a ticket with its name', async () => {
    const server = await serve(homeEnv(tempDir()));
    stops.push(() => server.close());
    const wire = server.drive.wire;
    expect(await wire.waitForWorkstation('local')).toBe(true);
    // What the probe guessed from /proc: the old ticket's shape around the start time.
    const now = Date.now();
    for (const at of [now - 2, now - 1, now, process.uptime()])
      expect(await tryWorkstation(server.port, `local-${process.pid}-${Math.round(at)}`)).toEqual({
        status: 401,
      });
    // A real ticket that names `local` gets a connection but not the name.
    const ticket = issueTicket(server.home, 'local');
    expect(await tryWorkstation(server.port, ticket)).toEqual({
      status: 101,
      closed: 'the name local is reserved',
    });
    expect(wire.workstations()).toEqual(['local']);
    expect(wire.refusals()).toEqual({ local: 1 });
    expect(wire.roster('local').length).toBeGreaterThan(0);
  });

  it('connects again by itself when its link is closed', async () => {
    const server = await serve(homeEnv(tempDir()));
    stops.push(() => server.close());
    const wire = server.drive.wire;
    expect(await wire.waitForWorkstation('local')).toBe(true);
    expect(wire.disconnect('local', 'closed by the test')).toBe(true);
    expect(wire.workstations()).toEqual([]);
    expect(await wire.waitForWorkstation('local', 5_000)).toBe(true);
    expect(wire.roster('local').length).toBeGreaterThan(0);
  });
});
