// Damage the summary pass reads without a full parse (a user line's tool output, a progress
// line's data) still gives the fold's numbers: both drop a broken line, and both see the members
// JSON.parse sees, repeated or escaped keys included.
import { describe, expect, it } from 'vitest';
import type { SourceFile } from '../../src/adapter.js';
import { claudeCodeAdapter } from '../../src/adapters/claude-code/index.js';
import { objectMembers } from '../../src/json-check.js';
import { finishTranscript } from '../../src/load.js';
import { foldTranscript } from '../../src/summary.js';

const enc = new TextEncoder();
const env = { sessionId: 's1', cwd: '/w', version: '2.1.50', isSidechain: false };
const at = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, '0')}.000Z`;
const json = (v: unknown) => JSON.stringify(v);

const prompt = json({
  ...env,
  type: 'user',
  uuid: 'u0',
  timestamp: at(0),
  message: { role: 'user', content: 'go' },
});
const call = json({
  ...env,
  type: 'assistant',
  uuid: 'a1',
  requestId: 'req_1',
  timestamp: at(1),
  message: {
    id: 'msg_1',
    model: 'claude-x',
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {} }],
    usage: { input_tokens: 2, output_tokens: 3 },
  },
});
/** A failed tool result whose record goes on, after toolUseResult, with `rest` (raw JSON text). */
const failedResult = (rest: string, s = 2) =>
  `${json({
    ...env,
    type: 'user',
    uuid: 'r1',
    timestamp: at(s),
    message: {
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 'toolu_1', is_error: true, content: 'no' }],
    },
  }).slice(0, -1)},"toolUseResult":${rest}}`;
const progress = (data: string, s: number) =>
  `{"parentUuid":"a1","isSidechain":false,"type":"progress","data":${data},"uuid":"p${s}","timestamp":"${at(s)}","sessionId":"s1"}`;

function both(lines: (string | Uint8Array)[]) {
  const parts = lines.map((l) => (typeof l === 'string' ? enc.encode(`${l}\n`) : l));
  const data = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    data.set(p, o);
    o += p.length;
  }
  const files: SourceFile[] = [{ path: '/p/s1.jsonl', data }];
  const fast = claudeCodeAdapter.summarize!(files);
  const translated = claudeCodeAdapter.translate(files);
  if (!fast.ok || !translated.ok) throw new Error('not read');
  return {
    fast: fast.value,
    fold: foldTranscript(finishTranscript('claude-code', translated.value), { prompts: true }),
  };
}

describe('the Claude Code summary pass on damaged lines', () => {
  it.each([
    ['a tool output cut short in the middle of the file', failedResult('"cut').slice(0, -1)],
    ['a tool output that is not valid JSON', failedResult('{"stdout": oops}')],
    ['a tool output with invalid UTF-8', failedResult('"\u00ff"').replace('\u00ff', '\udfff')],
    ['a tool output with a raw control character', failedResult('"a\u0001b"')],
    ['a tool output nested 10,000 levels deep', failedResult(`${'['.repeat(10_000)}${']'.repeat(10_000)}`)],
    ['a whole tool result', failedResult('{"stdout":"no","exitCode":1}')],
  ])('agrees with the fold on %s', (_what, line) => {
    const { fast, fold } = both([prompt, call, line, progress('{"type":"bash_progress"}', 3)]);
    expect(fast).toEqual(fold);
  });

  it('drops a failed result whose line breaks after the tool output, as translation does', () => {
    const { fast, fold } = both([
      prompt,
      call,
      failedResult('"cut'),
      progress('{"type":"bash_progress"}', 3),
    ]);
    expect(fold.failedTools).toBe(0);
    expect(fast).toEqual(fold);
  });

  it('drops a line with bytes that are not UTF-8 inside the tool output', () => {
    const line = enc.encode(`${failedResult('"xx"')}\n`);
    const i = new TextDecoder().decode(line).indexOf('"xx"') + 1;
    line[i] = 0xff;
    const { fast, fold } = both([prompt, call, line]);
    expect(fold.failedTools).toBe(0);
    expect(fast).toEqual(fold);
  });

  it('reads a user line whose type is repeated after the tool output as the record JSON.parse gives', () => {
    const usage =
      '{"id":"msg_9","model":"claude-x","role":"assistant","content":[{"type":"text","text":"t"}],"usage":{"input_tokens":5,"output_tokens":500}}';
    const line = failedResult(`"x","type":"assistant","requestId":"req_9","message":${usage}`);
    const { fast, fold } = both([prompt, call, line]);
    expect(fold.outputTokens).toBe(503);
    expect(fast).toEqual(fold);
  });

  it('counts the time of a hook progress whose type is not the first member of its data', () => {
    const { fast, fold } = both([
      prompt,
      call,
      progress('{"hookName":"Stop","type":"hook_progress","hookEvent":"Stop"}', 59),
    ]);
    expect(fold.durationMs).toBe(59_000);
    expect(fast).toEqual(fold);
  });

  it('reads escaped keys and values as JSON.parse does', () => {
    const line = progress('{"typ\\u0065":"hook_pro\\u0067ress","hookEvent":"Stop"}', 40).replace(
      '"type":"progress"',
      '"type":"progress","\\u0074ype":"progress"',
    );
    const { fast, fold } = both([prompt, call, line]);
    expect(fold.durationMs).toBe(40_000);
    expect(fast).toEqual(fold);
  });
});

describe('the strict JSON check', () => {
  const accepts = (text: string) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  };
  it.each([
    '{}',
    ' { "a" : [1, -0.5e+3, true, false, null, "x\\u00e9\\n", {}] } ',
    '\ufeff{"a":1}',
    '{"a":1,}',
    '{"a":01}',
    '{"a":1.}',
    '{"a":.5}',
    '{"a":-}',
    '{"a":"\\x"}',
    '{"a":"\\u12"}',
    '{"a" 1}',
    '{"a":1 "b":2}',
    '{"a":[1,]}',
    '{"a":[1 2]}',
    '{"a":tru}',
    '{"a":nulll}',
    '{"a":1}}',
    '{"a":1} x',
    '[1]',
    '{"a":"\t"}',
    '{"a":"é€😀"}',
    '{"a":1e5,"b":1E-5,"c":0}',
    '{"a":{"b":[{"c":[]}]}}',
    '{"a":[}',
    '{"a":{]}',
  ])('accepts exactly what JSON.parse accepts: %j', (text) => {
    expect(objectMembers(text) !== undefined).toBe(accepts(text));
  });

  it('finds each top-level member with its decoded key, the last of repeated ones winning', () => {
    const text = '{"a":1,"\\u0062":{"a":[2]},"a":"x"}';
    const members = objectMembers(text)!;
    expect(members.map((m) => [m.key, text.slice(m.valueOffset, m.valueEnd)])).toEqual([
      ['a', '1'],
      ['b', '{"a":[2]}'],
      ['a', '"x"'],
    ]);
  });

  it('checks an unterminated string of a megabyte in linear time', () => {
    const started = performance.now();
    expect(objectMembers(`{"a":"${'x\\n '.repeat(250_000)}`)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
