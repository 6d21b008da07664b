// What the session list says of each corpus session beyond its head: the model, the person's
// prompts (slash commands included), tokens, a dollar cost from the offline price catalog (none
// for a model it does not price), duration, failures and git branch; and search hits titled like
// list rows.
import { loadTranscript, nodePlatform, summarizeSession } from '@cairn/transcript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import {
  addRequest,
  emptyModelUsage,
  modelCost,
  PRICES_SOURCE,
  requestCost,
  sessionCost,
  usageByModel,
} from '../src/usage/pricing.js';
import { Client, corpusEnv, serve } from './helpers.js';

type Row = Record<string, unknown> & { agent: string; sid: string; path: string };

describe('pricing', () => {
  const usage = { inputTokens: 1_000_000, outputTokens: 100_000, cacheReadTokens: 0, cacheWriteTokens: 0 };
  const tally = (model: string) => {
    const m = emptyModelUsage(model);
    addRequest('claude-code', m, usage);
    return m;
  };

  it('prices a known model from the bundled catalog and names the catalog with its version', () => {
    // Claude Opus 4.6 costs $5 per million input tokens and $25 per million output tokens.
    expect(requestCost('claude-code', 'claude-opus-4-6', usage)).toBeCloseTo(5 + 2.5, 6);
    expect(modelCost(tally('claude-opus-4-6'))).toBeCloseTo(5 + 2.5, 6);
    expect(PRICES_SOURCE).toBe('genai-prices 0.1.8');
  });

  it('counts cache reads at their own, lower price', () => {
    const cached = { ...usage, cacheReadTokens: 1_000_000 };
    expect(requestCost('claude-code', 'claude-opus-4-6', cached)).toBeLessThan(
      requestCost('claude-code', 'claude-opus-4-6', usage)!,
    );
  });

  it('gives no cost, not $0, for a model the catalog does not know, even beside a known one', () => {
    expect(requestCost('claude-code', 'no-such-model-7', usage)).toBeUndefined();
    expect(modelCost(tally('no-such-model-7'))).toBeUndefined();
    expect(sessionCost([tally('claude-opus-4-6'), tally('no-such-model-7')])).toBeUndefined();
    expect(sessionCost([])).toBeUndefined();
  });
});

describe.skipIf(!corpus)('the list rows of the corpus sessions', () => {
  let server: RunningServer;
  let client: Client;
  let env: Record<string, string>;
  let rows: Row[];
  const platform = () => nodePlatform({ env, homeDir: env.HOME });
  const row = (sid: string) => rows.find((r) => r.sid === sid)!;

  beforeAll(async () => {
    env = corpusEnv();
    server = await serve(env);
    client = await Client.open(server);
    const reply = await client.request('session_list', { limit: 1000 });
    rows = reply.sessions as Row[];
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('shows each session’s tokens, duration and failures as its summary counts them', async () => {
    for (const r of rows.filter((r) => ['claude-code', 'codex', 'gemini-cli'].includes(r.agent))) {
      const s = await summarizeSession(platform(), { agent: r.agent, path: r.path });
      if (!s.ok) continue;
      expect(r.input_tokens, r.sid).toBe(s.value.inputTokens);
      expect(r.output_tokens, r.sid).toBe(s.value.outputTokens);
      expect(r.failed_tools, r.sid).toBe(s.value.failedTools);
      if (s.value.durationMs !== undefined) expect(r.duration_ms, r.sid).toBe(Math.round(s.value.durationMs));
    }
  });

  it('names the most used model and prices it, with the catalog named beside the cost', async () => {
    const spotter = row('4d5611e5-241a-462a-8d15-5122611a9569');
    expect(spotter.model).toBe('claude-opus-4-6');
    const loaded = await loadTranscript(platform(), { agent: 'claude-code', path: spotter.path });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const expected = sessionCost(usageByModel('claude-code', loaded.value))!;
    expect(expected).toBeGreaterThan(1);
    expect(spotter.cost_usd).toBeCloseTo(expected, 9);
    expect(spotter.prices).toBe(PRICES_SOURCE);
    const codex = rows.filter((r) => r.agent === 'codex' && r.model !== undefined);
    expect(codex.length).toBeGreaterThan(0);
    for (const r of codex) {
      expect(String(r.model)).toMatch(/^gpt-/);
      expect(r.cost_usd as number).toBeGreaterThan(0);
    }
  });

  it('counts a slash command the person typed as a prompt, once, and titles a session by it', () => {
    // subagent.jsonl starts with `/handgemacht:create-beads …`, then "create the beads" is typed.
    const started = row('subagent');
    expect(started.prompts).toBe(2);
    expect(String(started.first_prompt)).toMatch(/^\/handgemacht:create-beads websearch to learn/);
    // tool_heavy.jsonl: `/mcp` (recorded as a user record and echoed by a system record) and two
    // typed prompts.
    expect(row('tool_heavy').prompts).toBe(3);
    // short.jsonl: one typed prompt and `/model`, recorded only as a system record.
    expect(row('short').prompts).toBe(2);
  });

  it('shows the git branch the session recorded', () => {
    expect(row('tool_heavy').git_branch).toBe('master');
    const codex = rows.filter((r) => r.agent === 'codex' && r.git_branch !== undefined);
    expect(codex.map((r) => r.git_branch)).toContain('main');
  });

  it('titles a search hit as the list titles its session', async () => {
    const reply = await client.request('session_search', { query: 'xterm', limit: 20 });
    const hits = reply.hits as Record<string, unknown>[];
    expect(hits.length).toBeGreaterThan(0);
    for (const h of hits) {
      const r = rows.find((x) => x.sid === h.sid)!;
      expect(h.title, String(h.sid)).toBe(r.title ?? r.first_prompt);
      expect(h.title).not.toBe(h.sid);
    }
  });
});
