// A followed Codex rollout read record by record: a user message at the end of what a read finds is
// left for the next read, which tells whether it was a prompt or injected context, so that no read
// classifies a lane again; the held line is still read when asked, and the end equals a whole read.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyTranscript, loadTranscript, nodePlatform } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { laneItems } from '../src/indexing/search-docs.js';
import { LiveTranscript } from '../src/reader/live-transcript.js';
import { Client, homeEnv, itemKey, itemsSeen, serve, tempDir } from './helpers.js';

const NAME = 'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';
const DAY = ['2026', '02', '23'];
/** The rollout's first lines, read at once before the appends. */
const HEAD = 100;
/** Appends read one record at a time: past several turns, each opening with injected user messages. */
const APPENDS = 700;

interface Tail {
  /** Reads after the first that went from the start, or classified a lane's earlier items again. */
  fresh: number;
  /** Reads that left lines for the next. */
  held: number;
  live: LiveTranscript;
  platform: ReturnType<typeof nodePlatform>;
  path: string;
}

async function tail(holdBack: boolean): Promise<Tail> {
  const lines = rolloutLines();
  const { path, platform } = rolloutHome(lines, HEAD);
  const live = new LiveTranscript('codex');
  const first = await live.read(platform, path, { holdBack });
  if (!first.ok) throw new Error(first.error.message);
  const out: Tail = { fresh: 0, held: 0, live, platform, path };
  for (let at = HEAD; at < HEAD + APPENDS; at++) {
    appendFileSync(path, `${lines[at]}\n`);
    const read = await live.read(platform, path, { holdBack });
    if (!read.ok) throw new Error(read.error.message);
    if (live.delta === undefined) out.fresh++;
    if (live.heldBack) out.held++;
  }
  return out;
}

const rolloutLines = (): string[] =>
  readFileSync(corpusPath('codex', 'sessions', ...DAY, NAME), 'utf8')
    .split('\n')
    .filter(Boolean);

/** A home holding the rollout's first `count` lines where Codex keeps it. */
function rolloutHome(lines: readonly string[], count: number) {
  const home = tempDir();
  const dir = join(home, '.codex', 'sessions', ...DAY);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, NAME);
  writeFileSync(path, `${lines.slice(0, count).join('\n')}\n`);
  return { home, path, platform: nodePlatform({ env: homeEnv(home), homeDir: home }) };
}

/** Whether line `i` is a user message that another response item follows: injected context. */
const isInjected = (lines: readonly string[], i: number): boolean =>
  i > 0 &&
  i + 1 < lines.length &&
  lines[i]!.includes('"type":"response_item"') &&
  lines[i]!.includes('"role":"user"') &&
  !lines[i + 1]!.includes('"user_message"');

const injectedLines = (lines: readonly string[]): number[] =>
  lines.flatMap((_, i) => (isInjected(lines, i) ? [i] : []));

const itemsOf = (t: Parameters<typeof laneItems>[0]) =>
  JSON.stringify(laneItems(t).map((l) => [l.agentId, l.classification.items]));

describe.skipIf(!corpus)('following a Codex rollout record by record', () => {
  it('never classifies a lane again when user messages at the end wait for the next record', {
    timeout: 60_000,
  }, async () => {
    const held = await tail(true);
    expect(held.held).toBeGreaterThan(5);
    expect(held.fresh).toBe(0);
    // Read without holding, the same appends do classify lanes again: the rule above is what spares them.
    const unheld = await tail(false);
    expect(unheld.held).toBe(0);
    expect(unheld.fresh).toBeGreaterThan(0);

    // A read that may take every line takes the held ones: then it equals a whole read of the bytes.
    const last = await held.live.read(held.platform, held.path);
    if (!last.ok) throw new Error(last.error.message);
    expect(held.live.heldBack).toBe(false);
    const whole = await loadTranscript(held.platform, { agent: 'codex', path: held.path });
    if (!whole.ok) throw new Error(whole.error.message);
    expect(JSON.stringify(last.value.events)).toBe(JSON.stringify(whole.value.events));
    expect(itemsOf(last.value)).toBe(itemsOf(whole.value));
  });

  it('holds a user message at the end of a first read too, and reads it on with the next record', async () => {
    const lines = rolloutLines();
    // Injected context that a record of another kind follows.
    const at = injectedLines(lines).find((i) => i > 100 && !lines[i + 1]!.includes('"role":"user"'))!;
    const { path, platform } = rolloutHome(lines, at + 1);
    const live = new LiveTranscript('codex');
    const first = await live.read(platform, path, { holdBack: true });
    if (!first.ok) throw new Error(first.error.message);
    expect(live.heldBack).toBe(true);
    appendFileSync(path, `${lines[at + 1]}\n`);
    const next = await live.read(platform, path, { holdBack: true });
    if (!next.ok) throw new Error(next.error.message);
    // Read on, not classified again.
    expect(live.delta).toBeDefined();
    expect(live.delta!.added.length).toBeGreaterThan(0);
    const whole = await loadTranscript(platform, { agent: 'codex', path });
    if (!whole.ok) throw new Error(whole.error.message);
    expect(live.heldBack).toBe(false);
    expect(JSON.stringify(next.value.events)).toBe(JSON.stringify(whole.value.events));
  });

  it('leaves a held line unread only until a read that may take it', async () => {
    const lines = rolloutLines();
    const at = injectedLines(lines)[0]!;
    expect(at).toBeGreaterThan(0);
    const { path, platform } = rolloutHome(lines, at);
    const live = new LiveTranscript('codex');
    const first = await live.read(platform, path, { holdBack: true });
    if (!first.ok) throw new Error(first.error.message);
    const before = first.value.events.length;

    appendFileSync(path, `${lines[at]}\n`);
    const holding = await live.read(platform, path, { holdBack: true });
    if (!holding.ok) throw new Error(holding.error.message);
    expect(live.heldBack).toBe(true);
    expect(holding.value.events.length).toBe(before);

    const taken = await live.read(platform, path);
    if (!taken.ok) throw new Error(taken.error.message);
    expect(live.heldBack).toBe(false);
    expect(taken.value.events.length).toBeGreaterThan(before);
    const whole = await loadTranscript(platform, { agent: 'codex', path });
    if (!whole.ok) throw new Error(whole.error.message);
    expect(JSON.stringify(taken.value.events)).toBe(JSON.stringify(whole.value.events));
  });
});

