// Sessions synced to a team's server (state in PostgreSQL): a workstation syncs with its ticket from
// the database, and each person's list holds the synced sessions of the workstations they may use
// (their own and the shared ones), never another member's private machine's.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { SYNC_PATH } from '@cairn/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { corpusPath } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { PostgresServerStore } from '../src/storage/postgres-store.js';
import { startMachineSync } from '../src/sync/machine-sync.js';
import { Client, claudeSessionHome, type Frame, homeEnv, serve, tempDir } from './helpers.js';
import { type PostgresCluster, startPostgresCluster } from './support/postgres-cluster.js';

let cluster: PostgresCluster;
let store: PostgresServerStore;
let server: RunningServer;
let databaseUrl: string;
let own: ReturnType<typeof claudeSessionHome>;
const tokens: Record<string, string> = {};
const lasting: (() => Promise<void> | void)[] = [];

const head = (sid: string) => ({
  agent: 'codex',
  sid,
  path: `/home/someone/.codex/sessions/${sid}.jsonl`,
  size: 10,
  active: false,
  last_activity_at: 1_700_000_000_000,
});

beforeAll(async () => {
  cluster = startPostgresCluster();
  const url = cluster.createDatabase('sync');
  databaseUrl = url;
  store = await PostgresServerStore.open({ connectionString: url, maxConnections: 2 });
  for (const [name, role] of [
    ['ada', 'admin'],
    ['olga', 'member'],
    ['mike', 'member'],
  ] as const)
    tokens[name] = (await store.users.add(name, role)).token;
  await store.workstations.add('olga-box', 'olga', 'shared');
  await store.workstations.add('mike-box', 'mike', 'private');
  await store.workstations.add('ada-box', 'ada', 'private');
  // The server's own machine: one Claude Code session it can see grow.
  own = claudeSessionHome(10);
  server = await serve(
    { ...homeEnv(own.home), PATH: process.env.PATH ?? '' },
    { database: url, localWorkstation: false, cairnHome: tempDir('cairn-sync-team-') },
  );
  lasting.push(() => server.close());
  await store.synced.put('mike-box', [{ agent: 'codex', sid: 'mike-1', stamp: 'v1', head: head('mike-1') }]);
  await store.synced.put('ada-box', [{ agent: 'codex', sid: 'ada-1', stamp: 'v1', head: head('ada-1') }]);
}, 120_000);

afterAll(async () => {
  for (const close of lasting.splice(0).reverse()) await close();
  await store?.close();
  await cluster?.stop();
});

async function listedBy(token: string): Promise<Frame[]> {
  const client = await Client.open(server, { token });
  try {
    const reply = await client.request('session_list', { limit: 2000 });
    expect(reply.ok, JSON.stringify(reply)).toBe(true);
    return reply.sessions as Frame[];
  } finally {
    await client.close();
  }
}

const machines = (sessions: Frame[]) => [...new Set(sessions.map((s) => s.workstation ?? 'server'))].sort();

