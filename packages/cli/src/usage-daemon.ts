// `cairn usage` answered by the running daemon: its index keeps every session's requests, so the
// report reads no transcript. Undefined when no daemon runs for this home, or it cannot answer (the
// CLI then counts the sessions itself, as it does without one).
import type { UsageReadArgs, UsageReadResult } from '@cairn/protocol';
import { type DaemonSocket, openDaemonSocket, runningDaemon } from './daemon-socket.js';

/** How long a daemon may take to answer before the CLI counts the sessions itself. */
const ANSWER_MS = 120_000;

export async function usageFromDaemon(
  home: string,
  env: NodeJS.ProcessEnv,
  args: UsageReadArgs,
): Promise<UsageReadResult | undefined> {
  const link = await usageLink(home, env);
  if (!link) return undefined;
  try {
    // A daemon of an older build may not know the op: the CLI then counts for itself.
    return await link.ask(args);
  } finally {
    link.close();
  }
}

/** A connection kept open to ask the daemon for report after report (`blocks --live`). */
export interface UsageLink {
  /** The daemon's answer, or undefined when it is gone or refuses. */
  ask(args: UsageReadArgs): Promise<UsageReadResult | undefined>;
  close(): void;
}

/** A link to the running daemon that answers `usage_read`, or undefined when there is none. */
export async function usageLink(home: string, env: NodeJS.ProcessEnv): Promise<UsageLink | undefined> {
  const daemon = runningDaemon(home, env);
  const socket = daemon && (await openDaemonSocket(daemon));
  if (!socket) return undefined;
  const timer = setTimeout(() => socket.close(), ANSWER_MS);
  const hello = await socket
    .request('hello', { role: 'user', protocol_version: 1 })
    .finally(() => clearTimeout(timer));
  if (hello.ok !== true) {
    socket.close();
    return undefined;
  }
  const ask = (args: UsageReadArgs) => askUsage(socket, args);
  return { ask, close: () => socket.close() };
}

async function askUsage(socket: DaemonSocket, args: UsageReadArgs): Promise<UsageReadResult | undefined> {
  const timer = setTimeout(() => socket.close(), ANSWER_MS);
  const reply = await socket.request('usage_read', args).finally(() => clearTimeout(timer));
  if (reply.ok !== true) return undefined;
  const { ok: _ok, request_id: _id, ...result } = reply;
  return result as unknown as UsageReadResult;
}
