// A session's events handed out while it is read a part at a time are the whole read's, in its order,
// each as the whole read ends up with it (its place, payload and compaction shadow), for every corpus
// session and for long sessions with compactions, at many part sizes. Where the read in parts gives
// up, the whole read goes on after the events already handed out, and the result is the same.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  listSessions,
  loadTranscript,
  type SessionPlatform,
  type SessionTarget,
  streamEvents,
  type Transcript,
  type TranscriptEvent,
} from '../src/index.js';
import { corpus, corpusPath } from './corpus.js';
import { corpusPlatform, tempHome, tempPlatform } from './homes.js';
import { longClaudeSession as longClaudeSessionOf, longRollout } from './support/long-sessions.js';

/** An event as a printer sees it when it is handed out: itself, and whether it is the main lane's. */
const seen = (t: Transcript, e: TranscriptEvent): string =>
  `${e.agentId === t.agents[0]?.id ? 'main' : 'lane'} ${JSON.stringify(e)}`;

interface Tally {
  streamed: number;
  whole: number;
}

/** Streams one session in parts of `partBytes` and expects the whole read's events, as printed. */
async function compare(
  platform: SessionPlatform,
  target: SessionTarget,
  partBytes: number,
  tally: Tally,
): Promise<void> {
  const label = `${target.agent} ${target.path} parts of ${partBytes}`;
  const loaded = await loadTranscript(platform, target);
  if (!loaded.ok) throw new Error(loaded.error.message);
  const want = loaded.value.events.map((e) => seen(loaded.value, e));
  const got: string[] = [];
  const streamed = await streamEvents(platform, target, (t, e) => void got.push(seen(t, e)), { partBytes });
  if (!streamed.ok) throw new Error(streamed.error.message);
  expect(streamed.value.events, label).toBe(got.length);
  if (streamed.value.whole) {
    tally.whole++;
    for (const e of loaded.value.events.slice(got.length)) got.push(seen(loaded.value, e));
  } else {
    tally.streamed++;
    expect(streamed.value.skipped, label).toBe(loaded.value.skipped.length);
  }
  expect(got.length, label).toBe(want.length);
  const first = got.findIndex((line, i) => line !== want[i]);
  if (first !== -1) expect(got[first], `${label}, event ${first}`).toBe(want[first]);
}

describe.skipIf(!corpus)('events handed out while the session is read in parts', () => {
  it("are the whole read's, for every corpus session of every agent, at several part sizes", async () => {
    const platform = corpusPlatform();
    const tally: Tally = { streamed: 0, whole: 0 };
    const agents = new Set<string>();
    for await (const head of listSessions(platform)) {
      if ('ref' in head) continue;
      agents.add(head.agent);
      const target = { path: head.path, agent: head.agent, sessionId: head.id };
      for (const partBytes of [4096, 16384, 65536]) await compare(platform, target, partBytes, tally);
    }
    // The other agents' sessions, each read whole (their adapters read no session in parts).
    for (const [folder, agent] of [
      ['pi', 'pi'],
      ['qwen', 'qwen-code'],
      ['copilot', 'copilot-cli'],
      ['gemini', 'gemini-cli'],
    ] as const)
      for (const path of filesUnder(corpusPath('more', folder))) {
        const target = { path, agent };
        if (!(await loadTranscript(platform, target)).ok) continue;
        agents.add(agent);
        await compare(platform, target, 4096, tally);
      }
    expect([...agents].sort()).toEqual([
      'claude-code',
      'codex',
      'copilot-cli',
      'gemini-cli',
      'pi',
      'qwen-code',
    ]);
    // Nearly every session streams; a few may give up and go on from a whole read.
    expect(tally.streamed).toBeGreaterThan(tally.whole * 4);
  }, 600_000);
});

/** The session files under a folder, at any depth. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((name) => join(dir, name))
    .filter((path) => /\.jsonl?$/.test(path) && statSync(path).isFile());
}

/** The corpus's session with a compaction and three subagents, its main file 3 times over. */
const longClaudeSession = (home: string): string => longClaudeSessionOf(home, 3);

describe.skipIf(!corpus)(
  'events of a long session with compactions handed out while it is read in parts',
  () => {
    for (const [agent, make] of [
      ['claude-code', longClaudeSession],
      ['codex', longRollout],
    ] as const)
      it(`are the whole read's for ${agent}, at many part sizes`, async () => {
        const home = tempHome();
        const path = make(home);
        const platform = tempPlatform(home);
        const loaded = await loadTranscript(platform, { path, agent });
        if (!loaded.ok) throw new Error(loaded.error.message);
        const events = loaded.value.events;
        // What the read in parts must wait for: compactions, and events they took out of the context.
        expect(events.filter((e) => e.kind === 'compaction').length).toBeGreaterThan(2);
        expect(events.filter((e) => e.shadowedBy !== undefined).length).toBeGreaterThan(100);
        const tally: Tally = { streamed: 0, whole: 0 };
        for (const partBytes of [8192, 20_000, 65536, 150_001, 524_288, 1_048_576])
          await compare(platform, { path, agent }, partBytes, tally);
        expect(tally.whole).toBe(0);
      }, 300_000);

    it('hands out the first events before the session is read to its end', async () => {
      const home = tempHome();
      const path = longRollout(home);
      const platform = tempPlatform(home);
      let read = 0;
      let readWhenFirst: number | undefined;
      const streamed = await streamEvents(
        platform,
        { path, agent: 'codex' },
        () => {
          readWhenFirst ??= read;
        },
        { partBytes: 65536, onProgress: (bytes) => (read = bytes) },
      );
      if (!streamed.ok) throw new Error(streamed.error.message);
      expect(streamed.value.whole).toBe(false);
      expect(readWhenFirst).toBeLessThan(statSync(path).size / 4);
    });
  },
);
