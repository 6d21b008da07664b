// cairn usage on the corpus: its filters, its strict arguments, a model the catalog does not price
// (no cost, never $0), and rows that add up to the sessions' own numbers.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { cairn, corpusEnv } from './run.js';

type Row = Record<string, unknown>;

describe.skipIf(!corpus)('cairn usage', () => {
  const env = corpusEnv();
  const json = (args: string[]) => {
    const r = cairn(['usage', ...args, '--json'], env);
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as Record<string, Row[]> & { totals: Row; prices: string };
  };

  it('adds up to what cairn summary counts for each session', () => {
    const sessions = json(['session', '--agent', 'claude']).sessions!;
    const summary = cairn(['summary', 'fa812bfe', '--json'], env);
    const s = JSON.parse(summary.stdout);
    const row = sessions.find((r) => r.sessionId === s.id)!;
    const total =
      (row.inputTokens as number) + (row.cacheReadTokens as number) + (row.cacheCreationTokens as number);
    expect(total).toBe(s.summary.inputTokens);
    expect(row.outputTokens).toBe(s.summary.outputTokens);
    expect(row.totalCost).toBeCloseTo(s.costUsd, 9);
    expect(row.projects).toEqual(['/home/USER/projects/spotter-worktrees/spotter-a0y']);
  });

  it('keeps the days in --since/--until, the models matching --model, the sessions of --project', () => {
    const all = json(['daily', '--timezone', 'UTC']).daily!;
    expect(all.map((r) => r.date)).toEqual([
      '2025-10-21',
      '2026-02-10',
      '2026-02-12',
      '2026-02-23',
      '2026-02-24',
    ]);
    expect(
      json(['daily', '--timezone', 'UTC', '--since', '20260211', '--until', '2026-02-23']).daily!.map(
        (r) => r.date,
      ),
    ).toEqual(['2026-02-12', '2026-02-23']);
    const haiku = json(['daily', '--model', 'haiku']);
    expect(haiku.daily!.every((r) => (r.modelsUsed as string[]).every((m) => m.includes('haiku')))).toBe(
      true,
    );
    expect(haiku.daily!.length).toBe(1);
    const spotter = json(['session', '--project', 'spotter']).sessions!;
    expect(spotter.length).toBeGreaterThan(0);
    expect(spotter.every((r) => (r.projects as string[])[0]!.endsWith('spotter'))).toBe(true);
  });

  it('adds a row per model with --breakdown, in the table and in the JSON', () => {
    const rows = json(['monthly', '--agent', 'claude', '--breakdown']).monthly!;
    const feb = rows.find((r) => r.month === '2026-02')!;
    const parts = feb.modelBreakdowns as Row[];
    expect(parts.map((m) => m.modelName).sort()).toEqual([...(feb.modelsUsed as string[])].sort());
    expect(parts.reduce((n, m) => n + (m.outputTokens as number), 0)).toBe(feb.outputTokens);
    const table = cairn(['usage', 'monthly', '--agent', 'claude', '--breakdown'], env);
    expect(table.status).toBe(0);
    expect(table.stdout).toMatch(/^period +input +output +cache read +cache write +total +cost +models$/m);
    expect(table.stdout).toMatch(/^ +[\d,]+ .* {2}claude-haiku-4-5-20251001$/m);
    expect(table.stdout).toContain('genai-prices 0.1.8');
  });

  it.each([
    [['usage', 'hourly'], "unknown report 'hourly'; give one of daily, weekly, monthly, session, blocks"],
    [['usage', 'daily', 'monthly'], "unexpected argument 'monthly'"],
    [['usage', '--since', '2026-02-31'], "--since '2026-02-31' is not a date"],
    [['usage', '--until', 'yesterday'], "--until 'yesterday' is not a date"],
    [
      ['usage', '--since', '2026-03-01', '--until', '2026-02-01'],
      '--since 2026-03-01 is after --until 2026-02-01',
    ],
    [['usage', '--timezone', 'Mars/Olympus'], "--timezone 'Mars/Olympus' is not a time zone"],
    [['usage', '--agent', 'foo'], "unknown agent 'foo'"],
    [['usage', '--json=yes'], '--json is a switch and takes no value'],
    [['usage', '--project', ''], '--project is empty'],
    [['usage', 'daily', '--live'], '--live goes with blocks only'],
    [['usage', 'blocks', '--live', '--json'], '--live draws for a person; it takes no --json'],
    [['usage', '--hourly'], "unknown option '--hourly'"],
  ])('%j is a usage error: %s', (args, message) => {
    const r = cairn(args, env);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(message);
    expect(r.stderr).toContain('usage: cairn usage');
  });
});

describe('cairn usage with a model the catalog does not price', () => {
  it('shows no cost for it, never $0, and keeps the priced model’s cost', () => {
    const home = mkdtempSync(join(tmpdir(), 'cairn-usage-'));
    const project = join(home, '.claude', 'projects', '-work-x');
    mkdirSync(project, { recursive: true });
    const line = (i: number, model: string) =>
      JSON.stringify({
        type: 'assistant',
        uuid: `a${i}`,
        sessionId: 's1',
        cwd: '/home/dev/x',
        timestamp: `2026-03-0${i}T12:00:00Z`,
        requestId: `req_${i}`,
        message: {
          id: `msg_${i}`,
          role: 'assistant',
          model,
          content: [],
          usage: { input_tokens: 1000, output_tokens: 10 },
        },
      });
    writeFileSync(join(project, 's1.jsonl'), `${line(1, 'claude-opus-4-6')}\n${line(2, 'house-model-9')}\n`);
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      CAIRN_HOME: join(home, '.cairn'),
    };
    const r = cairn(['usage', 'daily', '--timezone', 'UTC', '--breakdown', '--json'], env);
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    const [priced, unpriced] = out.daily;
    // Opus 4.6: $5 per million input tokens, $25 per million output tokens.
    expect(priced.totalCost).toBeCloseTo(0.005 + 0.00025, 12);
    expect(unpriced.totalCost).toBeNull();
    expect(unpriced.modelBreakdowns[0].cost).toBeNull();
    expect(out.totals.totalCost).toBeNull();
    const table = cairn(['usage', 'daily', '--timezone', 'UTC'], env).stdout;
    expect(table).toMatch(/^2026-03-02 .* - {2}house-model-9$/m);
    expect(table).not.toMatch(/\$0\.00(?!\d)/);
  });
});

