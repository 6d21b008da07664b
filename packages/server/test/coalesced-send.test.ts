// Frames sent through a coalesced send leave together at the end of the turn that sent them: every
// one arrives, in order, whether sent in one burst or across turns, and a socket closed mid-burst
// takes the rest without an error.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { coalescedSend } from '../src/gate/coalesced-send.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
});

/** A WebSocket server whose one connection is handed to `onOpen` with the send under test. */
async function serveOne(onOpen: (send: (data: string) => void, ws: WebSocket, socket: Duplex) => void) {
  const wss = new WebSocketServer({ noServer: true });
  const server = createServer();
  servers.push(server);
  server.on('upgrade', (req, socket, head) =>
    wss.handleUpgrade(req, socket, head, (ws) => onOpen(coalescedSend(ws, socket), ws, socket)),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function receive(url: string, count: number): Promise<string[]> {
  const got: string[] = [];
  const ws = new WebSocket(url);
  return new Promise((resolve, reject) => {
    ws.on('message', (data) => {
      got.push(data.toString());
      if (got.length === count) {
        ws.close();
        resolve(got);
      }
    });
    ws.on('error', reject);
  });
}

it('sends a burst of frames made in one turn, each whole and in order', async () => {
  const frames = Array.from({ length: 5000 }, (_, i) => JSON.stringify({ seq: i + 1, text: `chunk ${i}` }));
  const url = await serveOne((send) => {
    for (const frame of frames) send(frame);
  });
  expect(await receive(url, frames.length)).toEqual(frames);
});

it('sends frames made across turns, and each turn’s without waiting for a later one', async () => {
  const url = await serveOne((send) => {
    send('one');
    setTimeout(() => {
      send('two');
      send('three');
      // A promise's continuation is a later part of the same turn: held with it, sent with it.
      void Promise.resolve().then(() => send('four'));
    }, 50);
    // Nothing is sent after this one: it must still go.
    setTimeout(() => send('five'), 100);
  });
  expect(await receive(url, 5)).toEqual(['one', 'two', 'three', 'four', 'five']);
});

it('takes the rest of a burst without an error once the socket is gone', async () => {
  let done: (error?: unknown) => void = () => {};
  const finished = new Promise((resolve, reject) => {
    done = (error) => (error ? reject(error) : resolve(undefined));
  });
  const url = await serveOne((send, ws, socket) => {
    send('first');
    socket.destroy();
    try {
      for (let i = 0; i < 100; i++) if (ws.readyState === ws.OPEN) send(`after ${i}`);
      setTimeout(() => done(), 20);
    } catch (error) {
      done(error);
    }
  });
  const client = new WebSocket(url);
  client.on('error', () => {});
  await finished;
});
