// A first index reads the most recently active sessions first, whatever agent or folder they are
// in: the top of the session list fills in first.
import { join } from 'node:path';
import { nodePlatform } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { IndexDb } from '../src/indexing/index-db.js';
import { Catalog } from '../src/reader/catalog.js';
import { corpusEnv, tempDir } from './helpers.js';

describe.skipIf(!corpus)('the order of a first index', () => {
  it('reads the sessions most recently active first', async () => {
    const env = corpusEnv();
    const platform = nodePlatform({ env, homeDir: env.HOME! });
    const db = IndexDb.open(join(tempDir('cairn-state-'), 'index.sqlite'));
    const catalog = new Catalog({ platform, db, watch: false });
    /** Each session's last activity as listed, before its read. */
    const listed = new Map<string, number>();
    const listedOrder: string[] = [];
    const indexedOrder: string[] = [];
    catalog.onHeads((changed) => {
      for (const e of changed) {
        if (!listed.has(e.key)) {
          listed.set(e.key, e.head.lastActivityAt ?? 0);
          listedOrder.push(e.key);
        }
        if (e.indexed && !indexedOrder.includes(e.key)) indexedOrder.push(e.key);
      }
    });
    try {
      await catalog.start();
      await catalog.settled();
      expect(indexedOrder.length).toBe(catalog.all().length);
      expect(new Set(indexedOrder)).toEqual(new Set(listedOrder));
      const times = indexedOrder.map((key) => listed.get(key)!);
      expect(times).toEqual([...times].sort((a, b) => b - a));
      // The listing itself comes agent by agent and folder by folder, not in that order.
      const listedTimes = listedOrder.map((key) => listed.get(key)!);
      expect(listedTimes).not.toEqual(times);
      const agents = new Set(indexedOrder.slice(0, 10).map((key) => key.split(':')[0]));
      expect(agents.size).toBeGreaterThan(1);
    } finally {
      catalog.close();
      db.close();
    }
  });
});
