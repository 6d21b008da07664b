// The Codex summary pass gives foldTranscript's numbers without building events, whether it reads
// a rollout whole or a line at a time from chunks: on every corpus rollout, whole, streamed and
// cut short, and on generated rollouts that exercise each rule where a later record changes how
// an earlier one counts (mirrors, compaction pairs, failed tools, a fork's copy of its parent).
import { isUtf8 } from 'node:buffer';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceFile } from '../../src/adapter.js';
import { codexAdapter } from '../../src/adapters/codex/index.js';
import { timeAt, timeOf } from '../../src/adapters/codex/records.js';
import { splitLines } from '../../src/lines.js';
import { finishTranscript } from '../../src/load.js';
import type { SessionSummaryWithPrompts } from '../../src/model.js';
import { readLines } from '../../src/read.js';
import { foldTranscript } from '../../src/summary.js';
import { corpus } from '../corpus.js';
import { tempHome, tempPlatform } from '../homes.js';
import { rollouts } from './codex-corpus.js';

const PATH = '/s/rollout-2026-02-23T12-00-00-019c8a70-dda7-7f33-98ea-f30553347322.jsonl';

function fold(files: readonly SourceFile[]): SessionSummaryWithPrompts {
  const r = codexAdapter.translate(files);
  if (!r.ok) throw new Error(r.error.message);
  return foldTranscript(finishTranscript('codex', r.value), { prompts: true });
}

