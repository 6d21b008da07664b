// People on a team's server (state in PostgreSQL): users sign in with their own tokens beside the
// daemon's, workstations registered to a user connect with the ticket the store keeps, and a member
// sees and drives their own workstations' chats and the shared ones, nothing else; an admin all.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PROTOCOL_VERSION } from '@cairn/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { RunningServer } from '../src/index.js';
import { PostgresServerStore } from '../src/storage/postgres-store.js';
import { homeEnv, serve, tempDir } from './helpers.js';
import { closeAll, onCleanup, openTab } from './support/chat.js';
import { type PostgresCluster, startPostgresCluster } from './support/postgres-cluster.js';
import { apiCall, connectWorkstation as connectTeamWorkstation } from './support/team-server.js';
import { bearer, upgradeTo } from './support/upgrade.js';

let cluster: PostgresCluster;
let store: PostgresServerStore;
let server: RunningServer;
const tokens: Record<string, string> = {};
const tickets: Record<string, string> = {};

/** A workstation in this process, connected to the server over the real `/agent` endpoint. */
const connectWorkstation = async (name: string, ticket: string): Promise<void> => {
  onCleanupAll(await connectTeamWorkstation(server, name, ticket, { env: { WIRE_AGENT_CHUNKS: '2' } }));
};

const lasting: (() => Promise<void> | void)[] = [];
const onCleanupAll = (stop: () => Promise<void> | void) => lasting.push(stop);

const api = (token: string, method: string, path: string, body?: unknown) =>
  apiCall(server, token, method, path, body);

/** The answer to a WebSocket upgrade: 101 when it opens, else the refusal's status and body. */
const upgrade = (path: string, protocols?: string[]) =>
  upgradeTo(`ws://127.0.0.1:${server.port}${path}`, protocols ? { protocols } : {});

/** The chat sessions of the table and their projects, one per workstation. */
const chats: Record<string, string> = {};
const projects: Record<string, string> = {};

