// The Codex adapter on damaged, unknown and old-generation input: what it cannot read becomes a
// skipped record or an unknown event, and the rest of the file reads as before.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { SourceFile, TranslatedSession } from '../../src/adapter.js';
import { codexAdapter } from '../../src/adapters/codex/index.js';
import { countLines } from '../../src/lines.js';
import { finishTranscript } from '../../src/load.js';
import type { Transcript } from '../../src/model.js';
import { foldTranscript } from '../../src/summary.js';
import { corpus } from '../corpus.js';
import { rollout } from './codex-corpus.js';

const PATH = '/sessions/2026/02/23/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl';
const enc = new TextEncoder();

const fileOf = (text: string | Uint8Array, path = PATH): SourceFile => ({
  path,
  data: typeof text === 'string' ? enc.encode(text) : text,
});
const linesFile = (lines: readonly string[], path = PATH): SourceFile =>
  fileOf(`${lines.join('\n')}\n`, path);

function translate(file: SourceFile): Transcript {
  const r = codexAdapter.translate([file]);
  if (!r.ok) throw new Error(r.error.message);
  return finishTranscript('codex', r.value as TranslatedSession);
}

/** Every line is one event or one skipped record. */
function expectAccounted(t: Transcript, file: SourceFile): void {
  const lines = [...t.events.map((e) => e.source.line), ...t.skipped.map((s) => s.source.line)];
  expect(new Set(lines).size).toBe(lines.length);
  expect(lines.length).toBe(countLines(file.data));
}

const shape = (t: Transcript) => t.events.map((e) => [e.id, e.kind, e.source.line]);

const meta = (id = '019c8a70-dda7-7f33-98ea-f30553347322') =>
  JSON.stringify({
    timestamp: '2026-02-23T12:19:42.561Z',
    type: 'session_meta',
    payload: { id, timestamp: '2026-02-23T12:19:38.535Z', cwd: '/w', cli_version: '0.104.0' },
  });
const rec = (type: string, payload: unknown, at = '2026-02-23T12:20:00.000Z') =>
  JSON.stringify({ timestamp: at, type, payload });

describe.skipIf(!corpus)('damaged lines in a real rollout', () => {
  const realLines = readFileSync(rollout('13-19-38'), 'utf8').trimEnd().split('\n');
  const base = translate(linesFile(realLines));

  it('reads a truncated last line as skipped and the rest as before', () => {
    const cut = realLines[5]!.slice(0, 40);
    const file = fileOf(`${realLines.join('\n')}\n${cut}`);
    const t = translate(file);
    expectAccounted(t, file);
    expect(t.skipped.at(-1)).toMatchObject({
      reason: 'truncated line',
      source: { line: realLines.length + 1 },
    });
    expect(shape(t)).toEqual(shape(base));
    expect(foldTranscript(t)).toEqual(foldTranscript(base));
  });

  it('skips invalid JSON, invalid UTF-8, NUL bytes and empty lines in the middle, keeping every other line', () => {
    const broken = [...realLines];
    broken.splice(4, 0, '{"timestamp":"2026-02-23T12:19:42.562Z","type":"response_item","payload":{');
    broken.splice(6, 0, '');
    const text = `${broken.join('\n')}\n`;
    const bytes = enc.encode(text);
    // Append one line of invalid UTF-8 and one with a NUL byte.
    const bad = new Uint8Array([...bytes, 0x7b, 0xff, 0xfe, 0x7d, 0x0a, 0x7b, 0x00, 0x7d, 0x0a]);
    const file = fileOf(bad);
    const t = translate(file);
    expectAccounted(t, file);
    const reasons = new Map(t.skipped.map((s) => [s.source.line, s.reason]));
    expect(reasons.get(5)).toBe('invalid JSON');
    expect(reasons.get(7)).toBe('empty line');
    expect(reasons.get(broken.length + 1)).toBe('invalid UTF-8');
    expect(reasons.get(broken.length + 2)).toBe('NUL bytes');
    expect(t.events.map((e) => e.kind)).toEqual(base.events.map((e) => e.kind));
    expect(foldTranscript(t)).toEqual(foldTranscript(base));
  });

  it('makes unknown record types unknown events carrying the record', () => {
    const odd = [
      rec('hologram', { x: 1 }),
      rec('event_msg', { type: 'telepathy', strength: 3 }),
      rec('response_item', { type: 'teleport_call', to: 'mars' }),
      '42',
      '{"no_type":true}',
    ];
    const file = linesFile([...realLines, ...odd]);
    const t = translate(file);
    expectAccounted(t, file);
    const unknown = t.events.filter((e) => e.kind === 'unknown');
    expect(unknown.map((e) => e.payload.recordType)).toEqual([
      'hologram',
      'event_msg:telepathy',
      'response_item:teleport_call',
      '',
      '',
    ]);
    expect(unknown[0]!.payload.raw).toEqual(JSON.parse(odd[0]!));
    expect(unknown[3]!.payload.raw).toBe(42);
    expect(shape(t).slice(0, base.events.length)).toEqual(shape(base));
  });

  it('gives the same summary in the fast pass on damaged input', () => {
    const file = fileOf(
      `${realLines.join('\n')}\n\n{"bad"\n${rec('hologram', {})}\n${realLines[3]!.slice(0, 30)}`,
    );
    const fast = codexAdapter.summarize!([file]);
    expect(fast.ok && fast.value).toEqual(foldTranscript(translate(file), { prompts: true }));
  });
});

