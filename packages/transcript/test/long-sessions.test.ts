// A first incremental read of a long session takes all its records in one push, more than a call
// can take as spread arguments: each adapter's incremental translation reads 160,000 records and
// gives the events a whole translation gives.
import { describe, expect, it } from 'vitest';
import { findAdapter, type SourceFile, Translator } from '../src/index.js';
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
