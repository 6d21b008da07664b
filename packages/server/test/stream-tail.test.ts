// A client that keeps only a window of a long session subscribes for the end of its history, not the
// whole: the ready frame carries the last items with the session's totals, the live frames follow as
// they do for everybody, and resuming after a seq is the same. The pages it reads around its window
// are the items the whole history holds at those positions, and it can ask where the prompts and the
// failures sit in the whole session.
import { appendFileSync, cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { TranscriptItem } from '@cairn/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { Client, claudeSessionHome, type Frame, homeEnv, itemsSeen, serve, tempDir } from './helpers.js';

const PROJECT = '-work-spotter';
/** 3.3 MB of Claude Code with two subagents. */
const SID = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
const TOPIC = `session:claude-code:${SID}`;
const ALL_TYPES = ['message', 'thinking', 'notice', 'system', 'hook', 'tool'];

const historyDone = (frames: Frame[]) =>
  frames.some((f) => f.type === 'transcript_ready' || f.type === 'transcript_ready_end');
/** The frames with each gzipped history chunk opened, as a client reads them. */
const unzipped = (frames: Frame[]): Frame[] =>
  frames.map((f) =>
    f.type === 'transcript_chunk' && typeof f.payload === 'string'
      ? { ...f, messages: JSON.parse(gunzipSync(Buffer.from(f.payload, 'base64')).toString('utf8')) }
      : f,
  );
const readyOf = (frames: Frame[]) =>
  frames.find((f) => f.type === 'transcript_ready' || f.type === 'transcript_ready_start')!;

describe.skipIf(!corpus)('a stream that sends only the end of a long history', () => {
  let server: RunningServer;
  let client: Client;
  let whole: TranscriptItem[];

  beforeAll(async () => {
    const home = tempDir('cairn-home-');
    const dir = join(home, '.claude', 'projects', PROJECT);
    mkdirSync(dir, { recursive: true });
    cpSync(corpusPath('claude', 'projects', PROJECT, `${SID}.jsonl`), join(dir, `${SID}.jsonl`));
    cpSync(corpusPath('claude', 'projects', PROJECT, SID), join(dir, SID), { recursive: true });
    server = await serve(homeEnv(home));
    client = await Client.open(server);
    const read = await client.request('transcript_items_read', {
      sid: SID,
      agent: 'claude-code',
      types: ALL_TYPES,
      limit: 5000,
    });
    expect(read.ok).toBe(true);
    whole = read.items as TranscriptItem[];
  }, 60_000);

  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('sends the last items of a history longer than the client wants whole, with its totals', async () => {
    expect(whole.length).toBeGreaterThan(1200);
    const tailed = await Client.open(server);
    const reply = await tailed.request('topic_subscribe', {
      topic: TOPIC,
      history: { tail: 300, whole_up_to: 1200 },
    });
    expect(reply.ok).toBe(true);
    await tailed.until(historyDone, 30_000);
    const ready = readyOf(tailed.frames);
    expect(ready.type).toBe('transcript_ready');
    expect(ready).toMatchObject({
      totalMessageCount: whole.length,
      loadedMessageCount: 300,
      hasEarlierMessages: true,
    });
    // The tail is the whole history's last items, at the positions a page read names them by.
    expect(ready.history).toEqual(whole.slice(-300));
    expect(tailed.frames.some((f) => f.type === 'transcript_chunk')).toBe(false);
    await tailed.close();
  });

  it('sends no items at all for a tail of none, and the whole of a history short enough', async () => {
    const none = await Client.open(server);
    await none.request('topic_subscribe', { topic: TOPIC, history: { tail: 0 } });
    await none.until(historyDone, 30_000);
    expect(readyOf(none.frames)).toMatchObject({
      history: [],
      totalMessageCount: whole.length,
      loadedMessageCount: 0,
      hasEarlierMessages: true,
    });
    await none.close();

    for (const history of [{ tail: 300, whole_up_to: 5000 }, 'all', undefined]) {
      const all = await Client.open(server);
      await all.request('topic_subscribe', { topic: TOPIC, ...(history === undefined ? {} : { history }) });
      await all.until(historyDone, 30_000);
      expect(readyOf(all.frames), JSON.stringify(history)).toMatchObject({
        totalMessageCount: whole.length,
        loadedMessageCount: whole.length,
        hasEarlierMessages: false,
      });
      expect(itemsSeen(unzipped(all.frames))).toEqual(whole);
      await all.close();
    }
  });

  it('refuses a history it cannot send, naming the field', async () => {
    for (const history of ['some', { tail: -1 }, { tail: 5001 }, { tail: 10, head: 3 }, { whole_up_to: 3 }]) {
      const reply = await client.request('topic_subscribe', { topic: TOPIC, history });
      expect(reply, JSON.stringify(history)).toMatchObject({
        ok: false,
        error: { code: 'invalid_args' },
      });
      expect(String((reply.error as { field?: string }).field)).toMatch(/^\/history/);
    }
  });

  it('says where the prompts and the failures sit in the whole session', async () => {
    const reply = await client.request('transcript_items_read', {
      sid: SID,
      agent: 'claude-code',
      types: ALL_TYPES,
      offset: 0,
      limit: 10,
      positions_of: ['prompt', 'error'],
    });
    expect(reply.ok).toBe(true);
    expect((reply.items as unknown[]).length).toBe(10);
    const { prompt, error } = reply.positions as { prompt: number[]; error: number[] };
    const prompts = whole.flatMap((item, i) =>
      item.type === 'message:user:in' ||
      (item.type === 'notice:slash' && (item as { typed?: unknown }).typed === true)
        ? [i]
        : [],
    );
    expect(prompts.length).toBeGreaterThan(1);
    expect(prompt).toEqual(prompts);
    // Positions beyond the page asked for: the whole session's.
    expect(prompt.some((p) => p >= 10)).toBe(true);
    expect(error.length).toBeGreaterThan(0);
    for (const p of error) {
      const item = whole[p] as TranscriptItem & { role?: string; is_error?: boolean; ok?: boolean };
      expect(
        item.type === 'system:api-error' ||
          (item.role === 'result' && (item.is_error === true || item.ok === false)),
        JSON.stringify(item).slice(0, 200),
      ).toBe(true);
    }
    // Only what was asked.
    const some = await client.request('transcript_items_read', {
      sid: SID,
      agent: 'claude-code',
      types: ALL_TYPES,
      limit: 1,
      positions_of: ['prompt'],
    });
    expect(Object.keys(some.positions as object)).toEqual(['prompt']);
    const bad = await client.request('transcript_items_read', {
      sid: SID,
      agent: 'claude-code',
      positions_of: ['prompt', 'bogus'],
    });
    expect(bad).toMatchObject({ ok: false, error: { code: 'invalid_args', field: '/positions_of/1' } });
  });
});

describe.skipIf(!corpus)('a tail subscriber of a session being written', () => {
  let server: RunningServer;
  let made: ReturnType<typeof claudeSessionHome>;

  beforeAll(async () => {
    made = claudeSessionHome(30);
    server = await serve(homeEnv(made.home), { rescanMs: 60_000 });
  }, 60_000);
  afterAll(() => server?.close());

  it('gets the live frames after its tail, and resumes after a seq as any client does', {
    timeout: 60_000,
  }, async () => {
    const topic = 'session:claude-code:subagent';
    const whole = await Client.open(server);
    await whole.request('topic_subscribe', { topic });
    await whole.until(historyDone);
    const total = itemsSeen(whole.frames).length;
    expect(total).toBeGreaterThan(6);

    const tailed = await Client.open(server);
    await tailed.request('topic_subscribe', { topic, history: { tail: 4, whole_up_to: 5 } });
    await tailed.until(historyDone);
    const ready = readyOf(tailed.frames);
    expect(ready).toMatchObject({
      totalMessageCount: total,
      loadedMessageCount: 4,
      hasEarlierMessages: true,
    });
    expect(ready.seq).toBe(readyOf(whole.frames).seq);

    for (let i = 30; i < 40; i++) appendFileSync(made.file, `${made.lines[i]}\n`);
    await whole.until((f) => itemsSeen(f).length > total, 20_000);
    await tailed.until((f) => itemsSeen(f).length > 4, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const grown = itemsSeen(whole.frames);
    // The tail, then every item the live frames carried: the whole history's end.
    expect(itemsSeen(tailed.frames)).toEqual(grown.slice(-(4 + grown.length - total)));

    // Resuming needs no history, and gets none.
    const back = await Client.open(server);
    await back.request('topic_subscribe', {
      topic,
      after_seq: ready.seq,
      history: { tail: 4, whole_up_to: 5 },
    });
    await back.until((f) => f.some((x) => x.type === 'run_state'));
    expect(back.frames.some((f) => /^transcript_ready/.test(String(f.type)))).toBe(false);
    expect(itemsSeen(back.frames)).toEqual(grown.slice(total));
    for (const c of [whole, tailed, back]) await c.close();
  });
});
