// Copilot CLI's per-request token counts. The real Copilot CLI (1.0.102), driven against the
// scripted model on 127.0.0.1 for two turns (the first runs a shell command, so it makes two model
// requests), writes a `session.usage_record` per request and, when it exits, a `session.shutdown`
// whose totals are their sums. cairn makes a request of each record, with its tokens and duration,
// and its session totals stay ccusage 20.0.24's (which reads only the shutdown). Copies of the file
// with lines taken away show the rest: a running session (no shutdown yet) counts its requests in
// cairn and nothing in ccusage; a record missing from the file leaves its tokens to the shutdown's
// totals, so the session's sum does not change.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTestEnv, ensureTestAgents, testAgentLaunch } from '../../runner/test/support/agents.js';
import { startBareClient } from '../../runner/test/support/bare-client.js';
import { type FakeModel, startFakeModel } from '../../runner/test/support/fake-model.js';
import { loadTranscript, nodePlatform, type Transcript } from '../../transcript/src/index.js';
import { ccusageBin, ccusageJson } from './ccusage.js';
import { cairn } from './run.js';

type Row = Record<string, unknown>;
type Json = Record<string, unknown>;

/** The scripted requests' counts (OpenAI's input includes the cached tokens, and so does Copilot's). */
const REQUESTS = [
  { input: 1500, output: 40, cached: 300 },
  { input: 1700, output: 9, cached: 1200 },
  { input: 2100, output: 5, cached: 1600 },
];

const counts = (r: Row) => ({
  inputTokens: r.inputTokens,
  outputTokens: r.outputTokens,
  cacheCreationTokens: r.cacheCreationTokens,
  cacheReadTokens: r.cacheReadTokens,
});

function cairnJson(args: string[], env: NodeJS.ProcessEnv): Json {
  const r = cairn(['usage', ...args, '--json'], env);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Json;
}

const bin = ccusageBin();

