// cairn usage beside ccusage on the bench's corpus, and the daemon's usage answers, after the
// library's benches in `npm run bench` (which passes its corpus folder), or alone:
// `node scripts/bench/usage.mjs [work] [--size MB] [--runs N] [--no-browser]` builds a corpus itself.
//   u1  cairn usage daily --json, cold: a CAIRN_HOME of its own each run, no daemon
//   s1  cairn summary --all --json, cold: the yardstick of a first run (timed in turn with u1 and c)
//   u2  the same run again: the usage cache of an earlier run kept, no daemon
//   u3  the same with a daemon whose index holds the corpus: the CLI asks it, reading no transcript
//   c   ccusage daily --json --offline (every agent it finds), first run not timed
//   usage_read daily: the first answer of a daemon just restarted on its index, and answers after
//   the Usage page (#/usage): a full load in Chromium until its table and chart are drawn
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../chromium.mjs';
import { Client } from './client.mjs';
import { agentEnv, buildCorpus, files } from './corpus.mjs';
import { Daemon, killAll } from './daemon.mjs';
import { untilReady } from './ready.mjs';
import { mb, median } from './stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'bin/cairn.js');
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    size: { type: 'string', default: '60' },
    runs: { type: 'string', default: '3' },
    'no-browser': { type: 'boolean' },
  },
});
const runs = Math.max(1, Number(values.runs));
const CCUSAGE_VERSION = '20.0.24';
const INDEX_TIMEOUT_MS = 60 * 60 * 1000;

if (!existsSync(join(root, 'packages/cli/dist/main.js'))) {
  console.error('bench: build first (npm run build)');
  process.exit(1);
}

const own = mkdtempSync(join(tmpdir(), 'cairn-bench-usage-'));
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

/** ccusage where the bench or the tests installed it, else installed for the bench; undefined when it cannot be. */
function ccusageBin() {
  const prefixes = ['cairn-bench', 'cairn-test'].map((d) => join(root, 'node_modules/.cache', d, 'ccusage'));
  for (const prefix of prefixes) {
    const bin = join(prefix, 'node_modules/.bin/ccusage');
    if (existsSync(bin)) return bin;
  }
  const r = spawnSync(
    'npm',
    [
      'install',
      '--prefix',
      prefixes[0],
      '--no-save',
      '--no-audit',
      '--no-fund',
      `ccusage@${CCUSAGE_VERSION}`,
    ],
    { encoding: 'utf8' },
  );
  const bin = join(prefixes[0], 'node_modules/.bin/ccusage');
  return r.status === 0 && existsSync(bin) ? bin : undefined;
}

