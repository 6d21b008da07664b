// One session's hits read page after page in the order they were recorded, with the count of them
// all given on the first page: what the reader's "search the whole session" lists past its first page.
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { Client, corpusEnv, serve } from './helpers.js';

type Hit = { sid: string; agent_id?: string; item_uuid: string; target: string; at?: number };
const keyOf = (h: Hit) => `${h.sid} ${h.agent_id ?? ''} ${h.item_uuid} ${h.target}`;

describe.skipIf(!corpus)("a session's hits in time order, paged and counted", () => {
  it('pages through every hit of the session in time order, and counts them on the first page', async () => {
    const server = await serve(corpusEnv());
    const client = await Client.open(server);
    // The corpus session with the most hits of a common word.
    const everywhere = await client.request('session_search', { query: 'test', limit: 100_000 });
    expect(everywhere.ok, JSON.stringify(everywhere.error)).toBe(true);
    const bySession = new Map<string, Hit[]>();
    for (const hit of everywhere.hits as Hit[])
      bySession.set(hit.sid, [...(bySession.get(hit.sid) ?? []), hit]);
    const [sid, hits] = [...bySession].sort((a, b) => b[1].length - a[1].length)[0]!;
    expect(hits.length).toBeGreaterThan(20);

    const pages: Hit[][] = [];
    let cursor: string | undefined;
    let total: unknown;
    do {
      const reply = await client.request('session_search', {
        query: 'test',
        sid,
        order: 'time',
        limit: 7,
        ...(cursor === undefined ? { count: true } : { cursor }),
      });
      expect(reply.ok, JSON.stringify(reply.error)).toBe(true);
      if (cursor === undefined) total = reply.total;
      // Counted only when asked.
      else expect(reply.total).toBeUndefined();
      pages.push(reply.hits as Hit[]);
      cursor = reply.next_cursor as string | undefined;
    } while (cursor !== undefined);

    const paged = pages.flat();
    expect(total).toBe(hits.length);
    expect(pages.slice(0, -1).every((p) => p.length === 7)).toBe(true);
    // The same hits as the ranked search found, each once, and in the order they were recorded.
    expect(new Set(paged.map(keyOf))).toEqual(new Set(hits.map(keyOf)));
    expect(paged.length).toBe(hits.length);
    const times = paged.map((h) => h.at ?? Number.NEGATIVE_INFINITY);
    expect(times).toEqual([...times].sort((a, b) => a - b));

    // A search that matches nothing counts nothing; the ranked default stays best first.
    const none = await client.request('session_search', { query: 'zzqqxxnotaword', sid, count: true });
    expect(none).toMatchObject({ ok: true, hits: [], total: 0 });
    const ranked = await client.request('session_search', { query: 'test', sid, limit: 10 });
    const scores = (ranked.hits as { score: number }[]).map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(ranked.total).toBeUndefined();
    await client.close();
    await server.close();
  });
});
