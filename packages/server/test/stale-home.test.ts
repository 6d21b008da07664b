// The index holds the sessions of the homes configured now. A daemon started again with an agent's
// home pointed elsewhere drops the sessions it recorded under the old one (their files still there,
// and never touched), so a session copied to the new home is listed and found once, not twice; the
// old home's sessions come back when it is configured again.
import { cpSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { Client, homeEnv, serve, tempDir } from './helpers.js';

const PROJECT = '-Users-yoavfarhi-dev-pomodoro-claude';

/** A home holding a copy of the corpus's Claude Code project `PROJECT`. */
function homeWithProject(): string {
  const home = tempDir();
  mkdirSync(join(home, '.claude', 'projects'), { recursive: true });
  cpSync(corpusPath('claude', 'projects', PROJECT), join(home, '.claude', 'projects', PROJECT), {
    recursive: true,
  });
  return home;
}

async function ask(server: RunningServer) {
  const client = await Client.open(server);
  const list = await client.request('session_list', { limit: 1000 });
  const search = await client.request('session_search', { query: 'pomodoro', limit: 500 });
  await client.close();
  const paths = (list.sessions as { path: string }[]).map((s) => s.path).sort();
  return { paths, hits: search.hits as { sid: string }[] };
}

describe.skipIf(!corpus)('an agent home that is no longer configured', () => {
  it('leaves the index, its files untouched, and a copy of its sessions in the new home is found once', {
    timeout: 60_000,
  }, async () => {
    const state = tempDir('cairn-state-');
    const oldHome = homeWithProject();
    const newHome = homeWithProject();

    const before = await serve(homeEnv(oldHome), { cairnHome: state });
    const old = await ask(before);
    await before.close();
    expect(old.paths.length).toBeGreaterThan(0);
    expect(old.paths.every((p) => p.startsWith(`${oldHome}/`))).toBe(true);
    expect(old.hits.length).toBeGreaterThan(0);
    const oldFiles = old.paths.map((p) => ({ p, bytes: readFileSync(p), mtime: statSync(p).mtimeMs }));

    const moved = await serve(homeEnv(newHome), { cairnHome: state });
    const now = await ask(moved);
    await moved.close();
    // The same sessions, listed once each, from the new home only; every hit once.
    expect(now.paths).toEqual(old.paths.map((p) => `${newHome}/${p.slice(oldHome.length + 1)}`));
    expect(now.hits.length).toBe(old.hits.length);
    for (const f of oldFiles) {
      expect(readFileSync(f.p).equals(f.bytes)).toBe(true);
      expect(statSync(f.p).mtimeMs).toBe(f.mtime);
    }

    const back = await serve(homeEnv(oldHome), { cairnHome: state });
    const again = await ask(back);
    await back.close();
    expect(again.paths).toEqual(old.paths);
    expect(again.hits.length).toBe(old.hits.length);
  });
});
