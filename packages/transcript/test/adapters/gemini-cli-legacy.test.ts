// The Gemini CLI adapter on legacy single-JSON session documents: the real corpus session and the
// drifted samples, read through translate directly.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SourceFile, TranslatedSession } from '../../src/adapter.js';
import { geminiCliAdapter } from '../../src/adapters/gemini-cli/index.js';
import { scanArray, scanObject } from '../../src/json-ranges.js';
import { splitLines } from '../../src/lines.js';
import { finishTranscript } from '../../src/load.js';
import type { SourcePointer, TranscriptEvent } from '../../src/model.js';
import { foldTranscript } from '../../src/summary.js';
import { corpus, corpusPath } from '../corpus.js';

const sourceFile = (path: string): SourceFile => ({ path, data: new Uint8Array(readFileSync(path)) });
const bytesAt = (data: Uint8Array, p: SourcePointer) => data.subarray(p.offset, p.offset + p.length);
const decode = (b: Uint8Array) => new TextDecoder().decode(b);

function translate(...files: SourceFile[]): TranslatedSession {
  const r = geminiCliAdapter.translate(files);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** The corpus's one real legacy session (its project folder is a sha256 of the project path). */
function corpusSessionPath(): string {
  const tmp = corpusPath('gemini', 'tmp');
  const project = readdirSync(tmp)[0]!;
  const chats = join(tmp, project, 'chats');
  return join(chats, readdirSync(chats).find((n) => n.startsWith('session-'))!);
}

type Json = Record<string, unknown>;

describe.skipIf(!corpus)('gemini-cli legacy document (corpus session)', () => {
  const path = corpusSessionPath();
  const file = sourceFile(path);
  const doc = JSON.parse(decode(file.data)) as { sessionId: string; messages: Json[] };
  const t = translate(file);
  const of = <K extends TranscriptEvent['kind']>(kind: K) =>
    t.events.filter((e): e is Extract<TranscriptEvent, { kind: K }> => e.kind === kind);

  it('puts every event on one main lane named by the session id', () => {
    expect(t.agents).toEqual([{ id: doc.sessionId }]);
    expect(t.session.id).toBe(doc.sessionId);
    expect(new Set(t.events.map((e) => e.agentId))).toEqual(new Set([doc.sessionId]));
    expect(t.session.startedAt).toBe(Date.parse('2025-10-21T20:04:20.819Z'));
    expect(t.session.endedAt).toBe(Date.parse('2025-10-21T20:08:49.642Z'));
    expect(t.capabilities).toEqual(['requests', 'usage', 'durations', 'reasoning']);
  });

  it('reads the five prompts the person typed, in order', () => {
    const users = doc.messages.filter((m) => m.type === 'user').map((m) => m.content);
    expect(of('user').map((e) => e.payload.text)).toEqual(users);
    expect(of('user').every((e) => !e.payload.synthetic)).toBe(true);
    expect(users).toHaveLength(5);
  });

  it('pairs every tool call with its result, and marks the failed replace as an error', () => {
    const calls = of('tool_call');
    const results = of('tool_result');
    const recorded = doc.messages.flatMap((m) => (m.toolCalls as Json[] | undefined) ?? []);
    expect(calls.map((c) => c.payload.callId)).toEqual(recorded.map((c) => c.id));
    expect(calls.map((c) => c.payload.name)).toEqual(recorded.map((c) => c.name));
    expect(results.map((r) => r.payload.callId)).toEqual(calls.map((c) => c.payload.callId));
    const failed = results.filter((r) => r.payload.isError);
    expect(failed.map((r) => r.payload.callId)).toEqual(
      recorded.filter((c) => c.status === 'error').map((c) => c.id),
    );
    expect(failed[0]!.payload.output).toMatch(/^A secondary check by an LLM determined/);
    expect(results[0]!.payload.output).toBe(
      'Successfully created and wrote to new file: /Users/yoavfarhi/dev/pomodoro/gemini/index.html.',
    );
  });

  it('makes one request per gemini message with tokens, and the reasoning and calls point at it', () => {
    const requests = of('request');
    const withTokens = doc.messages.filter((m) => m.type === 'gemini' && m.tokens);
    expect(requests).toHaveLength(withTokens.length);
    expect(requests.map((r) => r.payload.model)).toEqual(withTokens.map((m) => m.model));
    const requestIds = new Set(requests.map((r) => r.id));
    for (const e of [...of('reasoning'), ...of('assistant'), ...of('tool_call')]) {
      expect(requestIds.has(e.requestId!), e.id).toBe(true);
    }
    const thoughts = withTokens.flatMap((m) => m.thoughts as Json[]);
    expect(of('reasoning').map((e) => e.payload.subject)).toEqual(thoughts.map((th) => th.subject));
    // The first message's tokens are all zero: the CLI recorded none, so the request has no usage.
    expect(requests[0]!.payload.usage).toBeUndefined();
  });

  it("sums to the file's own token numbers", () => {
    let input = 0;
    let output = 0;
    let cached = 0;
    for (const m of doc.messages) {
      const k = m.tokens as Record<string, number> | undefined;
      if (!k) continue;
      // Every count here has total = input + output + thoughts + tool: input already holds cached.
      expect(k.total).toBe(k.input! + k.output! + k.thoughts! + k.tool!);
      input += k.input! + k.tool!;
      output += k.output! + k.thoughts!;
      cached += k.cached!;
    }
    const s = foldTranscript(finishTranscript('gemini-cli', t));
    expect(s.inputTokens).toBe(input);
    expect(s.outputTokens).toBe(output);
    expect(s.cacheReadTokens).toBe(cached);
    expect(s.cacheWriteTokens).toBe(0);
    expect(s.turns).toBe(5);
    expect(s.failedTools).toBe(1);
    expect(s.requests).toBe(14);
    expect(s.contextShape).toHaveLength(13);
    expect(s.compactions).toBeUndefined();
  });

  it('points each message at the exact bytes of its element: parsing them gives the message back', () => {
    const seen = new Set<string>();
    for (const e of t.events) {
      if (e.kind === 'system') continue;
      const key = `${e.source.offset}:${e.source.length}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const back = JSON.parse(decode(bytesAt(file.data, e.source)));
      expect(back).toEqual(doc.messages[seen.size - 1]);
      // The line is the one the element's '{' is on.
      const lineStart = file.data.lastIndexOf(10, e.source.offset - 1) + 1;
      const line = [...splitLines(file.data)].find((s) => s.offset === lineStart)!.line;
      expect(e.source.line).toBe(line);
    }
    expect(seen.size).toBe(doc.messages.length);
  });

  // How a multi-line document is accounted for: its bytes are cut into the session_meta event
  // (the document's start up to the first message), one range per message element (its events,
  // or a skipped record when it does not parse), and a skipped 'end of the document' record from
  // the last element to the end of the file. Only commas and whitespace between two elements
  // belong to no range, so every line of the file lies, at least in part, inside some range.
  it('accounts for every byte and every line of the document', () => {
    const ranges = [...t.events.map((e) => e.source), ...t.skipped.map((s) => s.source)]
      .map((p) => [p.offset, p.offset + p.length] as const)
      .sort((a, b) => a[0] - b[0]);
    let at = 0;
    for (const [from, to] of ranges) {
      if (from > at) expect(decode(file.data.subarray(at, from))).toMatch(/^[\s,]*$/);
      at = Math.max(at, to);
    }
    expect(at).toBe(file.data.length);
    for (const line of splitLines(file.data)) {
      const end = line.offset + line.length;
      expect(ranges.some(([from, to]) => from < Math.max(end, line.offset + 1) && to > line.offset)).toBe(
        true,
      );
    }
    expect(t.skipped).toEqual([
      {
        source: expect.objectContaining({ file: path, offset: ranges.at(-1)![0] }),
        reason: 'end of the document (fields after the messages are read into session_meta)',
      },
    ]);
    const meta = t.events[0]!;
    expect(meta.kind).toBe('system');
    expect(meta.source).toMatchObject({ offset: 0, line: 1 });
    expect(meta.payload).toMatchObject({ type: 'session_meta', sessionId: doc.sessionId });
  });

  it('gives unique ids, the same on a second translation', () => {
    const ids = t.events.map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(translate(sourceFile(path)).events.map((e) => e.id)).toEqual(ids);
  });
});

describe.skipIf(!corpus)('gemini-cli legacy samples', () => {
  it('translates small.json: a prompt, a thought, an answer and its request', () => {
    const t = translate(sourceFile(corpusPath('more/gemini/small.json')));
    expect(t.events.map((e) => e.kind)).toEqual(['system', 'user', 'reasoning', 'assistant', 'request']);
    expect(t.session).toMatchObject({ id: 'session-2026-01-16T18-34-3739ef95' });
    const request = t.events.find((e) => e.kind === 'request')!;
    expect(request.payload).toMatchObject({
      model: 'gemini-3-flash-preview',
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 0 },
    });
  });

  it('translates large.json, keeping the drifted `model` messages as unknown events', () => {
    const t = translate(sourceFile(corpusPath('more/gemini/large.json')));
    const unknown = t.events.filter((e) => e.kind === 'unknown');
    expect(unknown.map((e) => e.payload.recordType)).toEqual(['model', 'model']);
    expect(t.events.filter((e) => e.kind === 'user').map((e) => e.payload.text)).toEqual([
      'Run a command',
      'Step 1',
    ]);
    expect(t.events.find((e) => e.kind === 'system' && e.payload.type === 'info')?.payload.text).toBe(
      'Request cancelled.',
    );
    // Two gemini messages, one with tokens: one request.
    expect(t.events.filter((e) => e.kind === 'request')).toHaveLength(1);
    const results = t.events.filter((e) => e.kind === 'tool_result');
    expect(results.map((e) => e.payload.callId)).toEqual(['run_shell_command-1', 'run_shell_command-2']);
    expect(String(results[0]!.payload.output)).toMatch(/^Command: printf/);
  });

  it('translates schema_drift.json without throwing: each history item is an unknown event', () => {
    const path = corpusPath('more/gemini/schema_drift.json');
    const file = sourceFile(path);
    const r = geminiCliAdapter.translate([file]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const t = r.value;
    const unknown = t.events.filter((e) => e.kind === 'unknown');
    expect(unknown).toHaveLength(2);
    for (const e of unknown) {
      expect(e.payload.recordType).toBe('history');
      expect(JSON.parse(decode(bytesAt(file.data, e.source)))).toEqual(e.payload.raw);
    }
    expect(t.events[0]).toMatchObject({
      kind: 'system',
      payload: { type: 'session_meta', summary: 'Redacted session summary' },
    });
    expect(t.session.title).toBe('Redacted session summary');
  });
});

describe('gemini-cli legacy documents that are not whole', () => {
  const doc = (text: string): SourceFile => ({
    path: '/x/chats/session-a.json',
    data: new TextEncoder().encode(text),
  });
  const body = [
    '{',
    '  "sessionId": "s1",',
    '  "projectHash": "h",',
    '  "messages": [',
    '    {"id": "u1", "type": "user", "content": "first [with] {braces} and \\"quotes\\""},',
    '    {"id": "g1", "type": "gemini", "content": "answer", "tokens": {"input": 5, "output": 2, "cached": 0, "total": 7}},',
    '    {"id": "u2", "type": "user", "content": "cut off',
  ].join('\n');

  it('keeps every complete message of a document cut short and skips the rest as truncated', () => {
    const r = geminiCliAdapter.translate([doc(body)]);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.events.map((e) => e.kind)).toEqual(['system', 'user', 'assistant', 'request']);
    expect(r.value.events[1]!.payload).toEqual({ text: 'first [with] {braces} and "quotes"' });
    expect(r.value.skipped).toEqual([
      { source: expect.objectContaining({ line: 6 }), reason: 'truncated document' },
    ]);
  });

  it('skips an element that does not parse, with its own range, and keeps the others', () => {
    const bad = `${body.slice(0, body.lastIndexOf('\n'))}\n    {"id": "x", oops},\n    {"id": "u3", "type": "user", "content": "ok"}\n  ]\n}\n`;
    const r = geminiCliAdapter.translate([doc(bad)]);
    expect(r.ok && r.value.events.filter((e) => e.kind === 'user').map((e) => e.payload.text)).toEqual([
      'first [with] {braces} and "quotes"',
      'ok',
    ]);
    expect(r.ok && r.value.skipped.map((s) => [s.reason, s.source.line])).toEqual([
      ['invalid JSON', 7],
      ['end of the document (fields after the messages are read into session_meta)', 8],
    ]);
  });

  it('refuses valid JSON that is no conversation record, naming file and line 1', () => {
    for (const text of ['{"foo": 1, "bar": [1, 2]}', '[1, 2, 3]', '"just a string"']) {
      const r = geminiCliAdapter.translate([doc(text)]);
      expect(r).toMatchObject({
        ok: false,
        error: { _tag: 'UnknownFormatGeneration', file: '/x/chats/session-a.json', line: 1 },
      });
    }
  });

  it('skips a document that is not JSON at all as one record', () => {
    const r = geminiCliAdapter.translate([doc('not json\nat all\n')]);
    expect(r.ok && r.value.skipped.map((s) => [s.reason, s.source.offset, s.source.length])).toEqual([
      ['invalid JSON', 0, 16],
    ]);
  });

  it('scans members and elements by bytes, respecting strings and escapes', () => {
    const data = new TextEncoder().encode('{"a": "x\\"}]", "b": [ {"c": "]"} , 2, "é[" ], "d": 1}');
    const obj = scanObject(data, 0);
    expect(obj.items.map((m) => m.key)).toEqual(['a', 'b', 'd']);
    expect(obj.end).toBe(data.length);
    const b = obj.items[1]!;
    const els = scanArray(data, b.valueOffset);
    expect(els.items.map((r) => JSON.parse(decode(data.subarray(r.offset, r.offset + r.length))))).toEqual([
      { c: ']' },
      2,
      'é[',
    ]);
    expect(els.end).toBe(b.valueEnd);
  });
});

describe('gemini-cli legacy: a message with nothing in it', () => {
  it('is a skipped record pointing at its own element', () => {
    const doc = {
      sessionId: 's-empty',
      projectHash: 'abc',
      startTime: '2026-05-01T10:00:00.000Z',
      lastUpdated: '2026-05-01T10:00:05.000Z',
      messages: [
        { id: 'u1', timestamp: '2026-05-01T10:00:01.000Z', type: 'user', content: 'hello' },
        { id: 'g-empty', timestamp: '2026-05-01T10:00:02.000Z', type: 'gemini', content: '' },
        { id: 'g1', timestamp: '2026-05-01T10:00:03.000Z', type: 'gemini', content: 'hi' },
      ],
    };
    const text = JSON.stringify(doc, null, 2);
    const data = new TextEncoder().encode(text);
    const t = translate({ path: '/h/.gemini/tmp/p/chats/session-2026-05-01T10-00-empty.json', data });
    const empty = t.skipped.filter((s) => s.reason === 'empty message');
    expect(empty).toHaveLength(1);
    expect(empty[0]!.recordType).toBe('gemini');
    const bytes = decode(
      data.subarray(empty[0]!.source.offset, empty[0]!.source.offset + empty[0]!.source.length),
    );
    expect(JSON.parse(bytes)).toEqual(doc.messages[1]);
    expect(t.events.filter((e) => e.kind === 'assistant').map((e) => e.payload.text)).toEqual(['hi']);
  });
});
