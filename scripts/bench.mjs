// npm run bench: builds a large corpus by replicating the shared one with rewritten ids, then
// measures side by side (several runs, medians, peak memory) and prints ratios:
//   (a) a naive baseline: read every file, JSON.parse every line
//   (b) cairn summary --all --json
//   (c) loading every transcript through the library
//   (d) ccusage claude + codex session --json --offline, when it can be installed, beside cairn
//       summary of the same two agents' files alone (ccusage reads no Gemini CLI sessions)
//   (e, f) cairn usage daily --json beside ccusage daily --json, cold and run again
// Then the daemon's benches (scripts/bench/index.mjs), the usage reports beside ccusage with and
// without a daemon, and the Usage page (scripts/bench/usage.mjs), the drive bench (scripts/bench/drive.mjs),
// the chat bench (scripts/bench/chat.mjs), the reader bench (scripts/bench/reader-bench.mjs) and the
// per-agent read bench (scripts/bench/agents-read.mjs: each agent's sessions per byte against Codex's,
// and the listing of a SQLite store of 10,000 sessions) with the append latency of a followed
// OpenCode store session (scripts/bench/store-append-latency.mjs), the redactor's cost on a
// dump (scripts/bench/dump-redact.mjs), and a followed Gemini CLI document's rewrites read whole and
// incrementally (scripts/bench/gemini-append.mjs), and a workstation syncing its machine's sessions
// to a server (scripts/bench/sync.mjs: --sync-sessions of the smaller sessions, default 5000), and
// a team's server: three workstations streaming through two processes on PostgreSQL, beside one
// process on SQLite (scripts/bench/team.mjs).
// Options: --size MB (default 500), --runs N (default 3), --keep (leave the corpus in place),
// --only drive|chat|reader|agents|gemini|index|sync|team (that bench alone, no corpus of --size; index: the
// daemon over a corpus of --sessions of the shared corpus's smaller sessions, default 20000: its cold
// index, search over it, and its CPU and memory while idle), --sessions N, --big MB (one large Codex rollout:
// summary and cold index with peak memory, default 1024; 0 skips it), --large (also a cold index of
// a 5 GB corpus, when the disk has room), --large-size MB (default 5120), --growing MB,MB (rollouts
// of these sizes growing while nobody follows them: the daemon's CPU meanwhile; default 100,300; 0
// skips it). Arguments after a second `--` go to the bench of --only (npm run bench -- --only chat --
// --load-only).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { benchBigRollout } from './bench/big-rollout.mjs';
import { agentEnv, buildCorpus } from './bench/corpus.mjs';
import { benchGrowing } from './bench/growing.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values, positionals } = parseArgs({
  options: {
    size: { type: 'string', default: '500' },
    runs: { type: 'string', default: '3' },
    keep: { type: 'boolean' },
    only: { type: 'string' },
    big: { type: 'string', default: '1024' },
    large: { type: 'boolean' },
    'large-size': { type: 'string', default: '5120' },
    growing: { type: 'string', default: '100,300' },
    sessions: { type: 'string', default: '20000' },
    'sync-sessions': { type: 'string', default: '5000' },
  },
  allowPositionals: true,
});
const extra = values.only === undefined ? [] : positionals;
const drive = () =>
  execFileSync(process.execPath, [join(root, 'scripts/bench/drive.mjs'), '--runs', values.runs, ...extra], {
    stdio: 'inherit',
  });
const chat = () =>
  execFileSync(process.execPath, [join(root, 'scripts/bench/chat.mjs'), '--runs', values.runs, ...extra], {
    stdio: 'inherit',
  });
// The reader in Chromium on a 30 MB session of its own: first screen with and without the highlighter,
// frame times while scrolling.
const reader = () =>
  execFileSync(process.execPath, [join(root, 'scripts/bench/reader-bench.mjs'), ...extra], {
    stdio: 'inherit',
  });
