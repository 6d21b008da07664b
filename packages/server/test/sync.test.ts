// A workstation syncing its machine's sessions to a server over the real `/sync` endpoint: the
// server's list then holds them, marked with the machine; a restart resumes without sending again
// what the server holds; a session appended on the machine shows there within two seconds; and the
// endpoint refuses what it must, saying why.
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { SYNC_PATH } from '@cairn/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { corpusPath } from '../../transcript/test/corpus.js';
import { makeTicket, revokeTickets } from '../src/drive/tickets.js';
import type { RunningServer } from '../src/index.js';
import { wireHead } from '../src/streams/sessions-topic.js';
import { type MachineSync, startMachineSync } from '../src/sync/machine-sync.js';
import { Client, claudeSessionHome, type Frame, serve, tempDir } from './helpers.js';

const lasting: (() => Promise<void> | void)[] = [];
/** The id the corpus's `subagent.jsonl` records carry. */
const CORPUS_SESSION_ID = '491e126e-1e71-469c-ade2-fcc8af567c74';
afterEach(async () => {
  for (const close of lasting.splice(0).reverse()) await close();
});

/** A server over an empty home, and a ticket for `laptop`. */
async function serverWithTicket(): Promise<{ server: RunningServer; ticket: string; home: string }> {
  const home = tempDir('cairn-state-');
  const empty = tempDir('cairn-home-');
  const server = await serve({ HOME: empty, CLAUDE_CONFIG_DIR: join(empty, '.claude') }, { cairnHome: home });
  lasting.push(() => server.close());
  const issued = makeTicket(home, 'laptop');
  if (!issued.ok) throw new Error(issued.error.message);
  return { server, ticket: issued.ticket, home };
}

/** A machine with the corpus's Codex sessions and one Claude Code session it can append to. */
function machineHome() {
  const claude = claudeSessionHome(12);
  const env = {
    HOME: claude.home,
    CLAUDE_CONFIG_DIR: join(claude.home, '.claude'),
    CODEX_HOME: corpusPath('codex'),
    GEMINI_CLI_HOME: claude.home,
  };
  return { ...claude, env, cairnHome: tempDir('cairn-ws-') };
}

function syncMachine(
  server: RunningServer,
  ticket: string,
  machine: ReturnType<typeof machineHome>,
): MachineSync {
  const sync = startMachineSync({
    env: machine.env,
    homeDir: machine.home,
    cairnHome: machine.cairnHome,
    serverUrls: [`http://127.0.0.1:${server.port}`],
    ticket,
    log: () => {},
  });
  lasting.push(() => sync.close());
  return sync;
}

async function listed(server: RunningServer): Promise<Frame[]> {
  const client = await Client.open(server);
  try {
    const reply = await client.request('session_list', { limit: 2000 });
    expect(reply.ok, JSON.stringify(reply)).toBe(true);
    return reply.sessions as Frame[];
  } finally {
    await client.close();
  }
}

async function searched(server: RunningServer, query: string): Promise<Frame[]> {
  const client = await Client.open(server);
  try {
    const reply = await client.request('session_search', { query, limit: 500 });
    expect(reply.ok, JSON.stringify(reply)).toBe(true);
    return reply.hits as Frame[];
  } finally {
    await client.close();
  }
}

