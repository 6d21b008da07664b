// A long session's first screen does not wait for its whole first read: while the stream opens, the
// first items of its main file go out as `transcript_head`, before the history, which holds the
// same items first; to a subscriber that asks for the history's tail, the last items, read from the
// file's end, which the tail that follows ends with; to one that asks for it around a linked item,
// the items around it, named as the history names them. A short session, and a stream already
// open, send the history alone.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { TranscriptItem } from '@cairn/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { corpusPath } from '../../transcript/test/corpus.js';
import {
  longCopilotSession,
  longGeminiSession,
  longPiSession,
  longQwenSession,
  longRollout,
} from '../../transcript/test/support/long-sessions.js';
import type { RunningServer } from '../src/index.js';
import { Client, type Frame, homeEnv, itemKey, serve, tempDir } from './helpers.js';

const PROJECT = '-work-spotter';
// 3.3 MB: longer than a session previewed by its head.
const LONG = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
const SHORT = 'short';

/** A home holding the corpus's Claude Code sessions named. */
function homeWith(...names: string[]): string {
  const home = tempDir();
  const dir = join(home, '.claude', 'projects', PROJECT);
  mkdirSync(dir, { recursive: true });
  for (const name of names)
    copyFileSync(corpusPath('claude', 'projects', PROJECT, `${name}.jsonl`), join(dir, `${name}.jsonl`));
  return home;
}

/** The history's items, its chunks unzipped where they travelled zipped. */
function historyOf(frames: Frame[]): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  for (const f of frames) {
    if (f.type === 'transcript_ready') items.push(...(f.history as TranscriptItem[]));
    if (f.type !== 'transcript_chunk') continue;
    if (f.messages) items.push(...(f.messages as TranscriptItem[]));
    else items.push(...JSON.parse(gunzipSync(Buffer.from(f.payload as string, 'base64')).toString('utf8')));
  }
  return items;
}

const historyEnded = (frames: Frame[]) =>
  frames.some(
    (f) => f.type === 'transcript_ready' || f.type === 'transcript_ready_end' || f.type === 'error',
  );

describe('the head of a long session', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('goes out before the history, holding the history’s first items', { timeout: 60_000 }, async () => {
    server = await serve(homeEnv(homeWith(LONG, SHORT)));
    const client = await Client.open(server);
    await client.request('topic_subscribe', { topic: `session:claude-code:${LONG}` });
    await client.until(historyEnded, 50_000);
    const types = client.frames.map((f) => f.type);
    expect(types[0]).toBe('transcript_head');
    expect(types.filter((t) => t === 'transcript_head')).toHaveLength(1);
    const head = client.frames[0]!;
    expect(head).toMatchObject({ session_id: LONG, sessionId: LONG, seq: -1 });
    const preview = head.items as TranscriptItem[];
    expect(preview.length).toBeGreaterThan(20);
    expect(preview.length).toBeLessThanOrEqual(200);
    // The history that follows starts with the same items (those near the part's end may still be
    // read otherwise once the records after them are in).
    const history = historyOf(client.frames);
    expect(history.length).toBeGreaterThan(preview.length);
    const settled = preview.slice(0, -10);
    expect(settled.map(itemKey)).toEqual(history.slice(0, settled.length).map(itemKey));
    expect(settled[0]).toEqual(history[0]);
    // A client arriving once the stream is open gets its history alone, at once.
    const later = await Client.open(server);
    await later.request('topic_subscribe', { topic: `session:claude-code:${LONG}` });
    await later.until(historyEnded, 30_000);
    expect(later.frames.some((f) => f.type === 'transcript_head')).toBe(false);
    expect(historyOf(later.frames).map(itemKey)).toEqual(history.map(itemKey));
    await later.close();
    await client.close();
  });

  it('is not sent for a short session', { timeout: 30_000 }, async () => {
    server = await serve(homeEnv(homeWith(SHORT)));
    const client = await Client.open(server);
    await client.request('topic_subscribe', { topic: `session:claude-code:${SHORT}` });
    await client.until(historyEnded, 20_000);
    expect(client.frames.some((f) => f.type === 'transcript_head')).toBe(false);
    expect(historyOf(client.frames).length).toBeGreaterThan(0);
    await client.close();
  });
});

/**
 * What an item shows, without what names or places it in the file: a preview read from the file's
 * end points into the part read, names a Codex item (and a call that records no id) by its line
 * there, and counts turns from the part's start.
 */