// Each agent's sessions read per byte, then a followed OpenCode store session's append latency at
// three lengths (its arguments are its own defaults).
const agents = () => {
  execFileSync(
    process.execPath,
    [join(root, 'scripts/bench/agents-read.mjs'), '--runs', values.runs, ...extra],
    {
      stdio: 'inherit',
    },
  );
  execFileSync(process.execPath, [join(root, 'scripts/bench/store-append-latency.mjs')], {
    stdio: 'inherit',
  });
};
// A Gemini CLI document of 1,000 and 10,000 messages rewritten in place: each rewrite's read, whole
// (before) and only where it changed (after).
const gemini = () =>
  execFileSync(process.execPath, [join(root, 'scripts/bench/gemini-append.mjs'), ...extra], {
    stdio: 'inherit',
  });
// The daemon over many sessions of the sizes people mostly have: cold index, search, idle cost.
const sessions = () =>
  execFileSync(
    process.execPath,
    [
      join(root, 'scripts/bench/index.mjs'),
      '--sessions',
      values.sessions,
      '--cold-only',
      '--no-browser',
      '--idle',
      '30',
      ...extra,
    ],
    { stdio: 'inherit' },
  );
// A workstation's first sync of its machine's sessions to a server, a restart's, and the list there.
const sync = () =>
  execFileSync(
    process.execPath,
    [join(root, 'scripts/bench/sync.mjs'), '--sessions', values['sync-sessions'], ...extra],
    { stdio: 'inherit' },
  );
// Three workstations streaming through two server processes on PostgreSQL, beside one on SQLite.
const team = () =>
  execFileSync(process.execPath, [join(root, 'scripts/bench/team.mjs'), '--runs', values.runs, ...extra], {
    stdio: 'inherit',
  });
if (values.only !== undefined) {
  if (!['drive', 'chat', 'reader', 'agents', 'gemini', 'index', 'sync', 'team'].includes(values.only)) {
    console.error(
      `bench: --only knows drive, chat, reader, agents, gemini, index, sync and team, not ${values.only}`,
    );
    process.exit(1);
  }
  if (values.only === 'drive') drive();
  else if (values.only === 'sync') sync();
  else if (values.only === 'team') team();
  else if (values.only === 'index') sessions();
  else if (values.only === 'gemini') gemini();
  else if (values.only === 'agents') agents();
  else if (values.only === 'reader') reader();
  else chat();
  process.exit(0);
}
const targetBytes = Number(values.size) * 1024 * 1024;
const runs = Number(values.runs);
const source = process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus');
if (!existsSync(source)) {
  console.error(`bench: no corpus at ${source} (set CAIRN_CORPUS)`);
  process.exit(1);
}

const work = mkdtempSync(join(tmpdir(), 'cairn-bench-'));
const home = join(work, 'home');
const env = agentEnv(work);