describe('syncing a machine’s sessions', () => {
  it('lists them on the server marked with the machine, resumes without resending, and follows changes', async () => {
    const { server, ticket } = await serverWithTicket();
    // A browser following the list from before the machine syncs.
    const browser = await Client.open(server);
    lasting.push(() => browser.close());
    expect(await browser.request('topic_subscribe', { topic: 'sessions' })).toMatchObject({ ok: true });
    const upserts = (sid?: string) =>
      browser.frames
        .filter((f) => f.type === 'session_upserted')
        .map((f) => f.head as Frame)
        .filter((h) => sid === undefined || h.sid === sid);
    const machine = machineHome();
    let sync = syncMachine(server, ticket, machine);
    await sync.catalog.settled();
    await sync.sync.idle();
    const own = sync.catalog.all();
    expect(own.length).toBeGreaterThan(3);
    let sessions = await listed(server);
    expect(sessions.map((s) => `${s.agent}:${s.sid}`).sort()).toEqual(
      own.map((e) => `${e.agent}:${e.sid}`).sort(),
    );
    expect(sessions.every((s) => s.workstation === 'laptop')).toBe(true);
    const claude = sessions.find((s) => s.agent === 'claude-code')!;
    expect(claude.path).toBe(machine.file);
    expect(typeof claude.first_prompt === 'string' || typeof claude.title === 'string').toBe(true);
    // Each head as the machine lists it now: the numbers its index read came after a first send.
    const texts = sync.catalog.headTexts(own);
    for (const e of own) {
      const { active: _a, ...mine } = wireHead(e, false, texts.get(e.key));
      const { active: _b, ...theirs } = sessions.find((s) => s.sid === e.sid && s.agent === e.agent)!;
      expect(theirs).toEqual({ ...mine, workstation: 'laptop' });
    }
    expect(sync.sync.counts.sent).toBeGreaterThanOrEqual(own.length);
    // The browser heard each of them, marked with the machine.
    await browser.until(() => new Set(upserts().map((h) => h.sid)).size === own.length);
    expect(upserts().every((h) => h.workstation === 'laptop')).toBe(true);

    // The server's search finds their items, each marked with the machine: the same as the machine's
    // own search finds.
    const word = 'igniter';
    const hits = await searched(server, word);
    const mine = await sync.catalog.search({ query: word, limit: 1000, offset: 0 });
    expect(mine.length).toBeGreaterThan(0);
    expect(hits.map((h) => `${h.sid}/${h.item_uuid}`).sort()).toEqual(
      mine.map((r) => `${r.sid}/${r.itemUuid}`).sort(),
    );
    expect(hits.every((h) => h.workstation === 'laptop')).toBe(true);
    const docsSent = sync.sync.counts.docs;
    expect(docsSent).toBeGreaterThan(0);

    // Restarted: the server's word says it holds them all, so nothing is sent again.
    await sync.close();
    sync = syncMachine(server, ticket, machine);
    await sync.catalog.settled();
    await sync.sync.idle();
    expect(sync.sync.counts.connections).toBe(1);
    expect(sync.sync.counts.sent).toBe(0);
    expect(sync.sync.counts.docs).toBe(0);

    // Appended on the machine: the server's list and search have it within two seconds, and only
    // the new documents went out.
    await sync.catalog.watched();
    const sizeBefore = claude.size as number;
    // A prompt of the session's own shape, with a word nothing else holds.
    const promptLine = machine.lines
      .map((l) => JSON.parse(l) as Record<string, unknown> & { message?: { content?: unknown } })
      .find((r) => r.type === 'user' && typeof r.message?.content === 'string')!;
    const fresh = {
      ...promptLine,
      uuid: 'a7e3c9d2-0000-4000-8000-00000000f00d',
      parentUuid: null,
      message: { role: 'user', content: 'please quarantine the zyxwvut fixtures' },
    };
    appendFileSync(machine.file, `${[...machine.lines.slice(12, 20), JSON.stringify(fresh)].join('\n')}\n`);
    const appendedAt = Date.now();
    await expect
      .poll(async () => (await listed(server)).find((s) => s.sid === claude.sid)?.size, {
        timeout: 10_000,
        interval: 100,
      })
      .toBeGreaterThan(sizeBefore);
    await expect
      .poll(async () => (await searched(server, 'zyxwvut')).map((h) => h.sid), {
        timeout: 10_000,
        interval: 100,
      })
      .toEqual([claude.sid]);
    expect(Date.now() - appendedAt).toBeLessThan(2_000);
    expect(sync.sync.counts.docs).toBeGreaterThan(0);
    expect(sync.sync.counts.docs).toBeLessThan(docsSent);
    await browser.until(() => upserts(claude.sid as string).some((h) => (h.size as number) > sizeBefore));
    expect(sync.sync.counts.sent).toBeGreaterThanOrEqual(1);

    // Gone from the machine: gone from the server's list.
    rmSync(machine.file);
    await expect
      .poll(async () => (await listed(server)).some((s) => s.sid === claude.sid), { timeout: 15_000 })
      .toBe(false);
    expect(await searched(server, 'zyxwvut')).toEqual([]);
    sessions = await listed(server);
    expect(sessions.length).toBe(own.length - 1);
    await browser.until((frames) =>
      frames.some((f) => f.type === 'session_removed' && f.sid === claude.sid && f.workstation === 'laptop'),
    );
  });

  it('tells browsers whether the machine is connected now, and when it left', async () => {
    const { server, ticket } = await serverWithTicket();
    const presence = (client: Client) =>
      client.frames
        .filter((f) => f.type === 'workstation_presence')
        .map((f) => `${f.workstation}:${f.online ? 'online' : 'offline'}`);
    // One browser follows the list from before the machine connects.
    const early = await Client.open(server);
    lasting.push(() => early.close());
    expect(await early.request('topic_subscribe', { topic: 'sessions' })).toMatchObject({ ok: true });

    const socket = new WebSocket(`ws://127.0.0.1:${server.port}${SYNC_PATH}`, {
      headers: { authorization: `Bearer ${ticket}` },
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    await early.until(() => presence(early).includes('laptop:online'));
    // One that comes later is told at once.
    const late = await Client.open(server);
    lasting.push(() => late.close());
    expect(await late.request('topic_subscribe', { topic: 'sessions' })).toMatchObject({ ok: true });
    await late.until(() => presence(late).length > 0);
    expect(presence(late)).toEqual(['laptop:online']);

    const before = Date.now();
    socket.close();
    for (const client of [early, late]) {
      await client.until(() => presence(client).at(-1) === 'laptop:offline');
      const left = client.frames.filter((f) => f.type === 'workstation_presence').at(-1)!;
      expect(left.heard_at as number).toBeGreaterThanOrEqual(before - 1_000);
      expect(left.heard_at as number).toBeLessThanOrEqual(Date.now());
    }
    expect(presence(early)).toEqual(['laptop:online', 'laptop:offline']);
  });

  it('refuses a socket without a ticket or with an Origin, and a frame it cannot take, saying why', async () => {
    const { server, ticket, home } = await serverWithTicket();
    const url = `ws://127.0.0.1:${server.port}${SYNC_PATH}`;
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { headers });
        ws.on('unexpected-response', (_req, res) => {
          resolve(res.statusCode ?? 0);
          ws.terminate();
        });
        ws.on('open', () => resolve(101));
        ws.on('error', () => {});
      });
    expect(await status({})).toBe(401);
    expect(await status({ authorization: 'Bearer not-a-ticket' })).toBe(401);
    expect(
      await status({ authorization: `Bearer ${ticket}`, origin: `http://127.0.0.1:${server.port}` }),
    ).toBe(403);

    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${ticket}` } });
    const frames: Frame[] = [];
    ws.on('message', (data) => frames.push(JSON.parse(data.toString()) as Frame));
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    await expect.poll(() => frames.length).toBe(1);
    expect(frames[0]).toEqual({ type: 'sync_state', sessions: [] });
    const head = { agent: 'codex', sid: 'r1', path: '/x/r1.jsonl', size: 1, active: false };
    ws.send('{ not json');
    ws.send(
      JSON.stringify({
        type: 'sync_put',
        batch: 1,
        sessions: [{ agent: 'codex', sid: '../x', stamp: 'a', head }],
      }),
    );
    ws.send(
      JSON.stringify({
        type: 'sync_put',
        batch: 2,
        sessions: [{ agent: 'codex', sid: 'r2', stamp: 'a', head }],
      }),
    );
    ws.send(
      JSON.stringify({
        type: 'sync_put',
        batch: 3,
        sessions: [{ agent: 'codex', sid: 'r1', stamp: 'a', head }],
      }),
    );
    await expect.poll(() => frames.length).toBe(5);
    expect(frames.slice(1)).toEqual([
      { type: 'sync_refused', reason: 'not JSON' },
      { type: 'sync_refused', batch: 1, reason: expect.stringMatching(/^\/sessions\/0\/sid: /) },
      { type: 'sync_refused', batch: 2, reason: '/sessions/0/head: names another session than its entry' },
      { type: 'sync_ack', batch: 3 },
    ]);
    const sessions = await listed(server);
    expect(sessions.map((s) => [s.sid, s.workstation])).toEqual([['r1', 'laptop']]);
    // Opened by id, a synced session says where it is rather than that there is none.
    const client = await Client.open(server);
    expect(await client.request('transcript_read', { sid: 'r1', agent: 'codex', after: 0 })).toMatchObject({
      ok: false,
      error: { code: 'not_found', message: expect.stringMatching(/^session r1 is on workstation laptop, /) },
    });
    expect(await client.request('transcript_read', { sid: 'r9', agent: 'codex', after: 0 })).toMatchObject({
      ok: false,
      error: { code: 'not_found', message: 'no session r9 of codex' },
    });
    await client.close();

    // A ticket revoked while syncing ends the sync at its next frame.
    revokeTickets(home, 'laptop');
    ws.send(JSON.stringify({ type: 'sync_remove', batch: 4, sessions: [{ agent: 'codex', sid: 'r1' }] }));
    expect(await closed).toBe(1008);
    expect((await listed(server)).length).toBe(1);
  });

  it('resumes a machine of many sessions with nothing to send, a few hundred looked at a turn', async () => {
    const { server, ticket } = await serverWithTicket();
    const machine = machineHome();
    // 260 sessions of the corpus's shape, each its own file and id.
    const dir = dirname(machine.file);
    const text = readFileSync(machine.file, 'utf8');
    for (let i = 0; i < 260; i++) {
      const sid = `0000${String(i).padStart(4, '0')}-0000-4000-8000-000000000000`;
      writeFileSync(join(dir, `${sid}.jsonl`), text.replaceAll(CORPUS_SESSION_ID, sid));
    }
    let sync = syncMachine(server, ticket, machine);
    await sync.sync.caughtUp();
    const own = sync.catalog.all().length;
    expect(own).toBeGreaterThan(260);
    expect((await listed(server)).length).toBe(own);
    expect(sync.sync.counts.docs).toBeGreaterThan(260);
    await sync.close();
    sync = syncMachine(server, ticket, machine);
    await sync.sync.caughtUp();
    expect(sync.sync.counts).toMatchObject({ sent: 0, docs: 0, batches: 0, connections: 1 });
  });
});
