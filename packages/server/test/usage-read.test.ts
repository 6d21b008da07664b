// `usage_read` through a real server and WebSocket beside the built `cairn usage --json` on the
// same homes: the same rows, tokens and costs for every report and filter, on the corpus and on a
// session working now, whose open billing window carries the burn rate the CLI's blocks show.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateResponse } from '@cairn/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { Client, corpusEnv, type Frame, homeEnv, serve, tempDir } from './helpers.js';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '../../../bin/cairn.js');

type Row = Record<string, unknown>;

function cli(args: string[], env: Record<string, string>): Record<string, unknown> {
  const r = spawnSync(process.execPath, [bin, 'usage', ...args, '--json', '--breakdown'], {
    env: { PATH: process.env.PATH, ...env, CAIRN_HOME: join(env.HOME!, '.cairn-cli') },
    encoding: 'utf8',
    maxBuffer: 256 << 20,
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

const ARRAY = { daily: 'daily', weekly: 'weekly', monthly: 'monthly', session: 'sessions', blocks: 'blocks' };
const KEY = { daily: 'date', weekly: 'week', monthly: 'month', session: 'sessionId', blocks: 'id' };
type Kind = keyof typeof ARRAY;

/** The numbers a row of either answer carries, keyed as the CLI keys them. */
function numbers(kind: Kind, r: Row, fromCli: boolean) {
  const counts = fromCli && kind === 'blocks' ? (r.tokenCounts as Record<string, number>) : undefined;
  return {
    key: fromCli ? r[KEY[kind]] : r.key,
    inputTokens: counts ? counts.inputTokens : r.inputTokens,
    outputTokens: counts ? counts.outputTokens : r.outputTokens,
    cacheCreationTokens: counts ? counts.cacheCreationInputTokens : r.cacheCreationTokens,
    cacheReadTokens: counts ? counts.cacheReadInputTokens : r.cacheReadTokens,
    totalTokens: r.totalTokens,
    cost: kind === 'blocks' && fromCli ? r.costUSD : r.totalCost,
    models: fromCli && kind === 'blocks' ? r.models : r.modelsUsed,
    modelBreakdowns: r.modelBreakdowns,
    agents: r.agents,
    projects: r.projects,
  };
}

async function compare(client: Client, env: Record<string, string>, kind: Kind, args: Row, flags: string[]) {
  const reply = await client.request('usage_read', { kind, ...args });
  expect(reply.ok, JSON.stringify(reply).slice(0, 300)).toBe(true);
  expect(validateResponse('usage_read', reply).ok).toBe(true);
  const ours = cli([kind, ...flags], env);
  const theirs = ours[ARRAY[kind]] as Row[];
  const rows = reply.rows as Row[];
  expect(rows.length, `${kind} ${flags.join(' ')}`).toBe(theirs.length);
  expect(rows.map((r) => numbers(kind, r, false))).toEqual(theirs.map((r) => numbers(kind, r, true)));
  expect(reply.totals).toEqual(ours.totals);
  expect(reply.prices).toBe(ours.prices);
  return reply;
}

describe.skipIf(!corpus)('usage_read over the corpus', () => {
  let server: RunningServer;
  let client: Client;
  let env: Record<string, string>;
  const TZ = 'America/New_York';

  beforeAll(async () => {
    env = corpusEnv();
    server = await serve(env);
    client = await Client.open(server);
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it.each(['daily', 'weekly', 'monthly', 'session', 'blocks'] as const)(
    '%s: the rows, tokens and costs of cairn usage --json',
    async (kind) => {
      const reply = await compare(client, env, kind, { timezone: TZ }, ['--timezone', TZ]);
      expect((reply.rows as Row[]).length).toBeGreaterThan(1);
      expect(reply.timezone).toBe(TZ);
      // The corpus's sessions are old: no window is open.
      expect(reply.active).toBeUndefined();
    },
    120_000,
  );

  it('narrows by agent, model, project and days as the CLI does', async () => {
    const all = (await client.request('usage_read', { kind: 'session', timezone: 'UTC' })) as Frame;
    const rows = all.rows as Row[];
    const busiest = [...rows].sort((a, b) => (b.totalTokens as number) - (a.totalTokens as number))[0]!;
    const project = (busiest.projects as string[])[0]!;
    const model = (busiest.modelsUsed as string[])[0]!;
    const daily = (await client.request('usage_read', { kind: 'daily', timezone: 'UTC' })).rows as Row[];
    const day = daily[Math.floor(daily.length / 2)]!.key as string;
    const cases: [Row, string[]][] = [
      [{ agent: 'codex' }, ['--agent', 'codex']],
      [{ agent: 'claude' }, ['--agent', 'claude']],
      [{ model: model.slice(0, 10).toUpperCase() }, ['--model', model.slice(0, 10).toUpperCase()]],
      [{ project }, ['--project', project]],
      [{ since: day }, ['--since', day]],
      [{ until: day }, ['--until', day]],
    ];
    for (const [args, flags] of cases) {
      const reply = await compare(client, env, 'daily', { ...args, timezone: 'UTC' }, [
        ...flags,
        '--timezone',
        'UTC',
      ]);
      // Each filter keeps some requests and leaves others out.
      const kept = (reply.totals as Row).totalTokens as number;
      expect(kept, JSON.stringify(args)).toBeGreaterThan(0);
      expect(kept, JSON.stringify(args)).toBeLessThan((all.totals as Row).totalTokens as number);
    }
  }, 180_000);

  it('splits every row by project, and the pieces add up to the row', async () => {
    for (const kind of ['daily', 'monthly', 'session'] as const) {
      const reply = await client.request('usage_read', { kind, timezone: TZ });
      const rows = reply.rows as Row[];
      expect(rows.length).toBeGreaterThan(1);
      for (const r of rows) {
        const parts = r.projectBreakdowns as { project: string; totalTokens: number; cost: number | null }[];
        expect(parts.length, `${kind} ${r.key}`).toBeGreaterThan(0);
        expect(parts.reduce((sum, p) => sum + p.totalTokens, 0)).toBe(r.totalTokens);
        if (r.totalCost === null) expect(parts.some((p) => p.cost === null)).toBe(true);
        else expect(parts.reduce((sum, p) => sum + p.cost!, 0)).toBeCloseTo(r.totalCost as number, 6);
        // Every named folder of the row has its piece, the dearest first.
        const named = parts.map((p) => p.project).filter((p) => p !== '');
        expect(named.sort()).toEqual(r.projects);
        const costs = parts.map((p) => p.cost ?? -1);
        expect(costs).toEqual([...costs].sort((a, b) => b - a));
      }
    }
    // Across the whole corpus more than one project shares a day.
    const daily = (await client.request('usage_read', { kind: 'daily', timezone: TZ })).rows as Row[];
    expect(daily.some((r) => (r.projectBreakdowns as unknown[]).length > 1)).toBe(true);
  }, 120_000);

  it('keeps the dashboard’s breakdowns out of cairn usage --json', () => {
    const shape: Record<Kind, string[]> = {
      daily: ['date', 'period'],
      weekly: ['week', 'period'],
      monthly: ['month', 'period'],
      session: ['sessionId', 'title', 'firstActivity', 'lastActivity'],
      blocks: [],
    };
    const counts = [
      'inputTokens',
      'outputTokens',
      'cacheCreationTokens',
      'cacheReadTokens',
      'totalTokens',
      'totalCost',
      'reasoningTokens',
    ];
    for (const kind of ['daily', 'weekly', 'monthly', 'session'] as const) {
      const rows = cli([kind, '--timezone', TZ], env)[ARRAY[kind]] as Row[];
      const allowed = new Set([
        ...shape[kind],
        ...counts,
        'modelsUsed',
        'modelBreakdowns',
        'agents',
        'projects',
      ]);
      for (const r of rows) {
        expect(
          Object.keys(r).filter((k) => !allowed.has(k)),
          `${kind} ${JSON.stringify(r).slice(0, 80)}`,
        ).toEqual([]);
      }
    }
    const blocks = cli(['blocks', '--timezone', TZ], env).blocks as Row[];
    for (const r of blocks) {
      expect(r).not.toHaveProperty('projectBreakdowns');
      expect(r).not.toHaveProperty('agentBreakdowns');
    }
  }, 120_000);

  it('names the argument it cannot take', async () => {
    expect(await client.request('usage_read', { timezone: 'Mars/Olympus' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_args', field: '/timezone' },
    });
    expect(await client.request('usage_read', { since: '2026-02-02', until: '2026-02-01' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_args', field: '/since' },
    });
    expect(await client.request('usage_read', { since: 'yesterday' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_args', field: '/since' },
    });
    expect(await client.request('usage_read', { kind: 'hourly' })).toMatchObject({
      ok: false,
      error: { code: 'invalid_args' },
    });
  });
});

/** A Claude Code session whose requests came in the last two hours, 20 minutes apart. */
function workingHome(): { env: Record<string, string>; file: string; lines: string[]; sessionId: string } {
  const home = tempDir('cairn-usage-now-');
  const env = homeEnv(home);
  const project = join(home, '.claude', 'projects', '-home-dev-burn');
  mkdirSync(project, { recursive: true });
  const sessionId = '0c0ffee0-0000-4000-8000-00000000b0b0';
  const lines: string[] = [];
  const now = Date.now();
  for (let i = 0; i < 5; i++) {
    const stamp = new Date(now - (100 - 20 * i) * 60_000).toISOString();
    lines.push(
      JSON.stringify({
        type: 'user',
        uuid: `u${i}`,
        parentUuid: i === 0 ? null : `a${i - 1}`,
        sessionId,
        cwd: '/home/dev/burn',
        timestamp: stamp,
        message: { role: 'user', content: `step ${i}` },
      }),
      JSON.stringify({
        type: 'assistant',
        uuid: `a${i}`,
        parentUuid: `u${i}`,
        sessionId,
        cwd: '/home/dev/burn',
        timestamp: stamp,
        requestId: `req_${i}`,
        message: {
          id: `msg_${i}`,
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [{ type: 'text', text: `done ${i}` }],
          usage: {
            input_tokens: 40 + i,
            output_tokens: 900 + i,
            cache_read_input_tokens: 4_000 * i,
            cache_creation_input_tokens: 500,
          },
        },
      }),
    );
  }
  const file = join(project, `${sessionId}.jsonl`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return { env, file, lines, sessionId };
}

describe('usage_read on a session working now', () => {
  let server: RunningServer;
  let client: Client;
  let home: ReturnType<typeof workingHome>;

  beforeAll(async () => {
    home = workingHome();
    server = await serve(home.env);
    client = await Client.open(server);
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await server?.close();
  });

  it("answers the open window with the burn rate and projection of the CLI's blocks", async () => {
    const reply = await compare(client, home.env, 'blocks', {}, []);
    const active = reply.active as Row;
    expect(active).toBeDefined();
    expect(active.sessions).toMatchObject([{ agent: 'claude-code', sid: home.sessionId }]);
    const blocks = cli(['blocks'], home.env).blocks as Row[];
    const last = blocks.at(-1)!;
    expect(last.isActive).toBe(true);
    expect((active.row as Row).key).toBe(last.id);
    expect(active.burnRate).toEqual(last.burnRate);
    const projection = active.projection as Record<string, number>;
    const cliProjection = last.projection as Record<string, number>;
    // Both are taken a moment apart: a minute may have passed between them.
    expect(Math.abs(projection.remainingMinutes! - cliProjection.remainingMinutes!)).toBeLessThanOrEqual(1);
    expect(projection.totalTokens).toBeGreaterThan((active.row as Row).totalTokens as number);
  });
});
