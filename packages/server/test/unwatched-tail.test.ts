// A session nobody follows that keeps growing (an agent at work while no reader is open): the
// daemon keeps its translation and reads on from where it stopped, rather than reading the whole
// file again at every append; its indexed numbers stay those of a whole read.
import { appendFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { foldTranscript, loadTranscript, nodePlatform, type Transcript } from '@cairn/transcript';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { type RunningServer, sessionKey } from '../src/index.js';
import type { UsageRequest } from '../src/indexing/index-db.js';
import { sessionRequests } from '../src/usage/session-requests.js';
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

/** The requests the usage reports count, as numbers to compare: the index's or a whole read's. */
function requestsOf(requests: readonly UsageRequest[]) {
  return requests.map(({ at, model, usage: u }) =>
    [
      at,
      model,
      u.inputTokens,
      u.outputTokens,
      u.cacheReadTokens ?? 0,
      u.cacheWriteTokens ?? 0,
      u.reasoningTokens ?? 0,
    ].join(' '),
  );
}

function indexedRequests(server: RunningServer, key: string) {
  const usage = server.catalog.usage([key]).get(key);
  return usage && 'requests' in usage ? requestsOf(usage.requests) : undefined;
}

const wholeRequests = (t: Transcript) => requestsOf(sessionRequests(t));

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

      // Every usage row the index deletes is counted, by a trigger of the test's own.
      const index = new Database(join(server.home, 'index.sqlite'));
      index.exec(`CREATE TABLE test_deleted (n INTEGER NOT NULL); INSERT INTO test_deleted VALUES (0);
        CREATE TRIGGER test_count_deleted AFTER DELETE ON usage_requests BEGIN UPDATE test_deleted SET n = n + 1; END;`);
      const deleted = () => index.prepare('SELECT n FROM test_deleted').pluck().get() as number;
      let deletedFirst = 0;
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
        // The usage rows are those of a whole read, written from the first request that changed.
        expect(indexedRequests(server, key), `after ${at + step} lines`).toEqual(wholeRequests(whole.value));
        // The first read after the index's is from the start, and writes the rows whole.
        if (at === HEAD) deletedFirst = deleted();
      }
      // Written whole at each read, the rows deleted after the first would be about the session's
      // rows times the appends; written from the first request that changed, a few per append.
      const rows = indexedRequests(server, key)?.length ?? 0;
      expect(rows).toBeGreaterThan(100);
      expect(deleted() - deletedFirst).toBeLessThan(rows / 4);
      index.close();
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
