// Full-text search latency over a daemon's index: `session_search` for a few common and rare words,
// and the common ones again as the web page asks them (tool output left out), each asked several
// times over one WebSocket, timed from request to answer. A second client pings
// the daemon meanwhile: the longest ping says how long a search holds up everyone else. Then a
// common word repeated 499 times, while another client searches a rare word over and over: a
// query costs what its distinct words cost, and no search waits behind another.
import { Client } from './client.mjs';
import { percentile, sleep } from './stats.mjs';

/** Words that occur in most sessions of the shared corpus, and words that occur in few. */
export const SEARCH_WORDS = {
  common: ['the', 'error', 'function'],
  rare: ['pomodoro', 'debounce', 'vitest'],
};

/** What a kind of search asks beside its word: the web page leaves tool output out unless told. */
const KINDS = [
  { kind: 'common', words: 'common', args: {} },
  { kind: 'rare', words: 'rare', args: {} },
  {
    kind: 'common (no tool output)',
    words: 'common',
    args: { targets: ['prompt', 'assistant', 'thinking', 'tool_input'] },
  },
];

/**
 * Latencies (ms) per word, the p50/p95 over all of a kind's answers, and the longest ping meanwhile.
 * @param {{ port: number, token: string }} url
 */
export async function measureSearch(url, { runs = 20, words = SEARCH_WORDS } = {}) {
  const client = await Client.connect(url);
  const pinger = await Client.connect(url);
  const out = {};
  try {
    for (const { kind, words: which, args } of KINDS) {
      const list = words[which];
      const all = [];
      const hits = {};
      const pings = pinging(pinger);
      let longestPingMs;
      // A search refused ends the bench; the pings stop either way, or the process would never exit.
      try {
        for (const word of list) {
          for (let i = 0; i < runs; i++) {
            const start = performance.now();
            const reply = await client.request('session_search', { query: word, limit: 50, ...args });
            all.push(performance.now() - start);
            if (!reply.ok) throw new Error(`search '${word}' refused: ${JSON.stringify(reply.error)}`);
            hits[word] = reply.hits.length;
          }
        }
      } finally {
        longestPingMs = await pings.stop();
      }
      out[kind] = {
        p50: percentile(all, 50),
        p95: percentile(all, 95),
        hits,
        asked: all.length,
        longestPingMs,
      };
    }
    out.repeated = await measureRepeated(client, await Client.connect(url), pinger, runs);
  } finally {
    client.close();
    pinger.close();
  }
  return out;
}

/** The longest query of one word the protocol takes: 499 times `a`, 998 characters. */
const REPEATED = Array(499).fill('a').join(' ');

/**
 * The repeated query asked `runs` times on `client`, while `other` searches a rare word without
 * pause: the repeated query's latencies and the longest of the other client's searches meanwhile.
 */
async function measureRepeated(client, other, pinger, runs) {
  const pings = pinging(pinger);
  let on = true;
  let otherLongest = 0;
  const otherLoop = (async () => {
    while (on) {
      const start = performance.now();
      await other.request('session_search', { query: SEARCH_WORDS.rare[0], limit: 50 });
      otherLongest = Math.max(otherLongest, performance.now() - start);
    }
  })();
  const all = [];
  let hits = 0;
  try {
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      const reply = await client.request('session_search', { query: REPEATED, limit: 50 });
      all.push(performance.now() - start);
      if (!reply.ok) throw new Error(`search 'a' x499 refused: ${JSON.stringify(reply.error)}`);
      hits = reply.hits.length;
    }
  } finally {
    on = false;
    await otherLoop;
    other.close();
  }
  return {
    p50: percentile(all, 50),
    p95: percentile(all, 95),
    hits: { 'a x499': hits },
    asked: all.length,
    longestPingMs: await pings.stop(),
    otherSearchMs: otherLongest,
  };
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
