// A fresh Gemini CLI session may open with `$set.messages` checkpoints that set up its context
// before the person's first prompt: they drop nothing, so they are no compaction.
import { describe, expect, it } from 'vitest';
import type { SourceFile, TranslatedSession } from '../../src/adapter.js';
import { geminiCliAdapter } from '../../src/adapters/gemini-cli/index.js';
import { classifyTranscript } from '../../src/items/index.js';
import { countLines } from '../../src/lines.js';
import { finishTranscript } from '../../src/load.js';
import { foldTranscript } from '../../src/summary.js';

const encode = (text: string) => new TextEncoder().encode(text);
const jsonl = (path: string, records: unknown[]): SourceFile => ({
  path,
  data: encode(`${records.map((r) => JSON.stringify(r)).join('\n')}\n`),
});

function translate(file: SourceFile): TranslatedSession {
  const r = geminiCliAdapter.translate([file]);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const at = (s: number) => `2026-05-01T10:00:${String(s).padStart(2, '0')}.000Z`;
const meta = { sessionId: 's-1', projectHash: 'abc', startTime: at(0), lastUpdated: at(0), kind: 'main' };
const context = {
  id: 'ctx',
  timestamp: at(1),
  type: 'user',
  content: [{ text: '<session_context>\nToday is a Sunday; the folder holds a README.\n</session_context>' }],
};

describe('gemini-cli JSONL: checkpoints at the start of a session', () => {
  const file = jsonl('/h/chats/session-fresh.jsonl', [
    meta,
    { $set: { messages: [], lastUpdated: at(1) } },
    { $set: { messages: [context], lastUpdated: at(1) } },
    { id: 'u1', timestamp: at(2), type: 'user', content: [{ text: 'hello' }] },
    {
      id: 'g1',
      timestamp: at(3),
      type: 'gemini',
      content: 'Hi.',
      model: 'gemini-x',
      thoughts: [],
      tokens: { input: 10, output: 2, cached: 0, thoughts: 0, tool: 0, total: 12 },
    },
  ]);
  const t = translate(file);

  it('makes no compaction, and reads the context they set as the session context', () => {
    expect(t.events.filter((e) => e.kind === 'compaction')).toEqual([]);
    const set = t.events.filter((e) => e.kind === 'user' && e.source.line === 3);
    expect(set.map((e) => e.payload)).toEqual([
      { text: context.content[0]!.text, synthetic: true, origin: 'session_context' },
    ]);
    expect(t.skipped.find((s) => s.source.line === 2)).toMatchObject({
      reason: 'history set up at the start of the session',
    });
  });

  it('shows no compaction divider and counts one turn', () => {
    const transcript = finishTranscript('gemini-cli', t);
    const classified = classifyTranscript(transcript);
    if (!classified.ok) throw new Error(classified.error.message);
    const types = classified.value.items.map((item) => item.type);
    expect(types).toContain('message:user:in');
    expect(types.filter((type) => type.startsWith('system:compact'))).toEqual([]);
    const summary = foldTranscript(transcript, { prompts: true });
    expect(summary.compactions ?? 0).toBe(0);
    expect(summary).toMatchObject({ turns: 1, prompts: ['hello'] });
    // Every line is the source of events or one skipped record, never both.
    const evented = new Set(t.events.map((e) => e.source.line));
    const skipped = t.skipped.map((s) => s.source.line);
    for (const line of skipped) expect(evented.has(line)).toBe(false);
    expect(evented.size + skipped.length).toBe(countLines(file.data));
  });

  it('still reads a checkpoint after the first message as a compaction', () => {
    const later = translate(
      jsonl('/h/chats/session-later.jsonl', [
        meta,
        { $set: { messages: [context] } },
        { id: 'u1', timestamp: at(2), type: 'user', content: [{ text: 'hello' }] },
        { $set: { messages: [{ id: 'sum', type: 'user', content: [{ text: 'summary' }] }] } },
      ]),
    );
    expect(later.events.filter((e) => e.kind === 'compaction')).toHaveLength(1);
  });
});
