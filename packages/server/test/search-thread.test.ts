// Searches run on a thread of their own, over its own read-only connection to the index: its answers
// are those of a search on the daemon's thread, and a search the thread cannot answer is answered
// on the daemon's thread, damage to the index included.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { Client, corpusEnv, serve, tempDir } from './helpers.js';

// Worker threads start built code: the worker the daemon's bundle carries.
const BUILT_WORKER = fileURLToPath(new URL('../../cli/dist/search-worker.js', import.meta.url));
const FAILING_WORKER = fileURLToPath(new URL('./support/failing-search-worker.mjs', import.meta.url));

/** Searches with filters, phrases, prefixes and pages: every answer in full, in order. */
const ASKED: Record<string, unknown>[] = [
  { query: 'the' },
  { query: 'the', limit: 7, cursor: 'h:7' },
  { query: 'error', targets: ['tool_output'] },
  { query: 'function', targets: ['assistant', 'prompt'], agents: ['claude-code'] },
  { query: '"npm test"' },
  { query: 'test*', limit: 500 },
  { query: 'pomodoro', since_at: Date.parse('2026-01-01T00:00:00Z') },
  { query: 'no-such-word-anywhere' },
];

async function answers(server: RunningServer): Promise<unknown[]> {
  const client = await Client.open(server);
  try {
    const out: unknown[] = [];
    for (const args of ASKED) {
      const reply = await client.request('session_search', args);
      if (reply.ok !== true)
        throw new Error(`search ${JSON.stringify(args)} failed: ${JSON.stringify(reply)}`);
      out.push({ hits: reply.hits, next: reply.next_cursor });
    }
    return out;
  } finally {
    await client.close();
  }
}

describe.skipIf(!corpus || !existsSync(BUILT_WORKER))('searches on their own thread', () => {
  it('answer as searches on the daemon thread do, and leave no line in the log', async () => {
    const env = corpusEnv();
    const state = tempDir('cairn-state-');
    const here = await serve(env, { cairnHome: state, searchWorker: false });
    const expected = await answers(here);
    await here.close();
    expect((expected[0] as { hits: unknown[] }).hits).toHaveLength(50);
    expect((expected[5] as { hits: unknown[] }).hits.length).toBeGreaterThan(50);

    const lines: string[] = [];
    const threaded = await serve(env, {
      cairnHome: state,
      searchWorker: BUILT_WORKER,
      log: (l) => lines.push(l),
    });
    expect(await answers(threaded)).toEqual(expected);
    expect(lines.filter((l) => l.startsWith('search:'))).toEqual([]);
    await threaded.close();
  });

  it('have their thread started when a browser opens the list, before its first search', async () => {
    const server = await serve(corpusEnv(), {
      cairnHome: tempDir('cairn-state-'),
      searchWorker: BUILT_WORKER,
    });
    const client = await Client.open(server);
    try {
      expect(server.catalog.searchThreads).toEqual({ live: 0, warmed: 0 });
      await client.request('topic_subscribe', { topic: 'sessions' });
      await expect.poll(() => server.catalog.searchThreads).toEqual({ live: 1, warmed: 1 });
      // The search that follows runs on that thread: no second one starts for it.
      const reply = await client.request('session_search', { query: 'the' });
      expect((reply.hits as unknown[]).length).toBe(50);
      expect(server.catalog.searchThreads).toEqual({ live: 1, warmed: 1 });
    } finally {
      await client.close();
      await server.close();
    }
  });

  it('are answered on the daemon thread when the search thread fails', async () => {
    const env = corpusEnv();
    const state = tempDir('cairn-state-');
    const here = await serve(env, { cairnHome: state, searchWorker: false });
    const expected = await answers(here);
    await here.close();

    const lines: string[] = [];
    const failing = await serve(env, {
      cairnHome: state,
      searchWorker: FAILING_WORKER,
      log: (l) => lines.push(l),
    });
    expect(await answers(failing)).toEqual(expected);
    // The two searches for "the" lost their thread each time, the others were refused.
    const fallbacks = lines.filter((l) => l.startsWith('search: on the search thread'));
    expect(fallbacks.filter((l) => l.includes('search thread died'))).toHaveLength(2);
    expect(fallbacks.filter((l) => l.includes('no answer from this worker'))).toHaveLength(ASKED.length - 2);
    await failing.close();
  });

  it('find damage to the index, which the daemon rebuilds, and answer again', async () => {
    const state = tempDir('cairn-state-');
    const lines: string[] = [];
    const server = await serve(corpusEnv(), {
      cairnHome: state,
      searchWorker: BUILT_WORKER,
      log: (l) => lines.push(l),
    });
    const client = await Client.open(server);
    const before = await client.request('session_search', { query: 'pomodoro', limit: 200 });
    expect((before.hits as unknown[]).length).toBeGreaterThan(0);
    // The full-text index's own records: the file stays a sound SQLite file, so only a search can tell.
    const other = new Database(join(state, 'index.sqlite'));
    other.unsafeMode(true);
    other.prepare('UPDATE docs_fts_data SET block = randomblob(length(block)) WHERE id > 10').run();
    other.close();
    const during = await client.request('session_search', { query: 'pomodoro' });
    expect(during.ok).toBe(true);
    expect(lines.some((l) => l.startsWith('search: on the search thread'))).toBe(true);
    expect(lines.some((l) => l.includes('is damaged') && l.includes('rebuilding'))).toBe(true);
    await server.catalog.settled();
    const after = await client.request('session_search', { query: 'pomodoro', limit: 200 });
    expect(after.hits).toEqual(before.hits);
    await client.close();
    await server.close();
  });
});
