// Qwen Code sessions through the server: listed with their model and tokens, summarized, and read
// as items, from the corpus sample copied into a scratch home laid out as Qwen Code's own.
import { cpSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { Client, homeEnv, serve, tempDir } from './helpers.js';

const ACTIVE = '019f0000-0000-7000-8000-000000000004';

describe.skipIf(!corpus)('Qwen Code sessions in the server', () => {
  let server: RunningServer;
  let client: Client;
  let rows: Record<string, unknown>[];

  beforeAll(async () => {
    const home = tempDir('cairn-qwen-home-');
    const chats = join(home, '.qwen', 'projects', '-tmp-as-qwen-fixture-project', 'chats');
    mkdirSync(chats, { recursive: true });
    for (const name of readdirSync(corpusPath('more', 'qwen')))
      cpSync(corpusPath('more', 'qwen', name), join(chats, name));
    server = await serve(homeEnv(home));
    client = await Client.open(server);
    rows = (await client.request('session_list', { limit: 100 })).sessions as Record<string, unknown>[];
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('lists every chat file with the model that answered and its tokens', () => {
    expect(rows).toHaveLength(6);
    expect(rows.every((r) => r.agent === 'qwen-code')).toBe(true);
    expect(rows.find((r) => r.sid === ACTIVE)).toMatchObject({
      model: 'synthetic-active-model',
      input_tokens: 12,
      output_tokens: 4,
      cwd: '/tmp/as-qwen-fixture/old-project',
    });
  });

  it('summarizes a session, leaving out the numbers its records do not hold', async () => {
    const reply = await client.request('session_summary_read', { sid: ACTIVE, agent: 'qwen-code' });
    expect(reply.summary).toMatchObject({ requests: 1, inputTokens: 12, outputTokens: 4, turns: 2 });
    const fixture = await client.request('session_summary_read', {
      sid: '019f0000-0000-7000-8000-000000000001',
      agent: 'qwen-code',
    });
    expect(fixture.summary).not.toHaveProperty('inputTokens');
    expect(fixture.summary).not.toHaveProperty('requests');
  });

  it('reads the tool call and its result as items', async () => {
    const reply = await client.request('transcript_items_read', {
      sid: '019f0000-0000-7000-8000-000000000001',
      agent: 'qwen-code',
      types: ['tool'],
    });
    const items = reply.items as { type: string; role?: string }[];
    expect(items.map((i) => [i.type, i.role])).toEqual([
      ['tool:read_file', 'use'],
      ['tool:read_file', 'result'],
    ]);
  });
});
