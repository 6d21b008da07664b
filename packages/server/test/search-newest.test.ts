// Row ids run against activity: a cold index goes from the newest session to the oldest, each on
// top of the last, and what a newer session gains goes below every document. A search matching more
// items than it ranks, with no filter but its targets, ranks the newest of them; a filtered one
// ranks them all.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { IndexDb, type IndexDoc } from '../src/indexing/index-db.js';
import { RANKED_AT_MOST } from '../src/indexing/search-query.js';
import { claudeSessionHome, homeEnv, serve, tempDir } from './helpers.js';

const doc = (n: number, text: string): IndexDoc => ({
  itemKey: `k${n}`,
  itemUuid: `u${n}`,
  itemType: 'message:assistant',
  target: 'assistant',
  text,
});

describe('the newest matches of a common word', () => {
  it('are those ranked, unless a filter asks for them all', () => {
    const db = IndexDb.open(join(tempDir('cairn-state-'), 'index.sqlite'));
    try {
      const DAY = 86_400_000;
      // The first session of a cold index goes where SQLite puts it.
      db.putSession('old', 'claude-code', 'old-sid', {}, undefined, 2 * DAY);
      expect(db.placeOf(3, 2 * DAY)).toBeUndefined();
      // Its one short document is the best match there is.
      db.transaction(() => db.addDocs('old', [doc(0, 'common'), doc(1, 'common words'), doc(2, 'other')]));
      // A newer session goes below it.
      db.putSession('new', 'codex', 'new-sid', {}, undefined, 10 * DAY);
      const below = db.placeOf(RANKED_AT_MOST, 10 * DAY);
      expect(below).toBe(1 - RANKED_AT_MOST);
      // Its best match is its last: the newest ranked are all of its own, last included.
      const newer = Array.from({ length: RANKED_AT_MOST }, (_, i) =>
        doc(i, i === RANKED_AT_MOST - 1 ? 'common common' : `common filler words ${i}`),
      );
      db.transaction(() => db.addDocs('new', newer, { next: below! }));
      // A session no newer than the one on top goes above everything.
      expect(db.placeOf(1, 2 * DAY)).toBeUndefined();

      const search = (extra: object) =>
        db.search({ query: 'common', limit: 3, offset: 0, count: true, ...extra });
      // Unfiltered, the old session's matches are past the newest RANKED_AT_MOST: not ranked.
      const unfiltered = search({});
      expect(unfiltered.map((r) => r.sid)).toEqual(['new-sid', 'new-sid', 'new-sid']);
      expect(unfiltered[0]!.itemUuid).toBe(`u${RANKED_AT_MOST - 1}`);
      expect(unfiltered[0]!.total).toBe(RANKED_AT_MOST + 2);
      // A filter ranks every match: the old session's short document is second only to that one.
      const filtered = search({ agents: ['codex', 'claude-code'] });
      expect(filtered.slice(0, 2).map((r) => `${r.sid} ${r.itemUuid}`)).toEqual([
        `new-sid u${RANKED_AT_MOST - 1}`,
        'old-sid u0',
      ]);
      // A word with fewer matches than that is ranked whole, the old session's included.
      expect(db.search({ query: 'other', limit: 5, offset: 0 }).map((r) => r.sid)).toEqual(['old-sid']);
    } finally {
      db.close();
    }
  });
});

describe.skipIf(!corpus)('what a session gains after the cold index', () => {
  it('goes below every document', async () => {
    const { home, file, lines } = claudeSessionHome(40);
    const state = tempDir('cairn-state-');
    // Served once the cold index is done.
    const server = await serve(homeEnv(home), { cairnHome: state, searchWorker: false });
    try {
      const ids = () => {
        const db = new Database(join(state, 'index.sqlite'), { readonly: true });
        try {
          return db.prepare('SELECT id FROM docs ORDER BY id').pluck().all() as number[];
        } finally {
          db.close();
        }
      };
      const before = ids();
      expect(before.length).toBeGreaterThan(5);
      // The session is written on, with records of now: its new documents are the newest.
      const now = new Date().toISOString();
      const appended = lines
        .slice(40, 80)
        .map((l) => l.replace(/"timestamp":"[^"]+"/, `"timestamp":"${now}"`));
      appendFileSync(file, `${appended.join('\n')}\n`);
      await expect.poll(() => ids().length, { timeout: 20_000 }).toBeGreaterThan(before.length);
      const after = ids();
      const added = after.filter((id) => !before.includes(id));
      expect(Math.max(...added)).toBeLessThan(Math.min(...before));
    } finally {
      await server.close();
    }
  });
});
