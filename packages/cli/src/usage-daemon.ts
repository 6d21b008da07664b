// `cairn usage` answered by the running daemon: its index keeps every session's requests, so the
// report reads no transcript. Undefined when no daemon runs for this home, or it cannot answer (the
// CLI then counts the sessions itself, as it does without one).
import type { UsageReadArgs, UsageReadResult } from '@cairn/protocol';
import { keptToken, processAlive, readDaemonRecord } from '@cairn/server';
import WebSocket from 'ws';

/** How long a daemon may take to answer before the CLI counts the sessions itself. */
const ANSWER_MS = 120_000;

export async function usageFromDaemon(
  home: string,
  env: NodeJS.ProcessEnv,
  args: UsageReadArgs,
): Promise<UsageReadResult | undefined> {
  const read = readDaemonRecord(home);
  if (read.kind !== 'record' || !processAlive(read.record.pid)) return undefined;
  const token = keptToken(home, env);
  if (token === undefined) return undefined;
  const ws = new WebSocket(`ws://127.0.0.1:${read.record.port}/ws?token=${encodeURIComponent(token)}`);
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
    const waiting = replies.get(String(frame.request_id));
    if (waiting && typeof frame.ok === 'boolean') waiting(frame);
  });
  const gone = () => {
    for (const waiting of replies.values()) waiting({ ok: false });
  };
  ws.once('close', gone);
  ws.on('error', gone);
  const request = (id: string, op: string, body: object) =>
    new Promise<Record<string, unknown>>((resolve) => {
      replies.set(id, resolve);
      ws.send(JSON.stringify({ request_id: id, op, ...body }));
    });
  const timer = setTimeout(gone, ANSWER_MS);
  try {
    const hello = await request('h', 'hello', { role: 'user', protocol_version: 1 });
    if (hello.ok !== true) return undefined;
    const reply = await request('u', 'usage_read', args);
    // A daemon of an older build may not know the op: the CLI counts for itself.
    if (reply.ok !== true) return undefined;
    const { ok: _ok, request_id: _id, ...result } = reply;
    return result as unknown as UsageReadResult;
  } finally {
    clearTimeout(timer);
    ws.terminate();
  }
}