beforeAll(async () => {
  cluster = startPostgresCluster();
  const url = cluster.createDatabase('people');
  store = await PostgresServerStore.open({ connectionString: url, maxConnections: 2 });
  for (const [name, role] of [
    ['ada', 'admin'],
    ['olga', 'member'],
    ['mike', 'member'],
  ] as const)
    tokens[name] = (await store.users.add(name, role)).token;
  for (const [name, visibility] of [
    ['olga-private', 'private'],
    ['olga-shared', 'shared'],
  ] as const) {
    await store.workstations.add(name, 'olga', visibility);
    const issued = await store.tickets.issue(name);
    if (!issued.ok) throw new Error(issued.error.message);
    tickets[name] = issued.ticket;
  }
  const root = tempDir('cairn-people-');
  server = await serve(homeEnv(root), { database: url, localWorkstation: false });
  onCleanupAll(() => server.close());
  for (const name of ['olga-private', 'olga-shared']) {
    await connectWorkstation(name, tickets[name]!);
    const folder = join(root, name);
    mkdirSync(folder);
    const project = await api(tokens.olga!, 'POST', '/api/projects', { path: folder, workstation: name });
    expect(project.status).toBe(200);
    const created = await api(tokens.olga!, 'POST', '/api/sessions', {
      projectId: project.body.project.id,
      agent: 'wire',
      workstation: name,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    chats[name] = created.body.session.id;
    projects[name] = project.body.project.id;
  }
}, 120_000);

afterAll(async () => {
  await closeAll();
  for (const stop of lasting.splice(0).reverse()) await stop();
  await store?.close();
  await cluster?.stop();
});

describe('signing in', () => {
  it('takes a user’s token over HTTP, as a query and on the WebSocket beside the daemon’s, and refuses a wrong one as before', async () => {
    for (const token of [server.token, tokens.olga!, tokens.ada!])
      expect((await api(token, 'GET', '/api/sessions')).status).toBe(200);
    expect(await api('not-a-token', 'GET', '/api/sessions')).toEqual({
      status: 401,
      body: 'missing or wrong token\n',
    });
    const page = await fetch(`http://127.0.0.1:${server.port}/alive?token=${tokens.mike}`);
    expect(page.status).toBe(204);

    // The page's socket shows the token as a subprotocol; the connection then answers ops.
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws`, ['cairn', `cairn.token.${tokens.mike}`]);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const reply = await new Promise<Record<string, unknown>>((resolve) => {
      ws.once('message', (data) => resolve(JSON.parse(data.toString())));
      ws.send(
        JSON.stringify({ request_id: 'h', op: 'hello', role: 'user', protocol_version: PROTOCOL_VERSION }),
      );
    });
    ws.close();
    expect(reply).toMatchObject({ ok: true, request_id: 'h' });
    expect(await upgrade('/ws', ['cairn', 'cairn.token.wrong'])).toEqual({
      status: 401,
      body: 'missing or wrong token\n',
    });
    expect((await upgrade(`/chat?session=${chats['olga-shared']}&token=wrong`)).status).toBe(401);
  });

  it('stops taking a token once the user has a new one', async () => {
    const { token } = await store.users.add('temp', 'member');
    expect((await api(token, 'GET', '/api/workstations')).status).toBe(200);
    const renewed = await store.users.renewToken('temp');
    expect((await api(token, 'GET', '/api/workstations')).status).toBe(401);
    expect((await api(renewed!, 'GET', '/api/workstations')).status).toBe(200);
    await store.users.remove('temp');
    expect((await api(renewed!, 'GET', '/api/workstations')).status).toBe(401);
  });
});

describe('workstations registered in the database', () => {
  it('connect with the ticket the store keeps, and one removed is refused from then on', async () => {
    await store.workstations.add('spare', 'mike', 'private');
    const issued = await store.tickets.issue('spare');
    if (!issued.ok) throw new Error(issued.error.message);
    const agent = async (ticket: string) =>
      (await upgradeTo(`ws://127.0.0.1:${server.port}/agent`, { headers: bearer(ticket) })).status;
    expect(await agent(issued.ticket)).toBe(101);
    expect(await agent(`${issued.ticket}x`)).toBe(401);
    await store.workstations.remove('spare');
    expect(await store.tickets.revoke('spare')).toBe(1);
    expect(await agent(issued.ticket)).toBe(401);
  });

  it('are listed offline before they first connect, to those who may use them', async () => {
    await store.workstations.add('offline-box', 'mike', 'private');
    const issued = await store.tickets.issue('offline-box');
    if (!issued.ok) throw new Error(issued.error.message);
    const names = async (token: string) =>
      (await api(token, 'GET', '/api/workstations')).body.workstations as { name: string; online: boolean }[];
    await expect
      .poll(async () => (await names(tokens.mike!)).find((w) => w.name === 'offline-box'), {
        timeout: 15_000,
      })
      .toMatchObject({ online: false });
    expect((await names(tokens.olga!)).map((w) => w.name)).not.toContain('offline-box');
    expect((await names(tokens.ada!)).map((w) => w.name)).toContain('offline-box');
    await store.tickets.revoke('offline-box');
    await store.workstations.remove('offline-box');
  }, 30_000);

  it('cut a connected workstation soon after its ticket is revoked from anywhere', async () => {
    await store.workstations.add('doomed', 'mike', 'private');
    const issued = await store.tickets.issue('doomed');
    if (!issued.ok) throw new Error(issued.error.message);
    await connectWorkstation('doomed', issued.ticket);
    expect(await store.tickets.revoke('doomed')).toBe(1);
    await expect
      .poll(() => server.drive.wire.workstations().includes('doomed'), { timeout: 20_000, interval: 100 })
      .toBe(false);
    await store.workstations.remove('doomed');
  }, 30_000);
});

type Who = 'ada' | 'olga' | 'mike';
type Where = 'olga-private' | 'olga-shared';
const REFUSED = 'forbidden: workstation olga-private is neither yours nor shared';

// Every person against every workstation: the admin and the owner may do everything, another
// member only what is shared.
const TABLE: { who: Who; where: Where; allowed: boolean }[] = [
  { who: 'ada', where: 'olga-private', allowed: true },
  { who: 'ada', where: 'olga-shared', allowed: true },
  { who: 'olga', where: 'olga-private', allowed: true },
  { who: 'olga', where: 'olga-shared', allowed: true },
  { who: 'mike', where: 'olga-private', allowed: false },
  { who: 'mike', where: 'olga-shared', allowed: true },
];

describe('who sees and drives which chats', () => {
  it.each(TABLE)(
    '$who on $where: allowed $allowed to list, open and prompt',
    async ({ who, where, allowed }) => {
      const token = tokens[who]!;
      const id = chats[where]!;
      // list: the chat, and its workstation among the machines offered.
      const listed = await api(token, 'GET', '/api/sessions');
      expect(listed.status).toBe(200);
      expect(listed.body.sessions.some((s: { id: string }) => s.id === id)).toBe(allowed);
      const machines = await api(token, 'GET', '/api/workstations');
      expect(machines.body.workstations.some((w: { name: string }) => w.name === where)).toBe(allowed);
      const folders = await api(token, 'GET', '/api/projects');
      expect(folders.body.projects.some((p: { id: string }) => p.id === projects[where])).toBe(allowed);

      // open: the chat's socket; prompt: a message sent on it, answered by the workstation's agent.
      const path = `/chat?session=${id}&token=${token}`;
      if (!allowed) {
        expect(await upgrade(path)).toEqual({ status: 403, body: `${REFUSED}\n` });
        // Nor a new chat on that machine, nor its agents.
        const agents = await api(token, 'GET', `/api/agents?workstation=${where}`);
        expect(agents).toEqual({ status: 403, body: { error: REFUSED } });
        const renamed = await api(token, 'POST', '/api/sessions/rename', {
          sessionId: id,
          title: 'mine now',
        });
        expect(renamed).toEqual({ status: 403, body: { error: REFUSED } });
        return;
      }
      const tab = await openTab(`ws://127.0.0.1:${server.port}${path}`);
      const ready = await tab.ready();
      const turnsBefore = ready.history.filter((m: { role: string }) => m.role === 'assistant').length;
      tab.send({ type: 'user_message', content: `from ${who}` });
      await tab.turnsEnded(1);
      expect(tab.events.filter((e) => e.type === 'error')).toEqual([]);
      expect(tab.events.filter((e) => e.type === 'text_delta').map((e) => e.delta)).toEqual([
        `t${turnsBefore + 1}c0 `,
        `t${turnsBefore + 1}c1 `,
      ]);
      tab.ws.close();
    },
    60_000,
  );

  it('refuses to end a driven session on another member’s private workstation over the ops socket', async () => {
    const listed = await api(tokens.olga!, 'GET', '/api/sessions');
    const chat = listed.body.sessions.find((s: { id: string }) => s.id === chats['olga-private']);
    expect(chat.nativeSessionId).toEqual(expect.any(String));
    const kill = async (token: string) => {
      const ws = new WebSocket(`ws://127.0.0.1:${server.port}/ws`, ['cairn', `cairn.token.${token}`]);
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      const ask = (frame: object) =>
        new Promise<Record<string, unknown>>((resolve) => {
          ws.once('message', (data) => resolve(JSON.parse(data.toString())));
          ws.send(JSON.stringify(frame));
        });
      await ask({ request_id: 'h', op: 'hello', role: 'user', protocol_version: PROTOCOL_VERSION });
      const reply = await ask({ request_id: 'k', op: 'session_kill', sid: chat.nativeSessionId });
      ws.close();
      return reply;
    };
    expect(await kill(tokens.mike!)).toEqual({
      ok: false,
      request_id: 'k',
      error: { code: 'forbidden', message: REFUSED, field: '/sid' },
    });
    // Still open on its workstation.
    expect((await server.drive.wire.workstations()).includes('olga-private')).toBe(true);
    expect(await store.drive.ofWorkstation('olga-private')).toEqual([
      expect.objectContaining({ nativeSessionId: chat.nativeSessionId, closed: false }),
    ]);
  });

  it('refuses the next prompt on an open tab once its workstation is no longer shared', async () => {
    const id = chats['olga-shared']!;
    const tab = await openTab(`ws://127.0.0.1:${server.port}/chat?session=${id}&token=${tokens.mike}`);
    await tab.ready();
    expect(await store.workstations.setVisibility('olga-shared', 'private')).toBe(true);
    onCleanup(() => store.workstations.setVisibility('olga-shared', 'shared').then(() => {}));
    tab.send({ type: 'user_message', content: 'still mine?' });
    await tab.until(() => tab.count('error') > 0, 'the refusal');
    expect(tab.events.filter((e) => e.type === 'error')).toEqual([
      { type: 'error', message: 'forbidden: workstation olga-shared is neither yours nor shared' },
    ]);
    expect(tab.count('agent_end')).toBe(0);
    tab.ws.close();
  }, 60_000);
});
