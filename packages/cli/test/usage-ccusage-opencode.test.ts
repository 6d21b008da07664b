// `cairn usage … --json` beside ccusage 20.0.24 (`ccusage opencode …`, `ccusage kilo …`) for
// OpenCode and Kilo: on the corpus's OpenCode JSON trees, and on the stores the real OpenCode and
// Kilo write when driven against the scripted model on 127.0.0.1 (two turns: the first runs a shell
// command and starts a child session through the `task` tool). The tokens of every session and
// every period are equal to ccusage's, and to a count this test makes from the store's own rows.
//
// Where the two differ on purpose, the test shows it on a copy of a real store with rows changed:
// - a child session is a subagent lane of its parent in cairn, so its tokens are in the parent's
//   session row; ccusage lists it as a session of its own (the period rows are the same);
// - OpenCode records the model's reasoning apart from `output`; cairn counts it as output (the model
//   was paid for it), ccusage leaves it out;
// - an OpenCode message that names its model but no provider (`providerID`) counts in cairn;
//   ccusage leaves it out of its period rows (it counts such a Kilo message), and its session report
//   falls back to the session row's own sums for a session none of whose messages counted. A
//   message naming no model at all is left out by both;
// - ccusage's OpenCode weeks start on Monday, cairn's on Sunday for every agent.
// Both date a request by its message's creation, so one that ends past midnight is in the same day.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTestEnv, ensureTestAgents, testAgentLaunch } from '../../runner/test/support/agents.js';
import { startBareClient } from '../../runner/test/support/bare-client.js';
import { type FakeModel, startFakeModel } from '../../runner/test/support/fake-model.js';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { ccusageBin, ccusageJson } from './ccusage.js';
import { cairn } from './run.js';

interface Counts {
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
}
type Row = Record<string, unknown>;
type Json = Record<string, unknown>;

const ZERO: Counts = { inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0 };

const add = (a: Counts, b: Counts): Counts => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cacheCreationTokens: a.cacheCreationTokens + b.cacheCreationTokens,
  cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
});

const countsOf = (r: Row): Counts => ({
  inputTokens: r.inputTokens as number,
  outputTokens: r.outputTokens as number,
  cacheCreationTokens: r.cacheCreationTokens as number,
  cacheReadTokens: r.cacheReadTokens as number,
});

const REPORTS = {
  daily: ['daily', 'date'],
  weekly: ['weekly', 'week'],
  monthly: ['monthly', 'month'],
  session: ['sessions', 'sessionId'],
} as const;
type Report = keyof typeof REPORTS;

function byKey(report: Report, json: Json): Map<string, Counts> {
  const [array, key] = REPORTS[report];
  return new Map((json[array] as Row[]).map((r) => [String(r[key]), countsOf(r)]));
}

function cairnJson(args: string[], env: NodeJS.ProcessEnv): Json {
  const r = cairn(['usage', ...args, '--json'], env);
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Json;
}

/** A message's `tokens` as ccusage's four counts (OpenCode's `input` leaves the cache out). */
function messageCounts(data: Json): Counts {
  const t = (data.tokens ?? {}) as {
    input?: number;
    output?: number;
    cache?: { read?: number; write?: number };
  };
  return {
    inputTokens: t.input ?? 0,
    outputTokens: t.output ?? 0,
    cacheCreationTokens: t.cache?.write ?? 0,
    cacheReadTokens: t.cache?.read ?? 0,
  };
}

const bin = ccusageBin();

describe.skipIf(!corpus || !bin)('OpenCode usage beside ccusage on the corpus trees', () => {
  const TZ = 'Pacific/Auckland';
  let home: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(() => {
    home = mkdtempSync(join(tmpdir(), 'cairn-usage-opencode-'));
    const dirs = ['storage_v2', 'storage_legacy'].map((tree) => {
      const dir = join(home, tree, 'opencode');
      cpSync(corpusPath('more', 'opencode', tree), join(dir, 'storage'), { recursive: true });
      return dir;
    });
    env = {
      PATH: process.env.PATH,
      HOME: home,
      XDG_DATA_HOME: join(home, 'data'),
      OPENCODE_DATA_DIR: dirs.join(','),
      CAIRN_HOME: join(home, '.cairn'),
    };
  });
  afterAll(() => rmSync(home, { recursive: true, force: true }));

  it.each(['session', 'daily', 'monthly'] as const)('%s: the same tokens in every row', (report) => {
    const theirs = byKey(report, ccusageJson(bin!, ['opencode', report, '--timezone', TZ], env));
    const ours = byKey(report, cairnJson([report, '--agent', 'opencode', '--timezone', TZ], env));
    expect(theirs.size).toBeGreaterThan(0);
    expect(ours).toEqual(theirs);
  });

  it("the session rows equal the assistant messages' tokens counted from the files", () => {
    const ours = byKey('session', cairnJson(['session', '--agent', 'opencode'], env));
    const counted = new Map<string, Counts>();
    for (const tree of ['storage_v2', 'storage_legacy']) {
      const root = corpusPath('more', 'opencode', tree, 'message');
      for (const sid of readdirSync(root))
        for (const name of readdirSync(join(root, sid))) {
          const data = JSON.parse(readFileSync(join(root, sid, name), 'utf8')) as Json;
          const c = messageCounts(data);
          if (data.role !== 'assistant' || Object.values(c).every((n) => n === 0)) continue;
          counted.set(sid, add(counted.get(sid) ?? ZERO, c));
        }
    }
    expect(counted.size).toBeGreaterThan(0);
    expect(ours).toEqual(counted);
  });
});

