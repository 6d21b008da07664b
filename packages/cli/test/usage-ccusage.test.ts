// `cairn usage … --json` beside ccusage's own JSON on the same files and time zone: the token
// counts of every period, session and 5-hour window are equal, for the corpus's Claude Code and
// Codex sessions and for a generated Claude Code session over several days, models and a window's
// edge. Costs are set side by side: where the two price catalogs differ, the model and both prices
// are printed (ccusage prices from its own catalog, cairn from genai-prices).
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { ccusageBin, ccusageJson } from './ccusage.js';
import { cairn, corpusEnv } from './run.js';

interface Counts {
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
}
type Row = Record<string, unknown>;

const REPORTS = {
  daily: 'date',
  weekly: 'week',
  monthly: 'month',
  session: 'sessionId',
  blocks: 'id',
} as const;
type Report = keyof typeof REPORTS;

/** A row's four counts, from ccusage's or cairn's JSON (windows keep theirs in `tokenCounts`). */
function countsOf(r: Row): Counts {
  const t = (r.tokenCounts as Record<string, number> | undefined) ?? undefined;
  if (t)
    return {
      inputTokens: t.inputTokens!,
      outputTokens: t.outputTokens!,
      cacheCreationTokens: t.cacheCreationInputTokens!,
      cacheReadTokens: t.cacheReadInputTokens!,
    };
  return {
    inputTokens: r.inputTokens as number,
    outputTokens: r.outputTokens as number,
    cacheCreationTokens: r.cacheCreationTokens as number,
    cacheReadTokens: r.cacheReadTokens as number,
  };
}

const ARRAY: Record<Report, string> = {
  daily: 'daily',
  weekly: 'weekly',
  monthly: 'monthly',
  session: 'sessions',
  blocks: 'blocks',
};

/** Rows by key; a Codex session is keyed by its rollout's id, the last 36 characters of its name. */
function byKey(report: Report, json: Record<string, unknown>): Map<string, Row> {
  const rows = (json[ARRAY[report]] as Row[]).filter((r) => r.isGap !== true);
  return new Map(
    rows.map((r) => {
      const key = String(r[REPORTS[report]]);
      return [report === 'session' ? key.slice(-36) : key, r];
    }),
  );
}

function cairnJson(args: string[], env: NodeJS.ProcessEnv): Record<string, unknown> {
  const r = cairn(['usage', ...args, '--json'], env);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

const add = (a: Counts, b: Counts): Counts => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cacheCreationTokens: a.cacheCreationTokens + b.cacheCreationTokens,
  cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
});

/**
 * Sets each row's cost beside ccusage's and prints where the two catalogs differ, naming the
 * models and both prices (a difference of catalogs, not a failure). Returns how many rows agree.
 */
function comparePrices(what: string, theirs: Map<string, Row>, ours: Map<string, Row>): number {
  let agree = 0;
  for (const [key, t] of theirs) {
    const o = ours.get(key);
    const a = (t.totalCost ?? t.costUSD) as number | undefined;
    const b = o?.totalCost as number | null | undefined;
    if (a === undefined || b === undefined) continue;
    if (b !== null && Math.abs(a - b) < 1e-6) {
      agree++;
      continue;
    }
    const models = (t.modelsUsed as string[] | undefined) ?? Object.keys((t.models as object) ?? {});
    console.log(
      `${what} ${key} (${models.join(', ')}): $${a.toFixed(4)} in ccusage's catalog, ${b === null ? 'no price' : `$${b.toFixed(4)}`} in genai-prices`,
    );
  }
  return agree;
}

const bin = ccusageBin();

