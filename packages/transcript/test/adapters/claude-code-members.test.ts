// Top-level members read from bytes, and the summary pass that skips progress lines by them.
import { describe, expect, it } from 'vitest';
import type { SourceFile } from '../../src/adapter.js';
import { claudeCodeAdapter } from '../../src/adapters/claude-code/index.js';
import { lastMemberBefore } from '../../src/adapters/claude-code/members.js';
import { finishTranscript } from '../../src/load.js';
import { foldTranscript } from '../../src/summary.js';

const bytes = (text: string) => new TextEncoder().encode(text);
const TYPE = bytes('"type"');

/** The text of the last `"type"` member before the first `,"data":`. */
const typeBeforeData = (text: string): string | null | undefined => {
  const at = text.indexOf(',"data":');
  const span = lastMemberBefore(bytes(text), at, TYPE);
  return span ? text.slice(span.offset, span.end) : span;
};

describe('lastMemberBefore', () => {
  it('finds the top-level member, the last one when a key repeats', () => {
    expect(typeBeforeData('{"uuid":"a","type":"progress","data":{}}')).toBe('"progress"');
    expect(typeBeforeData('{"type":"user","type":"progress","data":{}}')).toBe('"progress"');
    expect(typeBeforeData('{ "type" : "progress" ,"data":{}}')).toBe('"progress"');
  });

  it('passes over nested members and strings that look like keys', () => {
    expect(typeBeforeData('{"x":{"type":"progress"},"data":{}}')).toBeNull();
    expect(typeBeforeData('{"x":"\\",\\"type\\":\\"progress\\"","type":"user","data":1}')).toBe('"user"');
    expect(typeBeforeData('{"x":["a\\\\",{"type":[1,2]}],"type":"progress","data":1}')).toBe('"progress"');
  });

  it('refuses bytes that are not whole top-level members', () => {
    // The `,"data":` found is inside a nested object, or the bytes are no object at all.
    expect(typeBeforeData('{"type":"progress","x":{"y":1,"data":2}}')).toBeUndefined();
    expect(typeBeforeData('["type","progress","data":1]')).toBeUndefined();
    expect(typeBeforeData('{"type" "progress","data":1}')).toBeUndefined();
    expect(typeBeforeData('{"type":"progress" "x":1,"data":1}')).toBeUndefined();
    expect(typeBeforeData('{"type":"progr')).toBeUndefined();
  });
});

describe('the summary pass on progress lines', () => {
  const envelope = (extra: string) =>
    `{"uuid":"u${extra.length}","timestamp":"2026-05-01T08:00:0${extra.length % 10}.000Z",${extra}`;
  const lines = [
    '{"type":"user","uuid":"u0","timestamp":"2026-05-01T07:00:00.000Z","message":{"role":"user","content":"hi"}}',
    envelope('"type":"progress","data":{"type":"agent_progress"}}'),
    envelope('"type":"progress","type":"system","data":{"type":"agent_progress"}}'),
    envelope('"x":{"type":"progress"},"type":"attachment","data":{"type":"agent_progress"}}'),
    envelope('"type":"progress","data":{"type":"hook_progress","hookEvent":"Stop"}}'),
    envelope('"type":"progress","bad":tru,"data":{"type":"agent_progress"}}'),
    envelope('"type":"progress","data":{"type":"agent_progress"},"timestamp":"2027-01-01T00:00:00.000Z"}'),
  ];

  it('equals the fold of the translation whatever the head of a progress line holds', () => {
    const files: SourceFile[] = [{ path: '/p/s.jsonl', data: bytes(`${lines.join('\n')}\n`) }];
    const translated = claudeCodeAdapter.translate(files);
    if (!translated.ok) throw new Error(translated.error.message);
    const fold = foldTranscript(finishTranscript('claude-code', translated.value), { prompts: true });
    const fast = claudeCodeAdapter.summarize!(files);
    expect(fast.ok && fast.value).toEqual(fold);
    // The lines that are no progress record (a later type wins, a nested tag) make events.
    expect(fold.durationMs).toBeGreaterThan(3_600_000);
  });
});
