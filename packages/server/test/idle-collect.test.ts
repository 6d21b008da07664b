// What a burst of work leaves in the heap is given back once the work has been quiet a while, and
// only then: more work coming first puts the collection off, and small work makes none.
import { getHeapStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { IdleCollect } from '../src/reader/idle-collect.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Work that leaves about `mb` megabytes of objects behind, unreferenced. */
function burst(mb: number): number {
  let kept: { n: number; text: string }[] = [];
  for (let i = 0; i < mb * 10_000; i++) kept.push({ n: i, text: `session ${i} `.repeat(4) });
  const count = kept.length;
  kept = [];
  return count;
}

describe('the collection after work', () => {
  it('gives back what a burst of work left once the work is quiet', async () => {
    const idle = new IdleCollect(100);
    try {
      idle.workBegan();
      burst(80);
      const before = getHeapStatistics().used_heap_size;
      idle.workDone();
      // More work before the quiet ends puts the collection off.
      await sleep(50);
      idle.workBegan();
      await sleep(150);
      expect(idle.collections).toBe(0);
      idle.workDone();
      await sleep(300);
      expect(idle.collections).toBe(1);
      expect(getHeapStatistics().used_heap_size).toBeLessThan(before - 32 * 1024 * 1024);
      // Nothing much since: no second collection.
      idle.workBegan();
      idle.workDone();
      await sleep(300);
      expect(idle.collections).toBe(1);
    } finally {
      idle.close();
    }
  });
});
