// Workstation tickets: kept as digests only, one per name unless replaced, revocable, and a revoked
// ticket is refused at the next connection.
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectToServer, Journal, rosterLaunchResolver, Workstation } from '@cairn/runner';
import { afterEach, describe, expect, it } from 'vitest';
import { storedTicketOwner } from '../src/drive/tickets.js';
import { issueTicket, listTickets, makeTicket, revokeTickets } from '../src/index.js';
import { homeEnv, serve, tempDir } from './helpers.js';
import { bearer, upgradeTo } from './support/upgrade.js';

const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

const fileOf = (home: string) => join(home, 'workstations.json');

describe('workstation tickets', () => {
  it('are 192-bit random secrets of which the file keeps only a SHA-256, in a file only its owner reads', () => {
    const home = join(tempDir(), 'fresh', 'cairn');
    const ticket = issueTicket(home, 'laptop');
    expect(Buffer.from(ticket, 'base64url')).toHaveLength(24);
    const text = readFileSync(fileOf(home), 'utf8');
    expect(text).not.toContain(ticket);
    expect(JSON.parse(text).workstations).toEqual([
      {
        name: 'laptop',
        sha256: createHash('sha256').update(ticket).digest('hex'),
        issuedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
    expect(lstatSync(fileOf(home)).mode & 0o777).toBe(0o600);
    expect(lstatSync(home).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(home, '..')).mode & 0o777).toBe(0o700);
    expect(storedTicketOwner(home, ticket)).toBe('laptop');
    expect(storedTicketOwner(home, `${ticket}x`)).toBeUndefined();
    expect(storedTicketOwner(home, '')).toBeUndefined();
    // The digest itself is not a ticket.
    expect(storedTicketOwner(home, JSON.parse(text).workstations[0].sha256)).toBeUndefined();
  });

  it('are one per name: a second is refused unless it replaces the first, which then stops working', () => {
    const home = tempDir();
    const first = makeTicket(home, 'laptop', { now: new Date('2026-01-02T03:04:05Z') });
    if (!first.ok) throw new Error(first.error.message);
    const again = makeTicket(home, 'laptop');
    expect(again).toEqual({
      ok: false,
      error: {
        _tag: 'TicketExists',
        name: 'laptop',
        message: 'workstation laptop already has a ticket; revoke it first, or issue with --replace',
      },
    });
    expect(() => issueTicket(home, 'laptop')).toThrow(/already has a ticket/);
    expect(storedTicketOwner(home, first.ticket)).toBe('laptop');

    const second = makeTicket(home, 'laptop', { replace: true });
    if (!second.ok) throw new Error(second.error.message);
    expect(second.replaced).toBe(1);
    expect(storedTicketOwner(home, first.ticket)).toBeUndefined();
    expect(storedTicketOwner(home, second.ticket)).toBe('laptop');
    expect(listTickets(home)).toEqual([{ name: 'laptop', issuedAt: second.issuedAt }]);
  });

  it('are listed by name and date, never the secret, and revoked by name', () => {
    const home = tempDir();
    const a = issueTicket(home, 'laptop');
    const b = issueTicket(home, 'build-box');
    const listed = listTickets(home);
    expect(listed.map((t) => t.name).sort()).toEqual(['build-box', 'laptop']);
    expect(JSON.stringify(listed)).not.toContain(a);
    expect(JSON.stringify(listed)).not.toContain(b);
    expect(revokeTickets(home, 'laptop')).toBe(1);
    expect(revokeTickets(home, 'laptop')).toBe(0);
    expect(storedTicketOwner(home, a)).toBeUndefined();
    expect(storedTicketOwner(home, b)).toBe('build-box');
    expect(listTickets(home).map((t) => t.name)).toEqual(['build-box']);
  });

  it('kept as plain text by an earlier cairn still work, and the file is rewritten without them', () => {
    const home = tempDir();
    mkdirSync(home, { recursive: true });
    const plain = { 'old-ticket-one': 'laptop', 'old-ticket-two': 'laptop', 'old-ticket-three': 'nas' };
    writeFileSync(fileOf(home), JSON.stringify({ tickets: plain }), { mode: 0o600 });
    expect(storedTicketOwner(home, 'old-ticket-two')).toBe('laptop');
    const text = readFileSync(fileOf(home), 'utf8');
    for (const ticket of Object.keys(plain)) expect(text).not.toContain(ticket);
    expect(storedTicketOwner(home, 'old-ticket-one')).toBe('laptop');
    expect(storedTicketOwner(home, 'old-ticket-three')).toBe('nas');
    expect(listTickets(home)).toEqual([{ name: 'laptop' }, { name: 'laptop' }, { name: 'nas' }]);
    // Both of the name's old tickets go with one revoke.
    expect(revokeTickets(home, 'laptop')).toBe(2);
    expect(storedTicketOwner(home, 'old-ticket-one')).toBeUndefined();
    expect(makeTicket(home, 'nas').ok).toBe(false);
  });

  it('revoked is refused at the /agent upgrade from then on', async () => {
    const server = await serve(homeEnv(tempDir()), { localWorkstation: false });
    stops.push(() => server.close());
    const ticket = issueTicket(server.home, 'laptop');
    const status = async () =>
      (await upgradeTo(`ws://127.0.0.1:${server.port}/agent`, { headers: bearer(ticket) })).status;
    expect(await status()).toBe(101);
    expect(revokeTickets(server.home, 'laptop')).toBe(1);
    expect(await status()).toBe(401);
  });

  it('revoked cuts a connected workstation at its next heartbeat, and its reconnects are refused', async () => {
    const server = await serve(homeEnv(tempDir()), { localWorkstation: false });
    stops.push(() => server.close());
    const ticket = issueTicket(server.home, 'laptop');
    const home = tempDir();
    const journal = Journal.open(join(home, 'journal.sqlite'));
    const workstation = new Workstation({
      ticket,
      cairnHome: home,
      journal,
      env: {},
      resolveLaunch: rosterLaunchResolver({ cairnHome: home }),
      heartbeatMs: 100,
    });
    const refusals: string[] = [];
    const client = connectToServer({
      serverUrl: `http://127.0.0.1:${server.port}`,
      ticket,
      workstation,
      log: (line) => refusals.push(line),
    });
    stops.push(async () => {
      client.close();
      await workstation.stop();
      journal.close();
    });
    const wire = server.drive.wire;
    expect(await wire.waitForWorkstation('laptop', 10_000)).toBe(true);
    revokeTickets(server.home, 'laptop');
    for (let i = 0; i < 100 && wire.workstations().includes('laptop'); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(wire.workstations()).toEqual([]);
    for (let i = 0; i < 100 && !refusals.some((l) => l.includes('(401)')); i++)
      await new Promise((r) => setTimeout(r, 50));
    expect(refusals).toContain('workstation: the server refused the connection (401)');
    expect(wire.workstations()).toEqual([]);
  });
});