function shown(item: TranscriptItem, keepIds = false): string {
  const rest: Record<string, unknown> = { ...item };
  delete rest.source;
  delete rest.turn;
  if (!keepIds) for (const key of ['uuid', 'parent_item', 'result_item', 'tool_use_id']) delete rest[key];
  return JSON.stringify(rest);
}

describe('the tail of a long session', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** Subscribes at the tail, as the reader opening a session being written does. */
  async function openAtTail(topic: string) {
    const client = await Client.open(server!);
    await client.request('topic_subscribe', { topic, history: { tail: 500 } });
    await client.until(historyEnded, 50_000);
    const [first] = client.frames;
    const ready = client.frames.find((f) => f.type === 'transcript_ready');
    await client.close();
    expect(first?.type).toBe('transcript_head');
    expect(first).toMatchObject({ seq: -1, edge: 'end' });
    expect(client.frames.filter((f) => f.type === 'transcript_head')).toHaveLength(1);
    expect(ready, 'the tail of the history after the preview').toBeDefined();
    return { preview: first!.items as TranscriptItem[], tail: ready!.history as TranscriptItem[] };
  }

  it('goes out first to a subscriber asking for the tail: the last items, as the tail ends', {
    timeout: 60_000,
  }, async () => {
    server = await serve(homeEnv(homeWith(LONG, SHORT)));
    const { preview, tail } = await openAtTail(`session:claude-code:${LONG}`);
    expect(preview.length).toBeGreaterThan(20);
    expect(preview.length).toBeLessThanOrEqual(200);
    // The items near the part's start may be read otherwise with the records before them; the rest
    // are the history's last items, ids and all (Claude Code names items by its records' uuids).
    const settled = preview.slice(10);
    const ids = (item: TranscriptItem) => shown(item, true);
    expect(settled.map(ids)).toEqual(tail.slice(-settled.length).map(ids));
  });

  it('shows a Codex rollout’s last items, though it names them by the part read', {
    timeout: 60_000,
  }, async () => {
    const home = tempDir();
    const path = longRollout(home);
    server = await serve(homeEnv(home));
    const sid = /([0-9a-f-]{36})\.jsonl$/.exec(path)![1];
    const { preview, tail } = await openAtTail(`session:codex:${sid}`);
    expect(preview.length).toBeGreaterThan(20);
    const settled = preview.slice(10);
    const what = (item: TranscriptItem) => shown(item);
    expect(settled.map(what)).toEqual(tail.slice(-settled.length).map(what));
  });

  it('shows a pi session’s last items, read after its header', { timeout: 60_000 }, async () => {
    const home = tempDir();
    longPiSession(home);
    server = await serve(homeEnv(home));
    const client = await Client.open(server);
    const [row] = (await client.request('session_list', { limit: 1 })).sessions as { sid: string }[];
    await client.close();
    const { preview, tail } = await openAtTail(`session:pi:${row!.sid}`);
    expect(preview.length).toBeGreaterThan(20);
    // pi names items by its entries' ids: the settled ones are the history's own, and the header's
    // item, read first, is not among them.
    const settled = preview.slice(10);
    const ids = (item: TranscriptItem) => shown(item, true);
    expect(settled.map(ids)).toEqual(tail.slice(-settled.length).map(ids));
    expect(preview.some((i) => i.type === 'system')).toBe(false);
  });

  it('is the head again for a subscriber opening elsewhere (a tail of none)', {
    timeout: 60_000,
  }, async () => {
    server = await serve(homeEnv(homeWith(LONG)));
    const client = await Client.open(server);
    await client.request('topic_subscribe', { topic: `session:claude-code:${LONG}`, history: { tail: 0 } });
    await client.until(historyEnded, 50_000);
    const head = client.frames[0]!;
    expect(head.type).toBe('transcript_head');
    expect(head.edge).toBeUndefined();
    const first = (head.items as TranscriptItem[])[0]!;
    // The session's first item: what a whole read starts with.
    const whole = await Client.open(server);
    await whole.request('topic_subscribe', { topic: `session:claude-code:${LONG}` });
    await whole.until(historyEnded, 30_000);
    expect(historyOf(whole.frames)[0]).toEqual(first);
    await whole.close();
    await client.close();
  });
});