const AGENTS = ['opencode', 'kilo'] as const;
type Agent = (typeof AGENTS)[number];

/** What one agent's drive left: its data folder's parent (XDG_DATA_HOME) and its HOME. */
interface Store {
  readonly home: string;
  readonly data: string;
}

/** The store's sessions: each session's parent, and its assistant messages' rows. */
function readRows(db: string): {
  parent: Map<string, string>;
  messages: { id: string; sid: string; data: Json }[];
} {
  const conn = new Database(db, { readonly: true });
  try {
    const parent = new Map<string, string>();
    for (const s of conn.prepare('SELECT id, parent_id FROM session').all() as {
      id: string;
      parent_id: string | null;
    }[])
      if (s.parent_id) parent.set(s.id, s.parent_id);
    const messages = (
      conn.prepare('SELECT id, session_id AS sid, data FROM message ORDER BY time_created, id').all() as {
        id: string;
        sid: string;
        data: string;
      }[]
    )
      .map((m) => ({ id: m.id, sid: m.sid, data: JSON.parse(m.data) as Json }))
      .filter((m) => m.data.role === 'assistant');
    return { parent, messages };
  } finally {
    conn.close();
  }
}

/** ccusage's session rows folded as cairn folds child sessions: each child's into its top session's. */
function foldChildren(rows: Map<string, Counts>, parent: Map<string, string>): Map<string, Counts> {
  const top = (id: string): string => {
    let at = id;
    while (parent.has(at)) at = parent.get(at)!;
    return at;
  };
  const out = new Map<string, Counts>();
  for (const [id, c] of rows) out.set(top(id), add(out.get(top(id)) ?? ZERO, c));
  return out;
}

