// The chat over the real server, as its tests drive it: a server whose local workstation runs the
// scripted ACP agent (declared in $CAIRN_HOME/config.json as `wire`), its JSON API, and tabs on the
// /chat socket that record every event.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { expect } from 'vitest';
import WebSocket from 'ws';
import type { Clock } from '../../src/chat/chat-session.js';
import { homeEnv, serve, tempDir } from '../helpers.js';

export const WIRE_AGENT = fileURLToPath(new URL('./wire-agent.mjs', import.meta.url));

// biome-ignore lint/suspicious/noExplicitAny: events are asserted on field by field
export type Ev = { type: string } & Record<string, any>;
const stops: (() => Promise<void> | void)[] = [];

/** Runs `stop` when the test ends. */
export const onCleanup = (stop: () => Promise<void> | void): void => {
  stops.push(stop);
};

/** Closes what the test opened, last first; each test file calls it after each test. */
export async function closeAll(): Promise<void> {
  for (const stop of stops.splice(0).reverse()) await stop();
}

export async function chatServer(agentEnv: Record<string, string> = {}, clock?: Clock) {
  const root = tempDir();
  const cairnHome = join(root, 'cairn');
  const project = join(root, 'project');
  mkdirSync(cairnHome, { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(cairnHome, 'config.json'),
    JSON.stringify({ agents: { wire: { name: 'Wire', command: process.execPath, args: [WIRE_AGENT] } } }),
  );
  const server = await serve(
    { ...homeEnv(root), PATH: process.env.PATH ?? '', ...agentEnv },
    { cairnHome, ...(clock ? { clock } : {}) },
  );
  stops.push(() => server.close());
  await server.drive.wire.waitForWorkstation('local');
  for (let i = 0; i < 100 && !server.drive.wire.roster('local').some((b) => b.key === 'wire'); i++) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const base = `http://127.0.0.1:${server.port}`;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers are asserted on field by field
    return { status: res.status, body: (await res.json()) as any };
  };
  const newChat = async () => {
    const p = await api('POST', '/api/projects', { path: project });
    expect(p.status).toBe(200);
    const s = await api('POST', '/api/sessions', { projectId: p.body.project.id, agent: 'wire' });
    expect(s.status).toBe(200);
    return s.body.session.id as string;
  };
  const tab = (sessionId: string) =>
    openTab(`ws://127.0.0.1:${server.port}/chat?session=${sessionId}&token=${server.token}`);
  return { server, api, newChat, tab, project, cairnHome };
}

/** A chunked opening (`session_ready_start`, `history_chunk`s, `session_ready_end`) as the one
 * `session_ready` it stands for, its chunks checked against what the start announced. */
export function assembled(events: readonly Ev[]): Ev {
  const start = events.find((e) => e.type === 'session_ready_start');
  const end = events.find((e) => e.type === 'session_ready_end');
  expect(start && end, 'a chunked opening').toBeTruthy();
  const chunks = events.filter((e) => e.type === 'history_chunk');
  expect(chunks.map((c) => c.index)).toEqual([...Array(start!.totalChunks).keys()]);
  const history = chunks.flatMap((c) =>
    c.encoding === 'gzip-base64'
      ? JSON.parse(gunzipSync(Buffer.from(c.payload, 'base64')).toString())
      : c.messages,
  );
  expect(history).toHaveLength(end!.totalMessages);
  const { totalChunks: _chunks, totalMessages: _total, ...ready } = start!;
  return { ...ready, type: 'session_ready', history };
}

export async function openTab(url: string) {
  const ws = new WebSocket(url);
  const events: Ev[] = [];
  const waiters: (() => void)[] = [];
  ws.on('message', (data) => {
    events.push(JSON.parse(data.toString()) as Ev);
    for (const w of waiters.splice(0)) w();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  stops.push(() => {
    ws.close();
    // Every event the server sent kept to the contract (a broken one arrives as this error).
    expect(events.filter((e) => e.type === 'error' && /broke the contract/.test(e.message))).toEqual([]);
  });
  const until = async (test: () => boolean, what: string, ms = 20_000) => {
    const deadline = Date.now() + ms;
    while (!test()) {
      if (Date.now() > deadline)
        throw new Error(`timed out waiting for ${what}; got ${events.map((e) => e.type).join(',')}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 100);
      });
    }
  };
  const count = (type: string) => events.filter((e) => e.type === type).length;
  return {
    events,
    until,
    count,
    /** The socket itself, to see the server close it. */
    ws,
    send: (message: unknown) => ws.send(JSON.stringify(message)),
    /** The opening as one `session_ready`: as sent, or put together from its chunks. */
    ready: () =>
      until(() => count('session_ready') > 0 || count('session_ready_end') > 0, 'session_ready').then(
        () => events.find((e) => e.type === 'session_ready') ?? assembled(events),
      ),
    turnsEnded: (n: number) => until(() => count('agent_end') >= n, `${n} turn end(s)`),
  };
}
