// The daemon's benchmarks, after the library's in `npm run bench` (which passes its corpus folder), or
// alone: `node scripts/bench/index.mjs [work] [--size MB]` builds a smaller replicated corpus itself.
//   1. cold index of the corpus: fresh $CAIRN_HOME, `cairn serve` until every session is indexed
//   2. warm restart on the same $CAIRN_HOME: time to ready, and what it read again
//   3. append-to-client latency over 200 appends to sessions of 1,000, 10,000 and 100,000 lines (p50, p95)
//   4. time to first screen of the largest corpus session in Chromium
// After the last warm restart, full-text search latency for common and rare words (2c).
// Options: --size MB (alone only, default 60), --cold-runs N, --warm-runs N (default 5),
// --screen-runs N (default 5), --appends N (default 200), --interval MS (default 30), --no-browser,
// --search-runs N (default 20 per word), --cold-only (the cold index alone, then search over it),
// --sessions N (a corpus of N sessions, the shared corpus's smaller ones replicated: those of at most
// --max-session-kb KB, default 512; built in [work] when that folder does not exist yet, and kept),
// --idle S (after the cold-only searches: the daemon's CPU, memory and file watches over S seconds of nothing
// happening, once it has let go of its threads, then the same after a restart; --settle S before, default 65).
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { measureAppends, prepareLongSession } from './append-latency.mjs';
import { agentEnv, buildCorpus, buildSessionCorpus, files, replicaId } from './corpus.mjs';
import { Daemon, killAll } from './daemon.mjs';
import { browserAvailable, firstScreens } from './first-screen.mjs';
import { countReads, straceWrap } from './read-count.mjs';
import { TOP_SESSIONS, untilReady, untilSessions } from './ready.mjs';
import { measureSearch } from './search.mjs';
import { bytesText, mb, median, percentile, sleep } from './stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'bin/cairn.js');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    size: { type: 'string', default: '60' },
    'cold-runs': { type: 'string' },
    'warm-runs': { type: 'string', default: '5' },
    'screen-runs': { type: 'string', default: '5' },
    appends: { type: 'string', default: '200' },
    interval: { type: 'string', default: '30' },
    'no-browser': { type: 'boolean' },
    'search-runs': { type: 'string', default: '20' },
    'cold-only': { type: 'boolean' },
    sessions: { type: 'string' },
    'max-session-kb': { type: 'string', default: '512' },
    idle: { type: 'string', default: '0' },
    settle: { type: 'string', default: '65' },
  },
});
const source = process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus');
const LARGEST = { project: '-work-spotter', sid: 'fa812bfe-b295-4cca-9c2f-fdf01028cb46' };
const LIVE = { project: '-work-spotter', sid: '4d5611e5-241a-462a-8d15-5122611a9569' };
const INDEX_TIMEOUT_MS = 60 * 60 * 1000;

if (!existsSync(join(root, 'packages/cli/dist/main.js'))) {
  console.error('bench: build first (npm run build)');
  process.exit(1);
}

const own = mkdtempSync(join(tmpdir(), 'cairn-bench-serve-'));
const cleanup = () => {
  killAll();
  rmSync(own, { recursive: true, force: true });
};
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    cleanup();
    process.exit(130);
  });
}

const row = (label, value, note = '') => console.log(`  ${label.padEnd(40)} ${value.padEnd(30)} ${note}`);
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
const msText = (ms) => `${ms.toFixed(0)} ms`;

