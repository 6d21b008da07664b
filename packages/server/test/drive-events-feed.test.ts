// The browser's feed of a driven session's event log (`/drive/events`): every event after the seq a
// browser names, in order and once, then each one stored later; refused to a person who may not use
// the session's workstation, and to a request that names no session, an unknown one or no seq.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { RunningServer } from '../src/index.js';
import { PostgresServerStore } from '../src/storage/postgres-store.js';
import { homeEnv, serve, tempDir } from './helpers.js';
import { closeAll, openTab } from './support/chat.js';
import { followDriveEvents } from './support/drive-events-browser.js';
import { type PostgresCluster, startPostgresCluster } from './support/postgres-cluster.js';
import { apiCall, connectWorkstation } from './support/team-server.js';
import { upgradeTo } from './support/upgrade.js';

const CHUNKS = 6;
let cluster: PostgresCluster;
let store: PostgresServerStore;
let server: RunningServer;
const tokens: Record<string, string> = {};
const lasting: (() => Promise<void> | void)[] = [];
let sessionRef: string;

beforeAll(async () => {
  cluster = startPostgresCluster();
  const url = cluster.createDatabase('drive_events_feed');
  store = await PostgresServerStore.open({ connectionString: url, maxConnections: 2 });
  for (const name of ['olga', 'mike']) tokens[name] = (await store.users.add(name, 'member')).token;
  await store.workstations.add('olga-box', 'olga', 'private');
  const issued = await store.tickets.issue('olga-box');
  if (!issued.ok) throw new Error(issued.error.message);
  const root = tempDir('cairn-drive-events-');
  server = await serve(homeEnv(root), { database: url, localWorkstation: false });
  lasting.push(() => server.close());
  lasting.push(
    await connectWorkstation(server, 'olga-box', issued.ticket, {
      env: { WIRE_AGENT_CHUNKS: String(CHUNKS) },
    }),
  );
  const folder = join(root, 'project');
  mkdirSync(folder);
  const project = await apiCall(server, tokens.olga!, 'POST', '/api/projects', {
    path: folder,
    workstation: 'olga-box',
  });
  const created = await apiCall(server, tokens.olga!, 'POST', '/api/sessions', {
    projectId: project.body.project.id,
    agent: 'wire',
    workstation: 'olga-box',
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  sessionRef = created.body.session.id;
  const tab = await openTab(`ws://127.0.0.1:${server.port}/chat?session=${sessionRef}&token=${tokens.olga}`);
  await tab.ready();
  tab.send({ type: 'user_message', content: 'one' });
  await tab.turnsEnded(1);
}, 120_000);

afterAll(async () => {
  await closeAll();
  for (const stop of lasting.splice(0).reverse()) await stop();
  await store?.close();
  await cluster?.stop();
});

const feedUrl = (query: string) => `ws://127.0.0.1:${server.port}/drive/events?${query}`;

describe('the feed of a driven session’s events', () => {
  it('sends the events after the seq asked for, in order, then those stored later', async () => {
    const held = await store.drive.events(sessionRef);
    expect(held.length).toBeGreaterThan(CHUNKS);
    const base = `http://127.0.0.1:${server.port}`;
    const whole = followDriveEvents({ addresses: [base], session: sessionRef, token: tokens.olga! });
    lasting.push(() => whole.close());
    await expect.poll(() => whole.events.length, { timeout: 20_000 }).toBe(held.length);
    expect(whole.events).toEqual(
      held.map((e) => ({ seq: e.seq, eventName: e.eventName, payload: e.payload })),
    );

    // From a seq in the middle: only what follows it.
    const from = held[3]!.seq;
    const late = await new Promise<number[]>((resolve, reject) => {
      const seqs: number[] = [];
      const feed = new WebSocket(feedUrl(`session=${sessionRef}&after=${from}&token=${tokens.olga}`));
      feed.on('message', (data) => {
        seqs.push((JSON.parse(data.toString()) as { seq: number }).seq);
        if (seqs.length === held.length - from) {
          feed.close();
          resolve(seqs);
        }
      });
      feed.on('error', reject);
    });
    expect(late).toEqual(held.slice(from).map((e) => e.seq));

    // A second turn reaches the open feed, numbered on.
    const tab = await openTab(
      `ws://127.0.0.1:${server.port}/chat?session=${sessionRef}&token=${tokens.olga}`,
    );
    await tab.ready();
    tab.send({ type: 'user_message', content: 'two' });
    await expect.poll(() => whole.turnsDone(), { timeout: 20_000 }).toBe(2);
    expect(whole.outOfOrder).toEqual([]);
    expect(whole.texts()).toEqual([
      ...Array.from({ length: CHUNKS }, (_, i) => `t1c${i} `),
      ...Array.from({ length: CHUNKS }, (_, i) => `t2c${i} `),
    ]);
  }, 60_000);

  it('is refused to a member whose workstation it is not, and to a wrong token', async () => {
    expect(await upgradeTo(feedUrl(`session=${sessionRef}&after=0&token=${tokens.mike}`))).toEqual({
      status: 403,
      body: 'forbidden: workstation olga-box is neither yours nor shared\n',
    });
    expect((await upgradeTo(feedUrl(`session=${sessionRef}&after=0&token=wrong`))).status).toBe(401);
  });

  it('says what is wrong with a request that names no session, an unknown one, or no seq', async () => {
    const token = tokens.olga!;
    expect(await upgradeTo(feedUrl(`after=0&token=${token}`))).toEqual({
      status: 400,
      body: 'session=<ref> is needed, and after=<seq> is a whole number\n',
    });
    expect((await upgradeTo(feedUrl(`session=${sessionRef}&after=-1&token=${token}`))).status).toBe(400);
    expect(await upgradeTo(feedUrl(`session=nothing-here&after=0&token=${token}`))).toEqual({
      status: 404,
      body: 'no driven session nothing-here\n',
    });
  });
});
