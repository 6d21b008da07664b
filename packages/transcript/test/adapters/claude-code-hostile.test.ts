// Damaged Claude Code files: bad lines become skipped records, the rest translates intact.
import { describe, expect, it } from 'vitest';
import type { SourceFile } from '../../src/adapter.js';
import { claudeCodeAdapter } from '../../src/adapters/claude-code/index.js';
import { finishTranscript } from '../../src/load.js';
import { foldTranscript } from '../../src/summary.js';

const enc = new TextEncoder();
const line = (v: unknown) => enc.encode(`${JSON.stringify(v)}\n`);
const concat = (...parts: Uint8Array[]): Uint8Array => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

const envelope = { sessionId: 's1', cwd: '/w', version: '2.1.50', isSidechain: false };
const usage = (output: number) => ({
  input_tokens: 2,
  cache_creation_input_tokens: 10,
  cache_read_input_tokens: 100,
  output_tokens: output,
});

const damaged = concat(
  line({ type: 'file-history-snapshot', messageId: 'u1', snapshot: {} }),
  line({
    ...envelope,
    type: 'user',
    uuid: 'u1',
    timestamp: '2026-01-01T00:00:00.000Z',
    message: { role: 'user', content: 'hello' },
  }),
  line({
    ...envelope,
    type: 'assistant',
    uuid: 'a1',
    parentUuid: 'u1',
    requestId: 'req_1',
    timestamp: '2026-01-01T00:00:01.000Z',
    message: {
      id: 'msg_1',
      model: 'claude-x',
      role: 'assistant',
      content: [{ type: 'text', text: 'hi' }],
      usage: usage(5),
    },
  }),
  enc.encode('{"type":"user","message":{"role":"user","content":\n'),
  enc.encode(
    '{"type":"user","uuid":"u2","message":{"role":"user","content":"bad \xff"}}\n'.replace('\xff', 'XX'),
  ),
  enc.encode('{"type":"user","uuid":"u3","message":{"role":"user","content":"a\u0000b"}}\n'),
  enc.encode('\n'),
  line({
    ...envelope,
    type: 'assistant',
    uuid: 'a2',
    parentUuid: 'a1',
    requestId: 'req_1',
    timestamp: '2026-01-01T00:00:02.000Z',
    message: {
      id: 'msg_1',
      model: 'claude-x',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }],
      usage: usage(30),
    },
  }),
  line({
    ...envelope,
    type: 'user',
    uuid: 'u4',
    parentUuid: 'a2',
    timestamp: '2026-01-01T00:00:03.000Z',
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'no such file', is_error: true }],
    },
    toolUseResult: 'Error: no such file',
  }),
  line({ type: 'future-thing', uuid: 'f1', sessionId: 's1', timestamp: '2026-01-01T00:00:04.000Z' }),
  enc.encode('[1,2,3]\n'),
  enc.encode('{"type":"assistant","uuid":"a3","message":{"id":"msg_2","content":[{"type":"te'),
);
// Line 5 carries a byte that is not UTF-8.
const invalidAt = damaged.indexOf('X'.charCodeAt(0));
damaged[invalidAt] = 0xff;
damaged[invalidAt + 1] = 0xfe;

const file: SourceFile = { path: '/p/-w/s1.jsonl', data: damaged };

describe('a damaged Claude Code file', () => {
  const r = claudeCodeAdapter.translate([file]);
  const t = r.ok ? finishTranscript('claude-code', r.value) : undefined;

  it('translates without failing', () => {
    expect(r.ok).toBe(true);
  });

  it('skips each bad line with its reason and pointer', () => {
    const reasons = t!.skipped.map((s) => [s.source.line, s.reason]);
    expect(reasons).toEqual([
      [1, 'bookkeeping'],
      [4, 'invalid JSON'],
      [5, 'invalid UTF-8'],
      [6, 'NUL bytes'],
      [7, 'empty line'],
      [12, 'truncated line'],
    ]);
    const last = t!.skipped.at(-1)!.source;
    expect(last.offset + last.length).toBe(damaged.length);
  });

  it('keeps the rest intact', () => {
    expect(t!.events.map((e) => [e.source.line, e.kind])).toEqual([
      [2, 'user'],
      [3, 'request'],
      [3, 'assistant'],
      [8, 'tool_call'],
      [9, 'tool_result'],
      [10, 'unknown'],
      [11, 'unknown'],
    ]);
    const [request] = t!.events.filter((e) => e.kind === 'request');
    expect(request?.payload).toMatchObject({
      model: 'claude-x',
      usage: { inputTokens: 112, outputTokens: 30 },
    });
    expect(t!.events.find((e) => e.kind === 'unknown')?.payload).toMatchObject({
      recordType: 'future-thing',
    });
    expect(t!.events.find((e) => e.kind === 'tool_result')?.payload).toMatchObject({
      callId: 'toolu_1',
      output: 'no such file',
      isError: true,
    });
    expect(t!.session).toMatchObject({ id: 's1', cwd: '/w' });
  });

  it('gives the same numbers from the summary pass', () => {
    const fast = claudeCodeAdapter.summarize!([file]);
    expect(fast.ok && fast.value).toEqual(foldTranscript(t!, { prompts: true }));
    expect(fast.ok && fast.value).toMatchObject({ turns: 1, failedTools: 1, requests: 1, inputTokens: 112 });
  });

  it('refuses a file whose first record is of a generation Claude Code never wrote', () => {
    const codex = {
      path: '/p/x.jsonl',
      data: line({ timestamp: 't', type: 'session_meta', payload: { id: 'x' } }),
    };
    for (const result of [claudeCodeAdapter.translate([codex]), claudeCodeAdapter.summarize!([codex])]) {
      expect(result.ok).toBe(false);
      if (!result.ok)
        expect(result.error).toMatchObject({ _tag: 'UnknownFormatGeneration', file: '/p/x.jsonl', line: 1 });
    }
  });

  it('translates an empty file to an empty session', () => {
    const r = claudeCodeAdapter.translate([{ path: '/p/empty.jsonl', data: new Uint8Array() }]);
    expect(r.ok && r.value).toMatchObject({
      events: [],
      skipped: [],
      agents: [{ id: 'empty' }],
      capabilities: [],
    });
  });
});
