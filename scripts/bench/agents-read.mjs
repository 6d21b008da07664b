// Reading each agent's sessions per byte, set against reading Codex rollouts: a corpus of Codex
// replicas and of the Qwen Code, pi, Copilot CLI, OpenCode and Kilo samples (bench/more-corpus.mjs),
// every session of one agent loaded through the library one after another in a fresh process,
// several runs, medians. A session's bytes are its files' sizes, or for a session in a SQLite store
// the JSON its message and part rows hold. The samples are small sessions and Codex's rollouts are
// large, so the per-session cost weighs on them more: Codex's rollouts under 16 KB are timed apart as
// a baseline of the same size. Beside each agent's row stands a row of Codex rollouts of the same
// sizes as that agent's sessions (each the start of a real rollout, bench/codex-matched.mjs), and the
// agent's ratio against it: like with like. The records' density differs between agents (an
// OpenCode part is a few hundred bytes, a Codex line often many KB), so each row also gives its
// events per KB and its CPU time per event, with the ratio of that against the matched row.
// Then a store of 10,000 OpenCode sessions is listed: the listing's time, and the bytes of the store
// it read (strace's count of read calls) beside the store's size and the time to read every row.
// Each row gives wall time and CPU time (the steadier of the two on a busy machine); the OpenCode and
// Kilo stores are read twice, as an agent that is not running leaves them (read into memory) and with
// a connection of the agent's holding them open in WAL mode (read where they are).
// Options: --runs N (default 3), --replicas N (of each sample, default 200), --sessions N (in the
// listed store, default 10000), --no-list, --keep, --only <parts> (a comma list of: codex,
// codex-small, qwen-code, pi, copilot-cli, opencode, kilo, opencode-running, kilo-running,
// opencode-long, list; an agent's part brings its matched Codex row and the overall Codex row),
// --library <file> (the library bundle to time instead of the built one: two builds side by side).
// Inside: --measure <agent> [--max-bytes N] [--agent-running], --sizes <agent> and --list-once <db>
// (one measurement, printed as JSON).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { buildMatchedCodex } from './codex-matched.mjs';
import { agentEnv, buildCorpus } from './corpus.mjs';
import { buildMoreCorpus, buildReplicatedStore, moreAgentEnv } from './more-corpus.mjs';
import { countReads, straceWrap } from './read-count.mjs';
import { median } from './stats.mjs';

const self = fileURLToPath(import.meta.url);
const root = resolve(dirname(self), '../..');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    replicas: { type: 'string', default: '200' },
    sessions: { type: 'string', default: '10000' },
    'no-list': { type: 'boolean' },
    keep: { type: 'boolean' },
    only: { type: 'string' },
    sizes: { type: 'string' },
    library: { type: 'string' },
    measure: { type: 'string' },
    'max-bytes': { type: 'string' },
    'agent-running': { type: 'boolean' },
    'list-once': { type: 'string' },
  },
});

const libraryFile = resolve(values.library ?? join(root, 'packages/transcript/dist/index.js'));
const library = () => import(libraryFile);

/**
 * The bytes a session's records take: its file, or its rows' JSON in a store. A store is opened for
 * writing, so that closing it removes its `-wal` and `-shm` files again: the store is left as an agent
 * that is not running leaves it (a read-only connection would leave them behind).
 */
function sessionBytes(path, splitStorePath, stores) {
  const inStore = splitStorePath(path);
  if (!inStore) return statSync(path).size;
  let conn = stores.get(inStore.db);
  if (!conn) {
    conn = new Database(inStore.db);
    stores.set(inStore.db, conn);
  }
  const tree = `WITH RECURSIVE tree(id) AS (SELECT ? UNION SELECT s.id FROM session s JOIN tree t ON s.parent_id = t.id)`;
  const sum = (table) =>
    conn
      .prepare(
        `${tree} SELECT coalesce(sum(length(data)), 0) AS n FROM ${table} WHERE session_id IN (SELECT id FROM tree)`,
      )
      .get(inStore.id).n;
  return sum('message') + sum('part');
}

/**
 * Loads every session of `agent` (at most `maxBytes` each) one after another; prints the time. With
 * `agentRunning`, each store is held open meanwhile by a connection of its own, as its agent does.
 */
