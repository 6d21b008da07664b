// A new session stream takes its first transcript a slice at a time, so that the daemon goes on
// answering others meanwhile. What the catalog reads in those moments must not be lost: a record
// appended while the stream fills reaches the subscriber exactly once, in its history or after it,
// and is numbered as a whole read numbers it.
import { appendFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { loadTranscript } from '@cairn/transcript';
import { afterEach, describe, expect, it } from 'vitest';
import { Streams } from '../src/streams/streams.js';
import { type Frame, rolloutCatalog } from './helpers.js';

const SAID = 'a reply written while the stream was being made';
const reply = JSON.stringify({
  timestamp: '2026-02-23T13:00:00.000Z',
  type: 'response_item',
  payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: SAID }] },
});

/** The items a history's frames hold, its chunks unzipped. */
function historyItems(frames: Frame[]): unknown[] {
  const ready = frames.find((f) => f.type === 'transcript_ready');
  if (ready) return ready.history as unknown[];
  return frames
    .filter((f) => f.type === 'transcript_chunk')
    .flatMap((c) =>
      c.encoding === 'gzip-base64'
        ? (JSON.parse(gunzipSync(Buffer.from(c.payload as string, 'base64')).toString('utf8')) as unknown[])
        : (c.messages as unknown[]),
    );
}

async function until(check: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('a stream made for a long session', () => {
  const closers: (() => void)[] = [];
  afterEach(() => {
    for (const close of closers.splice(0)) close();
  });

  it('streams a record read while it was being made exactly once, numbered as a whole read numbers it', {
    timeout: 60_000,
  }, async () => {
    const { path, platform, catalog, key, close } = await rolloutCatalog(20_000);
    closers.push(close);
    expect(catalog.get(key)).toBeDefined();

    // The moment the catalog hands the stream its transcript, the session grows and is read again:
    // that read ends while the stream is still taking the transcript it was handed.
    const follow = catalog.follow.bind(catalog);
    let grown: Promise<unknown> | undefined;
    catalog.follow = async (k) => {
      const loaded = await follow(k);
      appendFileSync(path, `${reply}\n`);
      grown = catalog.load(k);
      return loaded;
    };
    // A few events per turn: the read ends long before the stream is made.
    const streams = new Streams(catalog, { instance: 'test', fillSlice: 10 });
    closers.push(() => streams.close());
    const frames: Frame[] = [];
    expect(await streams.subscribe(key, { send: (f) => frames.push(f as Frame) })).toBe(true);
    await grown;
    const said = (f: Frame) => f.type === 'text_delta' && f.delta === SAID;
    await until(
      () => frames.some((f) => f.type === 'transcript_ready_end' || f.type === 'transcript_ready'),
      30_000,
    );
    // A live frame, if one is to come, follows the history at once.
    await new Promise((resolve) => setTimeout(resolve, 200));

    // Whether the read ended before the history went out or after, the record is in the history or in
    // a live frame after it: once, and never lost.
    const end = frames.findIndex((f) => f.type === 'transcript_ready_end' || f.type === 'transcript_ready');
    expect(end).toBeGreaterThan(-1);
    const items = historyItems(frames.slice(0, end + 1));
    expect(items.length).toBeGreaterThanOrEqual(20_000);
    const inHistory = items.filter((i) => JSON.stringify(i).includes(SAID)).length;
    const live = frames.slice(end + 1).filter(said);
    expect(inHistory + live.length).toBe(1);
    for (const f of live) expect(f.seq).toBeGreaterThan(frames[end]!.seq as number);
    // And the stream numbered every event of the grown session, the record's too: its last seq is a
    // whole read's last event's.
    const whole = await loadTranscript(platform, { agent: 'codex', path });
    if (!whole.ok) throw new Error(whole.error.message);
    const lastSeq = Math.max(...frames.map((f) => f.seq as number));
    expect(lastSeq).toBe(whole.value.events.length - 1);
    expect(frames.slice(0, end).some(said)).toBe(false);
  });
});