/** Wall time (ms) and output of one run; a failed run stops the bench. */
function timed(command, args, env) {
  const start = performance.now();
  const r = spawnSync(command, args, { env, encoding: 'utf8', maxBuffer: 1 << 30 });
  const ms = performance.now() - start;
  if (r.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${r.stderr}`);
  return { ms, stdout: r.stdout };
}

/** `runs` timed runs, each with the environment `envOf(i)` gives; the median and the last output. */
function sample(command, args, envOf) {
  const all = [];
  let stdout = '';
  for (let i = 0; i < runs; i++) {
    const r = timed(command, args, envOf(i));
    all.push(r.ms);
    stdout = r.stdout;
  }
  return { ms: median(all), all, stdout };
}

const row = (label, value, note = '') => console.log(`  ${label.padEnd(44)} ${value.padEnd(14)} ${note}`);
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
const msText = (ms) => `${ms.toFixed(0)} ms`;

/** The Usage page opened `loads` times, each a full load after the sessions list warmed the browser. */
async function usagePage({ port, token }, loads) {
  const base = `http://127.0.0.1:${port}/`;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const out = [];
  const inPage = [];
  try {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    // The moments the table's first row and the chart's first bar are in the page, from the start
    // of the navigation: the page's own clock, without the bench's polling of it.
    await page.addInitScript(() => {
      const seen = {};
      window.__usageSeen = seen;
      new MutationObserver(() => {
        seen.row ??= document.querySelector('.usage-row') ? performance.now() : undefined;
        seen.chart ??= document.querySelector('.usage-chart svg rect') ? performance.now() : undefined;
      }).observe(document, { childList: true, subtree: true });
    });
    await page.goto(`${base}?token=${token}`);
    await page.locator('.session-item').first().waitFor({ timeout: 60_000 });
    for (let i = 0; i < loads; i++) {
      const started = performance.now();
      await page.goto(`${base}?run=${i}#/usage`);
      await page.locator('.usage-row').first().waitFor({ timeout: 60_000 });
      await page.locator('.usage-chart svg rect').first().waitFor({ timeout: 60_000 });
      out.push(performance.now() - started);
      const seen = await page.evaluate(() => window.__usageSeen);
      inPage.push(Math.max(seen.row, seen.chart));
    }
  } finally {
    await browser.close();
  }
  return { out, inPage };
}

async function run() {
  let work = positionals[0];
  if (work === undefined) {
    const source = process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus');
    if (!existsSync(source)) throw new Error(`no corpus at ${source} (set CAIRN_CORPUS)`);
    work = join(own, 'corpus');
    console.log(`bench: building a corpus of ${values.size} MB in ${work} …`);
    buildCorpus({ source, work, targetBytes: Number(values.size) * 1024 * 1024 });
  }
  work = resolve(work);
  const base = agentEnv(work);
  const homes = [base.CLAUDE_CONFIG_DIR, base.CODEX_HOME, join(base.HOME, '.gemini')].filter(existsSync);
  const bytes = homes.flatMap(files).reduce((n, f) => n + statSync(f).size, 0);
  console.log(
    `\nusage reports over ${mb(bytes).toFixed(0)} MB (${runs} runs each, medians; files in the page cache):`,
  );
  const node = process.execPath;
  const daily = [cli, 'usage', 'daily', '--json'];
  const withHome = (home) => ({ ...base, CAIRN_HOME: join(own, home) });

  const ccusage = ccusageBin();
  const ccusageArgs = ['daily', '--json', '--offline'];
  if (ccusage) timed(ccusage, ccusageArgs, base);
  // The cold runs in turn, so that a busy moment of the machine weighs on each alike.
  const colds = { usage: [], summary: [], ccusage: [] };
  let cold;
  for (let i = 0; i < runs; i++) {
    const u = timed(node, daily, withHome(`cold-${i}`));
    colds.usage.push(u.ms);
    cold = { stdout: u.stdout };
    colds.summary.push(timed(node, [cli, 'summary', '--all', '--json'], withHome(`summary-${i}`)).ms);
    if (ccusage) colds.ccusage.push(timed(ccusage, ccusageArgs, base).ms);
  }
  cold.ms = median(colds.usage);
  const summaryCold = { ms: median(colds.summary) };
  row('u1. cairn usage daily --json, cold', s(cold.ms), 'nothing kept, no daemon');
  row('s1. cairn summary --all --json, cold', s(summaryCold.ms), 'nothing kept, no daemon');
  timed(node, daily, withHome('warm'));
  const warm = sample(node, daily, () => withHome('warm'));
  row('u2. … run again', s(warm.ms), 'the usage cache of the last run, no daemon');

  let theirs;
  if (ccusage) {
    theirs = { ms: median(colds.ccusage) };
    row(`c.  ccusage ${CCUSAGE_VERSION} daily --json --offline`, s(theirs.ms), 'every agent it finds');
  } else row('c.  ccusage', 'not installed', 'skipped');

  // A daemon indexes the corpus, then starts again on its index: what a person's machine has.
  const env = withHome('daemon');
  let d = new Daemon({ cli, env });
  let indexed;
  try {
    indexed = await untilReady(d, INDEX_TIMEOUT_MS);
  } finally {
    await d.stop();
  }
  const indexBytes = ['index.sqlite', 'index.sqlite-wal']
    .map((f) => join(env.CAIRN_HOME, f))
    .filter(existsSync)
    .reduce((n, f) => n + statSync(f).size, 0);
  row(
    '    cold index (cairn serve)',
    s(indexed.readyMs),
    `${indexed.sessions} sessions; index ${mb(indexBytes).toFixed(0)} MB`,
  );
  d = new Daemon({ cli, env });
  try {
    const ready = await untilReady(d, INDEX_TIMEOUT_MS);
    const url = await d.url;
    const client = await Client.connect(url);
    let first;
    const after = [];
    try {
      for (let i = 0; i <= Math.max(5, runs); i++) {
        const started = performance.now();
        const reply = await client.request('usage_read', { kind: 'daily' }, 120_000);
        const ms = performance.now() - started;
        if (!reply.ok) throw new Error(`usage_read refused: ${JSON.stringify(reply.error)}`);
        if (first === undefined) first = { ms, rows: reply.rows.length };
        else after.push(ms);
      }
    } finally {
      client.close();
    }
    row(
      'usage_read daily, first answer after a restart',
      msText(first.ms),
      `${first.rows} days; the restart was ready in ${s(ready.readyMs)}, ${ready.indexed} sessions read again`,
    );
    row('usage_read daily, answers after', msText(median(after)), `median of ${after.length}`);

    const viaDaemon = sample(node, daily, () => env);
    row('u3. cairn usage daily --json, daemon running', s(viaDaemon.ms), 'the daemon answers from its index');
    // The same numbers whichever way the CLI counted them.
    const same =
      JSON.stringify(JSON.parse(viaDaemon.stdout).totals) === JSON.stringify(JSON.parse(cold.stdout).totals);
    if (!same) console.log('      the daemon’s totals differ from those counted from the files: WRONG');

    if (!values['no-browser'] && existsSync(CHROMIUM_PATH)) {
      const { out: loads, inPage } = await usagePage(url, Math.max(5, runs));
      row(
        'Usage page, full load to table and chart',
        msText(median(loads)),
        `median of ${loads.length}; all ${loads.map((ms) => ms.toFixed(0)).join(', ')} ms`,
      );
      row(
        '… drawn, by the page’s clock',
        msText(median(inPage)),
        `from the navigation's start; all ${inPage.map((ms) => ms.toFixed(0)).join(', ')} ms`,
      );
    } else row('Usage page', 'no browser', 'skipped');

    console.log('\nratios (lower is better for cairn):');
    if (theirs) {
      const ratio = (a) => `${(a.ms / theirs.ms).toFixed(2)}x`;
      row('  u1 / c  cold vs ccusage', ratio(cold));
      row('  u2 / c  run again vs ccusage', ratio(warm));
      row('  u3 / c  daemon running vs ccusage', ratio(viaDaemon));
    }
    row('  u3 / u2  daemon vs usage cache', `${(viaDaemon.ms / warm.ms).toFixed(2)}x`);
    row('  u1 / s1  cold usage vs cold summary --all', `${(cold.ms / summaryCold.ms).toFixed(2)}x`);
  } finally {
    await d.stop();
  }
}

await run();
