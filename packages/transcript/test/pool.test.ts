// The worker-thread pool gives the same outcomes as running each task in-process, in order.
import { describe, expect, it } from 'vitest';
import { type SessionTarget, summarizeSession } from '../src/index.js';
import { corpus } from './corpus.js';
import { corpusPlatform } from './homes.js';

// Worker threads start the built worker file, so the pool is tested from the build.
const distIndex: string = '../dist/index.js';
const built = (await import(distIndex)) as typeof import('../src/index.js');

describe.skipIf(!corpus)('runInPool', () => {
  const platform = corpusPlatform();

  const targets = async (): Promise<SessionTarget[]> => {
    const out: SessionTarget[] = [];
    for await (const e of built.listSessions(platform))
      if (!('ref' in e)) out.push({ path: e.path, agent: e.agent });
    return out;
  };

  it('summarizes every corpus session on worker threads, in the targets order', async () => {
    const all = await targets();
    const pooled = await built.runInPool('summary', all, {
      env: platform.env,
      homeDir: platform.homeDir,
      concurrency: 2,
    });
    expect(pooled).toHaveLength(all.length);
    for (const [i, t] of all.entries()) expect(pooled[i]).toEqual(await summarizeSession(platform, t));
  });

  it('loads every session and reports failures as values, without a progress callback', async () => {
    const all = [...(await targets()), { path: '/nonexistent/session.jsonl', agent: 'claude-code' }];
    const pooled = await built.runInPool('load', all, { env: platform.env, concurrency: 2 });
    expect(pooled.slice(0, -1).every((r) => r.ok && r.value.events > 0)).toBe(true);
    expect(pooled.at(-1)).toMatchObject({ ok: false, error: { _tag: 'SessionNotFound' } });
  });

  /** The targets one at a time, a pause before each, as a walk over the folders finds them; the
   * last only once `before` settles. */
  async function* slowly(all: readonly SessionTarget[], fail?: Error, before?: Promise<unknown>) {
    for (const [i, t] of all.entries()) {
      await new Promise((resolve) => setTimeout(resolve, 2));
      if (fail && i === 3) throw fail;
      if (i === all.length - 1) await before;
      yield t;
    }
  }

  it('starts on targets while they are still arriving, giving their outcomes in the order they came', async () => {
    const all = await targets();
    const progress: [number, number][] = [];
    let firstDone!: () => void;
    const first = new Promise<void>((resolve) => {
      firstDone = resolve;
    });
    // The last target comes only after a job has ended: a pool that waited for every target hangs.
    const pooled = await built.runInPool('summary', slowly(all, undefined, first), {
      env: platform.env,
      homeDir: platform.homeDir,
      concurrency: 2,
      onDone: (done, total) => {
        progress.push([done, total]);
        firstDone();
      },
    });
    expect(pooled).toHaveLength(all.length);
    for (const [i, t] of all.entries()) expect(pooled[i]).toEqual(await summarizeSession(platform, t));
    expect(progress[0]![1]).toBeLessThan(all.length);
    expect(progress.at(-1)).toEqual([all.length, all.length]);
  });

  it('rejects with the error of an iterable that fails, and with an abort', async () => {
    const all = await targets();
    const options = { env: platform.env, homeDir: platform.homeDir, concurrency: 2 };
    const broken = new Error('walk failed');
    await expect(built.runInPool('summary', slowly(all, broken), options)).rejects.toBe(broken);
    const abort = new AbortController();
    const run = built.runInPool('summary', slowly(all), { ...options, signal: abort.signal });
    setTimeout(() => abort.abort(new Error('stopped')), 10);
    await expect(run).rejects.toThrow('stopped');
  });

  it('gives nothing for no targets', async () => {
    async function* none(): AsyncGenerator<SessionTarget> {}
    expect(await built.runInPool('summary', none(), { env: platform.env, concurrency: 2 })).toEqual([]);
  });
});
