// The summary of each session of Qwen Code, pi and Copilot CLI, by the adapter's fast pass against
// the full translation folded (what summarizeSession does for an agent without one), on the bench's
// replicas of the corpus samples (bench/more-corpus.mjs). Two measures for each agent: through
// summarizeSession from the files (reading included), and on the files already in memory (the passes
// alone). Each run reads every session five times over and keeps its median pass; the two ways
// alternate run by run in fresh processes, in one sitting; medians of the runs, µs per KB of wall
// time and of CPU time (the steadier of the two on a busy machine).
// Options: --runs N (default 5), --replicas N (of each sample, default 200), --keep.
// Inside: --measure <agent> --way full|fast [--in-memory] (one measurement, printed as JSON).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildMoreCorpus, moreAgentEnv } from './more-corpus.mjs';
import { median } from './stats.mjs';

const self = fileURLToPath(import.meta.url);
const root = resolve(dirname(self), '../..');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    replicas: { type: 'string', default: '200' },
    keep: { type: 'boolean' },
    measure: { type: 'string' },
    way: { type: 'string' },
    'in-memory': { type: 'boolean' },
  },
});

const AGENTS = ['qwen-code', 'pi', 'copilot-cli'];
const PASSES = 5;

/** Summarizes every session of `agent` one after another, by its fast pass or by the full translation. */
async function measureOnce(agent, way, inMemory) {
  const lib = await import(join(root, 'packages/transcript/dist/index.js'));
  const platform = lib.nodePlatform();
  const builtin = lib.builtinSessionAdapters.find((a) => a.id === agent);
  // The same adapter without its passes: summarizeSession then folds the translation.
  const adapter = way === 'full' ? { ...builtin, summarize: undefined, summaryPass: undefined } : builtin;
  const sessions = [];
  for await (const entry of lib.discoverSessions(platform, { agent }))
    if (!('ref' in entry)) sessions.push(entry);
  const bytes = sessions.reduce((n, s) => n + statSync(s.path).size, 0);
  let once;
  if (inMemory) {
    const files = sessions.map((s) => [{ path: s.path, data: readFileSync(s.path) }]);
    once = async (i) => {
      if (way === 'fast') return adapter.summarize(files[i]);
      const t = adapter.translate(files[i]);
      return t.ok ? { ok: true, value: lib.foldTranscript({ ...t.value, agent }, { prompts: true }) } : t;
    };
  } else {
    const target = (s) => ({ agent, path: s.path, sessionId: s.id });
    once = (i) =>
      lib.summarizeSession(platform, target(sessions[i]), { prompts: true, providers: [adapter] });
  }
  // A first pass over a few warms the code up, as it is warm in the daemon.
  for (let i = 0; i < Math.min(20, sessions.length); i++) await once(i);
  // Every session several times over, the median pass kept: a busy machine's stalls fall outside it.
  const times = [];
  const cpu = [];
  let turns = 0;
  for (let pass = 0; pass < PASSES; pass++) {
    turns = 0;
    const cpuStart = process.cpuUsage();
    const start = process.hrtime.bigint();
    for (let i = 0; i < sessions.length; i++) {
      const r = await once(i);
      if (!r.ok) throw new Error(`${sessions[i].path}: ${JSON.stringify(r.error)}`);
      turns += r.value.turns ?? 0;
    }
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
  }
  console.log(
    JSON.stringify({ sessions: sessions.length, bytes, turns, ms: median(times), cpuMs: median(cpu) }),
  );
}

if (values.measure !== undefined) {
  await measureOnce(values.measure, values.way ?? 'fast', values['in-memory'] ?? false);
  process.exit(0);
}

const runs = Number(values.runs);
const source = process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus');
if (!existsSync(join(source, 'more'))) {
  console.error(`agents summary bench: no corpus at ${source} (set CAIRN_CORPUS)`);
  process.exit(1);
}
if (!existsSync(join(root, 'packages/transcript/dist/index.js'))) {
  console.error('agents summary bench: build first (npm run build)');
  process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), 'cairn-bench-summary-'));
try {
  const replicas = Number(values.replicas);
  const env = moreAgentEnv(work);
  const more = await buildMoreCorpus({ source, work, replicas });
  console.log(
    `agents summary bench: ${replicas} replicas of each sample (${more.files} files); ${runs} runs each way, alternating, medians`,
  );
  const child = (args) =>
    JSON.parse(
      execFileSync(process.execPath, [self, ...args], { env, encoding: 'utf8', maxBuffer: 1 << 26 })
        .trim()
        .split('\n')
        .pop(),
    );
  console.log(
    `  ${'agent'.padEnd(26)} ${'sessions'.padStart(8)} ${'KB'.padStart(8)} ${'full µs/KB'.padStart(11)} ${'fast µs/KB'.padStart(11)} ${'full/fast'.padStart(9)} ${'full CPU'.padStart(11)} ${'fast CPU'.padStart(11)} ${'CPU ratio'.padStart(9)}`,
  );
  for (const agent of AGENTS)
    for (const inMemory of [false, true]) {
      const full = [];
      const fast = [];
      const extra = inMemory ? ['--in-memory'] : [];
      for (let i = 0; i < runs; i++) {
        full.push(child(['--measure', agent, '--way', 'full', ...extra]));
        fast.push(child(['--measure', agent, '--way', 'fast', ...extra]));
      }
      const s = full[0];
      if (fast.some((f) => f.turns !== s.turns))
        throw new Error(`${agent}: the two ways count different turns`);
      const perKb = (xs, key) => (median(xs.map((x) => x[key])) * 1000) / (s.bytes / 1024);
      const [a, b] = [perKb(full, 'ms'), perKb(fast, 'ms')];
      const [ca, cb] = [perKb(full, 'cpuMs'), perKb(fast, 'cpuMs')];
      const name = `${agent}${inMemory ? ', in memory' : ''}`;
      console.log(
        `  ${name.padEnd(26)} ${String(s.sessions).padStart(8)} ${(s.bytes / 1024).toFixed(0).padStart(8)} ${a.toFixed(1).padStart(11)} ${b.toFixed(1).padStart(11)} ${`${(a / b).toFixed(2)}x`.padStart(9)} ${ca.toFixed(1).padStart(11)} ${cb.toFixed(1).padStart(11)} ${`${(ca / cb).toFixed(2)}x`.padStart(9)}`,
      );
    }
} finally {
  if (values.keep) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