function whole(files: readonly SourceFile[]): SessionSummaryWithPrompts {
  const r = codexAdapter.summarize!(files);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** The pass fed line by line, each file's bytes in the given form. */
function passed(files: readonly SourceFile[]): SessionSummaryWithPrompts {
  const pass = codexAdapter.summaryPass!(files.map((f) => f.path));
  for (const [i, f] of files.entries()) {
    pass.startFile(i, f.wellFormedUtf8 === true);
    for (const span of splitLines(f.data)) {
      const failure = pass.line(f.data, span);
      if (failure) throw new Error(failure.message);
    }
  }
  const r = pass.finish();
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** The pass fed from a file read in chunks of `chunk` bytes, as summarizeSession streams it. */
async function streamed(path: string, chunk: number): Promise<SessionSummaryWithPrompts> {
  const platform = tempPlatform(tempHome());
  const pass = codexAdapter.summaryPass!([path]);
  pass.startFile(0, false);
  let seen: Uint8Array | undefined;
  let wellFormed = false;
  for await (const { data, span } of readLines(platform, path, chunk)) {
    if (data !== seen) {
      seen = data;
      wellFormed = isUtf8(data);
    }
    const line = data.subarray(span.offset, span.offset + span.length);
    const failure = pass.line(data, span, wellFormed || isUtf8(line));
    if (failure) throw new Error(failure.message);
  }
  const r = pass.finish();
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** A file as the Node platform reads it (a Buffer, marked well-formed when it is) and as plain bytes. */
const forms = (path: string, data: Uint8Array): SourceFile[] => {
  const buffer = Buffer.from(data);
  const read: SourceFile = { path, data: buffer };
  if (isUtf8(buffer)) read.wellFormedUtf8 = true;
  return [read, { path, data: new Uint8Array(data) }];
};

function expectAllAgree(path: string, data: Uint8Array, what: string): SessionSummaryWithPrompts {
  const want = fold([{ path, data }]);
  for (const f of forms(path, data)) {
    expect(whole([f]), `${what}: whole`).toEqual(want);
    expect(passed([f]), `${what}: line by line`).toEqual(want);
  }
  return want;
}

describe.skipIf(!corpus)('the Codex summary on the corpus', () => {
  it('equals the fold of the translation on every rollout', () => {
    expect(rollouts.length).toBeGreaterThanOrEqual(4);
    for (const path of rollouts) {
      const want = expectAllAgree(path, readFileSync(path), path);
      expect(want.requests, path).toBeGreaterThan(0);
    }
  });

  it('equals the fold when read in small chunks, lines cut across chunk boundaries', async () => {
    for (const path of rollouts) {
      const want = fold([{ path, data: readFileSync(path) }]);
      const chunks = want.requests! < 100 ? [97, 1024, 65_536] : [4096, 65_536];
      for (const chunk of chunks) expect(await streamed(path, chunk), `${path} ${chunk}`).toEqual(want);
    }
  });

  it('equals the fold when the rollout ends in a line still being written', async () => {
    const dir = tempHome();
    for (const path of rollouts) {
      const text = readFileSync(path, 'utf8');
      for (const marker of [
        '"type":"token_count"',
        '"type":"user_message"',
        '"type":"function_call_output"',
      ]) {
        const at = text.lastIndexOf(marker);
        if (at === -1) continue;
        const cut = Buffer.from(text.slice(0, at + marker.length + 5));
        const want = expectAllAgree(path, cut, `${path} cut in ${marker}`);
        const copy = join(dir, path.slice(path.lastIndexOf('/') + 1));
        writeFileSync(copy, cut);
        expect(await streamed(copy, 512), `${path} cut in ${marker}, streamed`).toEqual({ ...want });
      }
    }
  });

  it('equals the fold on rollouts whose lines are damaged byte by byte', () => {
    const rnd = random(42);
    const alphabet = Buffer.from('{}[]",:\\ 0123456789.eE+-tfnulr\tu\u00e9abc\r\u0001', 'latin1');
    let damaged = 0;
    for (const path of rollouts) {
      const lines = readFileSync(path, 'utf8').trimEnd().split('\n');
      // The first record stays whole: a damaged one is an unknown format, which says nothing more.
      const out: Buffer[] = [Buffer.from(lines[0]!)];
      for (const [i, line] of lines.slice(1).entries()) {
        const bytes = Buffer.from(line);
        const hurt = i % 3 === 0 ? damage(bytes, 1 + (i % 7), rnd, alphabet) : bytes;
        if (!parses(hurt.toString('latin1'))) damaged++;
        out.push(hurt);
      }
      expectAllAgree(path, Buffer.concat(out.flatMap((b) => [b, Buffer.from('\n')])), `${path} damaged`);
    }
    expect(damaged).toBeGreaterThan(200);
  });

  it('counts what the corpus holds: prompts, requests, a compaction and its mirror once', () => {
    const path = rollouts.find((p) => p.includes('12-54-34'))!;
    const s = whole([{ path, data: readFileSync(path) }]);
    expect(s.compactions).toBe(1);
    expect(s.turns).toBe(s.prompts!.length);
    expect(s.turns).toBeGreaterThan(10);
    expect(s.requests).toBeGreaterThan(200);
  });
});

// Generated rollouts: a seeded walk over the record kinds whose reading depends on their neighbours.
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PARENT = '019c8a70-dda7-7f33-98ea-f30553347322';
const CHILD = '019c8a80-0000-7000-8000-000000000001';
const OLD_TURN = '019c8a70-1000-7000-8000-000000000002';
const NEW_TURN = '019c8a80-1000-7000-8000-000000000003';
/** Created in the same millisecond as the child: its own. */
const SAME_TURN = '019c8a80-0000-7000-8000-00000000000f';

function generated(seed: number): string[] {
  const rnd = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  let clock = Date.parse('2026-02-23T12:37:00.000Z');
  const at = () => {
    clock += pick([0, 1, 5, 200, 900, 1500, 60_000]);
    const r = rnd();
    if (r < 0.03) return undefined;
    if (r < 0.05) return 'not a date';
    return new Date(clock).toISOString();
  };
  const rec = (type: string, payload: unknown) => {
    const ts = at();
    return JSON.stringify(ts === undefined ? { type, payload } : { timestamp: ts, type, payload });
  };
  const calls = ['call_a', 'call_b', 'call_c', 'call_é', ''];
  const texts = [
    'fix the bug',
    'café ☕ 日本語',
    '<environment_context>cwd</environment_context>',
    '',
    ' \u00a0spaced',
  ];
  let total = 0;
  const usage = (n: number) => ({
    input_tokens: n,
    cached_input_tokens: Math.floor(n / 3),
    output_tokens: Math.floor(n / 10),
    reasoning_output_tokens: 1,
    total_tokens: n + Math.floor(n / 10),
  });
  const forked = rnd() < 0.5;
  const lines = [
    rec('session_meta', {
      id: forked ? CHILD : PARENT,
      timestamp: '2026-02-23T12:37:00.000Z',
      cwd: '/w',
      cli_version: '0.104.0',
      ...(forked && rnd() < 0.7 ? { forked_from_id: PARENT } : {}),
      ...(forked && rnd() < 0.5
        ? { source: { subagent: { thread_spawn: { parent_thread_id: PARENT, depth: 1 } } } }
        : {}),
    }),
  ];
  const kinds: (() => string)[] = [
    () =>
      rec('turn_context', {
        turn_id: pick([OLD_TURN, NEW_TURN, SAME_TURN, 'turn-1']),
        model: 'gpt-5',
        cwd: '/w',
      }),
    () => rec('event_msg', { type: 'task_started', turn_id: pick([OLD_TURN, NEW_TURN, SAME_TURN]) }),
    () =>
      rec('response_item', {
        type: 'message',
        role: 'user',
        content: [{ type: 'input_text', text: pick(texts) }],
      }),
    () => rec('event_msg', { type: 'user_message', message: pick(texts), images: [] }),
    () =>
      rec('response_item', {
        type: 'message',
        role: pick(['assistant', 'developer', 'other']),
        content: [{ type: 'output_text', text: 'ok' }],
      }),
    () => rec('response_item', { type: 'reasoning', summary: [], encrypted_content: 'xyz' }),
    () => rec('event_msg', { type: pick(['agent_reasoning', 'agent_message']), text: 'hm', message: 'hi' }),
    () =>
      rec('response_item', { type: 'function_call', name: 'shell', arguments: '{}', call_id: pick(calls) }),
    () => {
      const call = pick([...calls, undefined]);
      const output = pick([
        'Process exited with code 1\nOutput:\nno',
        'Process exited with code 0\nOutput:\nyes',
        '{"output":"x","metadata":{"exit_code":2}}',
        [{ type: 'input_text', text: 'parts' }],
        { content: 'Process exited with code 3', success: true },
        { content: 'fine', success: false },
        'plain é output',
      ]);
      return rec('response_item', {
        type: pick(['function_call_output', 'custom_tool_call_output']),
        call_id: call,
        output,
      });
    },
    () =>
      rec(
        'event_msg',
        pick([
          { type: 'exec_command_end', call_id: pick(calls), exit_code: pick([0, 1]), aggregated_output: 'o' },
          { type: 'patch_apply_end', call_id: pick(calls), success: pick([true, false]) },
          {
            type: 'mcp_tool_call_end',
            call_id: pick(calls),
            result: pick([{ Err: 'x' }, { Ok: { isError: true } }, { Ok: {} }]),
          },
        ]),
      ),
    () => {
      const r = rnd();
      if (r < 0.15) return rec('event_msg', { type: 'token_count', info: null });
      if (r > 0.4) total += Math.floor(rnd() * 5000) + 1;
      const info: Record<string, unknown> = { total_token_usage: usage(total), model_context_window: 1000 };
      if (rnd() < 0.5) info.last_token_usage = usage(Math.floor(rnd() * 100));
      return rec('event_msg', { type: 'token_count', info });
    },
    () => rec('compacted', { message: 'summary', replacement_history: [] }),
    () => rec('event_msg', { type: 'context_compacted' }),
    () =>
      rec('event_msg', { type: 'collab_agent_spawn_end', new_thread_id: pick([CHILD, 'lane-2', 'lane-é']) }),
    () =>
      pick([
        '',
        '{"broken',
        '[1,2]',
        '{"record_type":"state"}',
        '{"type":"world_state","payload":{}}',
        '\u0000{}',
      ]),
    // Lines of unusual shape: repeated members (the last counts), escapes, spaces, odd payloads.
    () =>
      pick([
        '{"timestamp":"2026-02-23T12:40:00.000Z","type":"event_msg","payload":{"type":"user_message","message":"dup"},"payload":{"type":"agent_message","message":"x"}}',
        '{"timestamp":"2026-02-23T12:40:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"esc\\u00e9"}]},"type":"event_msg"}',
        '{"timestamp": 1771864834, "type": "event_msg", "payload": {"type": "exec_command_end", "call_id": "call_a", "exit_code": 1}}',
        '{"timestamp":"2026-02-23T12:40:02.000Z","type":"event\\u005fmsg","payload":{"typ\\u0065":"user_message","message":"escaped key"}}',
        '{"timestamp":"2026-02-23T12:40:03.000Z","type":"event_msg","payload":"not an object"}',
        '{"timestamp":"2026-02-23T12:40:04.000Z","type":"compacted"}',
        '{"timestamp":"2026-02-23T12:40:05.000Z","timestamp":"2030-01-01T00:00:00.000Z","type":"event_msg","payload":{"type":"task_complete"}}',
        '{"type":"response_item","payload":{"type":"function_call_output","call_id":"call_b","output":"Process exited with code 1","call_id":"call_c"}}',
        '{"timestamp":"2026-02-23T12:40:06.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"caf\u00e9 typed"}]}}',
      ]),
  ];
  const n = 5 + Math.floor(rnd() * 60);
  for (let i = 0; i < n; i++) lines.push(pick(kinds)());
  return lines;
}

describe('the Codex summary on generated rollouts', () => {
  it('equals the fold on 1,500 rollouts mixing every rule, as bytes and as a Buffer', () => {
    const counted = { prompts: 0, failed: 0, compactions: 0, requests: 0, subagents: 0 };
    for (let seed = 1; seed <= 1500; seed++) {
      const lines = generated(seed);
      const text = `${lines.join('\n')}${seed % 3 === 0 ? '' : '\n'}`;
      const want = expectAllAgree(PATH, Buffer.from(text), `seed ${seed}`);
      counted.prompts += want.turns ?? 0;
      counted.failed += want.failedTools ?? 0;
      counted.compactions += want.compactions ?? 0;
      counted.requests += want.requests ?? 0;
      counted.subagents += want.subagents ?? 0;
    }
    // Each rule was met many times over.
    for (const [k, v] of Object.entries(counted)) expect(v, k).toBeGreaterThan(300);
  });

  it('refuses a rollout whose first record is of no known generation, as translation does', () => {
    const f = { path: PATH, data: Buffer.from('{"what":1}\n{"type":"event_msg","payload":{}}\n') };
    expect(codexAdapter.translate([f]).ok).toBe(false);
    expect(codexAdapter.summarize!([f]).ok).toBe(false);
    const translated = codexAdapter.translate([f]);
    const pass = codexAdapter.summaryPass!([PATH]);
    pass.startFile(0, true);
    const [first] = splitLines(f.data);
    expect(pass.line(f.data, first!)).toEqual(!translated.ok && translated.error);
  });

  it('reads a tool output nested deeper than values are kept as the translation does', () => {
    let output: unknown = 'Process exited with code 1';
    for (let i = 0; i < 150; i++) output = { content: output };
    const lines = [
      generated(7)[0]!,
      JSON.stringify({
        timestamp: '2026-02-23T12:38:00.000Z',
        type: 'response_item',
        payload: { type: 'function_call_output', call_id: 'c', output },
      }),
      JSON.stringify({
        timestamp: '2026-02-23T12:38:01.000Z',
        type: 'response_item',
        payload: {
          type: 'function_call_output',
          call_id: 'd',
          output: `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
        },
      }),
    ];
    const want = expectAllAgree(PATH, Buffer.from(`${lines.join('\n')}\n`), 'deep output');
    expect(want.failedTools).toBe(0);
  });
});

describe('the fast record time', () => {
  it('is timeOf for every time of the written shape and for anything else', () => {
    const rnd = random(9);
    const two = (n: number) => String(n).padStart(2, '0');
    const odd = [
      '',
      'x',
      '2026-02-23T11:54:52Z',
      '2026-02-23T11:54:52.352+01:00',
      '2026-02-23 11:54:52.352Z',
      5,
      null,
      1.7e12,
    ];
    for (const v of odd) expect(timeAt(v), String(v)).toBe(timeOf(v));
    for (let n = 0; n < 20_000; n++) {
      const year = pickFrom(rnd, [1969, 1970, 2024, 2026, 9999, 0]);
      const v = `${String(year).padStart(4, '0')}-${two(Math.floor(rnd() * 14))}-${two(Math.floor(rnd() * 33))}T${two(Math.floor(rnd() * 26))}:${two(Math.floor(rnd() * 61))}:${two(Math.floor(rnd() * 61))}.${String(Math.floor(rnd() * 1000)).padStart(3, '0')}Z`;
      expect(timeAt(v), v).toBe(timeOf(v));
    }
  });
});

const pickFrom = <T>(rnd: () => number, xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;

/** `b` with one byte dropped, inserted or replaced (n = 0: as it is). */
function damage(b: Buffer, n: number, rnd: () => number, alphabet: Buffer): Buffer {
  const at = Math.floor(rnd() * b.length);
  const other = alphabet.subarray(Math.floor(rnd() * alphabet.length)).subarray(0, 1);
  if (n === 0) return b;
  if (n % 3 === 0) return Buffer.concat([b.subarray(0, at), b.subarray(at + 1)]);
  if (n % 3 === 1) return Buffer.concat([b.subarray(0, at), other, b.subarray(at)]);
  return Buffer.concat([b.subarray(0, at), other, b.subarray(at + 1)]);
}

const parses = (text: string): boolean => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};
