// Each lane's tokens and cost in `session_summary_read`: for the corpus's sessions with subagents the
// lanes add up to the session's totals (tokens exactly, cost to the cent) and match counts made here,
// from the raw lines of each subagent's file and from the transcript's requests; OpenCode child
// sessions, a child started inside a child, nest under the session that started them.
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { SessionLaneCost, SessionSummary } from '@cairn/protocol';
import { downsampleMax, loadTranscript, nodePlatform, type Transcript } from '@cairn/transcript';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { buildStore } from '../../transcript/test/support/opencode-store.js';
import type { RunningServer } from '../src/index.js';
import { shapePoint } from '../src/usage/lane-costs.js';
import { requestCost } from '../src/usage/pricing.js';
import { Client, corpusEnv, homeEnv, serve, tempDir } from './helpers.js';

interface Reply {
  summary: SessionSummary;
  lanes: SessionLaneCost[];
  prices: string;
}

const TOKENS = ['requests', 'inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens'] as const;

const sumOf = (lanes: readonly SessionLaneCost[], key: (typeof TOKENS)[number]) =>
  lanes.reduce((n, l) => n + l[key], 0);

/** Every lane's parent comes before it, and its children right after it and theirs (depth first). */
function expectDepthFirst(lanes: readonly SessionLaneCost[]): void {
  expect(lanes[0]!.parentId).toBeUndefined();
  const path: string[] = [lanes[0]!.id];
  for (const lane of lanes.slice(1)) {
    const at = path.indexOf(lane.parentId!);
    expect(at, `${lane.id} follows its parent ${lane.parentId}`).toBeGreaterThanOrEqual(0);
    path.length = at + 1;
    path.push(lane.id);
  }
}

