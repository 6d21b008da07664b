// pi sessions through the server: listed with their model and tokens, summarized, searched, read as
// items and followed as pi appends to them, from the corpus sample copied into a scratch home laid
// out as pi's own.
import { appendFileSync, cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { Client, homeEnv, itemsSeen, serve, tempDir } from './helpers.js';

const SID = '019e19b4-eb48-746a-aa6b-8dfcfa37954b';

describe.skipIf(!corpus)('pi sessions in the server', () => {
  let server: RunningServer;
  let client: Client;
  let rows: Record<string, unknown>[];
  let file: string;

  beforeAll(async () => {
    const home = tempDir('cairn-pi-home-');
    const dir = join(home, '.pi', 'agent', 'sessions', '--tmp-as-agent-fixture-project--');
    mkdirSync(dir, { recursive: true });
    file = join(dir, `2026-05-12T01-02-27-657Z_${SID}.jsonl`);
    cpSync(corpusPath('more', 'pi', 'small.jsonl'), file);
    server = await serve(homeEnv(home));
    client = await Client.open(server);
    rows = (await client.request('session_list', { limit: 100 })).sessions as Record<string, unknown>[];
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('lists the session with the model that answered, its folder and its tokens', () => {
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      agent: 'pi',
      sid: SID,
      model: 'pi-fixture-model',
      cwd: '/tmp/as-agent-fixture/project',
      input_tokens: 24,
      output_tokens: 14,
    });
  });

  it('summarizes it, with its compactions and without the numbers pi does not record', async () => {
    const reply = await client.request('session_summary_read', { sid: SID, agent: 'pi' });
    expect(reply.summary).toMatchObject({
      requests: 2,
      inputTokens: 24,
      outputTokens: 14,
      turns: 2,
      compactions: 2,
    });
    expect(reply.summary).not.toHaveProperty('subagents');
  });

  it('finds it by what the person asked', async () => {
    const reply = await client.request('session_search', { query: 'hello.py summarize' });
    expect((reply.hits as unknown[]).length).toBeGreaterThan(0);
    expect(JSON.stringify(reply.hits)).toContain(SID);
  });

  it('reads the conversation as items', async () => {
    const reply = await client.request('transcript_items_read', {
      sid: SID,
      agent: 'pi',
      types: ['message'],
    });
    const items = reply.items as { type: string }[];
    expect(items.map((i) => i.type)).toEqual([
      'message:user:in',
      'message:user:out',
      'message:user:in',
      'message:user:out',
    ]);
  });

  it('follows the session as pi appends to it: each new entry arrives once, the history is not sent again', async () => {
    const follower = await Client.open(server);
    try {
      expect(await follower.request('topic_subscribe', { topic: `session:pi:${SID}` })).toMatchObject({
        ok: true,
      });
      await follower.until((f) => f.some((x) => x.type === 'transcript_ready'));
      const before = itemsSeen(follower.frames).length;
      const entry = (id: string, parentId: string, message: unknown) =>
        `${JSON.stringify({ type: 'message', id, parentId, timestamp: '2026-05-12T01:03:00.000Z', message })}\n`;
      appendFileSync(
        file,
        entry('a1b2c3d4', '2c19d326', { role: 'user', content: [{ type: 'text', text: 'one more' }] }),
      );
      await follower.until((f) => itemsSeen(f).some((i) => JSON.stringify(i).includes('one more')));
      appendFileSync(
        file,
        entry('e5f6a7b8', 'a1b2c3d4', {
          role: 'assistant',
          content: [{ type: 'text', text: 'and done' }],
          model: 'pi-fixture-model',
          usage: { input: 3, output: 2 },
          stopReason: 'stop',
        }),
      );
      await follower.until((f) => itemsSeen(f).some((i) => JSON.stringify(i).includes('and done')));
      expect(follower.frames.filter((f) => f.type === 'transcript_ready')).toHaveLength(1);
      const texts = itemsSeen(follower.frames)
        .slice(before)
        .map((i) => JSON.stringify(i));
      expect(texts.filter((t) => t.includes('one more'))).toHaveLength(1);
      expect(texts.filter((t) => t.includes('and done'))).toHaveLength(1);
    } finally {
      await follower.close();
    }
  });
});
