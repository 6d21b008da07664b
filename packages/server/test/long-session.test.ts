// Opening sessions in the reader at the edges: a rollout of 160,000 records (more than a call can take
// as spread arguments, which the first read of a followed session once did) streams its whole
// history; a session larger than the daemon can hold, and one whose files cannot be read, answer
// their subscriber with an `error` frame instead of a history that never comes.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyTranscript, loadTranscript, nodePlatform } from '@cairn/transcript';
import { afterEach, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { Client, homeEnv, serve, tempDir } from './helpers.js';

const ROLLOUT = ['codex', 'sessions', '2026', '02', '23'];
const NAME = 'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';
const SID = '019c8a59-e9dd-71f0-9ae3-4079fe9726a9';
const RECORDS = 160_000;

/** The corpus rollout's session_meta, then `count` short records of the shapes a long run writes. */
function longRollout(count: number): string {
  const meta = readFileSync(corpusPath(...ROLLOUT, NAME), 'utf8').split('\n')[0]!;
  const out = [meta];
  const start = Date.parse('2026-02-23T12:00:00.000Z');
  for (let i = 0; i < count; i++) {
    const timestamp = new Date(start + i * 10).toISOString();
    out.push(
      i % 2 === 0
        ? JSON.stringify({
            timestamp,
            type: 'response_item',
            payload: { type: 'reasoning', summary: [{ type: 'summary_text', text: `step ${i}` }] },
          })
        : JSON.stringify({
            timestamp,
            type: 'response_item',
            payload: {
              type: 'message',
              role: 'assistant',
              content: [{ type: 'output_text', text: `done ${i}` }],
            },
          }),
    );
  }
  return `${out.join('\n')}\n`;
}

describe.skipIf(!corpus)('opening a session in the reader', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('streams the whole history of a rollout of 160,000 records', { timeout: 120_000 }, async () => {
    const home = tempDir();
    const dir = join(home, '.codex', ...ROLLOUT.slice(1));
    mkdirSync(dir, { recursive: true });
    const path = join(dir, NAME);
    writeFileSync(path, longRollout(RECORDS));
    server = await serve(homeEnv(home));
    const client = await Client.open(server);
    expect(await client.request('topic_subscribe', { topic: `session:codex:${SID}` })).toMatchObject({
      ok: true,
    });
    await client.until((f) => f.some((x) => x.type === 'session_ready_end' || x.type === 'error'), 100_000);
    expect(client.frames.find((x) => x.type === 'error')).toBeUndefined();

    // As many items as a whole read of the file classifies.
    const loaded = await loadTranscript(nodePlatform({ env: homeEnv(home), homeDir: home }), {
      agent: 'codex',
      path,
    });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const items = classifyTranscript(loaded.value);
    if (!items.ok) throw new Error(items.error.message);
    expect(items.value.items.length).toBeGreaterThanOrEqual(RECORDS);
    const start = client.frames.find((x) => x.type === 'session_ready_start')!;
    expect(start.totalMessages).toBe(items.value.items.length);
    const chunks = client.frames.filter((x) => x.type === 'history_chunk');
    expect(chunks.length).toBe(start.totalChunks);
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
    await client.until((f) => f.some((x) => x.type === 'error' || x.type === 'session_ready'));
    const error = client.frames.find((x) => x.type === 'error');
    expect(String(error?.message)).toMatch(/^the session is \d+ MB, more than the 0 MB this daemon can hold/);
    expect(client.frames.some((x) => x.type === 'session_ready')).toBe(false);
    // Its summary is still there.
    const summary = await client.request('session_summary_read', { sid: SID, agent: 'codex' });
    expect(summary).toMatchObject({ ok: true });
    client.close();
  });

  it('sends an error frame for a session whose files cannot be read', async () => {
    const home = tempDir();
    const dir = join(home, '.codex', ...ROLLOUT.slice(1));
    mkdirSync(dir, { recursive: true });
    const path = join(dir, NAME);
    writeFileSync(path, longRollout(4));
    server = await serve(homeEnv(home));
    const client = await Client.open(server);
    // Listed, then its file goes: the reader asks for a session whose files are no longer there.
    writeFileSync(path, '{"type":"mystery"}\n');
    expect(await client.request('topic_subscribe', { topic: `session:codex:${SID}` })).toMatchObject({
      ok: true,
    });
    await client.until((f) => f.some((x) => x.type === 'error' || x.type === 'session_ready'));
    const error = client.frames.find((x) => x.type === 'error');
    expect(error).toMatchObject({ type: 'error', session_id: SID, seq: -1 });
    expect(String(error?.message)).toContain("type 'mystery'");
    // The connection still serves.
    expect(await client.request('ping')).toMatchObject({ ok: true });
    client.close();
  });
});
