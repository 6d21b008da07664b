// Many clients opening one long session at once: each gets the whole history, frame for frame the
// same, while the daemon goes on answering others; and each history chunk is serialized and gzipped
// once for all of them rather than once per client.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { TranscriptItem } from '@cairn/protocol';
import { nodePlatform } from '@cairn/transcript';
import { afterEach, describe, expect, it } from 'vitest';
import { corpusPath } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { IndexDb } from '../src/indexing/index-db.js';
import { Catalog, sessionKey } from '../src/reader/catalog.js';
import { HistoryChunks } from '../src/streams/history-chunks.js';
import { Streams } from '../src/streams/streams.js';
import { Client, type Frame, homeEnv, itemKey, serve, tempDir } from './helpers.js';

const PROJECT = '-work-spotter';
// 3.3 MB, about 1,250 items: a history that goes out in chunks, several of them gzipped.
const LONG = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
const TOPIC = `session:claude-code:${LONG}`;

function homeWithLong(): { home: string; path: string } {
  const home = tempDir();
  const dir = join(home, '.claude', 'projects', PROJECT);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${LONG}.jsonl`);
  copyFileSync(corpusPath('claude', 'projects', PROJECT, `${LONG}.jsonl`), path);
  return { home, path };
}

/** The history's frames: from its start to its end, the head preview before it left aside. */
const historyFrames = (frames: Frame[]): Frame[] =>
  frames.slice(
    frames.findIndex((f) => f.type === 'transcript_ready_start'),
    frames.findIndex((f) => f.type === 'transcript_ready_end') + 1,
  );

/** The items a history's chunks hold, unzipped where they travelled zipped. */
const chunkItems = (frames: Frame[]): TranscriptItem[] =>
  frames
    .filter((f) => f.type === 'transcript_chunk')
    .flatMap((c) =>
      c.encoding === 'gzip-base64'
        ? (JSON.parse(
            gunzipSync(Buffer.from(c.payload as string, 'base64')).toString('utf8'),
          ) as TranscriptItem[])
        : (c.messages as TranscriptItem[]),
    );

const ended = (frames: Frame[]) =>
  frames.some((f) => f.type === 'transcript_ready_end' || f.type === 'error');

describe('many clients on one long session', () => {
  let server: RunningServer | undefined;
  const closers: (() => void)[] = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) close();
    await server?.close();
    server = undefined;
  });

  it('each get the same whole history, and a ping meanwhile is answered before the last finishes', {
    timeout: 120_000,
  }, async () => {
    server = await serve(homeEnv(homeWithLong().home));
    const clients = await Promise.all(Array.from({ length: 30 }, () => Client.open(server!)));
    const pinger = await Client.open(server);
    // What happened, in the order this process saw it.
    const order: string[] = [];
    let ping: Promise<Frame> | undefined;
    for (const [n, client] of clients.entries()) {
      client.ws.on('message', (data) => {
        const text = data.toString();
        const done = text.includes('"transcript_ready_end"');
        if (done) order.push(`client ${n} done`);
        // Once histories are going out, another client asks for a ping.
        if (!ping && text.includes('"transcript_chunk"')) {
          order.push('ping sent');
          ping = pinger.request('ping').then((reply) => {
            order.push('ping answered');
            return reply;
          });
        }
      });
    }
    // All at once: no client waits for another's reply to ask.
    const subscribed = clients.map((c) => c.request('topic_subscribe', { topic: TOPIC }));
    expect((await Promise.all(subscribed)).every((r) => r.ok === true)).toBe(true);
    await Promise.all(clients.map((c) => c.until(ended, 100_000)));
    expect(ping).toBeDefined();
    expect(await ping).toMatchObject({ ok: true });

    // Every client's history, frame for frame, is the first one's, and it is whole: each chunk in
    // order, as many items as it announced, and every frame within the contract.
    const first = historyFrames(clients[0]!.frames);
    const start = first[0]!;
    expect(start.type).toBe('transcript_ready_start');
    const chunks = first.filter((f) => f.type === 'transcript_chunk');
    expect(chunks.map((c) => c.index)).toEqual(
      Array.from({ length: start.totalChunks as number }, (_, i) => i),
    );
    expect(chunks.some((c) => c.encoding === 'gzip-base64')).toBe(true);
    const items = chunkItems(first);
    expect(items).toHaveLength(start.totalMessages as number);
    expect(items.length).toBeGreaterThan(1000);
    expect(new Set(items.map(itemKey)).size).toBe(items.length);
    for (const client of clients) {
      expect(client.broken).toEqual([]);
      expect(historyFrames(client.frames)).toEqual(first);
      expect(client.frames.filter((f) => f.type === 'transcript_ready_start')).toHaveLength(1);
    }

    // The ping did not wait for every history to go out.
    const answered = order.indexOf('ping answered');
    const lastDone = Math.max(...clients.map((_, n) => order.indexOf(`client ${n} done`)));
    expect(order.indexOf('ping sent')).toBeGreaterThan(-1);
    expect(answered).toBeGreaterThan(-1);
    expect(answered).toBeLessThan(lastDone);
    for (const c of [...clients, pinger]) await c.close();
  });

  it('have each history chunk made once for all of them', { timeout: 60_000 }, async () => {
    const { home, path } = homeWithLong();
    const db = IndexDb.open(join(tempDir('cairn-state-'), 'index.sqlite'));
    const catalog = new Catalog({
      platform: nodePlatform({ env: homeEnv(home), homeDir: home }),
      db,
      watch: false,
    });
    await catalog.start();
    await catalog.settled();
    const streams = new Streams(catalog, { instance: 'test' });
    closers.push(() => {
      streams.close();
      catalog.close();
      db.close();
    });
    const key = sessionKey('claude-code', path);
    const subscribers = Array.from({ length: 8 }, () => {
      const frames: Frame[] = [];
      return { frames, send: (f: object) => frames.push(f as Frame) };
    });
    const done = await Promise.all(subscribers.map((sub) => streams.subscribe(key, sub)));
    expect(done.every(Boolean)).toBe(true);
    const chunksOf = (frames: Frame[]) => frames.filter((f) => f.type === 'transcript_chunk');
    const shared = chunksOf(subscribers[0]!.frames);
    expect(shared.length).toBeGreaterThan(1);
    // The very same frame objects: each was serialized (and gzipped) once, then handed to all.
    for (const sub of subscribers) {
      const chunks = chunksOf(sub.frames);
      expect(chunks).toHaveLength(shared.length);
      for (const [i, chunk] of chunks.entries()) expect(chunk).toBe(shared[i]);
    }
    // One arriving later, the history unchanged, is sent those frames too.
    const later: Frame[] = [];
    await streams.subscribe(key, { send: (f) => later.push(f as Frame) });
    for (const [i, chunk] of chunksOf(later).entries()) expect(chunk).toBe(shared[i]);
    expect(chunkItems(later).map(itemKey)).toEqual(chunkItems(shared).map(itemKey));

    // Many arriving together, their chunks all made already, take turns with the rest of the daemon's
    // work: other work queued meanwhile runs before the last of them has its history.
    const order: string[] = [];
    const together = Array.from({ length: 30 }, (_, n) =>
      streams.subscribe(key, {
        send: (f) => {
          if ((f as Frame).type === 'transcript_ready_end') order.push(`subscriber ${n} done`);
        },
      }),
    );
    setImmediate(() => order.push('other work'));
    await Promise.all(together);
    expect(order).toHaveLength(31);
    expect(order.indexOf('other work')).toBeLessThan(30);
  });
});

describe('a history’s chunks', () => {
  const items = Array.from(
    { length: 50 },
    (_, n): TranscriptItem =>
      ({
        type: 'message',
        role: 'user',
        uuid: `u${n}`,
        content: 'x'.repeat(2000 + n),
      }) as unknown as TranscriptItem,
  );
  const chunking = { per: 10, first: 5, inlineBytes: 1000, gzipBytes: 5000 };

  it('are made once however many subscribers ask for them at once', async () => {
    const history = new HistoryChunks({ sid: 's', seq: 7, items }, chunking);
    expect(history.fitsInline()).toBe(false);
    // 5 + 4 × 10 + 5.
    expect(history.chunks.map((c) => c.length)).toEqual([5, 10, 10, 10, 10, 5]);
    const asks = Array.from({ length: 20 }, () => history.chunks.map((_, i) => history.frame(i)));
    const frames = await Promise.all(asks.map((a) => Promise.all(a)));
    expect(history.made).toBe(history.chunks.length);
    for (const f of frames) expect(f).toEqual(frames[0]);
    for (const f of frames) for (const [i, frame] of f.entries()) expect(frame).toBe(frames[0]![i]);
    expect(frames[0]![1]).toMatchObject({
      type: 'transcript_chunk',
      seq: 7,
      index: 1,
      total: 6,
      encoding: 'gzip-base64',
    });
    const back = JSON.parse(
      gunzipSync(Buffer.from(frames[0]![1]!.payload as string, 'base64')).toString('utf8'),
    );
    expect(back).toEqual(items.slice(5, 15));
  });

  it('are made again past what they may keep, and tell a history grown in place from the one they cut', async () => {
    const history = new HistoryChunks({ sid: 's', seq: 7, items }, chunking, 0);
    await history.frame(1);
    await history.frame(1);
    expect(history.made).toBe(2);
    const grown = [...items];
    const cut = new HistoryChunks({ sid: 's', seq: 7, items: grown }, chunking);
    expect(cut.holds({ sid: 's', seq: 7, items: grown }, chunking)).toBe(true);
    expect(cut.holds({ sid: 's', seq: 8, items: grown }, chunking)).toBe(false);
    expect(cut.holds({ sid: 's', seq: 7, items: grown }, { ...chunking, gzipBytes: 1 })).toBe(false);
    grown.push(items[0]!);
    expect(cut.holds({ sid: 's', seq: 7, items: grown }, chunking)).toBe(false);
  });
});