describe.skipIf(!corpus || !bin)('cairn usage beside ccusage on the corpus', () => {
  const TZ = 'Asia/Tokyo';
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    env = corpusEnv();
  });

  /**
   * Requests Claude Code records only inside `progress` records (a subagent's replies relayed to
   * the main file, with no file of their own): ccusage's period reports count them, its session
   * and window reports do not, and cairn counts none. Added up here by day, from the raw lines.
   */
  function relayedByDay(): Map<string, Counts> {
    const top = new Set<string>();
    const relayed = new Map<string, { at: string; usage: Record<string, number> }>();
    const root = corpusPath('claude', 'projects');
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir, { withFileTypes: true }))
        if (e.isDirectory()) walk(join(dir, e.name));
        else if (e.name.endsWith('.jsonl')) files.push(join(dir, e.name));
    };
    walk(root);
    for (const f of files)
      for (const line of readFileSync(f, 'utf8').split('\n')) {
        if (!line.trim()) continue;
        const r = JSON.parse(line);
        if (r.type === 'assistant' && r.message?.id) top.add(r.message.id);
        const inner = r.type === 'progress' ? r.data?.message : undefined;
        if (inner?.type === 'assistant' && inner.message?.usage && inner.message.id)
          relayed.set(inner.message.id, { at: inner.timestamp, usage: inner.message.usage });
      }
    const days = new Map<string, Counts>();
    const day = new Intl.DateTimeFormat('en-CA', {
      timeZone: TZ,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    for (const [id, { at, usage: u }] of relayed) {
      if (top.has(id)) continue;
      const key = day.format(Date.parse(at));
      const zero = { inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0 };
      days.set(
        key,
        add(days.get(key) ?? zero, {
          inputTokens: u.input_tokens ?? 0,
          outputTokens: u.output_tokens ?? 0,
          cacheCreationTokens: u.cache_creation_input_tokens ?? 0,
          cacheReadTokens: u.cache_read_input_tokens ?? 0,
        }),
      );
    }
    return days;
  }

  it.each(['daily', 'monthly', 'weekly', 'session', 'blocks'] as const)(
    'Claude Code %s: the same tokens in every row',
    (report) => {
      const theirs = byKey(
        report,
        ccusageJson(bin!, ['claude', report, '--timezone', TZ, '--breakdown'], env),
      );
      const ours = byKey(
        report,
        cairnJson([report, '--agent', 'claude', '--timezone', TZ, '--breakdown'], env),
      );
      expect(theirs.size).toBeGreaterThan(0);
      const relayed = report === 'daily' ? relayedByDay() : new Map<string, Counts>();
      if (report === 'daily') expect(relayed.size).toBeGreaterThan(0);
      expect([...ours.keys()].sort()).toEqual([...theirs.keys()].sort());
      for (const [key, t] of theirs) {
        const mine = countsOf(ours.get(key)!);
        const extra = relayed.get(key);
        expect(extra ? add(mine, extra) : mine, `${report} ${key}`).toEqual(countsOf(t));
      }
      // The corpus's models cost the same in both catalogs, request by request.
      if (report === 'session') expect(comparePrices(`claude ${report}`, theirs, ours)).toBe(theirs.size);
      // A day with relayed requests costs more in ccusage by those requests, not by a price.
      else comparePrices(`claude ${report}`, new Map([...theirs].filter(([key]) => !relayed.has(key))), ours);
    },
  );

  it.each(['daily', 'monthly', 'session'] as const)('Codex %s: the same tokens in every row', (report) => {
    const theirs = byKey(report, ccusageJson(bin!, ['codex', report, '--timezone', TZ], env));
    const ours = byKey(report, cairnJson([report, '--agent', 'codex', '--timezone', TZ], env));
    expect(theirs.size).toBeGreaterThan(0);
    expect([...ours.keys()].sort()).toEqual([...theirs.keys()].sort());
    for (const [key, t] of theirs) expect(countsOf(ours.get(key)!), `${report} ${key}`).toEqual(countsOf(t));
    // Codex rows carry reasoning: 42,113 tokens in one corpus session.
    if (report === 'session') expect([...ours.values()].map((r) => r.reasoningTokens)).toContain(42_113);
    comparePrices(`codex ${report}`, theirs, ours);
  });
});

/**
 * The corpus's Qwen Code, pi and Copilot CLI samples laid out in a scratch home as each agent keeps
 * them, where both cairn and ccusage look by default.
 */
function moreAgentsHome(): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'cairn-usage-more-'));
  const qwen = join(home, '.qwen', 'projects', '-tmp-fixture', 'chats');
  mkdirSync(qwen, { recursive: true });
  for (const name of readdirSync(corpusPath('more', 'qwen')))
    cpSync(corpusPath('more', 'qwen', name), join(qwen, name));
  const pi = join(home, '.pi', 'agent', 'sessions', '--tmp-as-agent-fixture-project--');
  mkdirSync(pi, { recursive: true });
  // pi's own file name: ccusage takes the session id from after the first `_`.
  cpSync(
    corpusPath('more', 'pi', 'small.jsonl'),
    join(pi, '2026-05-12T01-02-27-657Z_019e19b4-eb48-746a-aa6b-8dfcfa37954b.jsonl'),
  );
  const copilot = join(home, '.copilot', 'session-state');
  for (const name of ['small', 'large', 'schema_drift']) {
    mkdirSync(join(copilot, name), { recursive: true });
    cpSync(corpusPath('more', 'copilot', `${name}.jsonl`), join(copilot, name, 'events.jsonl'));
  }
  cpSync(corpusPath('more', 'copilot', 'subdir_v1'), copilot, { recursive: true });
  return { PATH: process.env.PATH, HOME: home, CAIRN_HOME: join(home, '.cairn') };
}