describe('a file of a generation Codex never wrote', () => {
  it('is refused with the file and the line of its first record', () => {
    const r = codexAdapter.translate([linesFile(['{"hello":"world"}', meta()])]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatchObject({ _tag: 'UnknownFormatGeneration', file: PATH, line: 1 });
  });

  it('looks past empty and broken lines to the first record', () => {
    const file = linesFile(['', '{"broken', '[1,2,3]', meta()]);
    const r = codexAdapter.translate([file]);
    expect(!r.ok && r.error).toMatchObject({ _tag: 'UnknownFormatGeneration', file: PATH, line: 3 });
    const s = codexAdapter.summarize!([file]);
    expect(!s.ok && s.error).toMatchObject({ _tag: 'UnknownFormatGeneration', line: 3 });
  });

  it('refuses a first record with a type Codex never used at the top level', () => {
    const r = codexAdapter.translate([linesFile(['{"type":"conversation","messages":[]}'])]);
    expect(!r.ok && r.error).toMatchObject({ _tag: 'UnknownFormatGeneration', line: 1 });
  });

  it('reads a file with no record at all as an empty session named by its file', () => {
    const t = translate(fileOf('\n{"cut'));
    expect(t.events).toEqual([]);
    expect(t.skipped.map((s) => s.reason)).toEqual(['empty line', 'truncated line']);
    expect(t.session.id).toBe('019c8a70-dda7-7f33-98ea-f30553347322');
  });
});

describe('the bare generation written before the envelope', () => {
  const lines = [
    '{"id":"c27a914d-0000-4000-8000-000000000001","timestamp":"2025-08-20T13:20:47.060Z","instructions":null,"git":{"branch":"main"}}',
    '{"record_type":"state"}',
    '{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"<environment_context>\\n  <cwd>/w</cwd>\\n</environment_context>"}]}',
    '{"type":"message","id":null,"role":"user","content":[{"type":"input_text","text":"list the files"}]}',
    '{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"opaque"}',
    '{"type":"function_call","id":"fc_1","name":"shell","arguments":"{\\"command\\":[\\"ls\\"]}","call_id":"call_1"}',
    '{"type":"function_call_output","call_id":"call_1","output":"{\\"output\\":\\"README.md\\\\n\\",\\"metadata\\":{\\"exit_code\\":0}}"}',
    '{"record_type":"state"}',
    '{"type":"message","id":null,"role":"assistant","content":[{"type":"output_text","text":"One file: README.md"}]}',
  ];
  const file = linesFile(lines, '/s/rollout-2025-08-20T13-20-47-c27a914d-0000-4000-8000-000000000001.jsonl');

  it('reads the header as the session and the bare items as events', () => {
    const t = translate(file);
    expectAccounted(t, file);
    expect(t.session).toEqual({
      id: 'c27a914d-0000-4000-8000-000000000001',
      startedAt: Date.parse('2025-08-20T13:20:47.060Z'),
      endedAt: Date.parse('2025-08-20T13:20:47.060Z'),
    });
    expect(t.events.map((e) => e.kind)).toEqual([
      'system',
      'user',
      'user',
      'reasoning',
      'tool_call',
      'tool_result',
      'assistant',
    ]);
    expect(t.skipped.map((s) => [s.source.line, s.reason])).toEqual([
      [2, 'state marker'],
      [8, 'state marker'],
    ]);
    expect(t.events[1]!.payload).toMatchObject({ synthetic: true, origin: 'environment_context' });
    expect(t.events[3]!.payload).toEqual({ text: '', redacted: true });
    expect(t.events[4]!.payload).toEqual({ callId: 'call_1', name: 'shell', input: { command: ['ls'] } });
    expect(t.events[5]!.payload).toEqual({ callId: 'call_1', output: 'README.md\n', exitCode: 0 });
    // Nothing in this generation records usage.
    expect(t.capabilities).toEqual(['durations', 'reasoning']);
    expect(foldTranscript(t, { prompts: true })).toEqual({
      failedTools: 0,
      turns: 1,
      durationMs: 0,
      prompts: ['list the files'],
    });
  });

  it('is detected by its header', () => {
    expect(codexAdapter.detect('/elsewhere/session.jsonl', file.data)).toBe(true);
  });
});

describe('failed tools', () => {
  const lines = [
    meta(),
    rec('response_item', {
      type: 'function_call',
      name: 'exec_command',
      arguments: '{"cmd":"false"}',
      call_id: 'a',
    }),
    rec('event_msg', { type: 'exec_command_end', call_id: 'a', exit_code: 2, aggregated_output: 'boom' }),
    rec('response_item', { type: 'function_call_output', call_id: 'a', output: 'boom' }),
    rec('response_item', {
      type: 'function_call',
      name: 'exec_command',
      arguments: '{"cmd":"x"}',
      call_id: 'b',
    }),
    rec('event_msg', { type: 'exec_command_end', call_id: 'b', exit_code: 1, aggregated_output: 'no such' }),
    rec('response_item', {
      type: 'function_call',
      name: 'exec_command',
      arguments: '{"cmd":"y"}',
      call_id: 'c',
    }),
    rec('response_item', {
      type: 'function_call_output',
      call_id: 'c',
      output:
        'Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 127\nOutput:\nProcess exited with code 0\n',
    }),
    rec('response_item', {
      type: 'custom_tool_call',
      name: 'apply_patch',
      input: '*** Begin Patch',
      call_id: 'd',
    }),
    rec('response_item', {
      type: 'custom_tool_call_output',
      call_id: 'd',
      output: '{"output":"patch failed","metadata":{"exit_code":1,"duration_seconds":0.0}}',
    }),
    rec('response_item', {
      type: 'function_call',
      name: 'exec_command',
      arguments: '{"cmd":"ok"}',
      call_id: 'e',
    }),
    rec('event_msg', { type: 'exec_command_end', call_id: 'e', exit_code: 0 }),
    rec('response_item', { type: 'function_call_output', call_id: 'e', output: 'fine' }),
  ];
  const file = linesFile(lines);

  it('counts each failed tool once, from whichever record knows the exit code', () => {
    const t = translate(file);
    expectAccounted(t, file);
    const results = t.events.filter((e) => e.kind === 'tool_result');
    expect(results.map((e) => [e.payload.callId, e.payload.isError ?? false, e.source.line])).toEqual([
      ['a', true, 4],
      ['b', true, 6],
      ['c', true, 8],
      ['d', true, 10],
      ['e', false, 13],
    ]);
    expect(results[1]!.payload).toMatchObject({ output: 'no such', exitCode: 1 });
    expect(results[2]!.payload.exitCode).toBe(127);
    expect(results[3]!.payload.output).toBe('patch failed');
    // The exec_command_end records beside an output record stay system events.
    expect(t.events.find((e) => e.source.line === 3)).toMatchObject({
      kind: 'system',
      payload: { type: 'exec_command_end', callId: 'a', exitCode: 2 },
    });
    expect(foldTranscript(t).failedTools).toBe(4);
    expect(codexAdapter.summarize!([file])).toMatchObject({ ok: true, value: { failedTools: 4 } });
  });
});

describe('interruptions, titles and compressed files', () => {
  const lines = [
    meta(),
    rec('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] }),
    rec('event_msg', { type: 'user_message', message: 'go', images: [] }),
    rec('event_msg', { type: 'turn_aborted', turn_id: 't1', reason: 'interrupted' }),
    rec('response_item', {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: '<turn_aborted>\nThe user interrupted.\n</turn_aborted>' }],
    }),
    rec('event_msg', { type: 'thread_name_updated', thread_id: 'x', thread_name: 'Renamed thread' }),
    rec('event_msg', { type: 'context_compacted' }),
  ];

  it('reads an interruption as a system event and its notice as synthetic user text', () => {
    const t = translate(linesFile(lines));
    const at = (line: number) => t.events.find((e) => e.source.line === line);
    expect(at(3)).toBeUndefined();
    expect(at(4)).toMatchObject({ kind: 'system', payload: { type: 'turn_aborted', text: 'interrupted' } });
    expect(at(5)!.payload).toMatchObject({ synthetic: true, origin: 'interrupt' });
    expect(foldTranscript(t).turns).toBe(1);
    expect(t.session.title).toBe('Renamed thread');
    // A context_compacted with no compacted record beside it is the compaction itself.
    const compaction = at(7)!;
    expect(compaction).toMatchObject({ kind: 'compaction', payload: {} });
    expect(t.events.filter((e) => e.shadowedBy === compaction.id).map((e) => e.source.line)).toEqual([2, 5]);
  });

  it('carries the codec of a decompressed file in every pointer', () => {
    const file: SourceFile = { ...linesFile(lines, `${PATH}.zst`), codec: 'zstd' };
    const t = translate(file);
    for (const s of [...t.events.map((e) => e.source), ...t.skipped.map((s) => s.source)])
      expect(s).toMatchObject({ file: `${PATH}.zst`, codec: 'zstd' });
  });
});
