// Lookups run a few ahead of the stream they map, and the results still come out in its order.
import { describe, expect, it } from 'vitest';
import { lookAhead } from '../src/ahead.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function* numbers(count: number, failAfter?: number, closed?: { value: boolean }) {
  try {
    for (let i = 0; i < count; i++) {
      if (i === failAfter) throw new Error(`the source failed after ${i}`);
      yield i;
    }
  } finally {
    if (closed) closed.value = true;
  }
}

async function collect<T>(stream: AsyncIterable<T>): Promise<{ got: T[]; error?: string }> {
  const got: T[] = [];
  try {
    for await (const v of stream) got.push(v);
  } catch (e) {
    return { got, error: (e as Error).message };
  }
  return { got };
}

describe('lookAhead', () => {
  it('keeps the order of the source when later lookups finish first, with at most `ahead` under way', async () => {
    let running = 0;
    let most = 0;
    const result = await collect(
      lookAhead(numbers(20), 4, async (n) => {
        running++;
        most = Math.max(most, running);
        await sleep(20 - n);
        running--;
        return n * 10;
      }),
    );
    expect(result.got).toEqual(Array.from({ length: 20 }, (_, n) => n * 10));
    expect(most).toBe(4);
  });

  it('fails where a failed lookup stands, after the results before it', async () => {
    const closed = { value: false };
    const result = await collect(
      lookAhead(numbers(10, undefined, closed), 3, async (n) => {
        if (n === 5) throw new Error('lookup 5 failed');
        await sleep(5);
        return n;
      }),
    );
    expect(result).toEqual({ got: [0, 1, 2, 3, 4], error: 'lookup 5 failed' });
    expect(closed.value).toBe(true);
  });

  it('gives the results of what a failed source gave before its failure', async () => {
    const result = await collect(lookAhead(numbers(10, 6), 4, async (n) => n));
    expect(result).toEqual({ got: [0, 1, 2, 3, 4, 5], error: 'the source failed after 6' });
  });

  it('closes the source when its consumer stops early', async () => {
    const closed = { value: false };
    const got: number[] = [];
    for await (const v of lookAhead(numbers(100, undefined, closed), 4, async (n) => n)) {
      got.push(v);
      if (got.length === 3) break;
    }
    expect(got).toEqual([0, 1, 2]);
    expect(closed.value).toBe(true);
  });
});
