// A long session's first screen does not wait for its whole first read: while the stream opens, the
// first items of its main file go out as `transcript_head`, before the history, which holds the
// same items first. A short session, and a stream already open, send the history alone.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { TranscriptItem } from '@cairn/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { corpusPath } from '../../transcript/test/corpus.js';
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
