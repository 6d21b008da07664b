// The summary passes read only what the numbers need, from bytes where they can. Whatever way a
// line is read, the numbers are those of the full translation folded: on every corpus session,
// with and without the platform's UTF-8 check (which lets lines be parsed without decoding), and
// on damaged or unusual lines read the fast way.
import { isUtf8 } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import type { SourceFile } from '../src/adapter.js';
import { claudeCodeAdapter } from '../src/adapters/claude-code/index.js';
import {
  foldTranscript,
  listSessions,
  loadTranscript,
  readSourceFile,
  type SessionHead,
  type SessionPlatform,
  summarizeSession,
} from '../src/index.js';
import { finishTranscript } from '../src/load.js';
import { corpus } from './corpus.js';
import { corpusPlatform } from './homes.js';

describe.skipIf(!corpus)('the summary of every corpus session', () => {
  const platform = corpusPlatform();
  // The same files without the native UTF-8 check: every line is decoded first.
  const { isWellFormedUtf8: _, ...decoding } = platform;

  it('is the fold of the full translation, read from bytes or from decoded text', async () => {
    const heads: SessionHead[] = [];
    for await (const entry of listSessions(platform)) if (!('ref' in entry)) heads.push(entry);
    expect(heads.length).toBeGreaterThan(10);
    let fromBytes = 0;
    for (const h of heads) {
      const target = { path: h.path, agent: h.agent };
      const loaded = await loadTranscript(platform, target);
      if (!loaded.ok) throw new Error(`${h.path}: ${loaded.error.message}`);
      const fold = foldTranscript(loaded.value, { prompts: true });
      const fast = await summarizeSession(platform, target, { prompts: true });
      const decoded = await summarizeSession(decoding as SessionPlatform, target, { prompts: true });
      expect(fast.ok && fast.value, h.path).toEqual(fold);
      expect(decoded.ok && decoded.value, h.path).toEqual(fold);
      if ((await readSourceFile(platform, h.path)).wellFormedUtf8) fromBytes++;
    }
    // The fast way is the one real files take.
    expect(fromBytes).toBe(heads.length);
  });
});

const env = { sessionId: 's1', cwd: '/w', version: '2.1.50', isSidechain: false };
const at = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, '0')}.000Z`;
const json = (v: unknown) => JSON.stringify(v);
const prompt = (text: string, s = 0, uuid = 'u0') =>
  json({ ...env, type: 'user', uuid, timestamp: at(s), message: { role: 'user', content: text } });
const call = (id = 'msg_1', s = 1, output = 3) =>
  json({
    ...env,
    type: 'assistant',
    uuid: `a-${id}-${s}`,
    requestId: 'req_1',
    timestamp: at(s),
    message: {
      id,
      model: 'claude-x',
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }],
      usage: { input_tokens: 2, output_tokens: output },
    },
  });
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
const hook = (s: number) =>
  `{"parentUuid":"a1","isSidechain":false,"type":"progress","data":{"hookName":"Stop","type":"hook_progress","output":"${'x'.repeat(1000)}"},"uuid":"p${s}","timestamp":"${at(s)}","sessionId":"s1"}`;

/** A Claude Code file as a Node Buffer marked well-formed when it is, as the Node platform reads it. */
function file(path: string, lines: (string | Buffer)[]): SourceFile {
  const data = Buffer.concat(lines.map((l) => (typeof l === 'string' ? Buffer.from(`${l}\n`) : l)));
  const f: SourceFile = { path, data };
  if (isUtf8(data)) f.wellFormedUtf8 = true;
  return f;
}

function both(files: SourceFile[]) {
  const fast = claudeCodeAdapter.summarize!(files);
  const translated = claudeCodeAdapter.translate(files);
  if (!fast.ok || !translated.ok) throw new Error('not read');
  return {
    fast: fast.value,
    fold: foldTranscript(finishTranscript('claude-code', translated.value), { prompts: true }),
  };
}

describe('the Claude Code summary read from bytes', () => {
  it.each([
    ['a tool output cut short in the middle of the file', failedResult('"cut').slice(0, -1)],
    ['a tool output that is not valid JSON', failedResult('{"stdout": oops}')],
    ['a tool output with a raw control character', failedResult('"a\u0001b"')],
    ['a tool output with a tab between members', failedResult('{"a":1,\t"b":2}')],
    ['a tool output nested 10,000 levels deep', failedResult(`${'['.repeat(10_000)}${']'.repeat(10_000)}`)],
    ['a line that starts with a byte order mark', `\ufeff${failedResult('"ok"')}`],
    ['a whole tool result', failedResult('{"stdout":"no","exitCode":1}')],
    ['a record whose type is repeated after the tool output', failedResult('"x","type":"system"')],
    ['hook progress with a long output', hook(40)],
  ])('agrees with the fold on %s', (_what, line) => {
    const { fast, fold } = both([file('/p/s1.jsonl', [prompt('go'), call(), line, hook(3)])]);
    expect(fast).toEqual(fold);
  });

  it('reads prompts past ASCII as the decoded text, however they are written', () => {
    const { fast, fold } = both([
      file('/p/s1.jsonl', [
        prompt('café ☕ 日本語', 0, 'u0'),
        // A line separator is whitespace to trimStart: the prompt is still typed text.
        prompt('\u2028<command-name>/x</command-name>', 1, 'u1'),
        `{"type":"user","uuid":"u2","timestamp":"${at(2)}","sessionId":"s1","message":{"role":"user","content":[{"type":"text","text":"\\u00e9t\\u00e9 and été"}]}}`,
        call('msg_é', 3),
      ]),
    ]);
    expect(fast.prompts).toEqual(['café ☕ 日本語', 'été and été']);
    expect(fast).toEqual(fold);
  });

  it('counts a request once when its id is written raw in one line and escaped in the next', () => {
    const escaped = call('msg_é', 4, 9).replace('msg_é', 'msg_\\u00e9');
    const { fast, fold } = both([file('/p/s1.jsonl', [prompt('go'), call('msg_é', 3, 5), escaped])]);
    expect(fold.requests).toBe(1);
    expect(fast).toEqual(fold);
  });

  it('reads a file that is not well-formed UTF-8 the exact way', () => {
    const bad = Buffer.from(`${failedResult('"xx"')}\n`);
    bad[bad.indexOf('"xx"') + 1] = 0xff;
    const f = file('/p/s1.jsonl', [prompt('go'), call(), bad]);
    expect(f.wellFormedUtf8).toBeUndefined();
    const { fast, fold } = both([f]);
    expect(fold.failedTools).toBe(0);
    expect(fast).toEqual(fold);
  });

  it('refuses a file whose first line is JSON but no record, as translation does', () => {
    const f = file('/p/s1.jsonl', ['[1,2]', prompt('go')]);
    expect(claudeCodeAdapter.summarize!([f]).ok).toBe(false);
    expect(claudeCodeAdapter.translate([f]).ok).toBe(false);
  });
});
