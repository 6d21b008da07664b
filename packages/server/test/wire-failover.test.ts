// A workstation given the addresses of a team server's processes: the first refuses it (a process
// at its limit answers 503), so it connects to the next; when that process is killed mid-turn it
// moves on to the last, and its journal resends there what was not acked, so the turn's events
// reach the log once each, in order, and a browser on the surviving process sees all of them.
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { connectToServer, Journal, rosterLaunchResolver, Workstation } from '@cairn/runner';
import { markTurnErrorsOnNode } from '@cairn/transcript';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { PostgresServerStore } from '../src/storage/postgres-store.js';
import { tempDir } from './helpers.js';
import { closeAll, openTab, WIRE_AGENT } from './support/chat.js';
import { followDriveEvents } from './support/drive-events-browser.js';
import { type PostgresCluster, startPostgresCluster } from './support/postgres-cluster.js';
import { startServerProcess } from './support/server-process.js';
import { apiCall, onlineAt } from './support/team-server.js';

const CHUNKS = 40;

let cluster: PostgresCluster;
beforeAll(() => {
  cluster = startPostgresCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await closeAll();
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** A server that refuses every workstation at the upgrade, as a process at its limit does. */
async function refusingServer(): Promise<string> {
  const server: Server = createServer((_req, res) => res.writeHead(404).end());
  server.on('upgrade', (_req, socket) =>
    socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\ntoo many workstations\n'),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  stops.push(() => new Promise<void>((r) => server.close(() => r())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

it('tries the next address when one refuses or goes away, resending from its journal what was not acked', async () => {
  const database = cluster.createDatabase('wire_failover');
  const store = await PostgresServerStore.open({ connectionString: database, maxConnections: 2 });
  stops.push(() => store.close());
  const { token } = await store.users.add('ada', 'admin');
  await store.workstations.add('box', 'ada', 'private');
  const issued = await store.tickets.issue('box');
  if (!issued.ok) throw new Error(issued.error.message);

  const root = tempDir('cairn-wire-failover-');
  const onCleanup = (stop: () => Promise<void>) => stops.push(stop);
  const [a, b] = await Promise.all(
    ['a', 'b'].map((name) => startServerProcess({ database, home: join(root, name), onCleanup })),
  );
  const refuser = await refusingServer();

  // The workstation, in this process: the scripted agent as `wire`, a turn of 40 chunks 50 ms apart.
  const cairnHome = join(root, 'box');
  mkdirSync(cairnHome, { recursive: true });
  writeFileSync(
    join(cairnHome, 'config.json'),
    JSON.stringify({ agents: { wire: { name: 'Wire', command: process.execPath, args: [WIRE_AGENT] } } }),
  );
  const journal = Journal.open(join(cairnHome, 'journal.sqlite'));
  const workstation = new Workstation({
    ticket: issued.ticket,
    cairnHome,
    journal,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: cairnHome,
      WIRE_AGENT_CHUNKS: String(CHUNKS),
      WIRE_AGENT_DELAY_MS: '50',
    },
    resolveLaunch: rosterLaunchResolver({ cairnHome, storeErrors: markTurnErrorsOnNode }),
    heartbeatMs: 500,
  });
  const lines: string[] = [];
  const client = connectToServer({
    serverUrl: [refuser, a!.base, b!.base],
    ticket: issued.ticket,
    workstation,
    log: (line) => lines.push(line),
  });
  stops.push(async () => {
    client.close();
    await workstation.stop();
    journal.close();
  });

  // Refused by the first address, connected to the second.
  await expect.poll(() => onlineAt(a!.base, token, 'box'), { timeout: 30_000, interval: 100 }).toBe(true);
  expect(client.address()).toBe(a!.base);
  expect(lines).toContain('workstation: the server refused the connection (503)');
  expect(lines).toContain(`workstation: trying ${a!.base} next`);

  const project = await apiCall(a!.base, token, 'POST', '/api/projects', {
    path: cairnHome,
    workstation: 'box',
  });
  expect(project.status, JSON.stringify(project.body)).toBe(200);
  const chat = await apiCall(a!.base, token, 'POST', '/api/sessions', {
    projectId: project.body.project.id,
    agent: 'wire',
    workstation: 'box',
  });
  expect(chat.status, JSON.stringify(chat.body)).toBe(200);
  const sessionRef = chat.body.session.id as string;
  const tab = await openTab(`${a!.base.replace('http', 'ws')}/chat?session=${sessionRef}&token=${token}`);
  await tab.ready();
  // A browser on the process that survives.
  const browser = followDriveEvents({ addresses: [b!.base], session: sessionRef, token });
  stops.push(() => browser.close());

  tab.send({ type: 'user_message', content: 'go' });
  await expect
    .poll(() => browser.texts().length, { timeout: 30_000, interval: 20 })
    .toBeGreaterThanOrEqual(8);
  expect(browser.turnsDone()).toBe(0);
  a!.child.kill('SIGKILL');
  await a!.exited;

  // The workstation moves on to the last address, and the turn ends there.
  await expect.poll(() => onlineAt(b!.base, token, 'box'), { timeout: 30_000, interval: 100 }).toBe(true);
  expect(client.address()).toBe(b!.base);
  await expect.poll(() => browser.turnsDone(), { timeout: 30_000, interval: 50 }).toBe(1);
  expect(browser.outOfOrder).toEqual([]);
  expect(browser.texts()).toEqual(Array.from({ length: CHUNKS }, (_, i) => `t1c${i} `));
  const stored = await store.drive.events(sessionRef);
  expect(browser.events.map((e) => e.seq)).toEqual(stored.map((e) => e.seq));
  expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i + 1));
  expect(await store.drive.heldSeq(sessionRef)).toBe(stored.length);
}, 120_000);
