// The interval walk is a safety net for lost change notices: it comes round every `rescanMs`, but a
// walk that takes long (homes of thousands of sessions) spaces out the next one, so that walking
// never takes more than a twentieth of the daemon's time.
import { afterEach, describe, expect, it } from 'vitest';
import { Watcher } from '../src/reader/watcher.js';
import { tempDir } from './helpers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the interval walk', () => {
  let watcher: Watcher | undefined;
  afterEach(() => watcher?.close());

  function watch(walkMs: number): { walks: number[] } {
    const seen = { walks: [] as number[] };
    const start = performance.now();
    watcher = new Watcher({
      roots: [tempDir()],
      rescanMs: 40,
      onChange: () => {},
      onRescan: async () => {
        seen.walks.push(performance.now() - start);
        await sleep(walkMs);
      },
    });
    watcher.start();
    return seen;
  }

  it('comes round every rescanMs when walks are quick', async () => {
    const seen = watch(0);
    await sleep(1_000);
    expect(seen.walks.length).toBeGreaterThanOrEqual(5);
  });

  it('waits twenty times a long walk before the next', async () => {
    const seen = watch(150);
    await sleep(1_500);
    // The first walk took 150 ms: the next is 3 s away, not 40 ms.
    expect(seen.walks.length).toBe(1);
  });
});
