// When a daemon is ready: its index reports every session indexed. The server's own progress line
// (`index: N/N sessions indexed (X MB read)`) gives the moment and its read count; `ping` confirms it
// (and is the only signal when nothing needed indexing, since then no progress line is printed).
import { Client } from './client.mjs';
import { sleep } from './stats.mjs';

const PROGRESS = /^index: (\d+)\/(\d+) sessions indexed \(([\d.]+) MB read\)/;

/** Sessions of the list's first page: those a person sees first. */
export const TOP_SESSIONS = 50;

/**
 * @returns {Promise<{ readyMs: number, sessions: number, indexed: number, serverReadMb: number | undefined,
 *   readyEpochMs: number, slowestPingMs: number, topMs: number }>} readyMs counts from the spawn;
 *   slowestPingMs is the longest a ping waited for its answer meanwhile: how long the daemon stopped
 *   answering while it indexed; topMs is when the TOP_SESSIONS most recently active all had their
 *   numbers (within the poll interval)
 */
export async function untilReady(daemon, timeoutMs) {
  const { port, token } = await daemon.url;
  const client = await Client.connect({ port, token });
  try {
    const deadline = performance.now() + timeoutMs;
    let slowestPingMs = 0;
    let topMs;
    for (;;) {
      const asked = performance.now();
      const reply = await client.request('ping');
      if (!reply.ok) throw new Error(`ping refused: ${JSON.stringify(reply.error)}`);
      const now = performance.now();
      slowestPingMs = Math.max(slowestPingMs, now - asked);
      if (topMs === undefined) {
        const top = await client.request('session_list', { limit: TOP_SESSIONS });
        if (top.ok && top.sessions.length > 0 && top.sessions.every((h) => h.input_tokens !== undefined))
          topMs = performance.now() - daemon.startedAt;
      }
      if (reply.index.state === 'ready') {
        const last = lastProgress(daemon);
        // The progress line marks the end exactly; the ping only confirms it within its poll interval.
        const at = last && last.done === last.total ? Math.min(last.at, now) : now;
        return {
          readyMs: at - daemon.startedAt,
          readyEpochMs: Date.now() - (now - at),
          sessions: reply.index.sessions,
          indexed: last?.total ?? 0,
          serverReadMb: last?.mb,
          slowestPingMs,
          topMs: Math.min(topMs ?? at - daemon.startedAt, at - daemon.startedAt),
        };
      }
      if (now > deadline) throw new Error(`index not ready after ${timeoutMs} ms\n${daemon.tail()}`);
      await sleep(50);
    }
  } finally {
    client.close();
  }
}

function lastProgress(daemon) {
  for (let i = daemon.lines.length - 1; i >= 0; i--) {
    const m = PROGRESS.exec(daemon.lines[i].text);
    if (m) return { done: Number(m[1]), total: Number(m[2]), mb: Number(m[3]), at: daemon.lines[i].at };
  }
  return undefined;
}

/** Waits until the daemon lists at least `count` sessions, all indexed. */
export async function untilSessions(daemon, count, timeoutMs) {
  const client = await Client.connect(await daemon.url);
  try {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const reply = await client.request('ping');
      if (reply.ok && reply.index.state === 'ready' && reply.index.sessions >= count) return;
      if (performance.now() > deadline)
        throw new Error(`the daemon did not list ${count} sessions within ${timeoutMs} ms\n${daemon.tail()}`);
      await sleep(100);
    }
  } finally {
    client.close();
  }
}