async function measureOnce(agent, maxBytes, agentRunning) {
  const { discoverSessions, loadTranscript, nodePlatform, splitStorePath } = await library();
  const platform = nodePlatform();
  const sessions = [];
  const stores = new Map();
  for await (const entry of discoverSessions(platform, { agent })) {
    if ('ref' in entry) continue;
    const bytes = sessionBytes(entry.path, splitStorePath, stores);
    if (bytes <= maxBytes) sessions.push({ ...entry, bytes });
  }
  for (const conn of stores.values()) conn.close();
  const running = [];
  if (agentRunning)
    for (const db of stores.keys()) {
      const conn = new Database(db);
      conn.prepare('SELECT count(*) FROM session').get();
      running.push(conn);
    }
  const load = async (s) => {
    const r = await loadTranscript(platform, { agent: s.agent, path: s.path, sessionId: s.id });
    if (!r.ok) throw new Error(`${s.path}: ${JSON.stringify(r.error)}`);
    return r.value.events.length;
  };
  // A first pass over a few warms the code up, as it is warm in the daemon.
  for (const s of sessions.slice(0, 20)) await load(s);
  let events = 0;
  const cpuStart = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (const s of sessions) events += await load(s);
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpuStart);
  for (const conn of running) conn.close();
  const bytes = sessions.reduce((n, s) => n + s.bytes, 0);
  console.log(
    JSON.stringify({ sessions: sessions.length, bytes, events, ms, cpuMs: (used.user + used.system) / 1000 }),
  );
}

/** Prints the bytes of every session of `agent`, as the measurement counts them. */
async function sizesOf(agent) {
  const { discoverSessions, nodePlatform, splitStorePath } = await library();
  const stores = new Map();
  const sizes = [];
  for await (const entry of discoverSessions(nodePlatform(), { agent }))
    if (!('ref' in entry)) sizes.push(sessionBytes(entry.path, splitStorePath, stores));
  for (const conn of stores.values()) conn.close();
  console.log(JSON.stringify(sizes));
}

/** Lists the OpenCode sessions of the store at `db` once; prints the time and the count. */
async function listOnce() {
  const { listSessions, nodePlatform } = await library();
  const platform = nodePlatform();
  const start = process.hrtime.bigint();
  let sessions = 0;
  let failures = 0;
  for await (const entry of listSessions(platform, { agent: 'opencode' })) {
    if ('ref' in entry) failures++;
    else sessions++;
  }
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  console.log(JSON.stringify({ sessions, failures, ms }));
}

if (values.measure !== undefined) {
  await measureOnce(
    values.measure,
    Number(values['max-bytes'] ?? Number.POSITIVE_INFINITY),
    values['agent-running'] ?? false,
  );
  process.exit(0);
}
if (values.sizes !== undefined) {
  await sizesOf(values.sizes);
  process.exit(0);
}
if (values['list-once'] !== undefined) {
  await listOnce();
  process.exit(0);
}

const runs = Number(values.runs);
const PARTS = [
  'codex',
  'codex-small',
  'qwen-code',
  'pi',
  'copilot-cli',
  'opencode',
  'kilo',
  'opencode-running',
  'kilo-running',
  'opencode-long',
  'list',
];
const only = values.only === undefined ? undefined : new Set(values.only.split(',').map((p) => p.trim()));
for (const part of only ?? [])
  if (!PARTS.includes(part)) {
    console.error(`agents bench: --only: no part "${part}" (the parts: ${PARTS.join(', ')})`);
    process.exit(1);
  }
const wants = (part) => only === undefined || only.has(part);
const source = process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus');
if (!existsSync(join(source, 'more'))) {
  console.error(`agents bench: no corpus at ${source} (set CAIRN_CORPUS)`);
  process.exit(1);
}
if (!existsSync(libraryFile)) {
  console.error('agents bench: build first (npm run build)');
  process.exit(1);
}

const child = (env, args) =>
  JSON.parse(
    execFileSync(process.execPath, [self, ...args, '--library', libraryFile], {
      env,
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    })
      .trim()
      .split('\n')
      .pop(),
  );