/** Wall time (s) and peak RSS (MB) of a command, from GNU time when present. */
function measure(command, args, runEnv = env) {
  const timed = existsSync('/usr/bin/time');
  const start = process.hrtime.bigint();
  const r = timed
    ? spawnSync('/usr/bin/time', ['-f', '%M', command, ...args], {
        env: runEnv,
        encoding: 'utf8',
        maxBuffer: 1 << 30,
      })
    : spawnSync(command, args, { env: runEnv, encoding: 'utf8', maxBuffer: 1 << 30 });
  const wall = Number(process.hrtime.bigint() - start) / 1e9;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr}`);
  const rssKb = timed ? Number(r.stderr.trim().split('\n').pop()) : Number.NaN;
  return { wall, rss: rssKb / 1024, stdout: r.stdout };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

let coldHomes = 0;

/**
 * Runs of a command, each with a CAIRN_HOME of its own that starts empty (`cold`: cairn keeps
 * nothing from an earlier run), or all with one that a first, unmeasured run filled (`warm`).
 */
function bench(name, command, args, cairnHome = 'shared') {
  const warm = { ...env, CAIRN_HOME: join(work, 'cairn-warm') };
  const envOf = () =>
    cairnHome === 'cold'
      ? { ...env, CAIRN_HOME: join(work, `cairn-cold-${coldHomes++}`) }
      : cairnHome === 'warm'
        ? warm
        : env;
  if (cairnHome === 'warm') measure(command, args, warm);
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(measure(command, args, envOf()));
  const result = {
    name,
    wall: median(samples.map((s) => s.wall)),
    rss: Math.max(...samples.map((s) => s.rss)),
  };
  console.log(
    `  ${name.padEnd(34)} ${result.wall.toFixed(2).padStart(7)} s  ${result.rss.toFixed(0).padStart(6)} MB`,
  );
  return result;
}

const CCUSAGE_VERSION = '20.0.24';

/**
 * ccusage installed into a cache folder beside the build (not a project dependency: its
 * binaries for other platforms are missing from the registry, which npm ci refuses), or
 * undefined when it cannot be installed here.
 */
function installCcusage() {
  const prefix = join(root, 'node_modules/.cache/cairn-bench/ccusage');
  const bin = join(prefix, 'node_modules/.bin/ccusage');
  if (existsSync(bin)) return bin;
  const r = spawnSync(
    'npm',
    ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', `ccusage@${CCUSAGE_VERSION}`],
    {
      encoding: 'utf8',
    },
  );
  return r.status === 0 && existsSync(bin) ? bin : undefined;
}

const ccusage = installCcusage();
try {
  console.log(`bench: building a corpus of ${values.size} MB in ${work} …`);
  const built = buildCorpus({ source, work, targetBytes });
  console.log(
    `bench: ${built.replicas} replicas, ${built.files} files, ${(built.bytes / 1024 / 1024).toFixed(0)} MB; ${runs} runs each, medians\n`,
  );
  const node = process.execPath;
  const naive = bench('(a) read + JSON.parse every line', node, [
    join(root, 'scripts/bench/naive.mjs'),
    env.CLAUDE_CONFIG_DIR,
    env.CODEX_HOME,
    join(home, '.gemini'),
  ]);
  const summary = bench(
    '(b) cairn summary --all --json',
    node,
    [join(root, 'bin/cairn.js'), 'summary', '--all', '--json'],
    'cold',
  );
  const load = bench('(c) load every transcript', node, [join(root, 'scripts/bench/load-all.mjs')]);
  let usage;
  if (ccusage) {
    // ccusage reads one agent per command, and no Gemini CLI sessions: cairn is timed the same way,
    // one command per agent over the same files.
    const cairnAgent = (agent) => [
      join(root, 'bin/cairn.js'),
      'summary',
      '--all',
      '--agent',
      agent,
      '--json',
    ];
    const ours = [
      bench('(b1) cairn summary, Claude Code', node, cairnAgent('claude-code'), 'cold'),
      bench('(b2) cairn summary, Codex', node, cairnAgent('codex'), 'cold'),
    ];
    // The same commands again over unchanged files: cairn takes every session's numbers from
    // what its last run kept.
    const again = [
      bench('(b1w) …Claude Code, run again', node, cairnAgent('claude-code'), 'warm'),
      bench('(b2w) …Codex, run again', node, cairnAgent('codex'), 'warm'),
    ];
    const theirs = [
      bench('(d1) ccusage claude session', ccusage, ['claude', 'session', '--json', '--offline']),
      bench('(d2) ccusage codex session', ccusage, ['codex', 'session', '--json', '--offline']),
    ];
    // cairn usage daily beside ccusage daily, per agent: cold (nothing kept) and run again.
    const cairnDaily = (agent) => [join(root, 'bin/cairn.js'), 'usage', 'daily', '--agent', agent, '--json'];
    const daily = {
      cold: [
        bench('(e1) cairn usage daily, Claude Code', node, cairnDaily('claude-code'), 'cold'),
        bench('(e2) cairn usage daily, Codex', node, cairnDaily('codex'), 'cold'),
      ],
      warm: [
        bench('(e1w) …Claude Code, run again', node, cairnDaily('claude-code'), 'warm'),
        bench('(e2w) …Codex, run again', node, cairnDaily('codex'), 'warm'),
      ],
      theirs: [
        bench('(f1) ccusage claude daily', ccusage, ['claude', 'daily', '--json', '--offline']),
        bench('(f2) ccusage codex daily', ccusage, ['codex', 'daily', '--json', '--offline']),
      ],
    };
    const wall = (pair) => pair[0].wall + pair[1].wall;
    usage = { ours, again, theirs, daily };
    console.log(`  ${'(b1+b2) cairn, both agents'.padEnd(34)} ${wall(ours).toFixed(2).padStart(7)} s`);
    console.log(`  ${'(d1+d2) ccusage, both agents'.padEnd(34)} ${wall(theirs).toFixed(2).padStart(7)} s`);
  } else {
    console.log(`  (d) ccusage ${CCUSAGE_VERSION} could not be installed: skipped`);
  }
  console.log('\nratios (lower is better for cairn):');
  if (usage) {
    const [[b1, b2], [b1w, b2w], [d1, d2]] = [usage.ours, usage.again, usage.theirs];
    const both = (b1.wall + b2.wall) / (d1.wall + d2.wall);
    console.log(`  (b1+b2) / (d1+d2)  summary vs ccusage  ${both.toFixed(2)}x  (target ≤ 1.5x)`);
    console.log(`  (b1) / (d1)  Claude Code alone         ${(b1.wall / d1.wall).toFixed(2)}x`);
    console.log(`  (b2) / (d2)  Codex alone               ${(b2.wall / d2.wall).toFixed(2)}x`);
    const bothAgain = (b1w.wall + b2w.wall) / (d1.wall + d2.wall);
    console.log(`  (b1w+b2w) / (d1+d2)  run again vs ccusage  ${bothAgain.toFixed(2)}x`);
    const { daily } = usage;
    const pair = (xs) => xs[0].wall + xs[1].wall;
    console.log(
      `  (e1+e2) / (f1+f2)  usage daily vs ccusage, cold  ${(pair(daily.cold) / pair(daily.theirs)).toFixed(2)}x`,
    );
    console.log(
      `  (e1w+e2w) / (f1+f2)  usage daily vs ccusage, warm  ${(pair(daily.warm) / pair(daily.theirs)).toFixed(2)}x`,
    );
  }
  console.log(
    `  (c) / (a)  load vs naive parse      ${(load.wall / naive.wall).toFixed(2)}x  (target ≤ 1.0x)`,
  );
  console.log(`  (b) / (a)  summary vs naive parse   ${(summary.wall / naive.wall).toFixed(2)}x`);
  if (existsSync(join(root, 'scripts/bench/index.mjs'))) {
    execFileSync(node, [join(root, 'scripts/bench/index.mjs'), work], { env, stdio: 'inherit' });
  }
  // cairn usage daily beside ccusage daily over every agent, cold, again and with a daemon, and the
  // daemon's usage answer and Usage page.
  execFileSync(node, [join(root, 'scripts/bench/usage.mjs'), work, '--runs', String(runs)], {
    env,
    stdio: 'inherit',
  });
} finally {
  if (values.keep) console.log(`\nbench: corpus kept in ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
