// Records that repeat one id thousands of times (copied or replayed lines) load in linear time,
// each event with an id of its own.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTranscript } from '../src/index.js';
import { UniqueIds } from '../src/unique-ids.js';
import { tempHome, tempPlatform } from './homes.js';

describe('unique ids', () => {
  it('hands out the id, then the first free id~n, skipping ones already taken', () => {
    const ids = new UniqueIds();
    expect(ids.take('a~3')).toBe('a~3');
    expect([1, 2, 3, 4].map(() => ids.take('a'))).toEqual(['a', 'a~2', 'a~4', 'a~5']);
    expect(ids.take('a~2')).toBe('a~2~2');
    expect(ids.take('b')).toBe('b');
  });
});

describe('a Claude Code file of 40,000 records with the same uuid', () => {
  const home = tempHome();
  const dir = join(home, '.claude/projects/-tmp-copies');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, '0c0c0c0c-0000-4000-8000-000000000c0c.jsonl');
  const n = 40_000;
  const user = JSON.stringify({
    type: 'user',
    uuid: 'same',
    parentUuid: 'same',
    sessionId: 's',
    timestamp: '2026-01-01T00:00:00.000Z',
    message: { role: 'user', content: 'again' },
  });
  writeFileSync(path, `${user}\n`.repeat(n));

  // Quadratic id search took about a minute here; linear work takes a fraction of a second.
  it('loads in a few seconds with one distinct id per event', { timeout: 60_000 }, async () => {
    const started = performance.now();
    const loaded = await loadTranscript(tempPlatform(home), { agent: 'claude-code', path });
    const elapsed = performance.now() - started;
    if (!loaded.ok) throw new Error(loaded.error.message);
    const ids = loaded.value.events.map((e) => e.id);
    expect(ids).toHaveLength(n);
    expect(new Set(ids).size).toBe(n);
    expect(ids.slice(0, 3)).toEqual(['same', 'same~2', 'same~3']);
    expect(ids.at(-1)).toBe(`same~${n}`);
    expect(elapsed).toBeLessThan(8_000);
  });
});
