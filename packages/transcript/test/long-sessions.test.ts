// A first incremental read of a long session takes all its records in one push, more than a call
// can take as spread arguments: each adapter's incremental translation reads 160,000 records and
// gives the events a whole translation gives. Loading a file of several megabytes reads it in parts,
// and gives the same transcript as translating it whole.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  findAdapter,
  loadTranscript,
  nodePlatform,
  type SourceFile,
  type Transcript,
  Translator,
} from '../src/index.js';
import { finishTranscript } from '../src/load.js';
import { tempHome, watchedPlatform } from './homes.js';
import { claudeLines, codexLines } from './long-records.js';

const RECORDS = 160_000;
/**
 * Records of the sessions loaded from disk: enough for several parts of a megabyte (about 11 MB of
 * Claude Code, 6 MB of Codex), not for the spread limit, which only the one push needs.
 */
const LOADED_RECORDS = 40_000;
const cases = [
  [
    'claude-code',
    '/home/u/.claude/projects/-work-app/6f1c2a4e-0b7d-4c1e-9a55-3d2f8e7b9c10.jsonl',
    claudeLines,
  ],
  [
    'codex',
    '/home/u/.codex/sessions/2026/02/23/rollout-2026-02-23T12-00-00-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
    codexLines,
  ],
] as const;

describe('the first incremental read of a long session', () => {
  // Three to five seconds on a quiet machine; the limit leaves room for a busy one.
  it.each(cases)('%s: 160,000 records in one push', { timeout: 180_000 }, (agent, path, lines) => {
    const adapter = findAdapter(agent)!;
    const file: SourceFile = { path, data: Buffer.from(`${lines(RECORDS).join('\n')}\n`) };
    const pushed = new Translator(adapter).push([file]);
    if (!pushed.ok) throw new Error(pushed.error.message);
    const whole = adapter.translate([file]);
    if (!whole.ok) throw new Error(whole.error.message);
    expect(pushed.value.added.length).toBe(whole.value.events.length);
    expect(whole.value.events.length).toBeGreaterThanOrEqual(RECORDS - 1);
    expect(pushed.value.added.map((e) => e.id)).toEqual(whole.value.events.map((e) => e.id));
  });
});

/** A platform over the agents' homes in `home` that notes how files are read. */
const watchedHome = (home: string) =>
  watchedPlatform(
    nodePlatform({
      env: { HOME: home, CLAUDE_CONFIG_DIR: join(home, '.claude'), CODEX_HOME: join(home, '.codex') },
      homeDir: home,
    }),
  );

/** Writes `text` at the session path `at` under a fresh home. */
function writeSession(at: string, text: string) {
  const home = tempHome();
  const path = join(home, at.slice('/home/u/'.length));
  const data = Buffer.from(text);
  // Long enough to be read in several parts.
  expect(data.length).toBeGreaterThan(4 * 1024 * 1024);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, data);
  return { home, path, data };
}

function wholeTranscript(agent: string, path: string, data: Uint8Array) {
  const adapter = findAdapter(agent)!;
  const whole = adapter.translate([{ path, data, wellFormedUtf8: true }]);
  if (!whole.ok) throw new Error(whole.error.message);
  return finishTranscript(adapter.id, whole.value);
}

function expectSameTranscript(loaded: Transcript, expected: Transcript) {
  expect(loaded.events.length).toBe(expected.events.length);
  expect(JSON.stringify(loaded.events)).toBe(JSON.stringify(expected.events));
  expect(loaded.session).toEqual(expected.session);
  expect(loaded.capabilities).toEqual(expected.capabilities);
  expect(loaded.skipped).toEqual(expected.skipped);
}

describe('loading a long session', () => {
  it.each(cases)(
    '%s: read from disk a part at a time, never whole, into the transcript of a whole translation',
    { timeout: 60_000 },
    async (agent, at, lines) => {
      const { home, path, data } = writeSession(at, `${lines(LOADED_RECORDS).join('\n')}\n`);
      const { platform, wholeReads, rangeReads } = watchedHome(home);
      const loaded = await loadTranscript(platform, { agent, path });
      if (!loaded.ok) throw new Error(loaded.error.message);
      expectSameTranscript(loaded.value, wholeTranscript(agent, path, data));
      expect(wholeReads).not.toContain(path);
      // Parts of a megabyte (the heads the listing reads are a few KB).
      const parts = rangeReads.filter((r) => r.path === path && r.length > 512 * 1024);
      expect(parts.length).toBeGreaterThanOrEqual(4);
      expect(Math.max(...parts.map((r) => r.length))).toBeLessThanOrEqual(1024 * 1024);
    },
  );

  it('a forked rollout whose copied history runs past the first part is read again whole, the same transcript', {
    timeout: 60_000,
  }, async () => {
    // The parent's copy is the burst of usage snapshots written back to back: here every record
    // is 10 ms after the last, so the copy grows with every part and the parts cannot be kept.
    const [meta, ...body] = codexLines(LOADED_RECORDS / 2);
    const forked = JSON.parse(meta!);
    forked.payload.forked_from_id = '019c8a50-0000-7000-8000-000000000001';
    const usage = {
      input_tokens: 10,
      cached_input_tokens: 0,
      output_tokens: 5,
      reasoning_output_tokens: 0,
      total_tokens: 15,
    };
    const withUsage = body.map((line) => {
      const ts = JSON.parse(line).timestamp;
      const info = { total_token_usage: usage, last_token_usage: usage, model_context_window: 1000 };
      return `${line}\n${JSON.stringify({ timestamp: ts, type: 'event_msg', payload: { type: 'token_count', info } })}`;
    });
    const { home, path, data } = writeSession(
      cases[1][1],
      `${[JSON.stringify(forked), ...withUsage].join('\n')}\n`,
    );
    const { platform, wholeReads } = watchedHome(home);
    const loaded = await loadTranscript(platform, { agent: 'codex', path });
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(wholeReads).toContain(path);
    expectSameTranscript(loaded.value, wholeTranscript('codex', path, data));
  });
});
