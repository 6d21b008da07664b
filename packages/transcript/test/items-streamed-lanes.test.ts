// The items of one subagent's lane, and of a lane bounded by records (`since_uuid`, `until_uuid`),
// handed out while the session is read a part at a time, are those the dump of the whole session
// holds, in its order: for the corpus sessions with subagents and for long sessions, at several part
// sizes. A lane or record the session does not name is left to the whole read, for its error.
import { statSync } from 'node:fs';
import type { SessionDumpWriteArgs, TranscriptItem } from '@cairn/protocol';
import { describe, expect, it } from 'vitest';
import {
  BUILTIN_PRESETS,
  buildDump,
  listSessions,
  loadTranscript,
  type SessionPlatform,
  type SessionTarget,
  streamDumpItems,
  type Transcript,
} from '../src/index.js';
import { corpus } from './corpus.js';
import { corpusPlatform, tempHome, tempPlatform } from './homes.js';
import { longClaudeSession, longRollout } from './support/long-sessions.js';

const NOW = Date.UTC(2026, 1, 1);

type Ask = Omit<SessionDumpWriteArgs, 'sid'>;

interface Tally {
  streamed: number;
  whole: number;
  items: number;
}

/** Streams one request's items and expects the whole read's, going on from it where told to. */
async function compare(
  platform: SessionPlatform,
  target: SessionTarget,
  loaded: Transcript,
  ask: Ask,
  partBytes: number,
  tally: Tally,
): Promise<void> {
  const args: SessionDumpWriteArgs = { sid: loaded.session.id, ...ask };
  const label = `${target.agent} ${target.path} ${JSON.stringify(ask)} parts of ${partBytes}`;
  const built = buildDump(loaded, args, { presets: BUILTIN_PRESETS, writtenAt: NOW });
  const got: TranscriptItem[] = [];
  const streamed = await streamDumpItems(platform, target, args, BUILTIN_PRESETS, (i) => void got.push(i), {
    partBytes,
  });
  if (!streamed.ok) throw new Error(streamed.error.message);
  expect(streamed.value.items, label).toBe(got.length);
  if (!built.ok) {
    // Nothing handed out, and the whole read left to say what is wrong.
    expect(streamed.value, label).toEqual({ items: 0, whole: true });
    return;
  }
  const want = built.value.file.items;
  if (streamed.value.whole) {
    tally.whole++;
    got.push(...want.slice(got.length));
  } else tally.streamed++;
  tally.items += want.length;
  const first = got.findIndex((item, i) => JSON.stringify(item) !== JSON.stringify(want[i]));
  if (first !== -1) expect(got[first], `${label}, item ${first}`).toEqual(want[first]);
  expect(got.length, label).toBe(want.length);
}

