// A search costs what its distinct terms cost, a search that runs too long is stopped, and no
// search holds up another client's.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { ftsExpression, MAX_SEARCH_TERMS } from '../src/indexing/search-query.js';
import { Client, corpusEnv, serve } from './helpers.js';

// Worker threads start built code: the worker the daemon's bundle carries.
const BUILT_WORKER = fileURLToPath(new URL('../../cli/dist/search-worker.js', import.meta.url));
const STALLING_WORKER = fileURLToPath(new URL('./support/stalling-search-worker.mjs', import.meta.url));

describe('a query as search terms', () => {
  it('asks a word repeated, in another case or with punctuation, once', () => {
    expect(ftsExpression('the the THE the, "the" (the)')).toBe('"the"');
    expect(ftsExpression('a '.repeat(499))).toBe('"a"');
    expect(ftsExpression('"npm test" "NPM  test" npm test')).toBe('"npm test" AND "npm" AND "test"');
    // A prefix is a term of its own beside the word.
    expect(ftsExpression('test test* test*')).toBe('"test" AND "test" *');
  });

  it('keeps spellings the index may tell apart', () => {
    expect(ftsExpression('café cafe Ünïcode ünïcode')).toBe('"café" AND "cafe" AND "Ünïcode" AND "ünïcode"');
  });

  it('refuses more distinct terms than a search takes, saying how many', () => {
    const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
    expect(ftsExpression(words(MAX_SEARCH_TERMS))?.split(' AND ')).toHaveLength(MAX_SEARCH_TERMS);
    expect(() => ftsExpression(words(MAX_SEARCH_TERMS + 1))).toThrow(
      `the query has ${MAX_SEARCH_TERMS + 1} distinct words and phrases; a search takes at most ${MAX_SEARCH_TERMS}`,
    );
    // Repeats count once.
    expect(ftsExpression(`${words(MAX_SEARCH_TERMS)} ${words(MAX_SEARCH_TERMS)}`)).toBeDefined();
  });
});

describe.skipIf(!corpus || !existsSync(BUILT_WORKER))('searches of hostile queries', () => {
  it('answer a common word repeated 499 times as the word once', async () => {
    const server = await serve(corpusEnv(), { searchWorker: BUILT_WORKER });
    const client = await Client.open(server);
    const once = await client.request('session_search', { query: 'a', limit: 100 });
    expect(once.ok).toBe(true);
    expect((once.hits as unknown[]).length).toBe(100);
    const repeated = await client.request('session_search', { query: 'a '.repeat(499).trim(), limit: 100 });
    expect(repeated).toEqual({ ...once, request_id: repeated.request_id });

    const tooMany = Array.from({ length: MAX_SEARCH_TERMS + 1 }, (_, i) => `word${i}`).join(' ');
    const refused = await client.request('session_search', { query: tooMany });
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatchObject({ code: 'invalid_args', field: '/query' });
    expect((refused.error as { message: string }).message).toContain(`at most ${MAX_SEARCH_TERMS}`);
    await client.close();
    await server.close();
  });

  it('answer one client while another client’s search runs long, then stop that one', async () => {
    const lines: string[] = [];
    const server = await serve(corpusEnv(), {
      searchWorker: STALLING_WORKER,
      searchBudgetMs: 5_000,
      log: (l) => lines.push(l),
    });
    const slowClient = await Client.open(server);
    const quickClient = await Client.open(server);
    const expected = await quickClient.request('session_search', { query: 'pomodoro' });
    expect((expected.hits as unknown[]).length).toBeGreaterThan(0);

    const order: string[] = [];
    const slow = slowClient.request('session_search', { query: 'stall' }).then((reply) => {
      order.push('slow');
      return reply;
    });
    const quick = await quickClient.request('session_search', { query: 'pomodoro' });
    order.push('quick');
    expect(quick.hits).toEqual(expected.hits);

    const stopped = await slow;
    expect(order).toEqual(['quick', 'slow']);
    expect(stopped.ok).toBe(false);
    expect(stopped.error).toMatchObject({ code: 'invalid_args', field: '/query' });
    expect((stopped.error as { message: string }).message).toContain('ran past 5 s and was stopped');
    // Not searched again on the daemon's own thread, which it would hold up as long.
    expect(lines.filter((l) => l.includes('searching here instead'))).toEqual([]);

    // The stopped search's thread is replaced: both clients search again.
    const again = await slowClient.request('session_search', { query: 'pomodoro' });
    expect(again.hits).toEqual(expected.hits);
    expect((await quickClient.request('session_search', { query: 'pomodoro' })).hits).toEqual(expected.hits);
    await slowClient.close();
    await quickClient.close();
    await server.close();
  });
});
