// While an index found damaged is recorded again, every answer says the index is building: a
// search is partial and a ping says building, until the rebuild ends and answers are whole again.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { Client, corpusEnv, serve, tempDir } from './helpers.js';

type Hit = { sid: string; item_uuid: string; target: string };
const lines = (hits: unknown): string[] =>
  (hits as Hit[]).map((h) => `${h.sid}:${h.item_uuid}:${h.target}`).sort();

describe.skipIf(!corpus)('a damaged index being replaced', () => {
  it('answers building and partial from the damage found to the rebuild’s end', async () => {
    const state = tempDir('cairn-state-');
    const log: string[] = [];
    const server = await serve(corpusEnv(), { cairnHome: state, log: (l) => log.push(l) });
    const client = await Client.open(server);
    const before = await client.request('session_search', { query: 'pomodoro', limit: 200 });
    expect(before.partial).toBe(false);
    expect(before.hits as unknown[]).not.toHaveLength(0);
    expect(((await client.request('ping')).index as { state: string }).state).toBe('ready');

    // The full-text index's own records: the file stays a sound SQLite file, so only a search can tell.
    const other = new Database(join(state, 'index.sqlite'));
    other.unsafeMode(true);
    other.prepare('UPDATE docs_fts_data SET block = randomblob(length(block)) WHERE id > 10').run();
    other.close();

    // This search finds the damage and answers from the emptied index.
    const finding = await client.request('session_search', { query: 'pomodoro', limit: 200 });
    expect(log.some((l) => l.includes('is damaged') && l.includes('rebuilding'))).toBe(true);
    expect(finding).toMatchObject({ ok: true, partial: true });
    expect((finding.hits as unknown[]).length).toBeLessThan((before.hits as unknown[]).length);

    // Asked over and over while the rebuild runs: each answer building, or whole once it is done.
    const settled = server.catalog.settled();
    let done = false;
    void settled.then(() => {
      done = true;
    });
    const answers: { partial: unknown; hits: string[]; ping: string }[] = [];
    while (!done) {
      const [search, ping] = await Promise.all([
        client.request('session_search', { query: 'pomodoro', limit: 200 }),
        client.request('ping'),
      ]);
      answers.push({
        partial: search.partial,
        hits: lines(search.hits),
        ping: (ping.index as { state: string }).state,
      });
    }
    await settled;
    for (const a of answers) {
      if (a.partial === false) expect(a.hits).toEqual(lines(before.hits));
      if (a.ping === 'ready') expect(a.hits).toEqual(lines(before.hits));
      if (a.ping === 'building') expect(a.partial).toBe(true);
    }
    expect(answers.some((a) => a.partial === true)).toBe(true);

    const after = await client.request('session_search', { query: 'pomodoro', limit: 200 });
    expect(after.partial).toBe(false);
    expect(lines(after.hits)).toEqual(lines(before.hits));
    expect(((await client.request('ping')).index as { state: string }).state).toBe('ready');
    await client.close();
    await server.close();
  });
});
