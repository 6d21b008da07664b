// Values nested far deeper than any recursion can follow: every agent's session still loads,
// the deep part is a marked placeholder, and everything built from the transcript serializes.
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_PRESETS,
  boundDepth,
  buildDump,
  classifyTranscript,
  DEEP_VALUE_PLACEHOLDER,
  foldTranscript,
  loadTranscript,
  MAX_VALUE_DEPTH,
  nestsDeeperThan,
  parseJson,
  readOriginal,
  renderDumpMarkdown,
  summarizeSession,
  type Transcript,
} from '../src/index.js';
import { tempHome, tempPlatform } from './homes.js';
import { deepArrays, writeDeepSessions } from './hostile.js';

describe('the depth bound', () => {
  it('keeps MAX_VALUE_DEPTH levels and replaces the container below them', () => {
    const kept = parseJson(deepArrays(MAX_VALUE_DEPTH));
    expect(nestsDeeperThan(kept, MAX_VALUE_DEPTH)).toBe(false);
    expect(JSON.stringify(kept)).toBe(deepArrays(MAX_VALUE_DEPTH));
    const cut = parseJson(deepArrays(MAX_VALUE_DEPTH + 1));
    expect(JSON.stringify(cut)).toBe(
      `${'['.repeat(MAX_VALUE_DEPTH)}${JSON.stringify(DEEP_VALUE_PLACEHOLDER)}${']'.repeat(MAX_VALUE_DEPTH)}`,
    );
  });

  it('counts what it cut and replaces deep members of every key, __proto__ included', () => {
    const value = JSON.parse(`{"a":${deepArrays(5)},"__proto__":${deepArrays(5)},"b":1}`);
    const bounded = boundDepth(value, 3);
    expect(bounded.cut).toBe(2);
    expect(JSON.stringify(bounded.value)).toBe(
      `{"a":[[${JSON.stringify(DEEP_VALUE_PLACEHOLDER)}]],"__proto__":[[${JSON.stringify(DEEP_VALUE_PLACEHOLDER)}]],"b":1}`,
    );
  });

  it('walks a value 100,000 levels deep without running out of stack', () => {
    const value = parseJson(deepArrays(100_000));
    expect(nestsDeeperThan(value, MAX_VALUE_DEPTH)).toBe(false);
  });
});

describe('sessions with a value nested 10,000 levels deep', () => {
  const home = tempHome();
  const platform = tempPlatform(home);
  const sessions = writeDeepSessions(home);

  describe.each([
    ['claude-code', sessions.claude.path],
    ['gemini-cli', sessions.gemini.path],
    ['codex', sessions.codex.path],
  ])('%s', (agent, path) => {
    let t: Transcript;
    it('loads as a value, with the deep part as the placeholder and the records after it intact', async () => {
      const loaded = await loadTranscript(platform, { agent, path });
      if (!loaded.ok) throw new Error(loaded.error.message);
      t = loaded.value;
      const json = JSON.stringify(t);
      expect(json).toContain(JSON.stringify(DEEP_VALUE_PLACEHOLDER).slice(1, -1));
      expect(nestsDeeperThan(t, MAX_VALUE_DEPTH + 10)).toBe(false);
      const texts = t.events.filter((e) => e.kind === 'assistant').map((e) => e.payload.text);
      expect(texts).toContain('after the deep value');
      expect(t.events.some((e) => e.kind === 'tool_call')).toBe(true);
    });

    it('keeps the exact original bytes of the deep record behind its pointer', async () => {
      const call = t.events.find((e) => e.kind === 'tool_call')!;
      const bytes = await readOriginal(platform, call.source);
      if (!bytes.ok) throw new Error(bytes.error.message);
      expect(Buffer.from(bytes.value).toString('utf8')).toContain(deepArrays(10_000));
    });

    it('summarizes to the same numbers as the fold', async () => {
      const fast = await summarizeSession(platform, { agent, path });
      if (!fast.ok) throw new Error(fast.error.message);
      expect(fast.value).toEqual(foldTranscript(t));
    });

    it('classifies into items and dumps as JSON and Markdown', () => {
      const classified = classifyTranscript(t);
      if (!classified.ok) throw new Error(classified.error.message);
      expect(JSON.stringify(classified.value.items)).toContain('after the deep value');
      const built = buildDump(
        t,
        { sid: t.session.id, types: ['tool', 'message', 'system', 'hook'] },
        { presets: BUILTIN_PRESETS, writtenAt: 0 },
      );
      if (!built.ok) throw new Error(built.error.message);
      expect(JSON.stringify(built.value.file)).toContain('⟨cairn: value nested deeper');
      expect(renderDumpMarkdown(built.value.file)).toContain('after the deep value');
    });
  });

  it('makes the Claude Code hook a hook event whose output is the bounded value', async () => {
    const loaded = await loadTranscript(platform, { agent: 'claude-code', path: sessions.claude.path });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const hook = loaded.value.events.find((e) => e.kind === 'hook');
    expect(hook?.payload.output).toContain('⟨cairn: value nested deeper');
  });
});