async function run() {
  let work = positionals[0];
  if (values.sessions !== undefined && (work === undefined || !existsSync(work))) {
    if (!existsSync(source)) throw new Error(`no corpus at ${source} (set CAIRN_CORPUS)`);
    work ??= join(own, 'corpus');
    console.log(`bench: building a corpus of ${values.sessions} sessions in ${work} …`);
    const built = buildSessionCorpus({
      source,
      work,
      sessions: Number(values.sessions),
      maxSessionBytes: Number(values['max-session-kb']) * 1024,
    });
    console.log(
      `bench: ${built.sessions} sessions of ${built.kinds} kinds, ${mb(built.bytes).toFixed(0)} MB`,
    );
  } else if (work === undefined) {
    if (!existsSync(source)) throw new Error(`no corpus at ${source} (set CAIRN_CORPUS)`);
    work = join(own, 'corpus');
    console.log(`bench: building a corpus of ${values.size} MB in ${work} …`);
    buildCorpus({
      source,
      work,
      targetBytes: Number(values.size) * 1024 * 1024,
      minReplicas: Number(values['screen-runs']),
    });
  }
  work = resolve(work);
  const base = agentEnv(work);
  const env = { ...base, CAIRN_HOME: join(own, 'cairn') };
  const homes = [base.CLAUDE_CONFIG_DIR, base.CODEX_HOME, join(base.HOME, '.gemini')];
  const inHomes = (p) => homes.some((h) => p.startsWith(`${h}/`));
  const corpusFiles = homes.filter(existsSync).flatMap(files);
  const corpusBytes = corpusFiles.reduce((n, f) => n + statSync(f).size, 0);
  const coldRuns = Number(values['cold-runs'] ?? (corpusBytes > 200 * 1024 * 1024 ? 1 : 3));
  const warmRuns = Math.max(1, Number(values['warm-runs']));
  console.log(
    `\ndaemon (cairn serve) over ${corpusFiles.length} files, ${mb(corpusBytes).toFixed(0)} MB (in the page cache; medians where runs > 1):`,
  );

  // 1. Cold index.
  const cold = [];
  const idle = [];
  let coldSearch;
  for (let i = 0; i < coldRuns; i++) {
    rmSync(env.CAIRN_HOME, { recursive: true, force: true });
    const d = new Daemon({ cli, env });
    try {
      const ready = await untilReady(d, INDEX_TIMEOUT_MS);
      cold.push({ ...ready, ...d.usage(), cpuMs: d.cpuAndRss().cpuMs });
      // Alone, the cold index is all there is to search.
      if (values['cold-only'] && i === coldRuns - 1) {
        coldSearch = await measureSearch(await d.url, { runs: Number(values['search-runs']) });
        if (Number(values.idle) > 0) idle.push({ when: 'after the cold index', ...(await measureIdle(d)) });
      }
    } finally {
      await d.stop();
    }
  }
  const coldMs = median(cold.map((c) => c.readyMs));
  const topMs = median(cold.map((c) => c.topMs));
  const coldLast = cold[cold.length - 1];
  const dbBytes = ['index.sqlite', 'index.sqlite-wal']
    .map((f) => join(env.CAIRN_HOME, f))
    .filter(existsSync)
    .reduce((n, f) => n + statSync(f).size, 0);
  row(
    `1. cold index (${coldRuns} run${coldRuns > 1 ? 's' : ''})`,
    `${s(coldMs)}  CPU ${s(median(cold.map((c) => c.cpuMs)))}  ${(mb(corpusBytes) / (coldMs / 1000)).toFixed(1)} MB/s  ${Math.max(...cold.map((c) => c.peakRssMb)).toFixed(0)} MB peak  longest ping ${Math.max(...cold.map((c) => c.slowestPingMs)).toFixed(0)} ms`,
    `${coldLast.sessions} sessions; server read ${coldLast.serverReadMb ?? '?'} MB (its count, 10^6); index ${bytesText(dbBytes)}`,
  );
  row(
    `   the ${TOP_SESSIONS} most recent sessions`,
    `${s(topMs)}  ${(topMs / coldMs).toFixed(3)}x the cold index`,
    'each with its numbers: the first page of the list, filled in',
  );
  if (values['cold-only']) {
    searchRows(coldSearch);
    if (Number(values.idle) > 0) {
      // A restart over the index just built: what the daemon holds when it had nothing to index.
      const d = new Daemon({ cli, env });
      try {
        await untilReady(d, INDEX_TIMEOUT_MS);
        idle.push({ when: 'after a restart', ...(await measureIdle(d)) });
      } finally {
        await d.stop();
      }
    }
    for (const r of idle) idleRow(r);
    return;
  }

  // 2. Warm restarts; the last one stays up for the browser.
  const warm = [];
  let screens;
  let search;
  const browser = !values['no-browser'] && browserAvailable();
  for (let i = 0; i < warmRuns; i++) {
    const d = new Daemon({ cli, env });
    try {
      const ready = await untilReady(d, INDEX_TIMEOUT_MS);
      warm.push({ ...ready, ...d.usage() });
      if (i === warmRuns - 1)
        search = await measureSearch(await d.url, { runs: Number(values['search-runs']) });
      if (i === warmRuns - 1 && browser) {
        const { port, token } = await d.url;
        screens = await firstScreens({ port, token, agent: 'claude-code', sids: largestSids(work) });
      }
    } finally {
      await d.stop();
    }
  }
  const warmMs = median(warm.map((w) => w.readyMs));
  const reindexed = Math.max(...warm.map((w) => w.indexed));
  const printed = warm.find((w) => w.serverReadMb !== undefined);
  row(
    `2. warm restart (${warmRuns} runs)`,
    `${s(warmMs)}  ${median(warm.map((w) => w.peakRssMb)).toFixed(0)} MB peak`,
    `${reindexed} sessions re-indexed; ${
      printed
        ? `server read ${printed.serverReadMb} MB`
        : 'the server prints its read count only when it indexes something: none printed'
    }`,
  );

  searchRows(search);

  // 2b. What a warm restart reads, counted by the kernel.
  let warmReads;
  if (existsSync('/usr/bin/strace')) {
    const log = join(own, 'strace.log');
    const d = new Daemon({ cli, env: { ...env, UV_USE_IO_URING: '0' }, wrap: straceWrap(log) });
    let ready;
    try {
      ready = await untilReady(d, INDEX_TIMEOUT_MS);
    } finally {
      await d.stop();
    }
    warmReads = countReads(
      log,
      { 'agent files': inHomes, index: (p) => p.startsWith(`${env.CAIRN_HOME}/`) },
      ready.readyEpochMs,
    );
    const part = (k) => `${bytesText(warmReads[k].bytes)} in ${warmReads[k].files.size} files`;
    row(
      '   warm restart reads (strace, to ready)',
      `agent files ${part('agent files')}`,
      `index ${part('index')}; code and the rest ${part('other')}`,
    );
    for (const f of [...warmReads['agent files'].files].slice(0, 3))
      console.log(`      read: ${f.slice(work.length)}`);
  } else row('   warm restart reads', 'strace not installed: skipped');

  // 3. Append latency, in a home of its own.
  const live = join(own, 'live');
  const liveEnv = agentEnv(live);
  const liveSource = {
    sid: LIVE.sid,
    path: join(source, 'claude/projects', LIVE.project, `${LIVE.sid}.jsonl`),
  };
  const appends = Number(values.appends);
  const latency = [];
  // The daemon starts on an empty home, and the sessions are copied in while it watches.
  mkdirSync(join(liveEnv.CLAUDE_CONFIG_DIR, 'projects'), { recursive: true });
  const d = new Daemon({ cli, env: liveEnv });
  try {
    await untilReady(d, 120_000);
    // Sessions of three lengths, the real session's lines replicated with fresh ids: an append's
    // cost must not grow with the history before it.
    const scenarios = [1_000, 10_000, 100_000].map((lines, i) => ({
      name: `${lines} lines`,
      session: prepareLongSession({
        source: liveSource,
        claudeHome: liveEnv.CLAUDE_CONFIG_DIR,
        project: '-bench-live',
        lines,
        appends,
        replica: (i + 1) * 100_000,
      }),
    }));
    await untilSessions(d, scenarios.length, 30 * 60_000);
    for (const sc of scenarios) {
      const r = await measureAppends({
        daemon: d,
        session: sc.session,
        intervalMs: Number(values.interval),
        historyTimeoutMs: 10 * 60_000,
        quietBeforeMs: 3_000,
      });
      latency.push({ ...sc, ...r });
      const p50 = percentile(r.latencies, 50);
      const p95 = percentile(r.latencies, 95);
      row(
        `3. append → frame, ${sc.name}`,
        `p50 ${msText(p50)}  p95 ${msText(p95)}  max ${msText(Math.max(...r.latencies))}`,
        `${r.latencies.length}/${r.appends} lines from line ${sc.session.cut + 1} reached the client`,
      );
      row(
        `   resume after a reconnect, ${sc.name}`,
        `p50 ${msText(percentile(r.resumes, 50))}  max ${msText(Math.max(...r.resumes))}`,
        `${r.resumes.length} clients, each after the last 20 events it saw`,
      );
      if (r.newLane)
        row(
          `   a subagent's file appears, ${sc.name}`,
          `first frame ${msText(r.newLane.ms)}  longest ping ${msText(r.newLane.stall)}`,
          'its lane on the followed stream; a ping from another client meanwhile',
        );
      const noItem = Object.entries(r.noItem).map(([k, v]) => `${v} ${k}`);
      if (noItem.length > 0)
        console.log(`      records that make no item (nothing to stream): ${noItem.join(', ')}`);
      if (r.lost) console.log(`      ${r.lost} lines are in the history but never came live: LOST`);
      if (r.historyResends) console.log(`      the server sent the history again ${r.historyResends}x`);
      if (r.early)
        console.log(`      ${r.early} frames named a line not written yet: the attribution is off`);
    }
  } finally {
    await d.stop();
  }

  // 4. First screen.
  let firstScreenMs;
  if (screens) {
    const mark = (name) => median(screens.map((r) => r.marks[name] ?? Number.NaN));
    firstScreenMs = mark('rowsPainted');
    row(
      `4. first screen, largest session (${screens.length} runs)`,
      `${msText(firstScreenMs)}  (${screens.map((r) => (r.marks.rowsPainted ?? Number.NaN).toFixed(0)).join(', ')})`,
      `from navigation start to rows painted; driver's wall time ${msText(median(screens.map((r) => r.visibleMs)))}`,
    );
    console.log(
      `      page marks: app loaded ${msText(mark('loaded'))}, session open ${msText(mark('open'))}, history ${msText(mark('history'))}, first items ${msText(mark('firstItems'))}`,
    );
  } else row('4. first screen', browser ? 'no run' : 'no Chromium (or --no-browser): skipped');

  console.log('\ntargets and ratios:');
  console.log(`  warm restart / cold index          ${(warmMs / coldMs).toFixed(3)}x`);
  if (warmReads)
    console.log(
      `  agent bytes re-read / corpus       ${(warmReads['agent files'].bytes / corpusBytes).toFixed(5)}x  (should be ≈ 0)`,
    );
  for (const l of latency) {
    const p95 = percentile(l.latencies, 95);
    console.log(
      `  append p95, ${l.name.padEnd(20)} ${msText(p95).padEnd(8)} ${p95 < 50 ? 'meets' : 'MISSES'} the target < 50 ms`,
    );
  }
  if (firstScreenMs !== undefined)
    console.log(
      `  first screen                       ${msText(firstScreenMs).padEnd(8)} ${firstScreenMs < 1000 ? 'meets' : 'MISSES'} the target < 1 s`,
    );
}

