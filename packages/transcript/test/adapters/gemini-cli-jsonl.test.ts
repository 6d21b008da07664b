// The Gemini CLI adapter on append-only JSONL sessions: last write wins, rewinds, history
// checkpoints, hostile lines and subagent lanes, on the corpus sample and on hand-made lines.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SourceFile, TranslatedSession } from '../../src/adapter.js';
import { geminiCliAdapter } from '../../src/adapters/gemini-cli/index.js';
import { countLines } from '../../src/lines.js';
import { finishTranscript } from '../../src/load.js';
import type { TranscriptEvent } from '../../src/model.js';
import { foldTranscript } from '../../src/summary.js';
import { corpus, corpusPath } from '../corpus.js';

const encode = (text: string) => new TextEncoder().encode(text);
const jsonl = (path: string, records: unknown[]): SourceFile => ({
  path,
  data: encode(`${records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n')}\n`),
});

function translate(...files: SourceFile[]): TranslatedSession {
  const r = geminiCliAdapter.translate(files);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** Every line of every file is the source of events or exactly one skipped record, never both. */
function expectEveryLineAccounted(t: TranslatedSession, files: SourceFile[]) {
  for (const file of files) {
    const evented = new Set(t.events.filter((e) => e.source.file === file.path).map((e) => e.source.line));
    const skipped = t.skipped.filter((s) => s.source.file === file.path).map((s) => s.source.line);
    expect(new Set(skipped).size, file.path).toBe(skipped.length);
    for (const line of skipped) expect(evented.has(line), `${file.path}:${line}`).toBe(false);
    expect(evented.size + skipped.length, file.path).toBe(countLines(file.data));
  }
}

const summary = (t: TranslatedSession) =>
  foldTranscript(finishTranscript('gemini-cli', t), { prompts: true });
const brief = (e: TranscriptEvent) => `${e.kind}@${e.source.line}`;

const meta = {
  sessionId: 's-1',
  projectHash: 'abc',
  startTime: '2026-05-01T10:00:00.000Z',
  lastUpdated: '2026-05-01T10:00:00.000Z',
  kind: 'main',
};
const at = (s: number) => `2026-05-01T10:00:${String(s).padStart(2, '0')}.000Z`;
const user = (id: string, text: string, s: number) => ({
  id,
  timestamp: at(s),
  type: 'user',
  content: [{ text }],
});
const tokens = (input: number, output: number, cached = 0, thoughts = 0) => ({
  input,
  output,
  cached,
  thoughts,
  tool: 0,
  total: input + output + thoughts,
});
const gemini = (id: string, s: number, extra: Record<string, unknown> = {}) => ({
  id,
  timestamp: at(s),
  type: 'gemini',
  content: '',
  model: 'gemini-x',
  thoughts: [],
  ...extra,
});

describe('gemini-cli JSONL: the same message id written again', () => {
  const call = { id: 'c1', name: 'list_directory', args: { path: '.' }, timestamp: at(3) };
  const result = [
    { functionResponse: { id: 'c1', name: 'list_directory', response: { output: 'a.txt b.txt' } } },
  ];
  const file = jsonl('/h/chats/session-2026-05-01T10-00-s-1.jsonl', [
    meta,
    user('u1', 'list the files', 1),
    { $set: { lastUpdated: at(1) } },
    gemini('g1', 2, { toolCalls: [{ ...call, status: 'executing' }] }),
    gemini('g1', 2, { toolCalls: [{ ...call, status: 'success', result }] }),
    gemini('g2', 4, { content: 'Two files.', tokens: tokens(300, 20, 100) }),
    gemini('g1', 2, { toolCalls: [{ ...call, status: 'success', result }], tokens: tokens(200, 10, 50, 4) }),
  ]);
  const t = translate(file);

  it('takes the last write of each id, at the place of its first write', () => {
    expect(t.events.map(brief)).toEqual([
      'system@1',
      'user@2',
      'tool_call@7',
      'request@7',
      'tool_result@7',
      'assistant@6',
      'request@6',
    ]);
    const r = t.events.find((e) => e.kind === 'tool_result')!;
    expect(r.payload).toMatchObject({ callId: 'c1', output: 'a.txt b.txt', status: 'success' });
  });

  it('skips the earlier writes as superseded, and the metadata patch as bookkeeping', () => {
    expect(t.skipped.map((s) => [s.source.line, s.reason, s.recordType])).toEqual([
      [3, 'metadata update', '$set'],
      [4, 'superseded by a later write of the same message', 'gemini'],
      [5, 'superseded by a later write of the same message', 'gemini'],
    ]);
    expectEveryLineAccounted(t, [file]);
  });

  it('counts each request once, with the last tokens written', () => {
    const s = summary(t);
    expect(s.requests).toBe(2);
    expect(s.inputTokens).toBe(500);
    expect(s.outputTokens).toBe(34);
    expect(s.cacheReadTokens).toBe(150);
    expect(s.prompts).toEqual(['list the files']);
    expect(s.durationMs).toBe(3000);
    expect(t.session).toMatchObject({ id: 's-1', startedAt: Date.parse(at(0)), endedAt: Date.parse(at(4)) });
  });
});

describe('gemini-cli JSONL: $rewindTo', () => {
  const file = jsonl('/h/chats/session-r.jsonl', [
    meta,
    user('u1', 'first', 1),
    gemini('g1', 2, { content: 'reply', tokens: tokens(10, 5) }),
    user('u2', 'second', 3),
    gemini('g2', 4, { content: 'other reply', tokens: tokens(20, 5) }),
    gemini('g2', 4, { content: 'other reply, final', tokens: tokens(20, 6) }),
    { $rewindTo: 'u2' },
    user('u3', 'second, rephrased', 5),
    gemini('g3', 6, { content: 'better reply', tokens: tokens(30, 5) }),
  ]);
  const t = translate(file);

  it('drops the target and every later message, and records the rewind', () => {
    expect(
      t.events.map((e) => (e.kind === 'user' || e.kind === 'assistant' ? e.payload.text : e.kind)),
    ).toEqual([
      'system',
      'first',
      'reply',
      'request',
      'system',
      'second, rephrased',
      'better reply',
      'request',
    ]);
    expect(t.events[4]!.payload).toMatchObject({ type: 'rewind', messageId: 'u2' });
    expect(t.skipped.map((s) => [s.source.line, s.reason])).toEqual([
      [4, 'rewound'],
      [5, 'superseded by a later write of the same message'],
      [6, 'rewound'],
    ]);
    expectEveryLineAccounted(t, [file]);
    expect(summary(t)).toMatchObject({ requests: 2, inputTokens: 40, turns: 2 });
  });

  it('drops every message when the target id is unknown, as the CLI does', () => {
    const t2 = translate(
      jsonl('/h/chats/session-r2.jsonl', [meta, user('u1', 'a', 1), { $rewindTo: 'nope' }]),
    );
    expect(t2.events.map((e) => e.kind)).toEqual(['system', 'system']);
    expect(t2.skipped.map((s) => s.reason)).toEqual(['rewound']);
  });
});

describe('gemini-cli JSONL: a $set.messages checkpoint', () => {
  const u2 = user('u2', 'second', 3);
  const g2 = gemini('g2', 4, { content: 'two', tokens: tokens(20, 5) });
  const snapshot = {
    id: 'sum',
    type: 'user',
    content: [{ text: '<state_snapshot>we did things</state_snapshot>' }],
  };
  const file = jsonl('/h/chats/session-c.jsonl', [
    meta,
    user('u1', 'first', 1),
    gemini('g1', 2, { content: 'one', tokens: tokens(10, 5) }),
    u2,
    g2,
    { $set: { messages: [snapshot, u2, g2], lastUpdated: at(5) } },
    user('u3', 'third', 6),
    gemini('g3', 7, { content: 'three', tokens: tokens(15, 5) }),
  ]);
  const t = translate(file);
  const compaction = t.events.find((e) => e.kind === 'compaction')!;

  it('is a compaction that shadows the messages it dropped, and only those', () => {
    expect(compaction.source.line).toBe(6);
    expect(compaction.timestamp).toBe(Date.parse(at(5)));
    expect(compaction.payload).toMatchObject({
      kept: 2,
      removed: 2,
      added: 1,
      summary: snapshot.content[0]!.text,
    });
    const shadowed = t.events.filter((e) => e.shadowedBy === compaction.id).map((e) => e.source.line);
    expect([...new Set(shadowed)]).toEqual([2, 3]);
    for (const e of t.events.filter((e) => [4, 5, 7, 8].includes(e.source.line)))
      expect(e.shadowedBy).toBeUndefined();
  });

  it('turns a message that exists only in the checkpoint into a synthetic event on its line', () => {
    const made = t.events.filter((e) => e.kind === 'user' && e.source.line === 6);
    expect(made.map((e) => e.payload)).toEqual([
      { text: snapshot.content[0]!.text, synthetic: true, origin: 'history_checkpoint' },
    ]);
    expect(t.events.indexOf(made[0]!)).toBe(t.events.indexOf(compaction) + 1);
  });

  it('counts every request once and every typed prompt as a turn', () => {
    expect(summary(t)).toMatchObject({ requests: 3, inputTokens: 45, compactions: 1, turns: 3 });
    expect(summary(t).prompts).toEqual(['first', 'second', 'third']);
    expect(t.capabilities).toContain('compaction');
    expectEveryLineAccounted(t, [file]);
  });
});

describe('gemini-cli JSONL: hostile lines', () => {
  const bytes = (...parts: (string | number[])[]) =>
    Uint8Array.from(parts.flatMap((p) => (typeof p === 'string' ? [...encode(p)] : p)));
  const file: SourceFile = {
    path: '/h/chats/session-bad.jsonl',
    data: bytes(
      `${JSON.stringify(meta)}\n`,
      `${JSON.stringify(user('u1', 'hello', 1))}\n`,
      '{"id": "x", oops}\n',
      [0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a],
      '{"id":"n","type":"user"\u0000}\n',
      '\n',
      '[1, 2, 3]\n',
      '{"mystery": true}\n',
      `${JSON.stringify(gemini('g1', 2, { content: 'hi', tokens: tokens(5, 1) }))}\n`,
      '{"id":"g2","type":"gemini","content":"cut',
    ),
  };
  const t = translate(file);

  it('skips each malformed line with its reason and keeps the rest', () => {
    expect(t.skipped.map((s) => [s.source.line, s.reason])).toEqual([
      [3, 'invalid JSON'],
      [4, 'invalid UTF-8'],
      [5, 'NUL bytes'],
      [6, 'empty line'],
      [10, 'truncated line'],
    ]);
    expect(t.events.map(brief)).toEqual([
      'system@1',
      'user@2',
      'unknown@7',
      'unknown@8',
      'assistant@9',
      'request@9',
    ]);
    expectEveryLineAccounted(t, [file]);
  });

  it('refuses a file whose first record is a shape Gemini never wrote, naming the line', () => {
    const r = geminiCliAdapter.translate([
      jsonl('/h/chats/session-odd.jsonl', ['not json', { hello: 'world' }, meta]),
    ]);
    expect(r).toMatchObject({ ok: false, error: { _tag: 'UnknownFormatGeneration', line: 2 } });
  });
});

describe('gemini-cli JSONL: subagent files are lanes', () => {
  const main = jsonl('/h/chats/session-m.jsonl', [
    { ...meta, sessionId: 'parent' },
    user('u1', 'investigate', 1),
    gemini('g1', 2, {
      tokens: tokens(10, 2),
      toolCalls: [
        {
          id: 'inv-1',
          name: 'codebase_investigator',
          args: {},
          status: 'success',
          agentId: 'child',
          result: [],
        },
      ],
    }),
  ]);
  const sub = jsonl('/h/chats/parent/child.jsonl', [
    {
      sessionId: 'child',
      projectHash: 'abc',
      startTime: at(2),
      lastUpdated: at(3),
      kind: 'subagent',
      directories: ['/w'],
    },
    user('s1', 'look around', 2),
    gemini('s2', 3, { content: 'found it', tokens: tokens(7, 3) }),
  ]);
  const t = translate(main, sub);

  it('puts each file on its own lane, linked to the call that started it', () => {
    const spawn = t.events.find((e) => e.kind === 'tool_call')!;
    expect(t.agents).toEqual([{ id: 'parent' }, { id: 'child', parentId: 'parent', spawnEventId: spawn.id }]);
    expect(t.events.filter((e) => e.agentId === 'child').map((e) => e.source.file)).not.toContain(main.path);
    expect(t.capabilities).toContain('subagents');
    const s = summary(t);
    expect(s).toMatchObject({ subagents: 1, requests: 2, inputTokens: 17, turns: 1 });
    // The subagent's requests count, but only the main lane's make the context shape.
    expect(s.contextShape).toEqual([10]);
    expectEveryLineAccounted(t, [main, sub]);
  });
});

describe.skipIf(!corpus)('gemini-cli JSONL: the corpus sample', () => {
  const path = corpusPath('more/gemini/jsonl_v040.jsonl');
  const original = readFileSync(path, 'utf8');
  const lines = original.trimEnd().split('\n');
  const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  const file = (text: string): SourceFile => ({ path, data: encode(text) });

  it('translates the sample: a prompt, a paired shell call, an answer, two requests', () => {
    const t = translate(file(original));
    expect(t.events.map((e) => e.kind)).toEqual([
      'system',
      'user',
      'tool_call',
      'request',
      'tool_result',
      'assistant',
      'request',
    ]);
    const call = t.events.find((e) => e.kind === 'tool_call')!;
    const result = t.events.find((e) => e.kind === 'tool_result')!;
    expect(call.payload).toMatchObject({ callId: 'run_shell_command_stage0', name: 'run_shell_command' });
    expect(result.payload.callId).toBe(call.payload.callId);
    expect(result.payload.isError).toBeUndefined();
    let input = 0;
    let output = 0;
    let cached = 0;
    for (const r of records) {
      const k = r.tokens as Record<string, number> | undefined;
      if (!k) continue;
      input += k.input! + k.tool!;
      output += k.output! + k.thoughts!;
      cached += k.cached!;
    }
    expect(summary(t)).toMatchObject({
      requests: 2,
      inputTokens: input,
      outputTokens: output,
      cacheReadTokens: cached,
    });
    expect(t.session).toMatchObject({
      id: 'gemini_stage0_jsonl',
      startedAt: Date.parse('2026-04-29T21:39:22.319Z'),
    });
    expectEveryLineAccounted(t, [file(original)]);
  });

  it('lets a re-appended write of a message replace the first one in place', () => {
    const first = records.findIndex((r) => r.id === 'g-assistant-1');
    const rewritten = {
      ...records[first],
      tokens: { input: 12000, output: 90, cached: 500, thoughts: 0, tool: 0, total: 12090 },
    };
    const text = `${original}${JSON.stringify(rewritten)}\n`;
    const t = translate(file(text));
    const requests = t.events.filter((e) => e.kind === 'request');
    expect(requests.map((e) => e.source.line)).toEqual([lines.length + 1, 5]);
    expect(requests[0]!.payload.usage).toEqual({
      inputTokens: 12000,
      outputTokens: 90,
      cacheReadTokens: 500,
    });
    expect(t.skipped.find((s) => s.source.line === first + 1)?.reason).toBe(
      'superseded by a later write of the same message',
    );
    expectEveryLineAccounted(t, [file(text)]);
  });

  it('drops the rewound answer of the sample', () => {
    const text = `${original}{"$rewindTo":"g-assistant-2"}\n`;
    const t = translate(file(text));
    expect(t.events.filter((e) => e.kind === 'assistant')).toEqual([]);
    expect(t.events.filter((e) => e.kind === 'request')).toHaveLength(1);
    expect(t.skipped.find((s) => s.source.line === 5)?.reason).toBe('rewound');
    expect(t.events.at(-1)!.payload).toMatchObject({ type: 'rewind', messageId: 'g-assistant-2' });
  });

  it('gives the same ids on a second translation', () => {
    const ids = translate(file(original)).events.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(translate(file(original)).events.map((e) => e.id)).toEqual(ids);
  });
});

describe('gemini-cli JSONL: a message with nothing in it', () => {
  it('is a skipped record with its reason, so every line is accounted for', () => {
    const empty = { id: 'g-empty', timestamp: at(2), type: 'gemini', content: '' };
    const file = jsonl('/h/.gemini/tmp/p/chats/session-2026-05-01T10-00-empty.jsonl', [
      meta,
      user('u-1', 'hello', 1),
      empty,
      { id: 'g-empty-2', timestamp: at(3), type: 'gemini', content: [], thoughts: [], toolCalls: [] },
      { id: 'g-1', timestamp: at(4), type: 'gemini', content: 'hi' },
    ]);
    const t = translate(file);
    expectEveryLineAccounted(t, [file]);
    expect(
      t.skipped.filter((s) => s.reason === 'empty message').map((s) => [s.source.line, s.recordType]),
    ).toEqual([
      [3, 'gemini'],
      [4, 'gemini'],
    ]);
    expect(t.events.map(brief)).toContain('assistant@5');
  });
});
