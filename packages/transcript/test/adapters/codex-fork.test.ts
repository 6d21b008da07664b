// Forked and subagent rollouts start with a copy of their parent's records: the copy is skipped
// as 'parent replay' and its usage is not counted again. Built from a real parent rollout.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SourceFile } from '../../src/adapter.js';
import { codexAdapter } from '../../src/adapters/codex/index.js';
import { finishTranscript } from '../../src/load.js';
import type { Transcript } from '../../src/model.js';
import { foldTranscript } from '../../src/summary.js';
import { corpus } from '../corpus.js';
import { load, rollout, rollouts } from './codex-corpus.js';

const PARENT = '019c8a70-dda7-7f33-98ea-f30553347322';
// UUIDv7 ids: the child is created after every turn of the parent, its own turn after itself.
const CHILD = '019c8a80-0000-7000-8000-000000000001';
const OWN_TURN = '019c8a80-1000-7000-8000-000000000002';
const PATH = `/s/rollout-2026-02-23T12-37-00-${CHILD}.jsonl`;

const rec = (at: string, type: string, payload: unknown) => JSON.stringify({ timestamp: at, type, payload });
const file = (lines: readonly string[]): SourceFile => ({
  path: PATH,
  data: new TextEncoder().encode(`${lines.join('\n')}\n`),
});

function translate(f: SourceFile): Transcript {
  const r = codexAdapter.translate([f]);
  if (!r.ok) throw new Error(r.error.message);
  return finishTranscript('codex', r.value);
}

const childMeta = (
  id: string,
  source: unknown = {
    subagent: {
      thread_spawn: { parent_thread_id: PARENT, depth: 1, agent_nickname: 'Scout', agent_role: 'explorer' },
    },
  },
) =>
  rec('2026-02-23T12:37:00.000Z', 'session_meta', {
    id,
    forked_from_id: PARENT,
    timestamp: '2026-02-23T12:37:00.000Z',
    cwd: '/w',
    cli_version: '0.104.0',
    source,
  });