describe.skipIf(!corpus)('lane costs of the corpus sessions', () => {
  let server: RunningServer;
  let client: Client;
  let env: Record<string, string>;
  /** Claude Code sessions whose folder holds subagent files. */
  const withSubagents: { sid: string; main: string; subagents: string[] }[] = [];

  beforeAll(async () => {
    env = corpusEnv();
    server = await serve(env);
    client = await Client.open(server);
    const project = corpusPath('claude', 'projects', '-work-spotter');
    for (const name of readdirSync(project)) {
      const dir = join(project, name, 'subagents');
      let files: string[];
      try {
        files = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
      } catch {
        continue;
      }
      withSubagents.push({
        sid: name,
        main: join(project, `${name}.jsonl`),
        subagents: files.map((f) => join(dir, f)),
      });
    }
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  const lanesOf = async (sid: string, agent = 'claude-code'): Promise<Reply> => {
    const reply = await client.request('session_summary_read', { sid, agent, lanes: true });
    expect(reply.ok, JSON.stringify(reply)).toBe(true);
    return reply as unknown as Reply;
  };

  const transcriptOf = async (path: string, agent = 'claude-code'): Promise<Transcript> => {
    const loaded = await loadTranscript(nodePlatform({ env, homeDir: env.HOME }), { agent, path });
    if (!loaded.ok) throw new Error(loaded.error.message);
    return loaded.value;
  };

  it('has sessions with subagents to check', () => {
    expect(withSubagents.length).toBeGreaterThanOrEqual(2);
  });

  it('adds the lanes up to the session’s tokens exactly and its listed cost to the cent', async () => {
    const listed = (await client.request('session_list', { limit: 500 })).sessions as {
      sid: string;
      cost_usd?: number;
    }[];
    for (const { sid, subagents } of withSubagents) {
      const { summary, lanes, prices } = await lanesOf(sid);
      expect(lanes).toHaveLength(subagents.length + 1);
      expectDepthFirst(lanes);
      for (const key of TOKENS) expect(sumOf(lanes, key), `${sid} ${key}`).toBe(summary[key]);
      const cost = listed.find((s) => s.sid === sid)?.cost_usd;
      expect(cost, sid).toBeGreaterThan(0);
      expect(lanes.every((l) => l.costUsd !== undefined)).toBe(true);
      const lanesCost = lanes.reduce((n, l) => n + l.costUsd!, 0);
      expect(Math.abs(lanesCost - cost!), sid).toBeLessThan(0.005);
      expect(prices).toMatch(/^genai-prices /);
      // Each subagent costs something, and its share is its own: no lane is a copy of the session.
      for (const lane of lanes) expect(lane.costUsd!).toBeLessThan(cost!);
    }
  });

  it('gives each subagent file’s requests to its lane, as the raw lines count them', async () => {
    for (const { sid, main, subagents } of withSubagents) {
      const { lanes } = await lanesOf(sid);
      for (const file of [main, ...subagents]) {
        const id = file === main ? sid : basename(file, '.jsonl').replace(/^agent-/, '');
        const lane = lanes.find((l) => l.id === id);
        expect(lane, `${sid}: a lane for ${basename(file)}`).toBeDefined();
        expect(pick(lane!), `${sid} ${id}`).toEqual(rawCount(file));
      }
    }
  });

  it('prices each lane as the sum of its requests, each priced on its own', async () => {
    for (const { sid, main } of withSubagents) {
      const { lanes } = await lanesOf(sid);
      const t = await transcriptOf(main);
      const byLane = new Map<string, { usd: number; tokens: number }>();
      for (const e of t.events) {
        if (e.kind !== 'request' || !e.payload.usage || e.payload.model === undefined) continue;
        const n = byLane.get(e.agentId) ?? { usd: 0, tokens: 0 };
        n.usd += requestCost('claude-code', e.payload.model, e.payload.usage) ?? Number.NaN;
        n.tokens += e.payload.usage.inputTokens + e.payload.usage.outputTokens;
        byLane.set(e.agentId, n);
      }
      expect([...byLane.keys()].sort()).toEqual(lanes.map((l) => l.id).sort());
      for (const lane of lanes) {
        const counted = byLane.get(lane.id)!;
        expect(lane.inputTokens + lane.outputTokens).toBe(counted.tokens);
        expect(Math.abs(lane.costUsd! - counted.usd), `${sid} ${lane.id}`).toBeLessThan(0.005);
      }
    }
  });

  it('names each subagent by its task and lands on its first item', async () => {
    for (const { sid } of withSubagents) {
      const { lanes } = await lanesOf(sid);
      for (const lane of lanes.slice(1)) {
        expect(lane.title, lane.id).toBeTruthy();
        const first = await client.request('transcript_items_read', {
          sid,
          agent: 'claude-code',
          agent_id: lane.id,
          limit: 1,
        });
        const item = (first.items as { uuid: string; type: string }[])[0]!;
        expect(lane.landing).toEqual({ uuid: item.uuid, type: item.type });
      }
    }
  });

  it('marks each main-lane compaction where the context shape falls', async () => {
    for (const { sid } of withSubagents) {
      const { summary, lanes } = await lanesOf(sid);
      const main = lanes[0]!;
      expect(main.compactions).toBeGreaterThan(0);
      expect(main.contextMarks).toHaveLength(main.compactions);
      const shape = summary.contextShape!;
      for (const at of main.contextMarks!) expect(shape[at]!).toBeLessThan(shape[at - 1]! * 0.6);
    }
  });

  it('leaves the lanes out unless asked, and reads them for a session without subagents', async () => {
    const plain = await client.request('session_summary_read', { sid: withSubagents[0]!.sid });
    expect(plain.lanes).toBeUndefined();
    const codex = (await client.request('session_list', { agents: ['codex'], limit: 50 })).sessions as {
      sid: string;
    }[];
    for (const { sid } of codex) {
      const { summary, lanes } = await lanesOf(sid, 'codex');
      expect(lanes[0]!.parentId).toBeUndefined();
      for (const key of TOKENS) expect(sumOf(lanes, key), `${sid} ${key}`).toBe(summary[key] ?? 0);
    }
  });
});

/** The lane numbers a raw count gives. */
const pick = (l: SessionLaneCost) => ({
  inputTokens: l.inputTokens,
  outputTokens: l.outputTokens,
  cacheReadTokens: l.cacheReadTokens,
  cacheWriteTokens: l.cacheWriteTokens,
});

/** One file's tokens from its lines: each request (message id and request id) at its fullest usage
 * line; `inputTokens` with cache reads and writes, as the summary counts it. */
function rawCount(file: string): ReturnType<typeof pick> {
  const byKey = new Map<string, Record<string, number>>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line);
    const m = r.message;
    if (r.type !== 'assistant' || !m?.usage || !m.id) continue;
    const key = `${m.id}/${r.requestId ?? ''}`;
    const before = byKey.get(key);
    if (!before || (m.usage.output_tokens ?? 0) > (before.output_tokens ?? 0)) byKey.set(key, m.usage);
  }
  const out = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  for (const u of byKey.values()) {
    const read = u.cache_read_input_tokens ?? 0;
    const write = u.cache_creation_input_tokens ?? 0;
    out.inputTokens += (u.input_tokens ?? 0) + read + write;
    out.outputTokens += u.output_tokens ?? 0;
    out.cacheReadTokens += read;
    out.cacheWriteTokens += write;
  }
  return out;
}

