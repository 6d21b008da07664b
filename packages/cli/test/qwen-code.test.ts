// `cairn sessions` and `cairn summary` on Qwen Code sessions: the corpus sample copied into a
// scratch home laid out as Qwen Code's own (`~/.qwen/projects/<project>/chats/`).
import { cpSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { cairn } from './run.js';

describe.skipIf(!corpus)('cairn on Qwen Code sessions', () => {
  const home = mkdtempSync(join(tmpdir(), 'cairn-qwen-cli-'));
  const chats = join(home, '.qwen', 'projects', '-tmp-as-qwen-fixture-project', 'chats');
  mkdirSync(chats, { recursive: true });
  for (const name of readdirSync(corpusPath('more', 'qwen')))
    cpSync(corpusPath('more', 'qwen', name), join(chats, name));
  const env = { PATH: process.env.PATH, HOME: home, CAIRN_HOME: join(home, '.cairn') };

  it('lists them with --agent qwen-code --json: title or first prompt, folder, model and times', () => {
    const r = cairn(['sessions', '--agent', 'qwen-code', '--json'], env);
    expect(r.status).toBe(0);
    const { sessions, errors } = JSON.parse(r.stdout) as {
      sessions: Record<string, unknown>[];
      errors: unknown[];
    };
    expect(errors).toEqual([]);
    expect(sessions).toHaveLength(6);
    expect(sessions.every((s) => s.agent === 'qwen-code')).toBe(true);
    expect(sessions.find((s) => s.id === '019f0000-0000-7000-8000-000000000004')).toMatchObject({
      title: 'Active branch title',
      firstPrompt: 'Begin the active-chain fixture.',
      cwd: '/tmp/as-qwen-fixture/old-project',
      model: 'synthetic-dead-model',
      startedAt: Date.parse('2026-08-17T13:00:00.000Z'),
      lastActivityAt: Date.parse('2026-08-17T13:00:08.000Z'),
    });
    // The alias and the plain listing find the same sessions.
    const plain = cairn(['sessions', '--agent', 'qwen'], env);
    expect(plain.stdout.trimEnd().split('\n')).toHaveLength(6);
    expect(plain.stdout).toContain('Active branch title');
  });

  it('summarizes a session with the tokens its usageMetadata records', () => {
    const r = cairn(['summary', '019f0000-0000-7000-8000-000000000004', '--json'], env);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      summary: { requests: 1, inputTokens: 12, outputTokens: 4, turns: 2 },
    });
  });
});