/**
 * The daemon left alone: after `--settle` seconds (its index and search threads leave when idle), its
 * CPU over `--idle` seconds as a share of one core, and its resident memory sampled each second.
 */
async function measureIdle(d) {
  await sleep(Number(values.settle) * 1000);
  const seconds = Number(values.idle);
  const first = d.cpuAndRss();
  const start = performance.now();
  const rss = [first.rssMb];
  while (performance.now() - start < seconds * 1000) {
    await sleep(1000);
    rss.push(d.cpuAndRss().rssMb);
  }
  const last = d.cpuAndRss();
  const wallMs = performance.now() - start;
  return {
    cpuShare: (last.cpuMs - first.cpuMs) / wallMs,
    cpuMs: last.cpuMs - first.cpuMs,
    wallMs,
    rss,
    watches: d.fileWatches(),
  };
}

function idleRow(r) {
  row(
    `5. idle, ${r.when}`,
    `CPU ${(r.cpuShare * 100).toFixed(2)}% of a core  RSS ${median(r.rss).toFixed(0)} MB`,
    `${(r.cpuMs / 1000).toFixed(2)} s of CPU over ${(r.wallMs / 1000).toFixed(0)} s; RSS median of ${r.rss.length} samples (max ${Math.max(...r.rss).toFixed(0)} MB); ${r.watches} file watches`,
  );
}

