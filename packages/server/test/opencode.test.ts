// OpenCode sessions through the server: a SQLite store with OpenCode's schema, filled from the
// corpus sample, in a scratch home laid out as OpenCode's own (`~/.local/share/opencode/`):
// listed with their tokens, summarized, read as items and searched.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { buildStore } from '../../transcript/test/support/opencode-store.js';
import type { RunningServer } from '../src/index.js';
import { Client, homeEnv, serve, tempDir } from './helpers.js';

describe.skipIf(!corpus)('OpenCode sessions in the server', () => {
  let server: RunningServer;
  let client: Client;
  let rows: Record<string, unknown>[];
  let db: string;

  beforeAll(async () => {
    const home = tempDir('cairn-opencode-home-');
    const data = join(home, '.local', 'share', 'opencode');
    mkdirSync(data, { recursive: true });
    db = join(data, 'opencode.db');
    buildStore(db, [corpusPath('more', 'opencode', 'storage_v2')]);
    server = await serve(homeEnv(home), { rescanMs: 200 });
    client = await Client.open(server);
    rows = (await client.request('session_list', { limit: 100 })).sessions as Record<string, unknown>[];
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('lists every session of the store with its folder, title and tokens', () => {
    expect(rows.map((r) => r.sid).sort()).toEqual(['s_stage0_large', 's_stage0_small']);
    expect(rows.every((r) => r.agent === 'opencode')).toBe(true);
    expect(rows.find((r) => r.sid === 's_stage0_large')).toMatchObject({
      cwd: '/tmp/large',
      title: 'OpenCode Large',
      input_tokens: 120,
      output_tokens: 16,
    });
  });

  it('summarizes a session from its rows', async () => {
    const reply = await client.request('session_summary_read', { sid: 's_stage0_large', agent: 'opencode' });
    expect(reply.summary).toMatchObject({
      requests: 1,
      inputTokens: 120,
      outputTokens: 16,
      turns: 2,
      subagents: 0,
    });
  });

  it('reads the tool call and its result as items under the tool’s own name', async () => {
    const reply = await client.request('transcript_items_read', {
      sid: 's_stage0_small',
      agent: 'opencode',
      types: ['tool'],
    });
    const items = reply.items as { type: string; role?: string }[];
    expect(items.map((i) => [i.type, i.role])).toEqual([
      ['tool:bash', 'use'],
      ['tool:bash', 'result'],
    ]);
  });

  it('finds a session by what was said in it', async () => {
    const reply = await client.request('session_search', { query: 'Found 2 files', limit: 20 });
    expect(reply.ok).toBe(true);
    expect((reply.hits as { sid: string }[]).map((h) => h.sid)).toContain('s_stage0_small');
  });

  it('picks up rows the agent adds at the next walk of the store', async () => {
    const w = new Database(db);
    w.prepare(
      'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)',
    ).run(
      'msg_new',
      's_stage0_small',
      1730000009000,
      1730000009000,
      JSON.stringify({ role: 'user', time: { created: 1730000009000 } }),
    );
    w.prepare(
      'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)',
    ).run(
      'prt_new',
      'msg_new',
      's_stage0_small',
      1730000009000,
      1730000009000,
      JSON.stringify({ type: 'text', text: 'zebra crossing' }),
    );
    w.prepare("UPDATE session SET time_updated = 1730000009000 WHERE id = 's_stage0_small'").run();
    w.close();
    let hits: { sid: string }[] = [];
    for (let i = 0; i < 50 && hits.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await server.catalog.settled();
      hits = (await client.request('session_search', { query: 'zebra', limit: 20 })).hits as {
        sid: string;
      }[];
    }
    expect(hits.map((h) => h.sid)).toEqual(['s_stage0_small']);
    const summary = await client.request('session_summary_read', {
      sid: 's_stage0_small',
      agent: 'opencode',
    });
    expect(summary.summary).toMatchObject({ turns: 2 });
  });
});