describe('cairn usage run again', () => {
  it('takes unchanged sessions from its cache and reads again a session whose file grew', () => {
    const home = mkdtempSync(join(tmpdir(), 'cairn-usage-'));
    const project = join(home, '.claude', 'projects', '-work-y');
    mkdirSync(project, { recursive: true });
    const line = (i: number) =>
      `${JSON.stringify({
        type: 'assistant',
        uuid: `a${i}`,
        sessionId: 's2',
        cwd: '/home/dev/y',
        timestamp: `2026-04-0${i}T12:00:00Z`,
        requestId: `req_${i}`,
        message: {
          id: `msg_${i}`,
          role: 'assistant',
          model: 'claude-opus-4-6',
          content: [],
          usage: { input_tokens: 100 * i, output_tokens: i },
        },
      })}\n`;
    const file = join(project, 's2.jsonl');
    writeFileSync(file, line(1));
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      CAIRN_HOME: join(home, '.cairn'),
    };
    const run = () => {
      const r = cairn(['usage', 'daily', '--timezone', 'UTC', '--json'], env);
      expect(r.status, r.stderr).toBe(0);
      return r.stdout;
    };
    const first = run();
    expect(existsSync(join(home, '.cairn', 'usage.sqlite'))).toBe(true);
    expect(run()).toBe(first);
    appendFileSync(file, line(2));
    const grown = JSON.parse(run());
    expect(grown.daily.map((d: Row) => [d.date, d.inputTokens])).toEqual([
      ['2026-04-01', 100],
      ['2026-04-02', 200],
    ]);
  });
});

describe('cairn usage blocks --live when output is not a terminal', () => {
  it('prints the open window once, plainly: its tokens, cost, burn rate, projection and sessions', () => {
    const home = mkdtempSync(join(tmpdir(), 'cairn-usage-live-'));
    const project = join(home, '.claude', 'projects', '-work-z');
    mkdirSync(project, { recursive: true });
    const now = Date.now();
    const line = (session: string, i: number, minutesAgo: number) =>
      `${JSON.stringify({
        type: 'assistant',
        uuid: `${session}-${i}`,
        sessionId: session,
        cwd: '/home/dev/z',
        timestamp: new Date(now - minutesAgo * 60_000).toISOString(),
        requestId: `req_${session}_${i}`,
        message: {
          id: `msg_${session}_${i}`,
          role: 'assistant',
          model: 'claude-opus-4-6',
          content: [],
          usage: { input_tokens: 1000, output_tokens: 500 },
        },
      })}\n`;
    // One old request (a closed window) and three in the open one, over two sessions.
    writeFileSync(
      join(project, 'live-a.jsonl'),
      line('live-a', 0, 60 * 30) + line('live-a', 1, 90) + line('live-a', 2, 20),
    );
    writeFileSync(join(project, 'live-b.jsonl'), line('live-b', 0, 10));
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      CAIRN_HOME: join(home, '.cairn'),
    };
    const r = cairn(['usage', 'blocks', '--live'], env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('\x1b');
    expect(r.stdout).toMatch(/^tokens +4,500 /m);
    // Opus 4.6 at $5 and $25 per million: 3 × (1,000 × 5 + 500 × 25) / 1e6 = $0.0525.
    expect(r.stdout).toMatch(/^cost +\$0\.05$/m);
    expect(r.stdout).toMatch(/^burn rate +[\d,]+ tokens\/h, \$[\d.]+\/h$/m);
    expect(r.stdout).toMatch(/^projected +[\d,]+ tokens, \$[\d.]+ by \d\d:\d\d UTC$/m);
    const sessions = r.stdout.slice(r.stdout.indexOf('\nsessions\n'));
    expect(sessions.indexOf('live-b')).toBeGreaterThan(0);
    expect(sessions.indexOf('live-b')).toBeLessThan(sessions.indexOf('live-a'));
  });

  it('says no window is open when the last request is over five hours old', () => {
    const home = mkdtempSync(join(tmpdir(), 'cairn-usage-live-'));
    const project = join(home, '.claude', 'projects', '-work-z');
    mkdirSync(project, { recursive: true });
    writeFileSync(
      join(project, 'old.jsonl'),
      `${JSON.stringify({
        type: 'assistant',
        uuid: 'o1',
        sessionId: 'old',
        timestamp: new Date(Date.now() - 6 * 3_600_000).toISOString(),
        requestId: 'req_o1',
        message: {
          id: 'msg_o1',
          role: 'assistant',
          model: 'claude-opus-4-6',
          content: [],
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      })}\n`,
    );
    const env = {
      PATH: process.env.PATH,
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      CAIRN_HOME: join(home, '.cairn'),
    };
    const r = cairn(['usage', 'blocks', '--live'], env);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toBe('no billing window is open: no request in the last five hours\n');
  });
});