describe.skipIf(!corpus)('a subagent rollout that replays its parent', () => {
  // Codex copies the parent's records with new timestamps at the fork instant.
  const parentLines = readFileSync(rollout('13-19-38'), 'utf8')
    .trimEnd()
    .split('\n')
    .map((l, i) =>
      l.replace(
        /^\{"timestamp":"[^"]+"/,
        `{"timestamp":"2026-02-23T12:37:00.${String(i).padStart(3, '0')}Z"`,
      ),
    );
  const parentTotal = {
    input_tokens: 34469,
    cached_input_tokens: 3456,
    output_tokens: 431,
    reasoning_output_tokens: 264,
    total_tokens: 34900,
  };
  const own = {
    input_tokens: 1000,
    cached_input_tokens: 200,
    output_tokens: 50,
    reasoning_output_tokens: 10,
    total_tokens: 1050,
  };
  const sum = Object.fromEntries(
    Object.entries(own).map(([k, v]) => [k, v + parentTotal[k as keyof typeof parentTotal]]),
  );
  const ownLines = (info: unknown) => [
    rec('2026-02-23T12:37:05.000Z', 'turn_context', { turn_id: OWN_TURN, model: 'gpt-5.3-codex', cwd: '/w' }),
    rec('2026-02-23T12:37:05.001Z', 'event_msg', { type: 'task_started', turn_id: OWN_TURN }),
    rec('2026-02-23T12:37:05.002Z', 'response_item', {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: 'find the parser' }],
    }),
    rec('2026-02-23T12:37:05.003Z', 'event_msg', {
      type: 'user_message',
      message: 'find the parser',
      images: [],
    }),
    rec('2026-02-23T12:37:09.000Z', 'response_item', {
      type: 'message',
      role: 'assistant',
      content: [{ type: 'output_text', text: 'It is in src/parse.ts.' }],
    }),
    rec('2026-02-23T12:37:09.100Z', 'event_msg', { type: 'token_count', info }),
  ];
  const lines = [
    childMeta(CHILD),
    ...parentLines,
    ...ownLines({ total_token_usage: sum, last_token_usage: own }),
  ];

  it('skips the copied records and counts only its own turn and request', () => {
    const t = translate(file(lines));
    const replay = t.skipped.filter((s) => s.reason === 'parent replay').map((s) => s.source.line);
    expect(replay).toEqual(parentLines.map((_, i) => i + 2));
    expect(t.session.id).toBe(CHILD);
    expect(t.agents).toEqual([{ id: CHILD, title: 'Scout' }]);
    expect(foldTranscript(t, { prompts: true })).toMatchObject({
      turns: 1,
      prompts: ['find the parser'],
      requests: 1,
      inputTokens: 1000,
      cacheReadTokens: 200,
      outputTokens: 50,
    });
    expect(t.events.find((e) => e.kind === 'assistant')!.requestId).toBe(`L${lines.length}`);
    expect(codexAdapter.summarize!([file(lines)])).toEqual({
      ok: true,
      value: foldTranscript(t, { prompts: true }),
    });
  });

  it('takes its own usage from the running totals past the copied ones when a snapshot has no last usage', () => {
    const t = translate(file([childMeta(CHILD), ...parentLines, ...ownLines({ total_token_usage: sum })]));
    expect(foldTranscript(t)).toMatchObject({
      requests: 1,
      inputTokens: 1000,
      cacheReadTokens: 200,
      outputTokens: 50,
    });
  });

  it('finds the copy by the burst of snapshots when turns carry no ids', () => {
    const at = (s: string) => `2026-02-23T12:37:${s}Z`;
    const usage = (n: number) => ({
      input_tokens: n,
      cached_input_tokens: 0,
      output_tokens: 1,
      total_tokens: n + 1,
    });
    const burst = [
      rec(at('00.000'), 'session_meta', { id: 'child-1', forked_from_id: PARENT, timestamp: at('00.000') }),
      rec(at('00.001'), 'turn_context', { model: 'gpt-5' }),
      rec(at('00.002'), 'response_item', {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: 'parent prompt' }],
      }),
      rec(at('00.002'), 'event_msg', { type: 'user_message', message: 'parent prompt' }),
      rec(at('00.010'), 'event_msg', {
        type: 'token_count',
        info: { total_token_usage: usage(100), last_token_usage: usage(100) },
      }),
      rec(at('00.020'), 'event_msg', {
        type: 'token_count',
        info: { total_token_usage: usage(300), last_token_usage: usage(200) },
      }),
      rec(at('30.000'), 'response_item', {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: 'child prompt' }],
      }),
      rec(at('30.001'), 'event_msg', { type: 'user_message', message: 'child prompt' }),
      rec(at('40.000'), 'event_msg', {
        type: 'token_count',
        info: { total_token_usage: usage(350), last_token_usage: usage(50) },
      }),
    ];
    const t = translate(file(burst));
    expect(t.skipped.filter((s) => s.reason === 'parent replay').map((s) => s.source.line)).toEqual([
      2, 3, 4, 5, 6,
    ]);
    expect(foldTranscript(t, { prompts: true })).toMatchObject({
      turns: 1,
      prompts: ['child prompt'],
      requests: 1,
      inputTokens: 50,
    });
  });

  it('replays nothing in a rollout that is not a fork, even with snapshots a moment apart', () => {
    for (const path of rollouts)
      expect(load(path).skipped.some((s) => s.reason === 'parent replay')).toBe(false);
  });
});

describe('a rollout that spawns a subagent', () => {
  const at = '2026-02-23T12:36:59.000Z';
  const lines = [
    rec(at, 'session_meta', { id: PARENT, timestamp: at, cwd: '/w' }),
    rec(at, 'response_item', {
      type: 'function_call',
      name: 'spawn_agent',
      arguments: '{"message":"find the parser"}',
      call_id: 's1',
    }),
    rec(at, 'event_msg', {
      type: 'collab_agent_spawn_end',
      call_id: 's1',
      sender_thread_id: PARENT,
      new_thread_id: CHILD,
      new_agent_nickname: 'Scout',
      new_agent_role: 'explorer',
      prompt: 'find the parser',
      status: 'running',
    }),
    rec(at, 'response_item', { type: 'function_call_output', call_id: 's1', output: '{"agent_id":"x"}' }),
  ];

  it('gets a lane for the subagent, started by the spawning call', () => {
    const t = translate({ ...file(lines), path: `/s/rollout-x-${PARENT}.jsonl` });
    expect(t.agents).toEqual([
      { id: PARENT },
      { id: CHILD, parentId: PARENT, spawnEventId: 'L2', title: 'Scout' },
    ]);
    expect(t.capabilities).toContain('subagents');
    expect(t.events[2]).toMatchObject({
      kind: 'system',
      payload: { type: 'collab_agent_spawn_end', callId: 's1' },
    });
    expect(foldTranscript(t).subagents).toBe(1);
    expect(codexAdapter.summarize!([file(lines)])).toMatchObject({ ok: true, value: { subagents: 1 } });
  });
});
