// With no agent session anywhere, the server serves demo sessions it wrote itself, in each agent's own
// format, from a temporary home.
import { existsSync } from 'node:fs';
import { loadTranscript, nodePlatform } from '@cairn/transcript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeDemoHome, type RunningServer } from '../src/index.js';
import { Client, homeEnv, serve, tempDir } from './helpers.js';

describe('demo mode', () => {
  let server: RunningServer;
  let client: Client;
  let home: string;

  beforeAll(async () => {
    home = tempDir('cairn-empty-');
    server = await serve(homeEnv(home), { demo: true });
    client = await Client.open(server);
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it('lists demo sessions of every agent, from a temporary home and not the real one', async () => {
    expect(server.demoHome).toBeDefined();
    expect(server.demoHome!.startsWith(home)).toBe(false);
    expect(existsSync(`${home}/.claude`)).toBe(false);
    const reply = await client.request('session_list');
    const agents = new Set((reply.sessions as { agent: string }[]).map((h) => h.agent));
    expect(agents).toEqual(
      new Set(['claude-code', 'codex', 'gemini-cli', 'qwen-code', 'pi', 'copilot-cli', 'opencode', 'kilo']),
    );
  });

  it('writes files every adapter reads without a skipped record: a Claude Code session with a subagent and a compaction', async () => {
    const demo = makeDemoHome();
    try {
      const platform = nodePlatform({ env: demo.env, homeDir: demo.home });
      for (const [agent, files] of Object.entries(demo.files)) {
        const main = files[0]!;
        const loaded = await loadTranscript(platform, { agent, path: main });
        if (!loaded.ok) throw new Error(loaded.error.message);
        const t = loaded.value;
        const unreadable = new Set([
          'invalid JSON',
          'truncated line',
          'invalid UTF-8',
          'NUL bytes',
          'empty line',
        ]);
        expect(
          t.skipped.filter((s) => unreadable.has(s.reason)),
          agent,
        ).toEqual([]);
        expect(
          t.events.some((e) => e.kind === 'tool_call'),
          agent,
        ).toBe(true);
        expect(
          t.events.some((e) => e.kind === 'tool_result' && !e.payload.orphan),
          agent,
        ).toBe(true);
        expect(
          t.events.some((e) => e.kind === 'unknown'),
          agent,
        ).toBe(false);
      }
      const claude = await loadTranscript(platform, {
        agent: 'claude-code',
        path: demo.files['claude-code'][0]!,
      });
      if (!claude.ok) throw new Error(claude.error.message);
      expect(claude.value.agents.length).toBe(2);
      expect(claude.value.events.some((e) => e.kind === 'compaction')).toBe(true);
    } finally {
      demo.remove();
    }
  });

  it('summarizes and searches the demo sessions like any other', async () => {
    const list = (await client.request('session_list')).sessions as {
      agent: string;
      sid: string;
      files: string[];
    }[];
    const claude = list.find((h) => h.agent === 'claude-code' && h.files.length === 2)!;
    const summary = await client.request('session_summary_read', { sid: claude.sid, agent: 'claude-code' });
    expect(summary.summary).toMatchObject({ subagents: 1, compactions: 1, turns: 3 });
    const search = await client.request('session_search', { query: 'forecast timeout' });
    expect((search.hits as unknown[]).length).toBeGreaterThan(0);
  });
});
