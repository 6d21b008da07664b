// Timestamps and counts outside what the contract can carry: each is left out of its event, the
// event says why, and every record after it reads, summarizes, classifies and dumps as usual.
import { SessionSummary, TranscriptItem, validate } from '@cairn/protocol';
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_PRESETS,
  buildDump,
  classifyTranscript,
  foldTranscript,
  loadTranscript,
  renderDumpMarkdown,
  summarizeSession,
  type Transcript,
} from '../src/index.js';
import { checkCount, checkTimestamp, MAX_EPOCH_MS } from '../src/values.js';
import { tempHome, tempPlatform } from './homes.js';
import { ODD_COUNTS, ODD_TIMESTAMPS, writeOddNumberSessions } from './hostile.js';

describe('the checks', () => {
  it('takes whole ms from 1970 to the last date a clock shows, and says why it refuses the rest', () => {
    expect(checkTimestamp('2026-01-02T03:04:05.678Z')).toEqual({ ok: true, value: 1767323045678 });
    expect(checkTimestamp(1767323045678.9)).toEqual({ ok: true, value: 1767323045678 });
    expect(checkTimestamp(1767323045, 1e12)).toEqual({ ok: true, value: 1767323045000 });
    expect(checkTimestamp(MAX_EPOCH_MS)).toEqual({ ok: true, value: MAX_EPOCH_MS });
    expect(checkTimestamp(undefined)).toBeUndefined();
    expect(ODD_TIMESTAMPS.map((v) => checkTimestamp(v))).toEqual([
      { ok: false, reason: 'beyond the last date a clock can show' },
      { ok: false, reason: 'before 1970' },
      { ok: false, reason: 'before 1970' },
      { ok: false, reason: 'not a date' },
      { ok: false, reason: 'a boolean, not a date' },
    ]);
  });

  it('takes non-negative safe integers as counts', () => {
    expect(checkCount(0)).toEqual({ ok: true, value: 0 });
    expect(checkCount(Number.MAX_SAFE_INTEGER)).toEqual({ ok: true, value: Number.MAX_SAFE_INTEGER });
    expect(ODD_COUNTS.map((v) => checkCount(v)?.ok)).toEqual([false, false, false, false, false]);
    expect(checkCount(Number.POSITIVE_INFINITY)).toEqual({ ok: false, reason: 'not a finite number' });
  });
});

describe('sessions with odd timestamps and counts', () => {
  const home = tempHome();
  const platform = tempPlatform(home);
  const sessions = writeOddNumberSessions(home);

  describe.each([
    ['claude-code', sessions.claude.path],
    ['gemini-cli', sessions.gemini.path],
    ['codex', sessions.codex.path],
  ])('%s', (agent, path) => {
    let t: Transcript;
    it('leaves each odd value out, notes why on the event, and reads every reply', async () => {
      const loaded = await loadTranscript(platform, { agent, path });
      if (!loaded.ok) throw new Error(loaded.error.message);
      t = loaded.value;
      const texts = t.events.filter((e) => e.kind === 'assistant').map((e) => e.payload.text);
      expect(texts).toEqual(['reply 0', 'reply 1', 'reply 2', 'reply 3', 'reply 4', 'the last reply']);
      for (const e of t.events) {
        if (e.timestamp !== undefined)
          expect(checkTimestamp(e.timestamp)).toEqual({ ok: true, value: e.timestamp });
        if (e.kind === 'request' && e.payload.usage) {
          for (const n of Object.values(e.payload.usage)) expect(Number.isSafeInteger(n)).toBe(true);
          expect(Number.isFinite(e.payload.usage.inputTokens + e.payload.usage.outputTokens)).toBe(true);
        }
      }
      const reasons = t.events.flatMap((e) => (e.invalid ?? []).map((i) => `${i.field}: ${i.reason}`));
      expect(reasons).toContain('timestamp: before 1970');
      expect(reasons).toContain('timestamp: beyond the last date a clock can show');
      expect(reasons.some((r) => r.endsWith(': negative'))).toBe(true);
      expect(reasons.some((r) => r.endsWith(': not a whole number'))).toBe(true);
      expect(reasons.some((r) => r.endsWith(': too large to count exactly'))).toBe(true);
      const replies = t.events.filter((e) => e.kind === 'assistant' && e.payload.text.startsWith('reply '));
      expect(replies.every((e) => e.timestamp === undefined && (e.invalid?.length ?? 0) > 0)).toBe(true);
    });

    it('summarizes to finite numbers the protocol accepts, the same in the fast pass and the fold', async () => {
      const folded = foldTranscript(t);
      expect(validate(SessionSummary, folded)).toMatchObject({ ok: true });
      const fast = await summarizeSession(platform, { agent, path });
      if (!fast.ok) throw new Error(fast.error.message);
      expect(fast.value).toEqual(folded);
    });

    it('classifies into items that all validate, and dumps as Markdown', () => {
      const classified = classifyTranscript(t);
      if (!classified.ok) throw new Error(classified.error.message);
      for (const item of classified.value.items) {
        const valid = validate(TranscriptItem, item);
        if (!valid.ok) throw new Error(`${valid.error.message} in ${JSON.stringify(item)}`);
      }
      const built = buildDump(
        t,
        { sid: t.session.id, types: ['tool', 'message', 'hook'] },
        { presets: BUILTIN_PRESETS, writtenAt: 0 },
      );
      if (!built.ok) throw new Error(built.error.message);
      expect(renderDumpMarkdown(built.value.file)).toContain('the last reply');
    });
  });
});
