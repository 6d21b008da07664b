// The reader's benchmarks, in `npm run bench` or alone (`node scripts/bench/reader-bench.mjs`), on one
// session of about 30 MB built from the corpus (reader-corpus.mjs), served by `cairn serve`:
//   1. first screen in Chromium, the highlighter's chunk allowed and refused, loads alternating
//      (medians side by side and their ratio: the highlighter should add nothing to the first screen)
//   2. scrolling twenty screens of it by mouse wheel: frame times from requestAnimationFrame (p95)
//   3. the big sessions of reader-big.mjs, each opened the first time and again: first rows painted,
//      all loaded, the daemon's peak memory, and scrolling (--claude MB, default 50; --codex MB,
//      default 196; 0 leaves one out)
// Options: --size MB (default 30), --runs N (first-screen loads per side, default 5), --screens N
// (default 20), --passes N (scrolls, each from a fresh page; default 3).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Daemon, killAll } from './daemon.mjs';
import { browserAvailable, firstScreens } from './first-screen.mjs';
import { buildReaderSession } from './reader-corpus.mjs';
import { scrollFrames } from './reader-scroll.mjs';
import { untilReady } from './ready.mjs';
import { bytesText, median, percentile } from './stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'bin/cairn.js');
const assets = join(root, 'packages/web/dist/assets');
const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '30' },
    runs: { type: 'string', default: '5' },
    screens: { type: 'string', default: '20' },
    passes: { type: 'string', default: '3' },
    claude: { type: 'string', default: '50' },
    codex: { type: 'string', default: '196' },
  },
});
const source = process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus');

const row = (label, value, note = '') => console.log(`  ${label.padEnd(40)} ${value.padEnd(30)} ${note}`);
const msText = (ms) => `${ms.toFixed(0)} ms`;
const painted = (runs) => median(runs.map((r) => r.marks.rowsPainted ?? Number.NaN));
const list = (runs) => runs.map((r) => (r.marks.rowsPainted ?? Number.NaN).toFixed(0)).join(', ');

/**
 * The chunks the app loads only on demand (the highlighter): every chunk of the build that the entry
 * does not import statically.
 */