const work = mkdtempSync(join(tmpdir(), 'cairn-bench-agents-'));
try {
  const replicas = Number(values.replicas);
  const env = moreAgentEnv(work);
  // Codex's replicas come with Claude Code's and Gemini CLI's, which this bench leaves unread.
  buildCorpus({ source, work, targetBytes: 0, minReplicas: Math.max(1, Math.round(replicas / 20)) });
  const more = await buildMoreCorpus({ source, work, replicas });
  console.log(
    `agents bench: ${replicas} replicas of each sample (${more.files} files, ${more.storeSessions} sessions in stores); ${runs} runs each, medians`,
  );
  /** A row's figures: the medians of its runs' wall and CPU times, and both per KB. */
  const figures = (name, samples) => {
    const s = samples[0];
    const ms = median(samples.map((x) => x.ms));
    const cpuMs = median(samples.map((x) => x.cpuMs));
    const kb = s.bytes / 1024;
    const cpuUsPerKb = (cpuMs * 1000) / kb;
    return {
      name,
      ...s,
      ms,
      cpuMs,
      usPerKb: (ms * 1000) / kb,
      cpuUsPerKb,
      cpuUsPerEvent: (cpuMs * 1000) / s.events,
    };
  };
  const trees = ['storage_v2', 'storage_legacy'].map((t) => join(source, 'more', 'opencode', t));
  // [part, row name, agent, at most bytes, agent running, with a matched Codex row]
  const rows = [
    ['codex-small', 'codex, rollouts < 16 KB', 'codex', 16 * 1024],
    ['qwen-code', 'qwen-code', 'qwen-code', 0, false, true],
    ['pi', 'pi', 'pi', 0, false, true],
    ['copilot-cli', 'copilot-cli', 'copilot-cli', 0, false, true],
    ['opencode', 'opencode (SQLite)', 'opencode', 0, false, true],
    ['kilo', 'kilo (SQLite)', 'kilo', 0, false, true],
    ['opencode-running', 'opencode, agent running', 'opencode', 0, true],
    ['kilo-running', 'kilo, agent running', 'kilo', 0, true],
  ].filter(([part]) => wants(part));
  const measureArgs = (agent, maxBytes, agentRunning) => [
    '--measure',
    agent,
    ...(maxBytes ? ['--max-bytes', String(maxBytes)] : []),
    ...(agentRunning ? ['--agent-running'] : []),
  ];
  // Every row but the listing's is read against the overall Codex figure.
  const rowsWanted = rows.length > 0 || wants('codex') || wants('opencode-long');
  const results = [];
  if (rowsWanted) {
    results.push(
      figures(
        'codex',
        Array.from({ length: runs }, () => child(env, measureArgs('codex'))),
      ),
    );
  }
  for (const [part, name, agent, maxBytes, agentRunning, matched] of rows) {
    const samples = [];
    const codexSamples = [];
    let codexEnv;
    if (matched) {
      // Codex rollouts of this agent's sessions' sizes, one for each, in a home of their own.
      codexEnv = agentEnv(join(work, `matched-${part}`));
      buildMatchedCodex({ source, codexHome: codexEnv.CODEX_HOME, sizes: child(env, ['--sizes', agent]) });
    }
    // Fresh processes, the agent's and matched Codex's taking turns, so that both see the same load.
    for (let i = 0; i < runs; i++) {
      samples.push(child(env, measureArgs(agent, maxBytes, agentRunning)));
      if (codexEnv) codexSamples.push(child(codexEnv, measureArgs('codex')));
    }
    const row = figures(name, samples);
    if (codexEnv) {
      row.matched = figures(`codex sized as ${part}`, codexSamples);
      results.push(row.matched);
    }
    results.push(row);
  }
  if (wants('opencode-long')) {
    // The store's sessions are a few KB each: the same rows again as three long sessions, at two
    // sizes. A process pays the optimising compiler's work once: spread over a few MB it is most of
    // the cost per KB, so the larger store, nearer the Codex rollouts' bytes, says what a long
    // session costs. The shorter three are set beside Codex rollouts of their sizes as well, as
    // near as the corpus's rollouts allow (the longest is cut from a shorter rollout); the longer
    // three are past any rollout the corpus has.
    for (const [label, times] of [
      ['opencode, 3 long sessions', 3],
      ['opencode, 3 longer (x4)', 12],
    ]) {
      const grownEnv = moreAgentEnv(join(work, `grown-${times}`));
      await buildReplicatedStore(
        join(grownEnv.XDG_DATA_HOME, 'opencode', 'opencode.db'),
        trees,
        replicas * times,
        {
          oneSession: true,
        },
      );
      let codexEnv;
      if (times === 3) {
        codexEnv = agentEnv(join(work, `matched-grown-${times}`));
        const sizes = child(grownEnv, ['--sizes', 'opencode']);
        buildMatchedCodex({ source, codexHome: codexEnv.CODEX_HOME, sizes });
      }
      const grown = [];
      const codexSamples = [];
      for (let i = 0; i < runs; i++) {
        grown.push(child(grownEnv, ['--measure', 'opencode']));
        if (codexEnv) codexSamples.push(child(codexEnv, ['--measure', 'codex']));
      }
      const row = figures(label, grown);
      if (codexEnv) {
        row.matched = figures('codex sized as long', codexSamples);
        results.push(row.matched);
      }
      results.push(row);
    }
  }
  const codex = results[0];
  const codexSmall = results.find((r) => r.name.startsWith('codex, rollouts'));
  const ratio = (a, b) => (b ? `${(a / b).toFixed(2)}x` : '-');
  if (results.length > 0) {
    console.log(
      `  ${'agent'.padEnd(26)} ${'sessions'.padStart(8)} ${'KB'.padStart(8)} ${'events'.padStart(8)} ${'ms'.padStart(8)} ${'µs/KB'.padStart(8)} ${'vs codex'.padStart(9)} ${'vs <16 KB'.padStart(9)} ${'CPU µs/KB'.padStart(10)} ${'CPU vs codex'.padStart(12)} ${'CPU vs matched'.padStart(14)} ${'ev/KB'.padStart(6)} ${'CPU µs/ev'.padStart(9)} ${'vs matched'.padStart(10)}`,
    );
    for (const r of results)
      console.log(
        `  ${r.name.padEnd(26)} ${String(r.sessions).padStart(8)} ${(r.bytes / 1024).toFixed(0).padStart(8)} ${String(r.events).padStart(8)} ${r.ms.toFixed(0).padStart(8)} ${r.usPerKb.toFixed(1).padStart(8)} ${ratio(r.usPerKb, codex.usPerKb).padStart(9)} ${ratio(r.usPerKb, codexSmall?.usPerKb).padStart(9)} ${r.cpuUsPerKb.toFixed(1).padStart(10)} ${ratio(r.cpuUsPerKb, codex.cpuUsPerKb).padStart(12)} ${ratio(r.cpuUsPerKb, r.matched?.cpuUsPerKb).padStart(14)} ${(r.events / (r.bytes / 1024)).toFixed(2).padStart(6)} ${r.cpuUsPerEvent.toFixed(1).padStart(9)} ${ratio(r.cpuUsPerEvent, r.matched?.cpuUsPerEvent).padStart(10)}`,
      );
  }

  if (!values['no-list'] && wants('list')) {
    const wanted = Number(values.sessions);
    const listWork = join(work, 'list');
    const listEnv = moreAgentEnv(listWork);
    const db = join(listEnv.XDG_DATA_HOME, 'opencode', 'opencode.db');
    // The trees hold 3 top-level sessions: enough replicas for the count asked.
    const built = await buildReplicatedStore(db, trees, Math.ceil(wanted / 3));
    const size = statSync(db).size;
    // Opened for writing, so that closing it leaves no -wal and -shm behind.
    const conn = new Database(db);
    const count = (table) => conn.prepare(`SELECT count(*) AS n FROM ${table}`).get().n;
    const [messages, parts] = [count('message'), count('part')];
    const start = process.hrtime.bigint();
    for (const table of ['message', 'part'])
      for (const r of conn.prepare(`SELECT data FROM ${table}`).iterate()) JSON.parse(r.data);
    const everyRowMs = Number(process.hrtime.bigint() - start) / 1e6;
    conn.close();
    console.log(
      `\nagents bench: a store of ${built.sessions} OpenCode sessions (${messages} messages, ${parts} parts, ${(size / 1024 / 1024).toFixed(1)} MB)`,
    );
    console.log(`  reading and parsing every message and part row: ${everyRowMs.toFixed(0)} ms`);
    /** The listing's median time, and the bytes of the store's files it read by strace's count. */
    const measureListing = (state) => {
      const listed = [];
      for (let i = 0; i < runs; i++) listed.push(child(listEnv, ['--list-once', db]));
      let read = '';
      if (existsSync('/usr/bin/strace')) {
        const log = join(work, 'list.strace');
        const [tracer, ...traceArgs] = straceWrap(log);
        const r = spawnSync(tracer, [...traceArgs, process.execPath, self, '--list-once', db], {
          env: listEnv,
          encoding: 'utf8',
        });
        if (r.status === 0) {
          const reads = countReads(log, { store: (p) => p.startsWith(db) });
          read = `, reading ${(reads.store.bytes / 1024 / 1024).toFixed(1)} MB of the store's files`;
        }
      }
      console.log(
        `  listing, ${state}: ${listed[0].sessions} sessions (${listed[0].failures} failures) in ${median(listed.map((x) => x.ms)).toFixed(0)} ms${read}`,
      );
    };
    // With no -wal and -shm (the agent is not running) the store is read into memory whole, since a
    // reader that opened it in place would create them in the agent's folder.
    measureListing('the agent not running');
    // A connection that holds the store open in WAL mode, as the running agent does.
    const agent = new Database(db);
    agent.pragma('journal_mode = WAL');
    agent.prepare('SELECT count(*) FROM session').get();
    try {
      measureListing('the agent running');
    } finally {
      agent.close();
    }
  }
} finally {
  if (values.keep) console.log(`\nagents bench: corpus kept in ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
