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
});
