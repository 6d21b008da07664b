// One real OpenCode turn (the opencode-ai package the drive tests install), run with `opencode run`
// against a scripted model server on 127.0.0.1, and the opencode.db it writes read back: the
// store as the agent itself keeps it, WAL and all. Skipped where the test agents are not installed.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTestEnv, testAgentsHome } from '../../../runner/test/support/agents.js';
import { type FakeModel, startFakeModel } from '../../../runner/test/support/fake-model.js';
import {
  foldTranscript,
  listSessions,
  loadTranscript,
  readOriginal,
  type SessionHead,
  summarizeSession,
} from '../../src/index.js';
import { nodePlatform } from '../../src/platform-node.js';

const BIN = join(testAgentsHome(), 'agents', 'opencode', 'node_modules', '.bin', 'opencode');

describe.skipIf(!existsSync(BIN))('a real OpenCode turn, read from the opencode.db it wrote', () => {
  let model: FakeModel;
  let env: Record<string, string>;
  let project: string;
  const heads: SessionHead[] = [];

  beforeAll(async () => {
    model = await startFakeModel();
    const scratch = mkdtempSync(join(tmpdir(), 'cairn-opencode-real-'));
    project = join(scratch, 'project');
    mkdirSync(project, { recursive: true });
    env = (await agentTestEnv('opencode', model.url, scratch)).env;
    model.script({
      steps: [
        { kind: 'tool', name: 'bash', input: { command: 'echo hello-from-bash', description: 'Say hello' } },
        { kind: 'usage', input: 300, output: 20, cached: 100 },
      ],
    });
    model.script({
      steps: [
        { kind: 'text', text: 'The command printed hello.' },
        { kind: 'usage', input: 420, output: 9 },
      ],
    });
    await runOpenCode(['run', '--model', 'fake/scripted', 'Run echo for me'], project, env);
    const platform = nodePlatform({ env, homeDir: env.HOME! });
    for await (const e of listSessions(platform, { agent: 'opencode' })) {
      if ('ref' in e) throw new Error(e.error.message);
      heads.push(e);
    }
  }, 180_000);
  afterAll(async () => {
    await model?.close();
  });

  it('lists the session from the store with its folder', () => {
    const data = join(env.XDG_DATA_HOME!, 'opencode');
    expect(readdirSync(data).some((n) => /^opencode.*\.db$/.test(n))).toBe(true);
    expect(heads).toHaveLength(1);
    expect(heads[0]!.cwd).toBe(project);
    expect(heads[0]!.path).toMatch(/opencode[^/]*\.db#ses_/);
  });

  it('reads the prompt, the paired bash call and each step’s request, with the message rows’ tokens', async () => {
    const platform = nodePlatform({ env, homeDir: env.HOME! });
    const loaded = await loadTranscript(platform, { agent: 'opencode', path: heads[0]!.path });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const t = loaded.value;
    // The prompt as `opencode run` recorded it.
    expect(t.events.find((e) => e.kind === 'user' && !e.payload.synthetic)?.payload.text).toContain(
      'Run echo for me',
    );
    const call = t.events.find((e) => e.kind === 'tool_call');
    expect(call?.payload).toMatchObject({ name: 'bash', input: { command: 'echo hello-from-bash' } });
    const result = t.events.find((e) => e.kind === 'tool_result');
    expect(result?.payload.callId).toBe(call?.payload.callId);
    expect(String(result?.payload.output)).toContain('hello-from-bash');
    expect(result?.payload.orphan).toBeUndefined();
    expect(t.events.some((e) => e.kind === 'assistant' && e.payload.text.includes('printed hello'))).toBe(
      true,
    );
    // The numbers ccusage 20.0.24 takes from the message rows (its inputTokens + cache reads and
    // writes; checked by hand once against its own output on such a store: equal), counted here.
    const db = heads[0]!.path.slice(0, heads[0]!.path.lastIndexOf('#'));
    const conn = new Database(db, { readonly: true });
    let input = 0;
    let output = 0;
    for (const r of conn.prepare('SELECT data FROM message').all() as { data: string }[]) {
      const d = JSON.parse(r.data);
      if (d.role !== 'assistant' || !d.tokens || !d.modelID || !d.providerID) continue;
      input += d.tokens.input + d.tokens.cache.read + d.tokens.cache.write;
      output += d.tokens.output + d.tokens.reasoning;
    }
    conn.close();
    const s = foldTranscript(t);
    expect(s.requests).toBeGreaterThanOrEqual(2);
    expect(s.inputTokens).toBe(input);
    expect(s.outputTokens).toBe(output);
    expect(s.turns).toBe(1);
    // The adapter's summary pass, which builds no events, gives the fold's numbers and prompts.
    const fast = await summarizeSession(
      platform,
      { agent: 'opencode', path: heads[0]!.path },
      { prompts: true },
    );
    expect(fast.ok && fast.value).toEqual(foldTranscript(t, { prompts: true }));
    // Every pointer names a row that reads back.
    for (const x of [...t.events, ...t.skipped].slice(0, 40)) {
      const back = await readOriginal(platform, x.source);
      if (!back.ok) throw new Error(back.error.message);
      expect(JSON.parse(new TextDecoder().decode(back.value))).toHaveProperty('id');
    }
  });
});

/** `opencode <args>` with no input (a pipe left open on stdin is read as more of the prompt). */
function runOpenCode(args: string[], cwd: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    child.stdout.resume();
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`opencode ${args[0]} exited ${code}: ${err.slice(-2000)}`));
    });
  });
}
