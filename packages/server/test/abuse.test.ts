// The daemon under abuse, on loopback and bounded: floods of invalid frames, a 100 MB frame, 200
// clients on one session stream and 1,100 idle sockets under a 1,024-descriptor limit. Throughout,
// an authenticated client keeps getting its answers.
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { corpus } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { buildDaemon, type Daemon, removeDaemon, startDaemon } from './daemon.js';
import { Client, claudeSessionHome, corpusEnv, homeEnv, serve, tempDir } from './helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Asks `ping` over its own authenticated socket, again and again, until stopped: every answer
 * and the slowest one are counted. */
async function probe(port: number, token: string) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${token}`);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const waiting = new Map<string, (frame: Record<string, unknown>) => void>();
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as Record<string, unknown>;
    waiting.get(frame.request_id as string)?.(frame);
  });
  let n = 0;
  const ask = (body: Record<string, unknown>) =>
    new Promise<Record<string, unknown> | undefined>((resolve) => {
      const id = `p${++n}`;
      const timer = setTimeout(() => resolve(undefined), 5000);
      waiting.set(id, (frame) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(frame);
      });
      ws.send(JSON.stringify({ request_id: id, ...body }));
    });
  const hello = await ask({ op: 'hello', role: 'user', protocol_version: 1 });
  if (hello?.ok !== true) throw new Error(`hello refused: ${JSON.stringify(hello)}`);
  let running = true;
  const result = { answered: 0, failed: 0, slowestMs: 0 };
  const loop = (async () => {
    while (running) {
      const started = Date.now();
      const reply = await ask({ op: 'session_list', limit: 5 });
      if (reply?.ok === true) result.answered++;
      else result.failed++;
      result.slowestMs = Math.max(result.slowestMs, Date.now() - started);
      await sleep(20);
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      ws.close();
      return result;
    },
  };
}

/** The client side of a WebSocket handshake over a bare TCP socket. */
async function rawSocket(port: number, token: string): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('error', reject);
  });
  socket.write(
    [
      `GET /ws?token=${token} HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
      'Upgrade: websocket',
      'Connection: Upgrade',
      `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
      'Sec-WebSocket-Version: 13',
      '',
      '',
    ].join('\r\n'),
  );
  await new Promise<void>((resolve, reject) => {
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      socket.off('data', onData);
      if (head.startsWith('HTTP/1.1 101')) resolve();
      else reject(new Error(head.split('\r\n')[0]));
    };
    socket.on('data', onData);
  });
  return socket;
}

describe('a server under abuse', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve(homeEnv(tempDir()));
  });
  afterAll(() => server?.close());

  it('answers 10,000 invalid frames on one socket with refusals and keeps serving another client', async () => {
    const watch = await probe(server.port, server.token);
    const flood = new WebSocket(`ws://127.0.0.1:${server.port}/ws?token=${server.token}`);
    await new Promise<void>((resolve) => flood.once('open', () => resolve()));
    const refusals: Record<string, unknown>[] = [];
    flood.on('message', (data) => refusals.push(JSON.parse(data.toString()) as Record<string, unknown>));
    const bad: (string | Buffer)[] = [
      'not json',
      '{}',
      '[]',
      'null',
      '{"op":"no_such_op","request_id":"x"}',
      '{"op":"session_list","request_id":7}',
      '{"op":"session_search","request_id":"s","query":5}',
      `${'['.repeat(5000)}${']'.repeat(5000)}`,
      Buffer.from([0xff, 0x00, 0xfe]),
      '{"op":"hello","request_id":"h","role":"root","protocol_version":-1}',
    ];
    for (let i = 0; i < 10_000; i++) flood.send(bad[i % bad.length]!);
    const deadline = Date.now() + 20_000;
    while (refusals.length < 10_000 && Date.now() < deadline) await sleep(50);
    expect(refusals.length).toBe(10_000);
    expect(refusals.every((r) => r.ok === false)).toBe(true);
    flood.close();
    const seen = await watch.stop();
    expect(seen.failed).toBe(0);
    expect(seen.answered).toBeGreaterThan(3);
    expect(seen.slowestMs).toBeLessThan(3000);
  }, 30_000);

  it('cuts off a socket announcing a 100 MB frame before reading it, and keeps serving another client', async () => {
    const watch = await probe(server.port, server.token);
    const socket = await rawSocket(server.port, server.token);
    const size = 100 * 1024 * 1024;
    const header = Buffer.alloc(14);
    header[0] = 0x81; // the final frame of a text message
    header[1] = 0x80 | 127; // masked, 64-bit length
    header.writeBigUInt64BE(BigInt(size), 2);
    randomBytes(4).copy(header, 10);
    let closed = false;
    socket.on('close', () => {
      closed = true;
    });
    socket.on('error', () => {});
    socket.write(header);
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    let sent = 0;
    const deadline = Date.now() + 10_000;
    while (!closed && sent < size && Date.now() < deadline) {
      if (!socket.write(chunk)) await new Promise((r) => setTimeout(r, 5));
      sent += chunk.length;
      await new Promise((r) => setImmediate(r));
    }
    await new Promise<void>((resolve) => (closed ? resolve() : socket.once('close', () => resolve())));
    expect(closed).toBe(true);
    // The server refused on the frame's length; far from all of it was taken in.
    expect(sent).toBeLessThan(size);
    const seen = await watch.stop();
    expect(seen.failed).toBe(0);
    expect(seen.answered).toBeGreaterThan(0);
  }, 30_000);
});

