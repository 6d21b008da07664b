// The cold index's worker threads leave once they have been idle a moment, so an idle daemon holds
// none, and start again for the next session to read; each read also brings the marks of the
// session's files (print, last record time) that the daemon's thread would otherwise read itself.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fileLastRecordAt, findAdapter, nodePlatform } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { IndexWorkers } from '../src/indexing/index-workers.js';
import { headPrint, stamp } from '../src/reader/source-files.js';
import { corpusEnv } from './helpers.js';

// Worker threads start built code: the worker the daemon's bundle carries.
const BUILT_WORKER = fileURLToPath(new URL('../../cli/dist/index-worker.js', import.meta.url));

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not so within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!corpus || !existsSync(BUILT_WORKER))('the index workers', () => {
  it('leave when idle and start again for the next session', async () => {
    const env = corpusEnv();
    const platform = nodePlatform({ env, homeDir: env.HOME! });
    const workers = new IndexWorkers(BUILT_WORKER, platform, 2);
    try {
      expect(workers.liveThreads).toBe(0);
      const path = corpusPath('claude', 'projects', '-work-spotter', 'tool_heavy.jsonl');
      const job = { agent: 'claude-code', path, files: [path] };
      const first = await workers.run(job);
      expect(first.prepared.ok).toBe(true);
      expect(workers.liveThreads).toBeGreaterThan(0);

      // The marks are those the daemon's thread reads from the file.
      const st = (await stamp(path))!;
      const at = await fileLastRecordAt(
        { platform, readHead: async () => new Uint8Array() },
        findAdapter('claude-code')!,
        path,
        st.size,
      );
      expect(at).toBeGreaterThan(0);
      expect(first.prepared.marks).toEqual([
        [path, { print: await headPrint(path, st.size), lastRecordAt: at }],
      ]);

      await until(() => workers.liveThreads === 0, 15_000);
      const again = await workers.run(job);
      expect(again.prepared).toEqual(first.prepared);
      expect(workers.liveThreads).toBeGreaterThan(0);
    } finally {
      await workers.close();
    }
  });
});
