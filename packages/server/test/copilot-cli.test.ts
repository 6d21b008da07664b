// Copilot CLI sessions through the server: listed with their title, model and tokens, summarized,
// and read as items, from the corpus sample copied into a scratch home laid out as Copilot's own
// (`~/.copilot/session-state/<id>/events.jsonl`).
import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { Client, homeEnv, serve, tempDir } from './helpers.js';

const V1 = 'aaaabbbb-1111-2222-3333-ccccddddeeee';

describe.skipIf(!corpus)('Copilot CLI sessions in the server', () => {
  let server: RunningServer;
  let client: Client;
  let rows: Record<string, unknown>[];

  beforeAll(async () => {
    const home = tempDir('cairn-copilot-home-');
    const state = join(home, '.copilot', 'session-state');
    const layout: [string, string][] = [
      ['small.jsonl', 'small'],
      ['large.jsonl', 'large'],
      ['schema_drift.jsonl', 'schema_drift'],
      [`subdir_v1/${V1}/events.jsonl`, V1],
    ];
    for (const [file, dir] of layout) {
      mkdirSync(join(state, dir), { recursive: true });
      cpSync(corpusPath('more', 'copilot', file), join(state, dir, 'events.jsonl'));
    }
    writeFileSync(join(state, V1, 'workspace.yaml'), `id: ${V1}\nsummary: List the project files\n`);
    server = await serve(homeEnv(home));
    client = await Client.open(server);
    rows = (await client.request('session_list', { limit: 100 })).sessions as Record<string, unknown>[];
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('lists every session folder with its title, and the tokens its shutdown recorded', () => {
    expect(rows).toHaveLength(4);
    expect(rows.every((r) => r.agent === 'copilot-cli')).toBe(true);
    expect(rows.find((r) => r.sid === V1)).toMatchObject({
      title: 'List the project files',
      cwd: '/tmp/project',
    });
    expect(rows.find((r) => r.sid === 'schema_drift')).toMatchObject({
      model: 'gpt-4.1',
      input_tokens: 1000,
      output_tokens: 50,
    });
  });

  it('summarizes a session, leaving out the numbers its records do not hold', async () => {
    const drift = await client.request('session_summary_read', { sid: 'schema_drift', agent: 'copilot-cli' });
    expect(drift.summary).toMatchObject({
      inputTokens: 1000,
      outputTokens: 50,
      compactions: 1,
      subagents: 0,
    });
    expect(drift.summary).not.toHaveProperty('requests');
    const v1 = await client.request('session_summary_read', { sid: V1, agent: 'copilot-cli' });
    expect(v1.summary).toMatchObject({ turns: 1 });
    expect(v1.summary).not.toHaveProperty('inputTokens');
  });

  it('reads the tool call and its result as items, under the tool’s own name', async () => {
    const reply = await client.request('transcript_items_read', {
      sid: V1,
      agent: 'copilot-cli',
      types: ['tool'],
    });
    const items = reply.items as { type: string; role?: string }[];
    expect(items.map((i) => [i.type, i.role])).toEqual([
      ['tool:bash', 'use'],
      ['tool:bash', 'result'],
    ]);
  });
});
