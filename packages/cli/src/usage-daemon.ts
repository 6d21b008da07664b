// `cairn usage` answered by the running daemon: its index keeps every session's requests, so the
// report reads no transcript. Undefined when no daemon runs for this home, or it cannot answer (the
// CLI then counts the sessions itself, as it does without one).
import type { UsageReadArgs, UsageReadResult } from '@cairn/protocol';
import { openDaemonSocket, runningDaemon } from './daemon-socket.js';

/** How long a daemon may take to answer before the CLI counts the sessions itself. */
const ANSWER_MS = 120_000;

export async function usageFromDaemon(
  home: string,
  env: NodeJS.ProcessEnv,
  args: UsageReadArgs,
): Promise<UsageReadResult | undefined> {
  const daemon = runningDaemon(home, env);
  const socket = daemon && (await openDaemonSocket(daemon));
  if (!socket) return undefined;
  const timer = setTimeout(() => socket.close(), ANSWER_MS);
  try {
    const hello = await socket.request('hello', { role: 'user', protocol_version: 1 });
    if (hello.ok !== true) return undefined;
    const reply = await socket.request('usage_read', args);
    // A daemon of an older build may not know the op: the CLI counts for itself.
    if (reply.ok !== true) return undefined;
    const { ok: _ok, request_id: _id, ...result } = reply;
    return result as unknown as UsageReadResult;
  } finally {
    clearTimeout(timer);
    socket.close();
  }
}