describe.skipIf(!corpus)('200 clients on one session stream', () => {
  it('all get an appended record, while another client keeps being served', async () => {
    const { home, file, lines } = claudeSessionHome(20);
    const server = await serve(homeEnv(home));
    const watch = await probe(server.port, server.token);
    const topic = 'session:claude-code:subagent';
    const clients = await Promise.all(Array.from({ length: 200 }, () => Client.open(server)));
    const readySeq = await Promise.all(
      clients.map(async (c) => {
        expect(await c.request('topic_subscribe', { topic })).toMatchObject({ ok: true });
        await c.until(
          (f) => f.some((x) => x.type === 'transcript_ready' || x.type === 'transcript_ready_end'),
          20_000,
        );
        return Math.max(-1, ...c.frames.map((f) => (typeof f.seq === 'number' ? f.seq : -1)));
      }),
    );
    appendFileSync(file, `${lines[20]}\n`);
    await Promise.all(
      clients.map((c, i) =>
        c.until((f) => f.some((x) => typeof x.seq === 'number' && x.seq > readySeq[i]!), 20_000),
      ),
    );
    await Promise.all(clients.map((c) => c.close()));
    const seen = await watch.stop();
    expect(seen.failed).toBe(0);
    expect(seen.answered).toBeGreaterThan(0);
    await server.close();
  }, 40_000);
});

describe.skipIf(!corpus)('1,100 idle sockets against a daemon limited to 1,024 descriptors', () => {
  let file: string;
  let daemon: Daemon | undefined;
  beforeAll(async () => {
    file = await buildDaemon();
  }, 60_000);
  afterAll(async () => {
    await daemon?.stop();
    removeDaemon(file);
  });

  it('keeps answering an authenticated client and new authenticated requests', async () => {
    daemon = await startDaemon(file, { ...corpusEnv(), CAIRN_HOME: tempDir('cairn-state-') }, [
      'prlimit',
      '--nofile=1024:1024',
      '--',
    ]);
    const { port, token } = daemon;
    const watch = await probe(port, token);
    let closedIdle = 0;
    const idle = await Promise.all(
      Array.from(
        { length: 1100 },
        () =>
          new Promise<Socket>((resolve) => {
            const s = connect({ host: '127.0.0.1', port });
            s.on('close', () => closedIdle++);
            s.on('error', () => {});
            s.once('connect', () => resolve(s));
            s.once('error', () => resolve(s));
          }),
      ),
    );
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      statuses.push(
        await new Promise<number>((resolve) => {
          const req = request(
            {
              host: '127.0.0.1',
              port,
              path: '/alive',
              agent: false,
              headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${token}` },
              timeout: 5000,
            },
            (res) => {
              res.resume();
              resolve(res.statusCode ?? 0);
            },
          );
          req.on('timeout', () => req.destroy());
          req.on('error', () => resolve(0));
          req.end();
        }),
      );
      await sleep(100);
    }
    expect(statuses).toEqual([204, 204, 204, 204, 204]);
    // At most 512 sockets are held, so the rest of the idle ones are closed. A handshake the kernel
    // completed while the accept queue was full reaches the daemon late, and so does its close.
    for (const until = Date.now() + 10_000; closedIdle <= 1100 - 512 && Date.now() < until; ) await sleep(50);
    expect(closedIdle).toBeGreaterThan(1100 - 512);
    for (const s of idle) s.destroy();
    const seen = await watch.stop();
    expect(seen.failed).toBe(0);
    expect(seen.answered).toBeGreaterThan(3);
    expect(daemon.log()).not.toMatch(/EMFILE/);
  }, 40_000);
});