describe('a link into a long session', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** The whole history, as a daemon of its own reads it (the stream of the daemon under test stays
   * unopened, as a link finds it). */
  async function wholeHistory(home: string, topic: string): Promise<TranscriptItem[]> {
    const probe = await serve(homeEnv(home));
    try {
      const whole = await Client.open(probe);
      await whole.request('topic_subscribe', { topic });
      await whole.until(historyEnded, 50_000);
      await whole.close();
      return historyOf(whole.frames);
    } finally {
      await probe.close();
    }
  }

  /** Subscribes as the reader opening a link does, before anything else opened the stream. */
  async function openAround(topic: string, around: string): Promise<Frame> {
    const client = await Client.open(server!);
    await client.request('topic_subscribe', { topic, history: { tail: 0, around } });
    await client.until(historyEnded, 50_000);
    await client.close();
    const [first] = client.frames;
    expect(first?.type).toBe('transcript_head');
    expect(client.frames.filter((f) => f.type === 'transcript_head')).toHaveLength(1);
    return first!;
  }

  /**
   * The preview holds the linked item, and the items around it are the history's, ids and all; those
   * near the part's edges may be read otherwise with the records beyond them.
   */
  function expectAround(preview: TranscriptItem[], history: TranscriptItem[], uuid: string) {
    const at = preview.findIndex((i) => i.uuid === uuid);
    expect(at, 'the linked item in the preview').toBeGreaterThan(10);
    const there = history.findIndex((i) => i.uuid === uuid);
    const ids = (item: TranscriptItem) => shown(item, true);
    const settled = preview.slice(10, -10);
    const from = there - (at - 10);
    expect(settled.map(ids)).toEqual(history.slice(from, from + settled.length).map(ids));
  }

  it('previews a Claude Code session around the linked item, found by its record’s uuid', {
    timeout: 90_000,
  }, async () => {
    const home = homeWith(LONG);
    const topic = `session:claude-code:${LONG}`;
    const history = await wholeHistory(home, topic);
    // An item two thirds in: far past the head a preview would show.
    const target = history
      .slice(Math.floor((history.length * 2) / 3))
      .find((i) => i.type.startsWith('message'))!;
    server = await serve(homeEnv(home));
    const head = await openAround(topic, target.uuid);
    expect(head.edge).toBe('around');
    expectAround(head.items as TranscriptItem[], history, target.uuid);
  });

  it('names a Codex rollout’s items by their lines in the whole file', { timeout: 90_000 }, async () => {
    const home = tempDir();
    const path = longRollout(home);
    const sid = /([0-9a-f-]{36})\.jsonl$/.exec(path)![1];
    const topic = `session:codex:${sid}`;
    const history = await wholeHistory(home, topic);
    const target = history
      .slice(Math.floor((history.length * 2) / 3))
      .find((i) => i.type.startsWith('tool'))!;
    expect(target.uuid).toMatch(/^L\d+/);
    server = await serve(homeEnv(home));
    const head = await openAround(topic, target.uuid);
    expect(head.edge).toBe('around');
    expectAround(head.items as TranscriptItem[], history, target.uuid);
  });

  it.each([
    ['pi', 'by its entry’s id, the part read after the header', longPiSession],
    ['qwen-code', 'by its record’s uuid', longQwenSession],
    ['copilot-cli', 'by its event’s id', longCopilotSession],
    ['gemini-cli', 'by its message’s id', longGeminiSession],
  ])(
    'previews a long %s session around the linked item, found %s',
    { timeout: 90_000 },
    async (agent, _how, make) => {
      const home = tempDir();
      make(home);
      server = await serve(homeEnv(home));
      const client = await Client.open(server);
      const rows = (await client.request('session_list', { limit: 10 })).sessions as {
        agent: string;
        sid: string;
      }[];
      await client.close();
      await server.close();
      expect(rows.map((r) => r.agent)).toEqual([agent]);
      const topic = `session:${agent}:${rows[0]!.sid}`;
      const history = await wholeHistory(home, topic);
      const target = history
        .slice(Math.floor((history.length * 2) / 3))
        .find((i) => i.type.startsWith('message') && !i.uuid.includes(':'))!;
      server = await serve(homeEnv(home));
      const head = await openAround(topic, target.uuid);
      expect(head.edge).toBe('around');
      expectAround(head.items as TranscriptItem[], history, target.uuid);
    },
  );

  it('is the head for an item the file does not hold', { timeout: 60_000 }, async () => {
    const home = homeWith(LONG);
    server = await serve(homeEnv(home));
    const head = await openAround(`session:claude-code:${LONG}`, '0b1e2c3d-0000-4000-8000-000000000000');
    expect(head.edge).toBeUndefined();
    const history = await wholeHistory(home, `session:claude-code:${LONG}`);
    expect((head.items as TranscriptItem[])[0]).toEqual(history[0]);
  });
});
