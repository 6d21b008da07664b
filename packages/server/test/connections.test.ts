// Idle and silent connections cannot starve the daemon: it holds a bounded number of sockets, drops
// the ones that never show the token, and an authenticated client is served all the while, even
// with more idle sockets than the process has file descriptors.
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { corpus } from '../../transcript/test/corpus.js';
import { defaultLimits } from '../src/gate/connections.js';
import { buildDaemon, type Daemon, removeDaemon, startDaemon } from './daemon.js';
import { Client, corpusEnv, homeEnv, serve, tempDir } from './helpers.js';

/** Opens `n` TCP connections that never send a byte; resolves once each connected or failed. */
async function idleSockets(port: number, n: number): Promise<{ sockets: Socket[]; closed: () => number }> {
  let closed = 0;
  const sockets = await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<Socket>((resolve) => {
          const s = connect({ host: '127.0.0.1', port });
          s.on('close', () => closed++);
          s.on('error', () => {});
          s.once('connect', () => resolve(s));
          s.once('error', () => resolve(s));
        }),
    ),
  );
  return { sockets, closed: () => closed };
}

/** A GET on a new connection that carries the token; resolves with the status, 0 when it failed. */
function freshGet(port: number, token: string, path: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        agent: false,
        headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${token}` },
        timeout: 5000,
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}

/** One protocol request over a raw socket, with its reply. */
function ask(ws: WebSocket, id: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no reply to ${String(body.op)} in 5 s`)), 5000);
    const onMessage = (data: WebSocket.RawData) => {
      const frame = JSON.parse(data.toString()) as Record<string, unknown>;
      if (frame.request_id !== id) return;
      ws.off('message', onMessage);
      clearTimeout(timer);
      resolve(frame);
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ request_id: id, ...body }));
  });
}

/** Waits until `test` holds or `ms` passed. */
async function until(test: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

describe('the number of sockets', () => {
  it('is half the open-file limit, within bounds', () => {
    expect(defaultLimits(1024).maxSockets).toBe(512);
    expect(defaultLimits(256).maxSockets).toBe(128);
    expect(defaultLimits(10).maxSockets).toBe(16);
    expect(defaultLimits(1_000_000).maxSockets).toBe(4096);
  });

  it('drops sockets that never show the token, soon, and keeps the authenticated one', async () => {
    const server = await serve(corpusEnv(), { connections: { maxSockets: 8, untrustedMs: 300 } });
    const client = await Client.open(server);
    const idle = await idleSockets(server.port, 30);
    // Past the cap the oldest idle ones make room at once; the rest go when their time is up.
    await until(() => idle.closed() >= 22, 250);
    expect(idle.closed()).toBeGreaterThanOrEqual(22);
    await new Promise((r) => setTimeout(r, 800));
    expect(idle.closed()).toBe(30);
    expect((await client.request('ping')).ok).toBe(true);
    expect(await freshGet(server.port, server.token, '/dumps/none.json')).toBe(404);
    await client.close();
    await server.close();
  });
});

describe('a browser loading the page', () => {
  it('keeps its connection while it asks for the page, even past the untrusted time', async () => {
    const server = await serve(homeEnv(tempDir()), { connections: { maxSockets: 64, untrustedMs: 400 } });
    const socket = connect({ host: '127.0.0.1', port: server.port });
    let closed = false;
    socket.on('close', () => {
      closed = true;
    });
    let answers = 0;
    socket.on('data', (chunk) => {
      answers += (chunk.toString('latin1').match(/HTTP\/1\.1 200/g) ?? []).length;
    });
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    for (let i = 0; i < 5; i++) {
      socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`);
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(closed).toBe(false);
    expect(answers).toBe(5);
    // Left idle, it goes when its time is up.
    await until(() => closed, 2000);
    expect(closed).toBe(true);
    await server.close();
  });
});

describe.skipIf(!corpus)('a daemon with 256 file descriptors and 600 idle sockets', () => {
  let file: string;
  let daemon: Daemon | undefined;
  beforeAll(async () => {
    file = await buildDaemon();
  }, 60_000);
  afterAll(async () => {
    await daemon?.stop();
    removeDaemon(file);
  });

  it('answers an authenticated client and new authenticated requests throughout', async () => {
    daemon = await startDaemon(file, { ...corpusEnv(), CAIRN_HOME: tempDir('cairn-state-') }, [
      'prlimit',
      '--nofile=256:256',
      '--',
    ]);
    const { port, token } = daemon;
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    expect(await ask(ws, 'h', { op: 'hello', role: 'user', protocol_version: 1 })).toMatchObject({
      ok: true,
    });
    const list = await ask(ws, 'l', { op: 'session_list', limit: 50 });
    const sids = (list.sessions as { sid: string }[]).map((s) => s.sid);
    expect(sids.length).toBeGreaterThan(3);

    const idle = await idleSockets(port, 600);
    for (let round = 0; round < 4; round++) {
      // Each read opens the session's file again: it needs a free descriptor.
      const read = await ask(ws, `r${round}`, {
        op: 'transcript_read',
        sid: sids[round],
        after: 0,
        max_bytes: 500,
      });
      expect(read.ok, JSON.stringify(read).slice(0, 300)).toBe(true);
      expect(await freshGet(port, token, '/dumps/none.json')).toBe(404);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(idle.closed()).toBeGreaterThan(600 - 256);
    for (const s of idle.sockets) s.destroy();
    ws.close();
    expect(daemon.log()).not.toMatch(/EMFILE/);
  }, 60_000);
});