function searchRows(search) {
  for (const [kind, r] of Object.entries(search)) {
    row(
      `2a. full-text search, ${kind} words`,
      `p50 ${msText(r.p50)}  p95 ${msText(r.p95)}  longest ping ${msText(r.longestPingMs)}${
        r.otherSearchMs === undefined ? '' : `  another client's longest search ${msText(r.otherSearchMs)}`
      }`,
      `${r.asked} searches; hits (limit 50): ${Object.entries(r.hits)
        .map(([w, n]) => `${w} ${n}`)
        .join(', ')}`,
    );
  }
}

/** The copies of the largest corpus session, one per replica (reused in turn when there are fewer). */
function largestSids(work) {
  const runs = Number(values['screen-runs']);
  const found = [];
  for (let n = 1; found.length < runs; n++) {
    const sid = replicaId(LARGEST.sid, n);
    if (!existsSync(join(work, 'claude/projects', `${LARGEST.project}-r${n}`, `${sid}.jsonl`))) break;
    found.push(sid);
  }
  if (found.length === 0) throw new Error(`no replica of ${LARGEST.sid} in ${work}`);
  return Array.from({ length: runs }, (_, i) => found[i % found.length]);
}

try {
  await run();
} catch (e) {
  console.error(`bench: ${e.stack ?? e}`);
  process.exitCode = 1;
} finally {
  cleanup();
}
