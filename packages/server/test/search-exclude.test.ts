// `-word` leaves out the items holding a word: what a search finds with it and what it finds with
// the word required split the search without it.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { ftsExpression, OnlyExclusions } from '../src/indexing/search-query.js';
import { Client, corpusEnv, serve } from './helpers.js';

const BUILT_WORKER = fileURLToPath(new URL('../../cli/dist/search-worker.js', import.meta.url));

describe('exclusions in a query', () => {
  it('turns one dash before a word or phrase into NOT, and keeps other dashes as text', () => {
    expect(ftsExpression('bead -spotter')).toBe('("bead") NOT ("spotter")');
    expect(ftsExpression('npm -"run test" -lint* build')).toBe(
      '("npm" AND "build") NOT ("run test" OR "lint" *)',
    );
    // Two dashes are a flag's spelling, and a lone dash holds no word.
    expect(ftsExpression('--no-redact')).toBe('"--no-redact"');
    expect(ftsExpression('bead - x')).toBe('"bead" AND "x"');
    // The same word wanted and unwanted stays as asked: it finds nothing, as it should.
    expect(ftsExpression('bead -bead')).toBe('("bead") NOT ("bead")');
  });

  it('refuses a query that only excludes', () => {
    expect(() => ftsExpression('-bead -"run test"')).toThrow(OnlyExclusions);
    expect(() => ftsExpression('-bead')).toThrow('add a word or phrase to find');
  });
});

type Hit = { sid: string; agent_id?: string; item_uuid: string; target: string };
const keyOf = (h: Hit) => `${h.sid} ${h.agent_id ?? ''} ${h.item_uuid} ${h.target}`;

describe.skipIf(!corpus || !existsSync(BUILT_WORKER))('searching the corpus with exclusions', () => {
  it('splits a word’s hits into those without the other word and those with it', async () => {
    const server = await serve(corpusEnv(), { searchWorker: BUILT_WORKER });
    const client = await Client.open(server);
    const hits = async (query: string): Promise<Set<string>> => {
      const reply = await client.request('session_search', { query, limit: 100_000 });
      expect(reply.ok, JSON.stringify(reply.error)).toBe(true);
      expect(reply.next_cursor).toBeUndefined();
      return new Set((reply.hits as Hit[]).map(keyOf));
    };
    const all = await hits('test');
    const without = await hits('test -error');
    const withIt = await hits('test error');
    expect(without.size).toBeGreaterThan(0);
    expect(withIt.size).toBeGreaterThan(0);
    expect([...without].filter((k) => withIt.has(k))).toEqual([]);
    expect(new Set([...without, ...withIt])).toEqual(all);

    const refused = await client.request('session_search', { query: '-test' });
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatchObject({ code: 'invalid_args', field: '/query' });
    await client.close();
    await server.close();
  });
});