describe.skipIf(!corpus || !bin)(
  'cairn usage beside ccusage on the Qwen Code, pi and Copilot CLI samples',
  () => {
    const TZ = 'Europe/Berlin';
    let env: NodeJS.ProcessEnv;
    beforeAll(() => {
      env = moreAgentsHome();
    });

    it.each([
      ['qwen', 'daily'],
      ['qwen', 'session'],
      ['pi', 'daily'],
      ['pi', 'monthly'],
      ['pi', 'session'],
      ['copilot', 'daily'],
      ['copilot', 'session'],
    ] as const)('%s %s: the same tokens in every row', (agent, report) => {
      const theirs = byKey(report, ccusageJson(bin!, [agent, report, '--timezone', TZ], env));
      const ours = byKey(report, cairnJson([report, '--agent', agent, '--timezone', TZ], env));
      expect(theirs.size).toBeGreaterThan(0);
      expect([...ours.keys()].sort()).toEqual([...theirs.keys()].sort());
      for (const [key, t] of theirs)
        expect(countsOf(ours.get(key)!), `${report} ${key}`).toEqual(countsOf(t));
      // ccusage prices a model its catalog lacks at $0; cairn gives no price.
      comparePrices(`${agent} ${report}`, theirs, ours);
    });
  },
);

/**
 * A Claude Code session over three days in New York: requests every 50 minutes with a pause of
 * seven hours, on three models, with five-minute and one-hour cache writes, crossing midnight. The
 * sixth request falls exactly five hours after its window's start (02:00 UTC), on the window's edge.
 */
function generatedHome(): NodeJS.ProcessEnv {
  const home = mkdtempSync(join(tmpdir(), 'cairn-usage-'));
  const project = join(home, '.claude', 'projects', '-work-generated');
  mkdirSync(project, { recursive: true });
  const models = ['claude-opus-4-6', 'claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001'];
  const lines: string[] = [];
  const sessionId = '0c0ffee0-0000-4000-8000-000000000001';
  // 2026-03-02 21:00 in New York is 02:00 UTC the next day.
  let at = Date.parse('2026-03-03T02:00:00Z');
  for (let i = 0; i < 60; i++) {
    at += i === 30 ? 7 * 3_600_000 : 50 * 60_000;
    const stamp = new Date(at).toISOString();
    lines.push(
      JSON.stringify({
        type: 'user',
        uuid: `u${i}`,
        parentUuid: i === 0 ? null : `a${i - 1}`,
        sessionId,
        cwd: '/home/dev/generated',
        timestamp: stamp,
        message: { role: 'user', content: `step ${i}` },
      }),
      JSON.stringify({
        type: 'assistant',
        uuid: `a${i}`,
        parentUuid: `u${i}`,
        sessionId,
        cwd: '/home/dev/generated',
        timestamp: stamp,
        requestId: `req_${i}`,
        message: {
          id: `msg_${i}`,
          type: 'message',
          role: 'assistant',
          model: models[i % 3],
          content: [{ type: 'text', text: `done ${i}` }],
          usage: {
            input_tokens: 10 + i,
            output_tokens: 100 + 7 * i,
            cache_read_input_tokens: 1_000 * i,
            cache_creation_input_tokens: 300 + i,
            cache_creation: {
              ephemeral_5m_input_tokens: 300 + i - (i % 2) * 100,
              ephemeral_1h_input_tokens: (i % 2) * 100,
            },
          },
        },
      }),
    );
  }
  writeFileSync(join(project, `${sessionId}.jsonl`), `${lines.join('\n')}\n`);
  return {
    PATH: process.env.PATH,
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    CAIRN_HOME: join(home, '.cairn'),
  };
}

describe.skipIf(!bin)('cairn usage beside ccusage on a generated session', () => {
  const TZ = 'America/New_York';
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    env = generatedHome();
  });

  it.each(['daily', 'weekly', 'monthly', 'session', 'blocks'] as const)(
    '%s: the same rows and tokens',
    (report) => {
      const theirs = byKey(
        report,
        ccusageJson(bin!, ['claude', report, '--timezone', TZ, '--breakdown'], env),
      );
      const ours = byKey(report, cairnJson([report, '--timezone', TZ, '--breakdown'], env));
      if (report === 'daily') expect(theirs.size).toBeGreaterThanOrEqual(3);
      if (report === 'blocks') expect(theirs.size).toBeGreaterThanOrEqual(4);
      expect([...ours.keys()].sort()).toEqual([...theirs.keys()].sort());
      for (const [key, t] of theirs)
        expect(countsOf(ours.get(key)!), `${report} ${key}`).toEqual(countsOf(t));
      comparePrices(`generated ${report}`, theirs, ours);
    },
  );
});
