// Opening sessions in the reader at the edges: a rollout of 160,000 records (more than a call can take
// as spread arguments, which the first read of a followed session once did) streams its whole
// history, in order, and the daemon answers others while it goes out; a session larger than the daemon can hold, and one whose files cannot be read, answer
// their subscriber with an `error` frame instead of a history that never comes.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { TranscriptItem } from '@cairn/protocol';
import { classifyTranscript, loadTranscript, nodePlatform } from '@cairn/transcript';
import { afterEach, describe, expect, it } from 'vitest';
import { codexLines } from '../../transcript/test/long-records.js';
import type { RunningServer } from '../src/index.js';
import { tooLarge } from '../src/streams/streams.js';
import { Client, homeEnv, serve, tempDir } from './helpers.js';

const ROLLOUT = ['codex', 'sessions', '2026', '02', '23'];
const NAME = 'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';
const SID = '019c8a59-e9dd-71f0-9ae3-4079fe9726a9';
const RECORDS = 160_000;

/** A rollout of its session_meta and `count` records after it. */
const longRollout = (count: number): string => `${codexLines(count + 1).join('\n')}\n`;

const APPENDED = 'a reply written while the history went out';
const appendedReply = JSON.stringify({
  timestamp: '2026-02-23T13:00:00.000Z',
  type: 'response_item',
  payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: APPENDED }] },
});

describe('opening a session in the reader', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('streams the whole history of a rollout of 160,000 records, answering others meanwhile', {
    timeout: 120_000,
  }, async () => {
    const home = tempDir();
    const dir = join(home, '.codex', ...ROLLOUT.slice(1));
    mkdirSync(dir, { recursive: true });
    const path = join(dir, NAME);
    writeFileSync(path, longRollout(RECORDS));
    const loaded = await loadTranscript(nodePlatform({ env: homeEnv(home), homeDir: home }), {
      agent: 'codex',
      path,
    });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const items = classifyTranscript(loaded.value);
    if (!items.ok) throw new Error(items.error.message);
    expect(items.value.items.length).toBeGreaterThanOrEqual(RECORDS);
    server = await serve(homeEnv(home));
    const client = await Client.open(server);
    expect(await client.request('topic_subscribe', { topic: `session:codex:${SID}` })).toMatchObject({
      ok: true,
    });
    const ended = (f: { type?: unknown }[]) =>
      f.some((x) => x.type === 'transcript_ready_end' || x.type === 'error');
    await client.until((f) => f.some((x) => x.type === 'transcript_chunk') || ended(f), 100_000);
    // While the history goes out, a ping is answered, and the session grows by a record.
    const framesAtPing = await client.request('ping').then(() => client.frames.length);
    appendFileSync(path, `${appendedReply}\n`);
    await client.until(ended, 100_000);
    expect(client.frames.find((x) => x.type === 'error')).toBeUndefined();
    const end = client.frames.findIndex((x) => x.type === 'transcript_ready_end');
    expect(framesAtPing, 'the ping was answered before the history ended').toBeLessThanOrEqual(end);
    // The new record's frames come after the history, never among its chunks.
    await client.until((f) => f.some((x) => JSON.stringify(x).includes(APPENDED)), 30_000);
    const appended = client.frames.findIndex((x) => JSON.stringify(x).includes(APPENDED));
    expect(appended).toBeGreaterThan(end);
    expect(client.frames.slice(end).some((x) => x.type === 'transcript_chunk')).toBe(false);

    // As many items as a whole read of the file classified before it grew.
    const start = client.frames.find((x) => x.type === 'transcript_ready_start')!;
    expect(start.totalMessages).toBe(items.value.items.length);
    const chunks = client.frames.filter((x) => x.type === 'transcript_chunk');
    expect(chunks.length).toBe(start.totalChunks);
    // Gzipped a few at a time, the chunks still go out in order and hold the items in order.
    expect(chunks.map((c) => c.index)).toEqual(chunks.map((_, i) => i));
    expect(chunks.some((c) => c.encoding === 'gzip-base64')).toBe(true);
    const sent = chunks.flatMap((c) =>
      c.encoding === 'gzip-base64'
        ? (JSON.parse(
            gunzipSync(Buffer.from(c.payload as string, 'base64')).toString('utf8'),
          ) as TranscriptItem[])
        : (c.messages as TranscriptItem[]),
    );
    expect(sent.map((i) => `${i.uuid}|${i.type}`)).toEqual(
      items.value.items.map((i) => `${i.uuid}|${i.type}`),
    );
    client.close();
  });

  it('refuses, with an error frame, a session larger than the daemon can hold', async () => {
    const home = tempDir();
    const dir = join(home, '.codex', ...ROLLOUT.slice(1));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, NAME), longRollout(2_000));
    server = await serve(homeEnv(home), { maxOpenBytes: 64 * 1024 });
    const client = await Client.open(server);
    expect(await client.request('topic_subscribe', { topic: `session:codex:${SID}` })).toMatchObject({
      ok: true,
    });
    await client.until((f) => f.some((x) => x.type === 'error' || x.type === 'transcript_ready'));
    const error = client.frames.find((x) => x.type === 'error');
    expect(String(error?.message)).toMatch(/^the session is \d+ MB, more than the 0 MB this daemon can hold/);
    expect(client.frames.some((x) => x.type === 'transcript_ready')).toBe(false);
    // Its summary is still there.
    const summary = await client.request('session_summary_read', { sid: SID, agent: 'codex' });
    expect(summary).toMatchObject({ ok: true });
    client.close();
  });

  it('names, for a session over the heap-derived limit, the heap a daemon would need to open it', () => {
    const MB = 1024 * 1024;
    expect(tooLarge(1024 * MB, 512 * MB, true)).toMatch(
      /^the session is 1024 MB, more than the 512 MB .*NODE_OPTIONS=--max-old-space-size=8192 /,
    );
    expect(tooLarge(600 * MB, 512 * MB, true)).toContain('--max-old-space-size=5120 ');
    // A limit set by whoever started the daemon is not the heap's: no heap to name.
    expect(tooLarge(600 * MB, 512 * MB, false)).not.toContain('NODE_OPTIONS');
  });

  it('sends an error frame for a session whose files cannot be read', async () => {
    const home = tempDir();
    const dir = join(home, '.codex', ...ROLLOUT.slice(1));
    mkdirSync(dir, { recursive: true });
    const path = join(dir, NAME);
    writeFileSync(path, longRollout(4));
    server = await serve(homeEnv(home));
    const client = await Client.open(server);
    // Listed, then written anew in a format no adapter knows: the reader asks for a session that cannot be read.
    writeFileSync(path, '{"type":"mystery"}\n');
    expect(await client.request('topic_subscribe', { topic: `session:codex:${SID}` })).toMatchObject({
      ok: true,
    });
    await client.until((f) => f.some((x) => x.type === 'error' || x.type === 'transcript_ready'));
    const error = client.frames.find((x) => x.type === 'error');
    expect(error).toMatchObject({ type: 'error', session_id: SID, seq: -1 });
    expect(String(error?.message)).toContain("type 'mystery'");
    // The connection still serves.
    expect(await client.request('ping')).toMatchObject({ ok: true });
    client.close();
  });
});
