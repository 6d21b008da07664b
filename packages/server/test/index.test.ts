// The index is a cache of the agents' files: a restart reads only what changed, and a file that is
// missing, damaged or of another schema is rebuilt from the agents' files.
import { appendFileSync, cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { Client, corpusEnv, homeEnv, serve, tempDir } from './helpers.js';

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
});

/** The only rollout of that day in the corpus. */
const readdirFirst = (dir: string): string => readdirSync(dir).find((n) => n.endsWith('.jsonl'))!;
