// A dump written while its session is read a part at a time holds the bytes of the dump written from
// the whole session, for every corpus session, in JSON and Markdown, redacted or not, and for several
// selections; so do the items a selection's view prints. Parts are made small, so that calls and their
// results, subagents' briefs and answers, and compactions and their summaries fall in different parts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionDumpWriteArgs, TranscriptItem } from '@cairn/protocol';
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_PRESETS,
  buildDump,
  findAdapter,
  listSessions,
  loadTranscript,
  readParts,
  type SessionPlatform,
  streamDumpItems,
  writeDump,
  writeDumpStreamed,
} from '../src/index.js';
import { corpus } from './corpus.js';
import { corpusPlatform, tempHome, tempPlatform } from './homes.js';
import { longClaudeSession as longClaudeSessionOf, longRollout } from './support/long-sessions.js';

const NOW = Date.UTC(2026, 1, 1);

type Ask = Omit<SessionDumpWriteArgs, 'sid' | 'agent'>;

/** The requests each session is dumped with: every format, the redactor on and off, selections. */
const ASKS: readonly Ask[] = [
  { format: 'json' },
  { format: 'md' },
  { format: 'json', redact: false },
  { format: 'md', redact: false, types: ['tool:Bash', 'tool:shell', 'message'] },
  { format: 'json', types: ['tool'], no_thinking: true },
  { format: 'md', preset: 'conversation' },
  { format: 'json', types: ['thinking', 'system:compact', 'message:sub'] },
];

interface Compared {
  streamed: number;
  whole: number;
}

/** Dumps one session both ways and expects the same bytes and the same answer. */
async function compare(
  platform: SessionPlatform,
  head: { path: string; agent: string; id: string },
  ask: Ask,
  partBytes: number,
  seen: Compared,
): Promise<void> {
  const home = tempHome();
  const args: SessionDumpWriteArgs = { sid: head.id, agent: head.agent, ...ask };
  const label = `${head.agent} ${head.id} ${JSON.stringify(ask)} parts of ${partBytes}`;
  const target = { path: head.path, agent: head.agent, sessionId: head.id };
  const loaded = await loadTranscript(platform, target);
  if (!loaded.ok) throw new Error(loaded.error.message);
  const wholeOut = join(home, 'whole');
  const whole = await writeDump(loaded.value, args, { home, out: wholeOut, presets: undefined, now: NOW });
  if (!whole.ok) throw new Error(whole.error.message);
  const streamOut = join(home, 'streamed');
  const streamed = await writeDumpStreamed(platform, target, args, {
    home,
    out: streamOut,
    now: NOW,
    partBytes,
  });
  if (streamed === 'whole') {
    seen.whole++;
    return;
  }
  if (!streamed.ok) throw new Error(streamed.error.message);
  seen.streamed++;
  const want = readFileSync(wholeOut, 'utf8');
  const got = readFileSync(streamOut, 'utf8');
  if (got !== want) expect(got, label).toBe(want);
  expect(streamed.value.bytes, label).toBe(whole.value.bytes);
  expect(streamed.value.entries, label).toEqual(whole.value.entries);
  expect(streamed.value.ids, label).toEqual(whole.value.ids);
  expect(streamed.value.redacted, label).toEqual(whole.value.redacted);
  expect(Object.keys(streamed.value.entries), label).toEqual(Object.keys(whole.value.entries));

  // The view of a selection prints the items the unredacted dump holds, in its order.
  const items: TranscriptItem[] = [];
  const shown = await streamDumpItems(
    platform,
    target,
    args,
    BUILTIN_PRESETS,
    (item) => void items.push(item),
    {
      partBytes,
    },
  );
  if (!shown.ok) throw new Error(shown.error.message);
  if (shown.value.whole) return;
  const built = buildDump(loaded.value, args, { presets: BUILTIN_PRESETS, writtenAt: NOW });
  if (!built.ok) throw new Error(built.error.message);
  expect(JSON.stringify(items), label).toBe(JSON.stringify(built.value.file.items));
}

