// Full-text search latency over a daemon's index: `session_search` for a few common and rare words,
// each asked several times over one WebSocket, timed from request to answer. A second client pings
// the daemon meanwhile: the longest ping says how long a search holds up everyone else.
import { Client } from './client.mjs';
import { percentile, sleep } from './stats.mjs';

/** Words that occur in most sessions of the shared corpus, and words that occur in few. */
export const SEARCH_WORDS = {
  common: ['the', 'error', 'function'],
  rare: ['pomodoro', 'debounce', 'vitest'],
};

/**
 * Latencies (ms) per word, the p50/p95 over all of a kind's answers, and the longest ping meanwhile.
 * @param {{ port: number, token: string }} url
 */
export async function measureSearch(url, { runs = 20, words = SEARCH_WORDS } = {}) {
  const client = await Client.connect(url);
  const pinger = await Client.connect(url);
  const out = {};
  try {
    for (const [kind, list] of Object.entries(words)) {
      const all = [];
      const hits = {};
      const pings = pinging(pinger);
      for (const word of list) {
        for (let i = 0; i < runs; i++) {
          const start = performance.now();
          const reply = await client.request('session_search', { query: word, limit: 50 });
          all.push(performance.now() - start);
          if (!reply.ok) throw new Error(`search '${word}' refused: ${JSON.stringify(reply.error)}`);
          hits[word] = reply.hits.length;
        }
      }
      const longestPingMs = await pings.stop();
      out[kind] = {
        p50: percentile(all, 50),
        p95: percentile(all, 95),
        hits,
        asked: all.length,
        longestPingMs,
      };
    }
  } finally {
    client.close();
    pinger.close();
  }
  return out;
}

/** Pings every 10 ms until stopped; `stop` resolves to the longest wait for an answer. */
function pinging(client) {
  let on = true;
  let longest = 0;
  const loop = (async () => {
    while (on) {
      const start = performance.now();
      await client.request('ping');
      longest = Math.max(longest, performance.now() - start);
      await sleep(10);
    }
  })();
  return {
    stop: async () => {
      on = false;
      await loop;
      return longest;
    },
  };
}