/** The main lane's items of the rollout's first `count` lines, as a whole read classifies them. */
async function expectedItems(lines: readonly string[], count: number): Promise<string[]> {
  const dir = tempDir('cairn-expect-');
  writeFileSync(join(dir, NAME), `${lines.slice(0, count).join('\n')}\n`);
  const loaded = await loadTranscript(nodePlatform({ env: {}, homeDir: dir }), {
    agent: 'codex',
    path: join(dir, NAME),
  });
  if (!loaded.ok) throw new Error(loaded.error.message);
  const classified = classifyTranscript(loaded.value);
  if (!classified.ok) throw new Error(classified.error.message);
  return classified.value.items.map(itemKey);
}

describe.skipIf(!corpus)('a followed Codex rollout in the daemon', () => {
  it('sends turn after turn on without starting the history again, and shows a user message nothing follows', {
    timeout: 60_000,
  }, async () => {
    const lines = rolloutLines();
    const injected = injectedLines(lines);
    // From the second turn on: reads in the first turn classify the lane again for reasons of their
    // own (what the session is comes to light), cheap while it is short.
    const start = injected.find((i) => i > 100)!;
    // The tail stops right after an injected message a few turns on.
    const stop = injected.find((i) => i > start + 300)!;
    expect(stop).toBeDefined();
    const { home, path } = rolloutHome(lines, start);
    const server = await serve(homeEnv(home));
    try {
      const c = await Client.open(server);
      await c.request('topic_subscribe', { topic: 'session:codex:019c8a59-e9dd-71f0-9ae3-4079fe9726a9' });
      await c.until((f) => f.some((x) => x.type === 'transcript_ready' || x.type === 'transcript_ready_end'));
      // Record by record, a few milliseconds apart as an agent writes them, with time for the daemon
      // to read each injected message before what follows it is written.
      for (let i = start; i <= stop; i++) {
        appendFileSync(path, `${lines[i]}\n`);
        await sleep(injected.includes(i) ? 150 : 2);
      }
      // The last record waits for one that never comes: the read that held it takes it a moment later.
      const all = await expectedItems(lines, stop + 1);
      await c.until((f) => itemsSeen(f).length >= all.length);
      expect(itemsSeen(c.frames).map(itemKey)).toEqual(all);
      const histories = c.frames.filter(
        (f) => f.type === 'transcript_ready' || f.type === 'transcript_ready_start',
      );
      expect(histories).toHaveLength(1);
      await c.close();
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(!corpus)('a rollout indexed whole, then opened with a user message at its end', () => {
  it('keeps that message once in the index when the read that held it back takes it', {
    timeout: 60_000,
  }, async () => {
    const lines = rolloutLines();
    // A user message past the middle that the rollout's own next line would explain: here, the end.
    const last = lines.findIndex(
      (l, i) => i > lines.length / 2 && /"type":"response_item".*"role":"user"/.test(l),
    );
    expect(last).toBeGreaterThan(0);
    // A word of its text (the corpus's texts are digests).
    const word = /sha=([0-9a-f]{8})/.exec(lines[last]!)![1]!;
    const { home, path } = rolloutHome(lines, last + 1);
    const server = await serve(homeEnv(home));
    try {
      const c = await Client.open(server);
      const hits = async (query: string) => {
        const reply = await c.request('session_search', { query, limit: 50 });
        return (reply.hits as { item_uuid: string; item_type: string }[]).map(
          (h) => `${h.item_uuid} ${h.item_type}`,
        );
      };
      // Indexed whole (on a worker): each item holding the word once.
      await expect.poll(async () => (await hits(word)).length, { timeout: 30_000 }).toBeGreaterThan(0);
      const indexed = await hits(word);
      expect(new Set(indexed).size).toBe(indexed.length);
      // Opened, the rollout is read from the start with that message held back, then taken a moment later.
      await c.request('topic_subscribe', { topic: 'session:codex:019c8a59-e9dd-71f0-9ae3-4079fe9726a9' });
      await c.until((f) => f.some((x) => x.type === 'transcript_ready' || x.type === 'transcript_ready_end'));
      // The held message comes as a live frame once the read that takes it has run.
      const live = new Set(['item_appended', 'user_message_appended']);
      await c.until((f) => f.some((x) => live.has(x.type as string) && JSON.stringify(x).includes(word)));
      expect((await hits(word)).sort()).toEqual([...indexed].sort());
      // What the session gains after that is still added.
      const next = lines.slice(last + 1).findIndex((l) => /sha=([0-9a-f]{8})/.test(l)) + last + 1;
      const nextWord = /sha=([0-9a-f]{8})/.exec(lines[next]!)![1]!;
      appendFileSync(path, `${lines.slice(last + 1, next + 2).join('\n')}\n`);
      await expect.poll(async () => (await hits(nextWord)).length, { timeout: 30_000 }).toBeGreaterThan(0);
      expect((await hits(word)).sort()).toEqual([...indexed].sort());
      await c.close();
    } finally {
      await server.close();
    }
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
