// A first incremental read of a long session takes all its records in one push, more than a call
// can take as spread arguments: each adapter's incremental translation reads 160,000 records and
// gives the events a whole translation gives. Loading a file that long reads it in parts, and gives
// the same transcript as translating it whole.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findAdapter, loadTranscript, nodePlatform, type SourceFile, Translator } from '../src/index.js';
import { finishTranscript } from '../src/load.js';
import { tempHome } from './homes.js';
import { claudeLines, codexLines } from './long-records.js';

const RECORDS = 160_000;
const cases = [
  [
    'claude-code',
    '/home/u/.claude/projects/-work-app/6f1c2a4e-0b7d-4c1e-9a55-3d2f8e7b9c10.jsonl',
    claudeLines,
  ],
  [
    'codex',
    '/home/u/.codex/sessions/2026/02/23/rollout-2026-02-23T12-00-00-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
    codexLines,
  ],
] as const;

describe('the first incremental read of a long session', () => {
  it.each(cases)('%s: 160,000 records in one push', { timeout: 60_000 }, (agent, path, lines) => {
    const adapter = findAdapter(agent)!;
    const file: SourceFile = { path, data: Buffer.from(`${lines(RECORDS).join('\n')}\n`) };
    const pushed = new Translator(adapter).push([file]);
    if (!pushed.ok) throw new Error(pushed.error.message);
    const whole = adapter.translate([file]);
    if (!whole.ok) throw new Error(whole.error.message);
    expect(pushed.value.added.length).toBe(whole.value.events.length);
    expect(whole.value.events.length).toBeGreaterThanOrEqual(RECORDS - 1);
    expect(pushed.value.added.map((e) => e.id)).toEqual(whole.value.events.map((e) => e.id));
  });
});

describe('loading a long session', () => {
  it.each(cases)(
    '%s: read in parts, the transcript of a whole translation',
    { timeout: 60_000 },
    async (agent, at, lines) => {
      const home = tempHome();
      const path = join(home, at.slice('/home/u/'.length));
      const data = Buffer.from(`${lines(RECORDS).join('\n')}\n`);
      // Long enough to be read in more than one part.
      expect(data.length).toBeGreaterThan(16 * 1024 * 1024);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, data);
      const env = { HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'), CODEX_HOME: join(home, '.codex') };
      const loaded = await loadTranscript(nodePlatform({ env, homeDir: home }), { agent, path });
      if (!loaded.ok) throw new Error(loaded.error.message);
      const adapter = findAdapter(agent)!;
      const whole = adapter.translate([{ path, data, wellFormedUtf8: true }]);
      if (!whole.ok) throw new Error(whole.error.message);
      const expected = finishTranscript(adapter.id, whole.value);
      expect(loaded.value.events.length).toBe(expected.events.length);
      expect(JSON.stringify(loaded.value.events)).toBe(JSON.stringify(expected.events));
      expect(loaded.value.session).toEqual(expected.session);
      expect(loaded.value.capabilities).toEqual(expected.capabilities);
    },
  );
});
