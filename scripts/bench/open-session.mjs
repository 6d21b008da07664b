// Opening a session in the reader: subscribe to its stream and wait for the whole history, while
// a second connection pings the daemon, so that the figure says both how long the reader waits and
// how long everybody else does.
import { Client } from './client.mjs';
import { sleep } from './stats.mjs';

/**
 * @returns {Promise<{ historyMs: number, items: number, slowestPingMs: number, error?: string }>}
 *   historyMs from the subscription to the history's last frame; error when the daemon sent one
 */
export async function openSession(daemon, topic, timeoutMs) {
  const server = await daemon.url;
  let finish;
  const finished = new Promise((resolve) => {
    finish = resolve;
  });
  let items = 0;
  const reader = await Client.connect(server, (f) => {
    if (f.type === 'transcript_ready') finish({ items: f.history.length });
    else if (f.type === 'transcript_ready_end') finish({ items: f.totalMessages });
    else if (f.type === 'error') finish({ error: f.message });
  });
  const pinger = await Client.connect(server);
  let slowestPingMs = 0;
  let pinging = true;
  const pings = (async () => {
    while (pinging) {
      const asked = performance.now();
      const reply = await pinger.request('ping', {}, timeoutMs);
      if (!reply.ok) break;
      slowestPingMs = Math.max(slowestPingMs, performance.now() - asked);
      await sleep(50);
    }
  })();
  try {
    const start = performance.now();
    const sub = await reader.request('topic_subscribe', { topic }, timeoutMs);
    if (!sub.ok) throw new Error(`topic_subscribe refused: ${JSON.stringify(sub.error)}`);
    let timer;
    const outcome = await Promise.race([
      finished,
      daemon.exited.then(({ code, signal }) => ({
        error: `the daemon exited (${signal ?? `code ${code}`}): ${daemon.tail(3)}`,
      })),
      new Promise((resolve) => {
        timer = setTimeout(() => resolve({ error: `no history within ${timeoutMs / 1000} s` }), timeoutMs);
      }),
    ]);
    // A pending timer would keep the bench from exiting.
    clearTimeout(timer);
    const historyMs = performance.now() - start;
    items = outcome.items ?? 0;
    pinging = false;
    await pings;
    return { historyMs, items, slowestPingMs, ...(outcome.error ? { error: outcome.error } : {}) };
  } finally {
    pinging = false;
    reader.close();
    pinger.close();
  }
}
