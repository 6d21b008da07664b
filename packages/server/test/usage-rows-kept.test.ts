// A session's usage rows written again from the first request a read changed: the rows before it
// are kept, those after it replaced, and rows the index does not hold as asked (fewer than kept, or
// a session recorded with an error) are written whole, so the index ends as a whole write leaves it.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { IndexDb, type UsageRequest } from '../src/indexing/index-db.js';
import { tempDir } from './helpers.js';

const request = (at: number, output = 10): UsageRequest => ({
  at,
  model: 'gpt-5',
  usage: { inputTokens: 100, outputTokens: output, cacheReadTokens: at },
});

const outputs = (db: IndexDb, key: string) => {
  const usage = db.usage([key]).get(key);
  return usage && 'requests' in usage ? usage.requests.map((r) => [r.at, r.usage.outputTokens]) : usage;
};

describe('usage rows kept from a read to the next', () => {
  it('replaces only the rows after those kept, and writes whole what it cannot keep', () => {
    const db = IndexDb.open(join(tempDir('cairn-state-'), 'index.sqlite'));
    try {
      db.putSession('s', 'codex', 'sid', {}, undefined);
      db.putSession('t', 'codex', 'other', {}, undefined);
      db.putUsage('s', { requests: [request(1), request(2), request(3)], project: '/a' });
      db.putUsage('t', { requests: [request(9)] });
      const before = db.usageVersion('s');
      // The third request was revised and two came after it.
      db.putUsage(
        's',
        { requests: [request(1), request(2), request(3, 99), request(4), request(5)], title: 'T' },
        2,
      );
      expect(outputs(db, 's')).toEqual([
        [1, 10],
        [2, 10],
        [3, 99],
        [4, 10],
        [5, 10],
      ]);
      expect(db.usageVersion('s')).toBeGreaterThan(before);
      const whole = db.usage(['s']).get('s') as { project?: string; title?: string };
      expect([whole.project, whole.title]).toEqual([undefined, 'T']);
      // Another session's rows are not touched.
      expect(outputs(db, 't')).toEqual([[9, 10]]);
      // Asked to keep more rows than it holds: written whole.
      db.putUsage('t', { requests: [request(7), request(8)] }, 5);
      expect(outputs(db, 't')).toEqual([
        [7, 10],
        [8, 10],
      ]);
      // A session recorded with an error holds no rows to keep.
      db.putUsage('t', { error: 'unreadable' });
      db.putUsage('t', { requests: [request(6)] }, 1);
      expect(outputs(db, 't')).toEqual([[6, 10]]);
      // Rows past those kept, when the read now holds fewer, go.
      db.putUsage('s', { requests: [request(1)] }, 1);
      expect(outputs(db, 's')).toEqual([[1, 10]]);
    } finally {
      db.close();
    }
  });
});