describe.skipIf(!corpus)('dumps written while the session is read in parts', () => {
  it('match the dump of the whole session byte for byte, for every corpus session', async () => {
    const platform = corpusPlatform();
    const seen: Compared = { streamed: 0, whole: 0 };
    let sessions = 0;
    for await (const head of listSessions(platform)) {
      if ('ref' in head) continue;
      sessions++;
      for (const [k, ask] of ASKS.entries())
        await compare(platform, head, ask, k % 2 === 0 ? 16384 : 65536, seen);
    }
    expect(sessions).toBeGreaterThan(5);
    // Nearly every session streams; the few read whole say so rather than writing other bytes.
    expect(seen.streamed).toBeGreaterThan(seen.whole * 4);
  }, 600_000);
});

/** The corpus's session with a compaction and three subagents, its main file 2 times over. */
const longClaudeSession = (home: string): string => longClaudeSessionOf(home, 2);

describe.skipIf(!corpus)('a long session dumped while it is read in parts', () => {
  const PART = 32 * 1024;

  for (const [agent, make] of [
    ['claude-code', longClaudeSession],
    ['codex', longRollout],
  ] as const)
    it(`gives the whole read's bytes for ${agent}, calls and results in different parts`, async () => {
      const home = tempHome();
      const path = make(home);
      const platform = tempPlatform(home);
      const target = { path, agent };
      const loaded = await loadTranscript(platform, target);
      if (!loaded.ok) throw new Error(loaded.error.message);
      const sid = loaded.value.session.id;
      for (const ask of [
        { format: 'json' },
        { format: 'md' },
        { format: 'json', types: ['tool', 'system:compact'] },
      ] as Ask[]) {
        const args = { sid, agent, ...ask };
        const whole = await writeDump(loaded.value, args, { home, out: join(home, 'whole'), now: NOW });
        if (!whole.ok) throw new Error(whole.error.message);
        const streamed = await writeDumpStreamed(
          platform,
          target,
          { ...args, sid: undefined },
          {
            home,
            out: join(home, 'streamed'),
            now: NOW,
            partBytes: PART,
          },
        );
        expect(streamed, JSON.stringify(ask)).not.toBe('whole');
        if (streamed === 'whole' || !streamed.ok) throw new Error(JSON.stringify(streamed));
        expect(
          readFileSync(join(home, 'streamed'), 'utf8') === readFileSync(join(home, 'whole'), 'utf8'),
        ).toBe(true);
        expect(streamed.value.entries).toEqual(whole.value.entries);
      }
      // What the session holds that a read in parts must carry over: results more than a part after
      // their calls, and (for Claude Code) subagents' briefs and answers and a compaction.
      const built = buildDump(loaded.value, { sid }, { presets: BUILTIN_PRESETS, writtenAt: NOW });
      if (!built.ok) throw new Error(built.error.message);
      const items = built.value.file.items as (TranscriptItem & Record<string, unknown>)[];
      // The parts as the streamed read cut them, by where each starts.
      const starts: number[] = [];
      for await (const part of readParts(
        platform,
        path,
        PART,
        undefined,
        undefined,
        findAdapter(agent)?.keepWithNext,
      ))
        starts.push(part.start);
      const partOf = (offset: number) => starts.findLastIndex((start) => start <= offset);
      const offset = new Map(items.map((i) => [i.uuid, (i.source as { offset: number }).offset]));
      const apart = items.filter(
        (i) =>
          i.role === 'result' &&
          i.type.startsWith('tool:') &&
          partOf(offset.get(i.uuid)!) !== partOf(offset.get(String(i.parent_item))!),
      );
      expect(apart.length).toBeGreaterThan(0);
      if (agent === 'claude-code') {
        expect(
          items.filter((i) => i.type === 'message:sub:out' && i.agent_id !== undefined).length,
        ).toBeGreaterThan(1);
        expect(items.some((i) => i.type === 'message:sub:in')).toBe(true);
        expect(items.filter((i) => i.type === 'system:compact').length).toBeGreaterThan(1);
      }
    }, 300_000);
});
