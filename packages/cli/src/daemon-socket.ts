// The daemon running for this home, asked over its WebSocket as a user connection: what
// `cairn search` and `cairn usage` take from a running daemon instead of reading sessions here.
import { keptToken, processAlive, readDaemonRecord } from '@cairn/server';
import WebSocket from 'ws';

export interface RunningDaemon {
  base: string;
  port: number;
  token: string;
}

/** The daemon running for this home and taking its kept token, or undefined. */
export function runningDaemon(home: string, env: NodeJS.ProcessEnv): RunningDaemon | undefined {
  const read = readDaemonRecord(home);
  if (read.kind !== 'record' || !processAlive(read.record.pid)) return undefined;
  const token = keptToken(home, env);
  if (token === undefined) return undefined;
  return { base: read.record.base, port: read.record.port, token };
}

export interface DaemonSocket {
  /** The reply frame of one op; `ok: false` with an error when the daemon goes before answering. */
  request(op: string, body: object): Promise<Record<string, unknown>>;
  /** Ends the connection; every request still waiting is answered as gone. */
  close(): void;
}

const GONE = { ok: false, error: { message: 'the daemon closed the connection' } };

/** A connection to the daemon; undefined when it cannot be reached. */
export async function openDaemonSocket(daemon: RunningDaemon): Promise<DaemonSocket | undefined> {
  const ws = new WebSocket(`ws://127.0.0.1:${daemon.port}/ws?token=${encodeURIComponent(daemon.token)}`);
  try {
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
  } catch {
    return undefined;
  }
  const replies = new Map<string, (frame: Record<string, unknown>) => void>();
  ws.on('message', (data) => {
    const frame = JSON.parse(String(data)) as Record<string, unknown>;
    const id = String(frame.request_id);
    const waiting = replies.get(id);
    if (!waiting || typeof frame.ok !== 'boolean') return;
    replies.delete(id);
    waiting(frame);
  });
  // One listener answers every request still waiting when the daemon goes, however many were sent.
  const gone = () => {
    for (const waiting of replies.values()) waiting(GONE);
    replies.clear();
  };
  ws.once('close', gone);
  ws.on('error', gone);
  let sent = 0;
  return {
    request: (op, body) =>
      new Promise((resolve) => {
        if (ws.readyState !== WebSocket.OPEN) return resolve(GONE);
        const id = `r${sent++}`;
        replies.set(id, resolve);
        ws.send(JSON.stringify({ request_id: id, op, ...body }));
      }),
    close: () => {
      ws.terminate();
      gone();
    },
  };
}