describe('synced sessions on a team’s server', () => {
  it('takes a workstation’s ticket from the database and lists each person what they may use', async () => {
    const issued = await store.tickets.issue('olga-box');
    if (!issued.ok) throw new Error('no ticket');
    const home = tempDir('cairn-olga-home-');
    const machine = startMachineSync({
      env: { HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'), CODEX_HOME: corpusPath('codex') },
      homeDir: home,
      cairnHome: tempDir('cairn-olga-ws-'),
      serverUrls: [`http://127.0.0.1:${server.port}`],
      ticket: issued.ticket,
      log: () => {},
    });
    lasting.push(() => machine.close());
    await machine.catalog.settled();
    await machine.sync.idle();
    const olgas = machine.catalog.all().map((e) => e.sid);
    expect(olgas.length).toBeGreaterThan(0);

    const mike = await listedBy(tokens.mike!);
    expect(machines(mike)).toEqual(['mike-box', 'olga-box']);
    expect(
      mike
        .filter((s) => s.workstation === 'olga-box')
        .map((s) => s.sid)
        .sort(),
    ).toEqual(olgas.sort());

    const olga = await listedBy(tokens.olga!);
    expect(machines(olga)).toEqual(['olga-box']);
    expect(olga.some((s) => s.sid === 'mike-1' || s.sid === 'ada-1')).toBe(false);

    // The admin sees every machine, and the server's own sessions besides.
    const ada = await listedBy(tokens.ada!);
    expect(machines(ada)).toEqual(['ada-box', 'mike-box', 'olga-box', 'server']);
    // Paged two at a time, the list is the same: the server's own and the synced in one order.
    const client = await Client.open(server, { token: tokens.ada! });
    const paged: Frame[] = [];
    let cursor: string | undefined;
    do {
      const reply = await client.request('session_list', { limit: 2, ...(cursor ? { cursor } : {}) });
      expect(reply.total).toBe(ada.length);
      paged.push(...(reply.sessions as Frame[]));
      cursor = reply.next_cursor as string | undefined;
    } while (cursor !== undefined);
    await client.close();
    expect(paged.map((s) => `${s.workstation}:${s.sid}`)).toEqual(
      ada.map((s) => `${s.workstation}:${s.sid}`),
    );

    // A member's `sessions` topic, on another server process of the same database, carries what
    // is synced from the machines they may use (stored here by yet another connection), no other.
    const second = await serve(
      { ...homeEnv(own.home), PATH: process.env.PATH ?? '' },
      { database: databaseUrl, localWorkstation: false, cairnHome: tempDir('cairn-sync-team-b-') },
    );
    lasting.push(() => second.close());
    const follower = await Client.open(second, { token: tokens.olga! });
    lasting.push(() => follower.close());
    expect(await follower.request('topic_subscribe', { topic: 'sessions' })).toMatchObject({ ok: true });
    await store.synced.put('mike-box', [
      { agent: 'codex', sid: 'mike-2', stamp: 'v1', head: head('mike-2') },
    ]);
    await store.synced.put('olga-box', [
      { agent: 'codex', sid: 'olga-2', stamp: 'v1', head: head('olga-2') },
    ]);
    await follower.until((frames) =>
      frames.some((f) => f.type === 'session_upserted' && (f.head as Frame).sid === 'olga-2'),
    );
    const heard = () =>
      follower.frames.filter((f) => f.type === 'session_upserted').map((f) => f.head as Frame);
    expect(heard().map((h) => [h.sid, h.workstation])).toEqual([['olga-2', 'olga-box']]);

    // The server's own session grows: the admin's topic says so, the member's says nothing.
    const admin = await Client.open(second, { token: tokens.ada! });
    lasting.push(() => admin.close());
    expect(await admin.request('topic_subscribe', { topic: 'sessions' })).toMatchObject({ ok: true });
    await second.catalog.watched();
    appendFileSync(own.file, `${own.lines.slice(10, 14).join('\n')}\n`);
    await admin.until((frames) =>
      frames.some((f) => f.type === 'session_upserted' && (f.head as Frame).workstation === undefined),
    );
    await store.synced.put('olga-box', [
      { agent: 'codex', sid: 'olga-3', stamp: 'v1', head: head('olga-3') },
    ]);
    await follower.until(() => heard().some((h) => h.sid === 'olga-3'));
    expect(heard().map((h) => h.sid)).toEqual(['olga-2', 'olga-3']);

    // A batch too large for the database's notice to name its sessions: the topic reads that
    // machine's all, and sends each new one once.
    const many = Array.from({ length: 150 }, (_, i) => {
      const sid = `bulk-${i}-${'x'.repeat(60)}`;
      return { agent: 'codex', sid, stamp: 'v1', head: head(sid) };
    });
    const before = heard().length;
    await store.synced.put('olga-box', many);
    await follower.until(() => heard().length >= before + 150);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(
      heard()
        .slice(before)
        .map((h) => h.sid)
        .sort(),
    ).toEqual(many.map((m) => m.sid).sort());
    await store.synced.remove('olga-box', many);

    // Search: a member finds the synced documents of the machines they may use, no other's.
    const doc = (key: string, text: string) => ({
      key,
      item_uuid: `u-${key}`,
      item_type: 'message:user:in',
      target: 'prompt' as const,
      text,
    });
    await store.synced.putDocs(
      'ada-box',
      { agent: 'codex', sid: 'ada-1' },
      { replace: true, low: 1, high: 1, docs: [doc('a', 'the zebra migration plan')] },
    );
    await store.synced.putDocs(
      'mike-box',
      { agent: 'codex', sid: 'mike-1' },
      { replace: true, low: 1, high: 1, docs: [doc('a', 'zebra stripes on the dashboard')] },
    );
    const found = async (token: string) => {
      const c = await Client.open(server, { token });
      const reply = await c.request('session_search', { query: 'zebra', count: true });
      await c.close();
      expect(reply.ok, JSON.stringify(reply)).toBe(true);
      return [(reply.hits as Frame[]).map((h) => `${h.workstation}:${h.sid}`).sort(), reply.total];
    };
    expect(await found(tokens.olga!)).toEqual([[], 0]);
    expect(await found(tokens.mike!)).toEqual([['mike-box:mike-1'], 1]);
    expect(await found(tokens.ada!)).toEqual([['ada-box:ada-1', 'mike-box:mike-1'], 2]);

    // A machine made shared is in every member's list from then on.
    await store.workstations.setVisibility('mike-box', 'shared');
    expect(machines(await listedBy(tokens.olga!))).toEqual(['mike-box', 'olga-box']);
  });

  it('tells each person, on any process, whether the machines they may use are connected now', async () => {
    // Two more processes of the same database, which say every 200 ms that they still hold a
    // machine and count a word older than 1.5 s as gone: one the machine connects to, one read.
    const process = async (name: string) => {
      const started = await serve(
        { ...homeEnv(own.home), PATH: globalThis.process.env.PATH ?? '' },
        {
          database: databaseUrl,
          localWorkstation: false,
          cairnHome: tempDir(`cairn-sync-${name}-`),
          presence: { heartbeatMs: 200, freshMs: 1_500 },
        },
      );
      lasting.push(() => started.close());
      return started;
    };
    const [holder, reader] = [await process('holder'), await process('reader')];
    const follow = async (name: string) => {
      const client = await Client.open(reader, { token: tokens[name]! });
      lasting.push(() => client.close());
      expect(await client.request('topic_subscribe', { topic: 'sessions' })).toMatchObject({ ok: true });
      return client;
    };
    const [mike, olga, ada] = [await follow('mike'), await follow('olga'), await follow('ada')];
    const said = (client: Client, workstation?: string) =>
      client.frames
        .filter((f) => f.type === 'workstation_presence')
        .filter((f) => workstation === undefined || f.workstation === workstation)
        .map((f) => `${f.workstation}:${f.online ? 'online' : 'offline'}`);

    // Mike's machine syncs through the holder: the reader's followers hear it, and only those who
    // may use it.
    const issued = await store.tickets.issue('mike-box');
    if (!issued.ok) throw new Error('no ticket');
    const socket = new WebSocket(`ws://127.0.0.1:${holder.port}${SYNC_PATH}`, {
      headers: { authorization: `Bearer ${issued.ticket}` },
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    // Well past the word's 1.5 s, it is still online: the holder says so again while it lasts.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    await mike.until(() => said(mike, 'mike-box').at(-1) === 'mike-box:online', 15_000);
    expect(said(mike, 'mike-box')).toEqual(['mike-box:online']);
    await ada.until(() => said(ada, 'mike-box').at(-1) === 'mike-box:online', 15_000);
    socket.close();
    await mike.until(() => said(mike, 'mike-box').at(-1) === 'mike-box:offline', 15_000);
    expect(said(mike, 'mike-box')).toEqual(['mike-box:online', 'mike-box:offline']);

    // A process that holds Ada's machine says so every 200 ms, then dies and says nothing more: once
    // its word is old, the machine shows as offline.
    const alive = setInterval(() => void store.synced.heard('ada-box', 'a-process-that-dies', true), 200);
    try {
      await ada.until(() => said(ada, 'ada-box').at(-1) === 'ada-box:online', 15_000);
    } finally {
      clearInterval(alive);
    }
    await ada.until(() => said(ada, 'ada-box').at(-1) === 'ada-box:offline', 15_000);

    // Nobody hears of a machine they may not use (Mike's was made shared in the test before).
    expect(said(olga).filter((s) => s.startsWith('ada-box:'))).toEqual([]);
    expect(said(mike).filter((s) => s.startsWith('ada-box:'))).toEqual([]);
  }, 90_000);
});