function lazyChunks() {
  const entry = readFileSync(join(assets, 'app.js'), 'utf8');
  const eager = new Set(
    [...entry.matchAll(/(?:import|export)\s*(?:[^"'()]*?from\s*)?["']\.\/(chunk-[\w-]+\.js)["']/g)].map(
      (m) => m[1],
    ),
  );
  return readdirSync(assets).filter((f) => /^chunk-[\w-]+\.js$/.test(f) && !eager.has(f));
}

async function run() {
  if (!existsSync(join(root, 'packages/cli/dist/main.js')) || !existsSync(join(assets, 'app.js'))) {
    throw new Error('build first (npm run build)');
  }
  if (!browserAvailable()) {
    console.log('\nreader: no Chromium: skipped');
    return;
  }
  const work = mkdtempSync(join(tmpdir(), 'cairn-bench-reader-'));
  const stop = [];
  try {
    const session = buildReaderSession({ source, work, targetBytes: Number(values.size) * 1024 * 1024 });
    console.log(
      `\nreader (Chromium) on one session of ${bytesText(session.bytes)}, ${session.lines} records (medians):`,
    );
    const d = new Daemon({ cli, env: { ...session.env, CAIRN_HOME: join(work, 'cairn') } });
    stop.push(() => d.stop());
    await untilReady(d, 300_000);
    const { port, token } = await d.url;
    // A loaded machine can take long over the list the browser warms on: wait rather than fail.
    const at = { port, token, agent: session.agent, timeoutMs: 120_000 };

    // 1. First screen, the highlighter allowed and refused in turn, so that neither side always goes
    // first after the server warmed the session's file: at the top of the session, and landing on a
    // Read call whose result (code, highlighted) is on the first screen.
    const lazy = lazyChunks();
    const block = lazy.map((f) => `assets/${f}`);
    const lazyBytes = lazy.reduce((n, f) => n + statSync(join(assets, f)).size, 0);
    const runs = Number(values.runs);
    // The server's first read of the file is not the reader's: one load, untimed.
    await firstScreens({ ...at, sids: [session.sid] });
    const places = [
      { name: 'top of the session', suffix: '' },
      { name: 'landing on a Read result', suffix: `?item=${session.codeItem}&type=tool:Read` },
    ];
    const ratios = [];
    for (const [n, place] of places.entries()) {
      const allowed = [];
      const refused = [];
      for (let i = 0; i < runs; i++) {
        const pair = [
          { into: allowed, block: [] },
          { into: refused, block },
        ];
        if (i % 2 === 1) pair.reverse();
        for (const side of pair) {
          const [r] = await firstScreens({
            ...at,
            sids: [session.sid],
            suffix: place.suffix,
            block: side.block,
            watch: block,
            // Long enough for the landing's result to be read and its code to ask for the highlighter.
            settleMs: 2000,
          });
          side.into.push(r);
        }
      }
      const withIt = painted(allowed);
      const without = painted(refused);
      ratios.push({ place, withIt, without });
      row(
        `1${'ab'[n]}. first screen, ${place.name}`,
        `${msText(withIt)}  (${list(allowed)})`,
        `highlighter allowed: fetched in ${allowed.filter((r) => r.requested > 0).length}/${runs} loads; history in at ${msText(median(allowed.map((r) => r.marks.history ?? Number.NaN)))}`,
      );
      row(
        '    the same, highlighter refused',
        `${msText(without)}  (${list(refused)})`,
        `${lazy.length} lazy chunk${lazy.length === 1 ? '' : 's'} (${bytesText(lazyBytes)}) asked for and refused in ${refused.filter((r) => r.requested > 0).length}/${runs} loads`,
      );
    }

    // 2. Scrolling.
    // Each pass a fresh page, from the top; the median pass is the figure, each pass is shown.
    const screens = Number(values.screens);
    const passes = [];
    for (let i = 0; i < Number(values.passes); i++)
      passes.push(await scrollFrames({ ...at, sid: session.sid, screens }));
    const p95s = passes.map((p) => percentile(p.frames, 95));
    const p95 = median(p95s);
    const frames = passes.flatMap((p) => p.frames);
    const idleP95 = median(passes.map((p) => percentile(p.idle, 95)));
    const last = passes[passes.length - 1];
    row(
      `2. scroll ${screens} screens by wheel (${passes.length} passes)`,
      `p95 ${p95.toFixed(1)} ms  (${p95s.map((x) => x.toFixed(1)).join(', ')})`,
      `frame times by requestAnimationFrame; the page still: p95 ${idleP95.toFixed(1)} ms; all passes: p50 ${percentile(frames, 50).toFixed(1)} ms, max ${msText(Math.max(...frames))}, ${frames.length} frames; ${(last.scrolledPx / last.screenPx).toFixed(1)} screens of ${last.screenPx.toFixed(0)} px; ${last.items.trim()}`,
    );

    console.log('\ntargets and ratios:');
    const top = ratios[0];
    console.log(
      `  first screen                       ${msText(top.withIt).padEnd(8)} ${top.withIt < 1000 ? 'meets' : 'MISSES'} the target < 1 s`,
    );
    for (const r of ratios)
      console.log(
        `  highlighter allowed / refused      ${`${(r.withIt / r.without).toFixed(2)}x`.padEnd(8)} ${r.place.name} (≈ 1 when it adds nothing to the first screen)`,
      );
    console.log(
      `  scroll p95 frame                   ${`${p95.toFixed(1)} ms`.padEnd(8)} ${p95 < 20 ? 'meets' : 'MISSES'} the target < 20 ms (the page still, on this machine now: ${idleP95.toFixed(1)} ms)`,
    );
  } finally {
    for (const f of stop) await f();
    rmSync(work, { recursive: true, force: true });
  }
}

try {
  await run();
  // Its own process: a daemon of its own, and the memory of this one's pages given back.
  if (Number(values.claude) > 0 || Number(values.codex) > 0)
    execFileSync(
      process.execPath,
      [
        join(root, 'scripts/bench/reader-big.mjs'),
        ...['--claude', values.claude, '--codex', values.codex, '--screens', values.screens],
        ...['--passes', values.passes],
      ],
      { stdio: 'inherit' },
    );
} catch (e) {
  console.error(`bench: ${e.stack ?? e}`);
  process.exitCode = 1;
} finally {
  killAll();
}
