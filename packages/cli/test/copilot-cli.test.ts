// `cairn sessions` and `cairn summary` on Copilot CLI sessions: the corpus sample copied into a
// scratch home laid out as Copilot's own (`~/.copilot/session-state/<id>/events.jsonl`).
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { cairn } from './run.js';

const V1 = 'aaaabbbb-1111-2222-3333-ccccddddeeee';

describe.skipIf(!corpus)('cairn on Copilot CLI sessions', () => {
  const home = mkdtempSync(join(tmpdir(), 'cairn-copilot-cli-'));
  const state = join(home, '.copilot', 'session-state');
  for (const [file, dir] of [
    ['schema_drift.jsonl', 'schema_drift'],
    [`subdir_v1/${V1}/events.jsonl`, V1],
  ] as const) {
    mkdirSync(join(state, dir), { recursive: true });
    cpSync(corpusPath('more', 'copilot', file), join(state, dir, 'events.jsonl'));
  }
  writeFileSync(join(state, V1, 'workspace.yaml'), `id: ${V1}\nsummary: List the project files\n`);
  const env = { PATH: process.env.PATH, HOME: home, CAIRN_HOME: join(home, '.cairn') };

  it('lists them with --agent copilot-cli --json: title, folder, branch, model and times', () => {
    const r = cairn(['sessions', '--agent', 'copilot-cli', '--json'], env);
    expect(r.status).toBe(0);
    const { sessions, errors } = JSON.parse(r.stdout) as {
      sessions: Record<string, unknown>[];
      errors: unknown[];
    };
    expect(errors).toEqual([]);
    expect(sessions).toHaveLength(2);
    expect(sessions.find((s) => s.id === V1)).toMatchObject({
      agent: 'copilot-cli',
      title: 'List the project files',
      firstPrompt: 'List the files',
      cwd: '/tmp/project',
      startedAt: Date.parse('2026-03-26T17:50:34.302Z'),
      lastActivityAt: Date.parse('2026-03-26T17:50:37.100Z'),
    });
    // The alias finds the same sessions.
    const plain = cairn(['sessions', '--agent', 'copilot'], env);
    expect(plain.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(plain.stdout).toContain('List the project files');
  });

  it('summarizes a session with the tokens its shutdown records, and no request count', () => {
    const r = cairn(['summary', 'schema_drift', '--json'], env);
    expect(r.status).toBe(0);
    const { summary } = JSON.parse(r.stdout) as { summary: Record<string, unknown> };
    expect(summary).toMatchObject({ inputTokens: 1000, outputTokens: 50, compactions: 1 });
    expect(summary).not.toHaveProperty('requests');
  });
});