describe.skipIf(!bin)('Copilot CLI requests from its usage records', () => {
  let scratchRoot: string;
  let home: string;
  let file: string;
  let lines: string[];

  beforeAll(async () => {
    const agentsHome = await ensureTestAgents();
    scratchRoot = mkdtempSync(join(tmpdir(), 'cairn-usage-copilot-'));
    const model: FakeModel = await startFakeModel();
    const cwd = join(scratchRoot, 'work');
    await mkdir(cwd, { recursive: true });
    const setup = await agentTestEnv('copilot-cli', model.url, scratchRoot);
    const { command, args, env } = await testAgentLaunch('copilot-cli', agentsHome);
    const client = startBareClient({
      command,
      args,
      env: { ...setup.env, ...env },
      cwd,
      permission: 'allow',
    });
    try {
      await client.initialize(setup.initialize ?? {});
      const [a, b, c] = REQUESTS.map((u) => ({ kind: 'usage' as const, ...u }));
      model.script(
        {
          when: 'Count the stones',
          steps: [
            {
              kind: 'tool',
              name: 'bash',
              input: { command: 'echo stones', description: 'Counts', mode: 'sync', initial_wait: 10 },
            },
            a!,
          ],
        },
        { steps: [{ kind: 'text', text: 'Seven stones.' }, b!] },
        { when: 'And again', steps: [{ kind: 'text', text: 'Still seven.' }, c!] },
      );
      const { sessionId } = await client.newSession({ cwd });
      expect((await client.prompt(sessionId, 'Count the stones.')).stopReason).toBe('end_turn');
      expect((await client.prompt(sessionId, 'And again.')).stopReason).toBe('end_turn');
      // Copilot writes its shutdown when its stdin closes and it is given a moment.
      client.child.stdin?.end();
      await Promise.race([client.exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
    } finally {
      await client.close();
      await model.close();
    }
    home = setup.env.HOME!;
    const state = join(home, '.copilot', 'session-state');
    const [id] = readdirSync(state).filter((n) => !n.startsWith('.'));
    file = join(state, id!, 'events.jsonl');
    lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '');
  }, 900_000);

  afterAll(() => {
    if (scratchRoot) rmSync(scratchRoot, { recursive: true, force: true });
  });

  const typeOf = (line: string) => (JSON.parse(line) as { type: string }).type;

  /** A home holding a copy of the session whose events file has `keep`'s lines. */
  function copyWith(keep: (line: string, i: number) => boolean): { env: NodeJS.ProcessEnv; file: string } {
    const other = mkdtempSync(join(scratchRoot, 'copy-'));
    const dir = join(other, '.copilot', 'session-state', file.split('/').at(-2)!);
    cpSync(join(file, '..'), dir, { recursive: true });
    const copy = join(dir, 'events.jsonl');
    writeFileSync(copy, `${lines.filter(keep).join('\n')}\n`);
    return { env: { PATH: process.env.PATH, HOME: other, CAIRN_HOME: join(other, '.cairn') }, file: copy };
  }

  async function load(path: string, env: NodeJS.ProcessEnv): Promise<Transcript> {
    const platform = nodePlatform({ env: env as Record<string, string>, homeDir: env.HOME! });
    const loaded = await loadTranscript(platform, { agent: 'copilot-cli', path });
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    return loaded.value;
  }

  const usageRequests = (t: Transcript) =>
    t.events.filter((e) => e.kind === 'request' && e.payload.usage !== undefined) as Extract<
      Transcript['events'][number],
      { kind: 'request' }
    >[];

  it('writes a usage record per request, and a shutdown whose totals are their sums', () => {
    const types = lines.map(typeOf);
    expect(types.filter((t) => t === 'session.usage_record')).toHaveLength(3);
    expect(types.filter((t) => t === 'session.shutdown')).toHaveLength(1);
    const shutdown = JSON.parse(lines.find((l) => typeOf(l) === 'session.shutdown')!) as {
      data: { modelMetrics: Record<string, { usage: Record<string, number> }> };
    };
    expect(shutdown.data.modelMetrics.scripted!.usage).toMatchObject({
      inputTokens: 1500 + 1700 + 2100,
      outputTokens: 40 + 9 + 5,
      cacheReadTokens: 300 + 1200 + 1600,
    });
  });

  it('makes a request of each record, with its tokens, and declares requests', async () => {
    const env = { PATH: process.env.PATH, HOME: home };
    const t = await load(file, env);
    const requests = usageRequests(t);
    expect(requests.map((e) => e.payload.usage)).toEqual(
      REQUESTS.map((u) => ({
        inputTokens: u.input,
        outputTokens: u.output,
        cacheReadTokens: u.cached,
        cacheWriteTokens: 0,
      })),
    );
    for (const e of requests) {
      expect(e.payload.model).toBe('scripted');
      expect(e.payload.durationMs).toBeTypeOf('number');
      expect(e.timestamp).toBeTypeOf('number');
    }
    expect(requests.map((e) => e.payload.stopReason)).toEqual(['tool_calls', 'stop', 'stop']);
    // The shutdown's totals are whole in the records: no request of its own.
    expect(t.events.filter((e) => e.kind === 'request')).toHaveLength(3);
    expect(t.capabilities).toContain('requests');
    expect(t.capabilities).toContain('usage');
  });

  it.each(['session', 'daily'] as const)('%s: the same tokens as ccusage', (report) => {
    const env = { PATH: process.env.PATH, HOME: home, CAIRN_HOME: join(home, '.cairn') };
    const array = report === 'session' ? 'sessions' : 'daily';
    const theirs = (ccusageJson(bin!, ['copilot', report, '--timezone', 'UTC'], env)[array] as Row[]).map(
      counts,
    );
    const ours = (cairnJson([report, '--agent', 'copilot', '--timezone', 'UTC'], env)[array] as Row[]).map(
      counts,
    );
    expect(theirs).toHaveLength(1);
    expect(ours).toEqual(theirs);
    expect(ours[0]).toEqual({
      inputTokens: 1500 + 1700 + 2100 - (300 + 1200 + 1600),
      outputTokens: 40 + 9 + 5,
      cacheCreationTokens: 0,
      cacheReadTokens: 300 + 1200 + 1600,
    });
  });

  it('counts a running session (no shutdown yet) by its records, where ccusage counts nothing', async () => {
    const copy = copyWith((l) => typeOf(l) !== 'session.shutdown');
    const t = await load(copy.file, copy.env);
    expect(usageRequests(t)).toHaveLength(3);
    expect(t.capabilities).toContain('usage');
    expect(ccusageJson(bin!, ['copilot', 'session'], copy.env).sessions).toEqual([]);
    const [row] = cairnJson(['session', '--agent', 'copilot'], copy.env).sessions as Row[];
    expect(row!.outputTokens).toBe(40 + 9 + 5);
  });

  it("leaves a missing record's tokens to the shutdown's totals, so the sum stays ccusage's", async () => {
    const second = lines.findIndex(
      (l, i) =>
        typeOf(l) === 'session.usage_record' &&
        i > lines.findIndex((m) => typeOf(m) === 'session.usage_record'),
    );
    const copy = copyWith((_, i) => i !== second);
    const t = await load(copy.file, copy.env);
    const requests = usageRequests(t);
    expect(requests).toHaveLength(3);
    // The third is the shutdown's: what its totals count beyond the two records left.
    expect(requests[2]!.payload.scope).toBe('process totals beyond its usage records');
    expect(requests[2]!.payload.usage).toEqual({
      inputTokens: 1700,
      outputTokens: 9,
      cacheReadTokens: 1200,
      cacheWriteTokens: 0,
    });
    // Not every request is in the file as itself any more.
    expect(t.capabilities).not.toContain('requests');
    const theirs = (ccusageJson(bin!, ['copilot', 'session'], copy.env).sessions as Row[]).map(counts);
    const ours = (cairnJson(['session', '--agent', 'copilot'], copy.env).sessions as Row[]).map(counts);
    expect(ours).toEqual(theirs);
  });
});