describe.skipIf(!bin)('OpenCode and Kilo usage beside ccusage on stores the real agents wrote', () => {
  const TZ = 'America/Sao_Paulo';
  let scratchRoot: string;
  const stores = new Map<Agent, Store>();

  beforeAll(async () => {
    const agentsHome = await ensureTestAgents();
    scratchRoot = mkdtempSync(join(tmpdir(), 'cairn-usage-opencode-driven-'));
    const model: FakeModel = await startFakeModel();
    try {
      for (const key of AGENTS) {
        const scratch = join(scratchRoot, key);
        const cwd = join(scratch, 'work');
        await mkdir(cwd, { recursive: true });
        const setup = await agentTestEnv(key, model.url, scratch);
        const { command, args, env } = await testAgentLaunch(key, agentsHome);
        const client = startBareClient({
          command,
          args,
          env: { ...setup.env, ...env },
          cwd,
          permission: 'allow',
        });
        const first = `Count the stones, ${key}.`;
        const second = `And again, ${key}.`;
        try {
          await client.initialize(setup.initialize ?? {});
          model.script(
            {
              when: first,
              steps: [
                { kind: 'tool', name: 'bash', input: { command: 'echo stones', description: 'Counts' } },
                { kind: 'usage', input: 1500, output: 40, cached: 300 },
              ],
            },
            {
              steps: [
                {
                  kind: 'tool',
                  name: 'task',
                  input: { description: 'Recount', prompt: 'Recount the stones.', subagent_type: 'general' },
                },
                { kind: 'usage', input: 1600, output: 20, cached: 1000 },
              ],
            },
            // The child session's one request.
            {
              steps: [
                { kind: 'text', text: 'Seven.' },
                { kind: 'usage', input: 900, output: 11, cached: 100 },
              ],
            },
            {
              steps: [
                { kind: 'text', text: 'Seven stones.' },
                { kind: 'usage', input: 1700, output: 9, cached: 1200 },
              ],
            },
            {
              when: second,
              steps: [
                { kind: 'text', text: 'Still seven.' },
                { kind: 'usage', input: 2100, output: 5, cached: 1600 },
              ],
            },
          );
          const { sessionId } = await client.newSession({ cwd });
          expect((await client.prompt(sessionId, first)).stopReason).toBe('end_turn');
          expect((await client.prompt(sessionId, second)).stopReason).toBe('end_turn');
          client.child.stdin?.end();
          await Promise.race([client.exited, new Promise((r) => setTimeout(r, 10_000).unref())]);
        } finally {
          await client.close();
        }
        stores.set(key, { home: setup.env.HOME!, data: setup.env.XDG_DATA_HOME! });
      }
    } finally {
      await model.close();
    }
  }, 900_000);

  afterAll(() => {
    if (scratchRoot) rmSync(scratchRoot, { recursive: true, force: true });
  });

  const envOf = (key: Agent, store: Store): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    HOME: store.home,
    XDG_DATA_HOME: store.data,
    CAIRN_HOME: mkdtempSync(join(scratchRoot, `${key}-cairn-`)),
  });
  const dbOf = (key: Agent, store: Store) => join(store.data, key, `${key}.db`);

  const cases = AGENTS.flatMap((key) =>
    (key === 'kilo'
      ? (['daily', 'monthly', 'session'] as const)
      : (['daily', 'weekly', 'monthly', 'session'] as const)
    ).map((report) => [key, report] as const),
  );

  it.each(cases)('%s %s: the same tokens in every row', (key, report) => {
    const store = stores.get(key)!;
    const env = envOf(key, store);
    const { parent } = readRows(dbOf(key, store));
    // The drive made a child session, which ccusage lists apart.
    expect(parent.size).toBe(1);
    let theirs = byKey(report, ccusageJson(bin!, [key, report, '--timezone', TZ], env));
    if (report === 'session') {
      expect(theirs.size).toBe(2);
      theirs = foldChildren(theirs, parent);
    }
    const ours = byKey(report, cairnJson([report, '--agent', key, '--timezone', TZ], env));
    expect(theirs.size).toBeGreaterThan(0);
    if (report === 'weekly') {
      // ccusage's OpenCode weeks start on Monday; cairn's start on Sunday for every agent, as
      // ccusage's Claude Code weeks do. The drive's requests are all in one day, so in one week.
      expect([...theirs.keys()].map((d) => new Date(`${d}T00:00:00Z`).getUTCDay())).toEqual([1]);
      expect([...ours.keys()].map((d) => new Date(`${d}T00:00:00Z`).getUTCDay())).toEqual([0]);
      expect([...ours.values()]).toEqual([...theirs.values()]);
      return;
    }
    expect(ours).toEqual(theirs);
  });

  it.each(AGENTS)("%s: each session's tokens equal its messages' rows counted here", (key) => {
    const store = stores.get(key)!;
    const { parent, messages } = readRows(dbOf(key, store));
    // Five model requests: the shell call, the task call, the child's answer, two answers.
    expect(messages.length).toBe(5);
    const counted = new Map<string, Counts>();
    for (const m of messages) counted.set(m.sid, add(counted.get(m.sid) ?? ZERO, messageCounts(m.data)));
    const ours = byKey('session', cairnJson(['session', '--agent', key], envOf(key, store)));
    expect(ours).toEqual(foldChildren(counted, parent));
    // The scripted counts (OpenAI's input includes the cached tokens).
    const total = [...ours.values()].reduce(add, ZERO);
    expect(total).toEqual({
      inputTokens: 1500 + 1600 + 900 + 1700 + 2100 - (300 + 1000 + 100 + 1200 + 1600),
      outputTokens: 40 + 20 + 11 + 9 + 5,
      cacheCreationTokens: 0,
      cacheReadTokens: 300 + 1000 + 100 + 1200 + 1600,
    });
  });

  it.each(AGENTS)('%s: the differences on purpose, on a copy of the store with rows changed', (key) => {
    const store = stores.get(key)!;
    const copy = mkdtempSync(join(scratchRoot, `${key}-changed-`));
    const data = join(copy, '.local', 'share');
    cpSync(join(store.data, key), join(data, key), { recursive: true });
    const db = join(data, key, `${key}.db`);
    const { parent, messages } = readRows(db);
    const [child] = [...parent.keys()];
    const main = messages.filter((m) => m.sid !== child);
    const childMessage = messages.find((m) => m.sid === child)!;
    const conn = new Database(db);
    const write = (id: string, data: Json, created?: number) => {
      conn.prepare('UPDATE message SET data = ? WHERE id = ?').run(JSON.stringify(data), id);
      if (created !== undefined)
        conn.prepare('UPDATE message SET time_created = ? WHERE id = ?').run(created, id);
    };
    // The last request starts the day after the others, two seconds before midnight (UTC), and
    // ends five seconds after it.
    const last = main.at(-1)!;
    const lastTime = last.data.time as { created: number; completed: number };
    const midnight = (Math.floor(lastTime.created / 86_400_000) + 2) * 86_400_000;
    write(
      last.id,
      { ...last.data, time: { created: midnight - 2000, completed: midnight + 5000 } },
      midnight - 2000,
    );
    // 33 reasoning tokens on the task call's step, in its message and its step-finish part.
    const task = main[1]!;
    const withReasoning = (tokens: Json) => ({ ...tokens, reasoning: 33 });
    write(task.id, { ...task.data, tokens: withReasoning(task.data.tokens as Json) });
    for (const p of conn.prepare('SELECT id, data FROM part WHERE message_id = ?').all(task.id) as {
      id: string;
      data: string;
    }[]) {
      const part = JSON.parse(p.data) as Json;
      if (part.type !== 'step-finish') continue;
      part.tokens = withReasoning(part.tokens as Json);
      conn.prepare('UPDATE part SET data = ? WHERE id = ?').run(JSON.stringify(part), p.id);
    }
    // The child's one message names no provider.
    const { providerID: _provider, ...noProvider } = childMessage.data;
    write(childMessage.id, noProvider);
    conn.close();

    const env = { ...envOf(key, store), HOME: copy, XDG_DATA_HOME: data };
    // What ccusage leaves out and cairn counts: the message with no provider, for OpenCode.
    const leftOut = key === 'opencode' ? messageCounts(childMessage.data) : ZERO;
    const reasoning = { ...ZERO, outputTokens: 33 };
    const lastCounts = messageCounts(last.data);

    const theirDays = byKey('daily', ccusageJson(bin!, [key, 'daily', '--timezone', 'UTC'], env));
    const ourDays = byKey('daily', cairnJson(['daily', '--agent', key, '--timezone', 'UTC'], env));
    const nextDay = new Date(midnight).toISOString().slice(0, 10);
    // The request that ran past midnight is on the day it started, in both.
    expect([...ourDays.keys()].sort()).toEqual([...theirDays.keys()].sort());
    expect(ourDays.size).toBe(2);
    expect(ourDays.has(nextDay)).toBe(false);
    const [earlier, later] = [...ourDays.keys()].sort();
    expect(ourDays.get(later!)).toEqual(lastCounts);
    expect(theirDays.get(later!)).toEqual(lastCounts);
    // The earlier day: cairn has the reasoning as output, and the message ccusage left out.
    expect(ourDays.get(earlier!)).toEqual(add(add(theirDays.get(earlier!)!, leftOut), reasoning));

    const theirs = byKey('session', ccusageJson(bin!, [key, 'session'], env));
    const ours = cairnJson(['session', '--agent', key], env);
    // ccusage's OpenCode session report takes a session's totals from its `session` row (OpenCode's
    // own sums) when none of its messages counts: so the child is back, with the message's tokens.
    expect([...theirs.keys()].sort()).toEqual([child, parent.get(child!)].sort());
    const [row] = ours.sessions as Row[];
    expect(row!.reasoningTokens).toBe(33);
    const top = foldChildren(theirs, parent).get(parent.get(child!)!)!;
    expect(countsOf(row!)).toEqual(add(top, reasoning));
  });

  it("Kilo's store is found where KILO_DATA_DIR names it, as ccusage finds it", () => {
    const store = stores.get('kilo')!;
    const elsewhere = mkdtempSync(join(scratchRoot, 'kilo-elsewhere-'));
    const env = {
      PATH: process.env.PATH,
      HOME: elsewhere,
      KILO_DATA_DIR: join(store.data, 'kilo'),
      CAIRN_HOME: join(elsewhere, '.cairn'),
    };
    const theirs = byKey('daily', ccusageJson(bin!, ['kilo', 'daily', '--timezone', TZ], env));
    expect(theirs.size).toBeGreaterThan(0);
    expect(byKey('daily', cairnJson(['daily', '--agent', 'kilo', '--timezone', TZ], env))).toEqual(theirs);
  });
});
