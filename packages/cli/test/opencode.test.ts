// `cairn sessions` and `cairn summary` on OpenCode and Kilo sessions: a SQLite store with
// OpenCode's schema, filled from the corpus sample, in a scratch home laid out as OpenCode's own
// (`~/.local/share/opencode/opencode.db`), and the same rows in Kilo's (`~/.local/share/kilo/kilo.db`).
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { buildStore } from '../../transcript/test/support/opencode-store.js';
import { cairn } from './run.js';

describe.skipIf(!corpus)('cairn on OpenCode and Kilo sessions', () => {
  const home = mkdtempSync(join(tmpdir(), 'cairn-opencode-cli-'));
  const share = join(home, '.local', 'share');
  mkdirSync(join(share, 'opencode'), { recursive: true });
  mkdirSync(join(share, 'kilo'), { recursive: true });
  const trees = [
    corpusPath('more', 'opencode', 'storage_v2'),
    corpusPath('more', 'opencode', 'storage_legacy'),
  ];
  buildStore(join(share, 'opencode', 'opencode.db'), trees);
  buildStore(join(share, 'kilo', 'kilo.db'), trees.slice(0, 1));
  const env = { PATH: process.env.PATH, HOME: home, CAIRN_HOME: join(home, '.cairn') };

  it('lists the store’s sessions with --agent opencode --json: title, folder and times', () => {
    const r = cairn(['sessions', '--agent', 'opencode', '--json'], env);
    expect(r.status).toBe(0);
    const { sessions, errors } = JSON.parse(r.stdout) as {
      sessions: Record<string, unknown>[];
      errors: unknown[];
    };
    expect(errors).toEqual([]);
    expect(sessions.map((s) => s.id).sort()).toEqual(['s_stage0_drift', 's_stage0_large', 's_stage0_small']);
    expect(sessions.find((s) => s.id === 's_stage0_large')).toMatchObject({
      agent: 'opencode',
      title: 'OpenCode Large',
      cwd: '/tmp/large',
      startedAt: 1730000100000,
      lastActivityAt: 1730000109000,
    });
    const kilo = cairn(['sessions', '--agent', 'kilo'], env);
    expect(kilo.status).toBe(0);
    expect(kilo.stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it('summarizes a session with the tokens its step-finish parts record', () => {
    const r = cairn(['summary', 's_stage0_large', '--agent', 'opencode', '--json'], env);
    expect(r.status, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      summary: { requests: 1, inputTokens: 120, outputTokens: 16, turns: 2, subagents: 0 },
    });
  });
});
