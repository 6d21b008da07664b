// A minimal client of the daemon's WebSocket: flat request envelopes answered by `request_id`, every
// other frame handed to `onFrame` with the time it arrived.
import WebSocket from 'ws';

const PROTOCOL_VERSION = 1;

export class Client {
  static async connect({ port, token }, onFrame = () => {}) {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?token=${encodeURIComponent(token)}`);
    await new Promise((resolve, reject) => {
      ws.once('open', resolve);
      ws.once('error', reject);
    });
    const client = new Client(ws, onFrame);
    const hello = await client.request('hello', { role: 'user', protocol_version: PROTOCOL_VERSION });
    if (!hello.ok) throw new Error(`hello refused: ${JSON.stringify(hello.error)}`);
    return client;
  }

  constructor(ws, onFrame) {
    this.ws = ws;
    this.pending = new Map();
    this.next = 1;
    ws.on('message', (data) => {
      const at = performance.now();
      const frame = JSON.parse(data.toString());
      const waiting = frame.request_id === undefined ? undefined : this.pending.get(frame.request_id);
      if (waiting && (frame.ok === true || frame.ok === false)) {
        this.pending.delete(frame.request_id);
        waiting(frame);
      } else onFrame(frame, at);
    });
    ws.on('close', () => {
      for (const resolve of this.pending.values()) resolve({ ok: false, error: { code: 'closed' } });
      this.pending.clear();
    });
  }

  request(op, args = {}, timeoutMs = 30_000) {
    const request_id = `b${this.next++}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(request_id);
        resolve({ ok: false, error: { code: 'timeout', message: `${op}: no reply in ${timeoutMs} ms` } });
      }, timeoutMs);
      this.pending.set(request_id, (reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      this.ws.send(JSON.stringify({ request_id, op, ...args }));
    });
  }

  close() {
    this.ws.terminate();
  }
}
