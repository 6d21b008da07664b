// A session nobody follows that keeps growing (an agent at work while no reader is open): the
// daemon keeps its translation and reads on from where it stopped, rather than reading the whole
// file again at every append; its indexed numbers stay those of a whole read.
import { appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { foldTranscript, loadTranscript, nodePlatform } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { type RunningServer, sessionKey } from '../src/index.js';
import { homeEnv, serve, tempDir } from './helpers.js';

const NAME = 'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';
const DAY = ['2026', '02', '23'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The rollout's lines written at first; the rest are appended. */
const HEAD = 1_500;

/** A home holding the corpus rollout's first HEAD lines where Codex keeps it, and all its lines. */
function rolloutHome() {
  const lines = readFileSync(corpusPath('codex', 'sessions', ...DAY, NAME), 'utf8')
    .split('\n')
    .filter(Boolean);
  const home = tempDir();
  const dir = join(home, '.codex', 'sessions', ...DAY);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, NAME);
  writeFileSync(path, `${lines.slice(0, HEAD).join('\n')}\n`);
  return { lines, home, path, platform: nodePlatform({ env: homeEnv(home), homeDir: home }) };
}

/** The session's whole summary, prompts included: the index's (memory keeps its numbers). */
function wholeSummary(server: RunningServer, key: string) {
  const entry = server.catalog.get(key);
  return entry && server.catalog.fullSummary(entry);
}

describe.skipIf(!corpus)('a growing session nobody follows', () => {
  it('is read on from where the last read stopped, its numbers those of a whole read', {
    timeout: 60_000,
  }, async () => {
    const { lines, home, path, platform } = rolloutHome();
    const server = await serve(homeEnv(home));
    const summaryOf = (key: string) => wholeSummary(server, key);
    try {
      const key = sessionKey('codex', path);
      await server.catalog.settled();
      expect(server.catalog.get(key)?.indexed).toBe(true);
      server.catalog.stats.reset();

      const batches = 12;
      const step = Math.ceil((lines.length - HEAD) / batches);
      for (let at = HEAD; at < lines.length; at += step) {
        appendFileSync(path, `${lines.slice(at, at + step).join('\n')}\n`);
        const whole = await loadTranscript(platform, { agent: 'codex', path });
        if (!whole.ok) throw new Error(whole.error.message);
        const want = foldTranscript(whole.value, { prompts: true });
        await expect
          .poll(() => summaryOf(key), {
            timeout: 10_000,
            message: `after ${at + step} lines`,
          })
          .toEqual(want);
      }
      // One read of the whole file when it first grew, then only what each append added; read
      // whole at every append, the same appends take twelve times the file.
      const size = statSync(path).size;
      expect(server.catalog.stats.bytes).toBeLessThan(2 * size);
    } finally {
      await server.close();
    }
  });

  it('too large to keep translated, is read whole again with pauses between, losing no append', {
    timeout: 60_000,
  }, async () => {
    const { lines, home, path, platform } = rolloutHome();
    const server = await serve(homeEnv(home), { tailBytes: 0 });
    const summaryOf = (key: string) => wholeSummary(server, key);
    try {
      const key = sessionKey('codex', path);
      await server.catalog.settled();
      // Appends faster than a whole read: each read takes what came in while the last one waited.
      for (let at = HEAD; at < lines.length; at += 40) {
        appendFileSync(path, `${lines.slice(at, at + 40).join('\n')}\n`);
        await sleep(5);
      }
      const whole = await loadTranscript(platform, { agent: 'codex', path });
      if (!whole.ok) throw new Error(whole.error.message);
      const want = foldTranscript(whole.value, { prompts: true });
      await expect.poll(() => summaryOf(key), { timeout: 20_000 }).toEqual(want);
    } finally {
      await server.close();
    }
  });
});