describe.skipIf(!corpus)('lane costs of OpenCode child sessions', () => {
  let server: RunningServer;
  let client: Client;

  beforeAll(async () => {
    const home = tempDir('cairn-lanes-home-');
    const data = join(home, '.local', 'share', 'opencode');
    mkdirSync(data, { recursive: true });
    const db = join(data, 'opencode.db');
    buildStore(db, [corpusPath('more', 'opencode', 'storage_v2')]);
    const w = new Database(db);
    const session = w.prepare(
      `INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
       VALUES (?, 'proj_test', ?, ?, '/tmp/repo', ?, '1.3.17', ?, ?)`,
    );
    const message = w.prepare(
      'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)',
    );
    const part = w.prepare(
      'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, 0, 0, ?)',
    );
    /** A child session: one prompt and one answer of the given tokens, on the given model. */
    const child = (
      id: string,
      parent: string,
      at: number,
      model: { modelID: string; providerID: string },
      tokens: { input: number; output: number; read: number; write: number },
    ) => {
      session.run(id, parent, id, `Child ${id}`, at, at + 300);
      message.run(`${id}_m1`, id, at, at, JSON.stringify({ role: 'user', time: { created: at } }));
      part.run(`${id}_p1`, `${id}_m1`, id, JSON.stringify({ type: 'text', text: `Work for ${id}` }));
      const answer = { role: 'assistant', time: { created: at + 100 }, ...model };
      message.run(`${id}_m2`, id, at + 100, at + 100, JSON.stringify(answer));
      part.run(`${id}_p2`, `${id}_m2`, id, JSON.stringify({ type: 'text', text: 'done' }));
      part.run(
        `${id}_p3`,
        `${id}_m2`,
        id,
        JSON.stringify({
          type: 'step-finish',
          reason: 'stop',
          tokens: {
            input: tokens.input,
            output: tokens.output,
            reasoning: 0,
            cache: { read: tokens.read, write: tokens.write },
          },
        }),
      );
    };
    child(
      'ses_child',
      's_stage0_small',
      1730000002600,
      { modelID: 'unpriced-model', providerID: 'p' },
      {
        input: 5,
        output: 2,
        read: 40,
        write: 0,
      },
    );
    child(
      'ses_grandchild',
      'ses_child',
      1730000002650,
      { modelID: 'claude-sonnet-4-5', providerID: 'anthropic' },
      {
        input: 1000,
        output: 200,
        read: 3000,
        write: 500,
      },
    );
    w.close();
    server = await serve(homeEnv(home), { rescanMs: 200 });
    client = await Client.open(server);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('nests a child started inside a child under it, and adds every lane up to the session', async () => {
    const reply = (await client.request('session_summary_read', {
      sid: 's_stage0_small',
      agent: 'opencode',
      lanes: true,
    })) as unknown as Reply;
    expect(reply.lanes.map((l) => [l.id, l.parentId])).toEqual([
      ['s_stage0_small', undefined],
      ['ses_child', 's_stage0_small'],
      ['ses_grandchild', 'ses_child'],
    ]);
    expectDepthFirst(reply.lanes);
    for (const key of TOKENS) expect(sumOf(reply.lanes, key), key).toBe(reply.summary[key]);
    const [, child, grandchild] = reply.lanes;
    expect(child).toMatchObject({ inputTokens: 45, outputTokens: 2, cacheReadTokens: 40, requests: 1 });
    expect(grandchild).toMatchObject({ inputTokens: 4500, outputTokens: 200, cacheWriteTokens: 500 });
    // A model without a price leaves the lane's cost unknown: absent, never 0.
    expect(child!.costUsd).toBeUndefined();
    expect(child!.unpricedModels).toEqual(['unpriced-model']);
    // The grandchild's model has a price: $3 a million fresh input, $0.30 cache reads, $3.75 cache
    // writes and $15 output.
    expect(grandchild!.costUsd).toBeCloseTo(1000 * 3e-6 + 3000 * 0.3e-6 + 500 * 3.75e-6 + 200 * 15e-6, 9);
    // With one lane unpriced the session's cost is unknown too, in the list as in the tree.
    const listed = (await client.request('session_list', {})).sessions as {
      sid: string;
      cost_usd?: number;
    }[];
    expect(listed.find((s) => s.sid === 's_stage0_small')).not.toHaveProperty('cost_usd');
  });
});

describe('the context point of a request', () => {
  it('is the bucket the downsampling puts the request in', () => {
    for (const count of [1, 2, 119, 120, 121, 239, 240, 241, 1000, 1237]) {
      for (let index = 0; index < count; index++) {
        // A series that peaks at `index` alone: its downsampled peak is the bucket that holds it.
        const series = Array.from({ length: count }, (_, i) => (i === index ? 2 : 1));
        const shape = downsampleMax(series);
        expect(shapePoint(index, count), `${index} of ${count}`).toBe(shape.indexOf(2));
      }
    }
  });
});
