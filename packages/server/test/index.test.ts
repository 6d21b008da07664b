// The index is a cache of the agents' files: a restart reads only what changed, and a file that is
// missing, damaged or of another schema is rebuilt from the agents' files.
import {
  appendFileSync,
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { Client, corpusEnv, homeEnv, serve, tempDir } from './helpers.js';

// Worker threads start built code: the worker the daemon's bundle carries.
const BUILT_SEARCH_WORKER = fileURLToPath(new URL('../../cli/dist/search-worker.js', import.meta.url));

async function listed(server: RunningServer): Promise<string[]> {
  const client = await Client.open(server);
  const reply = await client.request('session_list', { limit: 1000 });
  await client.close();
  return (reply.sessions as { agent: string; sid: string; size: number }[])
    .map((h) => `${h.agent}:${h.sid}:${h.size}`)
    .sort();
}

describe.skipIf(!corpus)('the index across restarts', () => {
  it('reads no file again when nothing changed, and only the changed file when one grew', async () => {
    const home = tempDir();
    cpSync(corpusPath('claude'), join(home, '.claude'), { recursive: true });
    cpSync(corpusPath('codex'), join(home, '.codex'), { recursive: true });
    const env = homeEnv(home);
    const state = tempDir('cairn-state-');

    const cold = await serve(env, { cairnHome: state });
    expect(cold.catalog.stats.files.size).toBeGreaterThan(5);
    const before = await listed(cold);
    await cold.close();

    const warm = await serve(env, { cairnHome: state });
    expect([...warm.catalog.stats.files]).toEqual([]);
    expect(await listed(warm)).toEqual(before);
    await warm.close();

    const grown = join(home, '.codex', 'sessions', '2025', '10', '21');
    const rollout = join(grown, readdirFirst(grown));
    const lines = readFileSync(rollout, 'utf8').split('\n');
    appendFileSync(rollout, `${lines[lines.length - 2]}\n`);
    const after = await serve(env, { cairnHome: state });
    expect([...after.catalog.stats.files]).toEqual([rollout]);
    const now = await listed(after);
    expect(now).not.toEqual(before);
    expect(now.length).toBe(before.length);
    await after.close();
  });

  it('rebuilds a damaged index file from the agents files', async () => {
    const state = tempDir('cairn-state-');
    const env = corpusEnv();
    const first = await serve(env, { cairnHome: state });
    const before = await listed(first);
    await first.close();
    writeFileSync(join(state, 'index.sqlite'), 'this is not a database, it was damaged'.repeat(200));
    for (const suffix of ['-wal', '-shm']) writeFileSync(join(state, `index.sqlite${suffix}`), '');
    const lines: string[] = [];
    const rebuilt = await serve(env, { cairnHome: state, log: (l) => lines.push(l) });
    expect(lines.some((l) => l.includes('unreadable') && l.includes('rebuilding'))).toBe(true);
    expect(await listed(rebuilt)).toEqual(before);
    expect(rebuilt.catalog.stats.files.size).toBeGreaterThan(0);
    await rebuilt.close();
  });

  it('rebuilds an index written by another schema version', async () => {
    const state = tempDir('cairn-state-');
    const env = corpusEnv();
    await (await serve(env, { cairnHome: state })).close();
    const db = new Database(join(state, 'index.sqlite'));
    db.pragma('user_version = 0');
    db.close();
    const lines: string[] = [];
    const again = await serve(env, { cairnHome: state, log: (l) => lines.push(l) });
    expect(lines.some((l) => l.includes('another schema version'))).toBe(true);
    expect((await listed(again)).length).toBeGreaterThan(5);
    await again.close();
  });

  // The pages are checked once the daemon serves: on a thread of its own in the built daemon.
  for (const [where, searchWorker] of [
    ['on the daemon thread', false],
    ['on a thread of its own', BUILT_SEARCH_WORKER],
  ] as const)
    it.skipIf(searchWorker !== false && !existsSync(searchWorker))(
      `finds 8 KB of garbage in the middle of the file once started (checked ${where}) and rebuilds, so search works`,
      async () => {
        const state = tempDir('cairn-state-');
        const env = corpusEnv();
        const first = await serve(env, { cairnHome: state, searchWorker });
        const before = await searched(first, 'pomodoro');
        expect(before.length).toBeGreaterThan(0);
        await first.close();
        const path = join(state, 'index.sqlite');
        const middle = Math.floor(statSync(path).size / 2 / 4096) * 4096;
        const fd = openSync(path, 'r+');
        writeSync(fd, Buffer.alloc(8192, 0x5a), 0, 8192, middle);
        closeSync(fd);
        const lines: string[] = [];
        // The server answers before the check ends; settled() waits for it and for the rebuild.
        const again = await serve(env, { cairnHome: state, searchWorker, log: (l) => lines.push(l) });
        await again.catalog.settled();
        expect(lines.some((l) => l.includes('integrity check') && l.includes('rebuilding'))).toBe(true);
        expect(await searched(again, 'pomodoro')).toEqual(before);
        await again.close();
      },
    );

  it.skipIf(!existsSync(BUILT_SEARCH_WORKER))(
    'leaves a sound index as it is after checking its pages',
    async () => {
      const state = tempDir('cairn-state-');
      const env = corpusEnv();
      await (await serve(env, { cairnHome: state, searchWorker: BUILT_SEARCH_WORKER })).close();
      const lines: string[] = [];
      const again = await serve(env, {
        cairnHome: state,
        searchWorker: BUILT_SEARCH_WORKER,
        log: (l) => lines.push(l),
      });
      await again.catalog.settled();
      expect(lines.filter((l) => l.startsWith('index:'))).toEqual([]);
      expect([...again.catalog.stats.files]).toEqual([]);
      await again.close();
    },
  );

  it('starts on an index whose tail was cut off, rebuilding it', async () => {
    const state = tempDir('cairn-state-');
    const env = corpusEnv();
    const first = await serve(env, { cairnHome: state });
    const before = await listed(first);
    await first.close();
    const path = join(state, 'index.sqlite');
    truncateSync(path, Math.floor(statSync(path).size * 0.6));
    const lines: string[] = [];
    const again = await serve(env, { cairnHome: state, log: (l) => lines.push(l) });
    expect(lines.some((l) => l.includes('rebuilding'))).toBe(true);
    expect(await listed(again)).toEqual(before);
    await again.close();
  });

  it('takes a stored value that does not parse for damage, not a reason to exit', async () => {
    const state = tempDir('cairn-state-');
    const env = corpusEnv();
    const first = await serve(env, { cairnHome: state });
    const before = await listed(first);
    await first.close();
    const db = new Database(join(state, 'index.sqlite'));
    db.prepare(
      `UPDATE sessions SET head = '{"path":"/cut off' WHERE rowid = (SELECT min(rowid) FROM sessions)`,
    ).run();
    db.close();
    const lines: string[] = [];
    const again = await serve(env, { cairnHome: state, log: (l) => lines.push(l) });
    expect(lines.some((l) => l.includes('does not parse') && l.includes('rebuilding'))).toBe(true);
    expect(await listed(again)).toEqual(before);
    await again.close();
  });

  it('moves a folder standing at the index path aside and builds the index beside it', async () => {
    const state = tempDir('cairn-state-');
    const path = join(state, 'index.sqlite');
    mkdirSync(path);
    writeFileSync(join(path, 'kept.txt'), 'not the index');
    const lines: string[] = [];
    const server = await serve(corpusEnv(), { cairnHome: state, log: (l) => lines.push(l) });
    expect((await listed(server)).length).toBeGreaterThan(5);
    expect(statSync(path).isFile()).toBe(true);
    const aside = readdirSync(state).find((n) => n.startsWith('index.sqlite.unusable-'));
    expect(aside).toBeDefined();
    expect(readFileSync(join(state, aside!, 'kept.txt'), 'utf8')).toBe('not the index');
    expect(lines.some((l) => l.includes('is not a file') && l.includes('rebuilding'))).toBe(true);
    await server.close();
  });

  it('rebuilds when SQLite reports damage while serving, and search answers again', async () => {
    const state = tempDir('cairn-state-');
    const lines: string[] = [];
    const server = await serve(corpusEnv(), { cairnHome: state, log: (l) => lines.push(l) });
    const before = await searched(server, 'pomodoro');
    expect(before.length).toBeGreaterThan(0);
    // Damage the full-text index's own records: the file stays a sound SQLite file, so only a query
    // that reads them can tell.
    const other = new Database(join(state, 'index.sqlite'));
    other.unsafeMode(true);
    other.prepare('UPDATE docs_fts_data SET block = randomblob(length(block)) WHERE id > 10').run();
    other.close();
    const client = await Client.open(server);
    const during = await client.request('session_search', { query: 'pomodoro' });
    expect(during.ok).toBe(true);
    await client.close();
    expect(lines.some((l) => l.includes('is damaged') && l.includes('rebuilding'))).toBe(true);
    await server.catalog.settled();
    expect(await searched(server, 'pomodoro')).toEqual(before);
    expect(existsSync(join(state, 'index.sqlite'))).toBe(true);
    await server.close();
  });
});

/** Every hit of a search, as one comparable line each. */
async function searched(server: RunningServer, query: string): Promise<string[]> {
  const client = await Client.open(server);
  const reply = await client.request('session_search', { query, limit: 200 });
  await client.close();
  if (reply.ok !== true) throw new Error(`search failed: ${JSON.stringify(reply)}`);
  return (reply.hits as { sid: string; item_uuid: string; target: string }[])
    .map((h) => `${h.sid}:${h.item_uuid}:${h.target}`)
    .sort();
}

/** The only rollout of that day in the corpus. */
const readdirFirst = (dir: string): string => readdirSync(dir).find((n) => n.endsWith('.jsonl'))!;
