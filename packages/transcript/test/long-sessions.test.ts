// A first incremental read of a long session takes all its records in one push, more than a call
// can take as spread arguments: each adapter's incremental translation reads 160,000 records and
// gives the events a whole translation gives.
import { describe, expect, it } from 'vitest';
import { findAdapter, type SourceFile, Translator } from '../src/index.js';

const RECORDS = 160_000;
const START = Date.parse('2026-02-23T12:00:00.000Z');
const at = (i: number) => new Date(START + i * 10).toISOString();

/** A Claude Code session of prompts and replies, each record its own uuid, chained. */
function claudeLines(count: number): string[] {
  const sessionId = '6f1c2a4e-0b7d-4c1e-9a55-3d2f8e7b9c10';
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const uuid = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
    const parentUuid = i === 0 ? null : `00000000-0000-4000-8000-${String(i - 1).padStart(12, '0')}`;
    const user = i % 2 === 0;
    lines.push(
      JSON.stringify({
        type: user ? 'user' : 'assistant',
        uuid,
        parentUuid,
        sessionId,
        timestamp: at(i),
        message: user
          ? { role: 'user', content: `question ${i}` }
          : {
              id: `msg_${i}`,
              role: 'assistant',
              model: 'claude-sonnet-4-5',
              content: [{ type: 'text', text: `answer ${i}` }],
            },
      }),
    );
  }
  return lines;
}

/** A Codex rollout: its session_meta, then reasoning and replies. */
function codexLines(count: number): string[] {
  const lines = [
    JSON.stringify({
      timestamp: at(0),
      type: 'session_meta',
      payload: { id: '019c8a59-e9dd-71f0-9ae3-4079fe9726a9', timestamp: at(0), cwd: '/work/app' },
    }),
  ];
  for (let i = 1; i < count; i++)
    lines.push(
      JSON.stringify({
        timestamp: at(i),
        type: 'response_item',
        payload:
          i % 2 === 0
            ? { type: 'reasoning', summary: [{ type: 'summary_text', text: `step ${i}` }] }
            : { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `done ${i}` }] },
      }),
    );
  return lines;
}

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