/** The record an event is of: its id without the part after ':', '#' or '~'. */
const recordOf = (id: string): string => id.split(/[:#~]/)[0]!;

/** The requests a session's lanes are compared on: each subagent's lane, whole, selected and bounded,
 * and the main lane bounded by records near its start, middle and end; then names that are not there. */
function asks(t: Transcript): Ask[] {
  const out: Ask[] = [];
  const lanes = t.agents.filter((a) => a.parentId !== undefined);
  const recordsOf = (laneId: string | undefined) => {
    const events = t.events.filter((e) => e.agentId === (laneId ?? t.agents[0]?.id));
    const at = (f: number) => recordOf(events[Math.floor((events.length - 1) * f)]?.id ?? '');
    return {
      near: at(0.1),
      middle: at(0.5),
      late: at(0.85),
      full: events[Math.floor(events.length / 3)]?.id,
    };
  };
  for (const lane of lanes) {
    const r = recordsOf(lane.id);
    out.push(
      { agent_id: lane.id },
      { agent_id: `agent-${lane.id}`, types: ['tool', 'message'] },
      { agent_id: lane.id, since_uuid: r.middle },
      { agent_id: lane.id, until_uuid: r.middle, types: ['tool'] },
    );
  }
  const r = recordsOf(undefined);
  out.push(
    { since_uuid: r.near },
    { until_uuid: r.middle },
    { until_uuid: r.late, types: ['tool'] },
    { since_uuid: r.middle, until_uuid: r.late, types: ['tool', 'message', 'system:compact'] },
    { until_uuid: r.full ?? r.late, no_thinking: true },
    { since_uuid: r.late, until_at: Date.UTC(2100, 0, 1) },
    { agent_id: 'no-such-lane' },
    { until_uuid: 'no-such-record' },
    { since_uuid: 'no-such-record' },
  );
  return out;
}

describe.skipIf(!corpus)("a lane's items handed out while the session is read in parts", () => {
  it("are the whole read's for every corpus session with subagents, and bounded by records", async () => {
    const platform = corpusPlatform();
    const tally: Tally = { streamed: 0, whole: 0, items: 0 };
    let lanes = 0;
    for await (const head of listSessions(platform)) {
      if ('ref' in head || (head.agent !== 'claude-code' && head.agent !== 'codex')) continue;
      const target = { path: head.path, agent: head.agent, sessionId: head.id };
      const loaded = await loadTranscript(platform, target);
      if (!loaded.ok) throw new Error(loaded.error.message);
      lanes += loaded.value.agents.filter((a) => a.parentId !== undefined).length;
      for (const ask of asks(loaded.value))
        for (const partBytes of [4096, 65536])
          await compare(platform, target, loaded.value, ask, partBytes, tally);
    }
    expect(lanes).toBeGreaterThan(3);
    expect(tally.items).toBeGreaterThan(1000);
    expect(tally.streamed).toBeGreaterThan(tally.whole * 4);
  }, 600_000);

  for (const [agent, make] of [
    ['claude-code', (home: string) => longClaudeSession(home, 3)],
    ['codex', longRollout],
  ] as const)
    it(`are the whole read's for a long ${agent} session, at many part sizes`, async () => {
      const home = tempHome();
      const path = make(home);
      const platform = tempPlatform(home);
      const loaded = await loadTranscript(platform, { path, agent });
      if (!loaded.ok) throw new Error(loaded.error.message);
      const tally: Tally = { streamed: 0, whole: 0, items: 0 };
      for (const ask of asks(loaded.value))
        for (const partBytes of [8192, 65536, 150_001, 1_048_576])
          await compare(platform, { path, agent }, loaded.value, ask, partBytes, tally);
      expect(tally.whole).toBe(0);
    }, 300_000);
});

describe.skipIf(!corpus)("a lane's first items", () => {
  /** Bytes of the session read when the first item was handed out. */
  async function readAtFirst(path: string, agent: string, ask: Omit<Ask, 'agent'>): Promise<number> {
    const platform = tempPlatform(path.slice(0, path.indexOf(agent === 'codex' ? '/.codex/' : '/.claude/')));
    let read = 0;
    let readWhenFirst: number | undefined;
    const streamed = await streamDumpItems(
      platform,
      { path, agent },
      { sid: '', ...ask },
      BUILTIN_PRESETS,
      () => {
        readWhenFirst ??= read;
      },
      { partBytes: 65536, onProgress: (bytes) => (read = bytes) },
    );
    if (!streamed.ok) throw new Error(streamed.error.message);
    expect(streamed.value.whole).toBe(false);
    expect(readWhenFirst).toBeDefined();
    return readWhenFirst!;
  }

  it("come before the session is read to its end: a subagent's, and after a record", async () => {
    const claude = longClaudeSession(tempHome(), 3);
    const loaded = await loadTranscript(tempPlatform(claude.slice(0, claude.indexOf('/.claude/'))), {
      path: claude,
      agent: 'claude-code',
    });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const lane = loaded.value.agents.find((a) => a.parentId !== undefined)!;
    expect(await readAtFirst(claude, 'claude-code', { agent_id: lane.id })).toBeLessThan(
      statSync(claude).size / 4,
    );
    const main = loaded.value.events.filter((e) => e.agentId === loaded.value.agents[0]!.id);
    expect(
      await readAtFirst(claude, 'claude-code', {
        since_uuid: recordOf(main[200]!.id),
        until_uuid: recordOf(main[900]!.id),
      }),
    ).toBeLessThan(statSync(claude).size / 4);

    const codex = longRollout(tempHome());
    const rollout = await loadTranscript(tempPlatform(codex.slice(0, codex.indexOf('/.codex/'))), {
      path: codex,
      agent: 'codex',
    });
    if (!rollout.ok) throw new Error(rollout.error.message);
    const early = rollout.value.events[100]!.id;
    expect(await readAtFirst(codex, 'codex', { since_uuid: recordOf(early) })).toBeLessThan(
      statSync(codex).size / 4,
    );
    expect(
      await readAtFirst(codex, 'codex', { until_uuid: recordOf(rollout.value.events[400]!.id) }),
    ).toBeLessThan(statSync(codex).size / 4);
  }, 120_000);

  it('end the read when the caller has what it wanted', async () => {
    const home = tempHome();
    const path = longRollout(home);
    let read = 0;
    const seen: string[] = [];
    const platform = tempPlatform(home);
    const loaded = await loadTranscript(platform, { path, agent: 'codex' });
    if (!loaded.ok) throw new Error(loaded.error.message);
    // After the rollout's opening, where a call that is never answered holds the items behind it.
    const since = recordOf(loaded.value.events[100]!.id);
    const streamed = await streamDumpItems(
      platform,
      { path, agent: 'codex' },
      { sid: '', since_uuid: since },
      BUILTIN_PRESETS,
      (item) => {
        seen.push(item.uuid);
        return seen.length === 20 ? 'enough' : undefined;
      },
      { partBytes: 65536, onProgress: (bytes) => (read = bytes) },
    );
    if (!streamed.ok) throw new Error(streamed.error.message);
    expect(streamed.value).toEqual({ items: 20, whole: false });
    expect(read).toBeLessThan(statSync(path).size / 4);
  });
});