if (Number(values.big) > 0) await benchBigRollout({ source, sizeMb: Number(values.big) });
const growing = values.growing
  .split(',')
  .map(Number)
  .filter((mb) => mb > 0);
if (growing.length > 0) await benchGrowing({ source, sizes: growing });
if (values.large) {
  const sizeMb = Number(values['large-size']);
  // The corpus, its index and room to spare.
  const fs = statfsSync(tmpdir());
  const freeMb = (fs.bavail * fs.bsize) / 1024 / 1024;
  if (freeMb < sizeMb * 2.5)
    console.log(
      `\nbench: --large needs about ${(sizeMb * 2.5).toFixed(0)} MB free, ${freeMb.toFixed(0)} are: skipped`,
    );
  else
    execFileSync(
      process.execPath,
      [join(root, 'scripts/bench/index.mjs'), '--size', String(sizeMb), '--cold-only', '--no-browser'],
      { stdio: 'inherit' },
    );
}
if (Number(values.sessions) > 0) sessions();
agents();
gemini();
drive();
chat();
reader();
sync();
team();
// The redactor's cost on a dump of the reader bench's session.
execFileSync(process.execPath, [join(root, 'scripts/bench/dump-redact.mjs'), '--runs', values.runs], {
  stdio: 'inherit',
});
