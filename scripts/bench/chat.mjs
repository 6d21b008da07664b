// The chat benchmark, after the others in `npm run bench` (or alone with `npm run bench -- --only
// chat`, or `node scripts/bench/chat.mjs`), against `cairn serve` (bin/cairn.js, built by `npm run
// build`) driving the scripted agent (packages/server/test/support/wire-agent.mjs, each chunk
// carrying the time it was sent):
//   1. per-delta latency from the agent to the tab, a paced turn of --deltas chunks with one tab
//      and with ten tabs open on the session: `ws` clients on /chat (target p95 < 50 ms), then
//      Chromium tabs of the web UI (when the page's socket receives the delta, and the first frame
//      after its text is in the DOM)
//   2. time from Send to the first token: Enter in the web UI's composer to the first reply text
//      painted, a `ws` client (user_message → text_delta), and the same agent driven by a bare SDK
//      client (prompt → first chunk received); on the scripted agent, then on the real Claude Code
//      adapter against the fake model
//   3. many sessions at once: --load-sessions chats streaming together, each watched by one `ws`
//      client, the agents paced --load-pace-ms between deltas (20: 50 a second each), then not
//      paced at all; per-delta latency from the agent to its client (target p95 < 50 ms paced), and
//      the share of a core the daemon and its agents used meanwhile
// The measurements (scripts/bench/chat-measure.ts) are bundled here and run in a fresh process each.
// Options: --runs N (runs of each delta measurement, default 3), --deltas N (default 2000),
// --pace-ms N (the agent's pause before each chunk, default 2), --page-deltas N (default 500),
// --page-pace-ms N (default 5), --page-paragraph N (a blank line after every Nth delta, as replies
// are written in paragraphs, default 20; 0 for one paragraph), --turns N (scripted agent, default 30), --claude-turns N (default
// 10), --no-browser (the `ws` figures alone), --no-agents (skip Claude Code), --load-sessions N
// (default 20), --load-deltas N (each session's turn, default 250), --load-pace-ms N (default 20),
// --load-runs N (default 1), --load-only (that part alone), --no-load, --load-profile DIR (the
// daemon of each paced run writes a CPU profile there).
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CHROMIUM_PATH } from '../chromium.mjs';
import { bundleMeasure, runMeasure } from './measure-bundle.mjs';
import { median } from './stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    deltas: { type: 'string', default: '2000' },
    'pace-ms': { type: 'string', default: '2' },
    'page-deltas': { type: 'string', default: '500' },
    'page-pace-ms': { type: 'string', default: '5' },
    'page-paragraph': { type: 'string', default: '20' },
    turns: { type: 'string', default: '30' },
    'claude-turns': { type: 'string', default: '10' },
    'no-browser': { type: 'boolean' },
    'no-agents': { type: 'boolean' },
    'load-sessions': { type: 'string', default: '20' },
    'load-deltas': { type: 'string', default: '250' },
    'load-pace-ms': { type: 'string', default: '20' },
    'load-runs': { type: 'string', default: '1' },
    'load-only': { type: 'boolean' },
    'no-load': { type: 'boolean' },
    'load-profile': { type: 'string' },
  },
});
const runs = Number(values.runs);
const browser = !values['no-browser'] && existsSync(CHROMIUM_PATH);

if (!existsSync(join(root, 'packages/cli/dist/main.js')) || !existsSync(join(root, 'packages/web/dist'))) {
  console.error('chat bench: build first (npm run build)');
  process.exit(1);
}

const bundle = await bundleMeasure(root, 'chat-measure', ['better-sqlite3', 'playwright-core', 'ws']);

function measure(...args) {
  return measureWith({}, ...args);
}

function measureWith(env, ...args) {
  return runMeasure(root, bundle, args, env);
}

const ms = (x) => `${Number.isFinite(x) ? x.toFixed(1) : '?'} ms`.padStart(11);
const ratio = (x, y) => (Number.isFinite(x / y) ? `${(x / y).toFixed(2)}x` : '?');
const med = (samples, pick) => median(samples.map(pick));
const header = (cols) => console.log(`  ${''.padEnd(44)} ${cols.map((c) => c.padStart(11)).join(' ')}`);
const row = (name, cells) => console.log(`  ${name.padEnd(44)} ${cells.join(' ')}`);
/** Each run's p95, so the spread behind a median shows. */
const runsText = (samples, pick) => samples.map((s) => pick(s).toFixed(0)).join(' ');

const load = () =>
  `load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')} on ${availableParallelism()} cores`;

// 3. Many sessions at once, first when asked alone.
const cpu = (x) => `${Number.isFinite(x) ? (x * 100).toFixed(0) : '?'}%`.padStart(11);
function many() {
  const sessions = Number(values['load-sessions']);
  const perSession = Number(values['load-deltas']);
  const pacing = Number(values['load-pace-ms']);
  const loadRuns = Number(values['load-runs']);
  console.log(`\nchat: ${load()}`);
  console.log(
    `chat: ${sessions} sessions streaming at once, one ws client each, turns of ${perSession} deltas a session, ` +
      `paced ${pacing} ms and not paced (a turn first, not counted), ${loadRuns} run${loadRuns > 1 ? 's' : ''}${loadRuns > 1 ? ', medians' : ''}`,
  );
  const paced = [];
  const unpaced = [];
  for (let i = 0; i < loadRuns; i++) {
    const profile = values['load-profile']
      ? { CAIRN_BENCH_DAEMON_PROFILE: resolve(values['load-profile']) }
      : {};
    paced.push(measureWith(profile, 'load-ws', sessions, perSession, pacing));
    unpaced.push(measure('load-ws', sessions, perSession, 0));
  }
  header(['p50', 'p95', 'max', 'deltas/s', 'daemon CPU', 'agents CPU']);
  const line = (name, samples) => {
    row(name, [
      ms(med(samples, (s) => s.p50Ms)),
      ms(med(samples, (s) => s.p95Ms)),
      ms(med(samples, (s) => s.maxMs)),
      med(samples, (s) => s.rate)
        .toFixed(0)
        .padStart(11),
      cpu(med(samples, (s) => s.daemonCpu)),
      cpu(med(samples, (s) => s.agentsCpu)),
    ]);
  };
  line(`(y) ${sessions} sessions × ${pacing} ms pace`, paced);
  line(`(z) ${sessions} sessions, not paced`, unpaced);
  console.log(
    `  CPU as a share of one core over the turn; the clients' own: ${cpu(med(paced, (s) => s.clientCpu)).trim()} paced, ` +
      `${cpu(med(unpaced, (s) => s.clientCpu)).trim()} not paced; their event-loop delay p99 ` +
      `${med(paced, (s) => s.clientLoopP99Ms).toFixed(1)} ms, ${med(unpaced, (s) => s.clientLoopP99Ms).toFixed(1)} ms`,
  );
  console.log(
    `  the daemon's main thread, share of the turn: running ${cpu(med(paced, (s) => s.daemonRan)).trim()}, ` +
      `waiting for a core ${cpu(med(paced, (s) => s.daemonWaitedForCore)).trim()} paced; ` +
      `${cpu(med(unpaced, (s) => s.daemonRan)).trim()}, ${cpu(med(unpaced, (s) => s.daemonWaitedForCore)).trim()} not paced`,
  );
  console.log(
    `  the worst session's p95: ${med(paced, (s) => s.worstSessionP95Ms).toFixed(1)} ms paced, ` +
      `${med(unpaced, (s) => s.worstSessionP95Ms).toFixed(1)} ms not paced`,
  );
  if (loadRuns > 1)
    console.log(
      `  p95 of each run, ms: paced ${runsText(paced, (s) => s.p95Ms)}; not paced ${runsText(unpaced, (s) => s.p95Ms)}`,
    );
  console.log(`chat: ${load()} after`);
  return { paced: med(paced, (s) => s.p95Ms), unpaced: med(unpaced, (s) => s.p95Ms) };
}
if (values['load-only']) {
  const r = many();
  console.log(
    `\n  (y)        p95 per delta, ${values['load-sessions']} paced sessions  ${ms(r.paced)}  (target < 50 ms)`,
  );
  process.exit(0);
}

// 1. Per-delta latency.
const deltas = Number(values.deltas);
const pace = Number(values['pace-ms']);
console.log(`\nchat: ${load()} before the chat bench (the figures move with it)`);
console.log(
  `chat: per-delta latency, agent → tab, turns of ${deltas.toLocaleString('en-US')} deltas paced ${pace} ms (two with one tab, two with ten, a run), ${runs} runs, medians`,
);
const ws = [];
for (let i = 0; i < runs; i++) ws.push(measure('deltas-ws', deltas, pace));
header(['p50', 'p95', 'max']);
const wsOne = {
  p50: med(ws, (s) => s.one.p50Ms),
  p95: med(ws, (s) => s.one.p95Ms),
  max: med(ws, (s) => s.one.maxMs),
};
const wsTen = {
  p50: med(ws, (s) => s.ten.p50Ms),
  p95: med(ws, (s) => s.ten.p95Ms),
  max: med(ws, (s) => s.ten.maxMs),
};
row('(k) ws client, one tab', [ms(wsOne.p50), ms(wsOne.p95), ms(wsOne.max)]);
row('(l) ws clients, ten tabs (all their deltas)', [ms(wsTen.p50), ms(wsTen.p95), ms(wsTen.max)]);
if (runs > 1)
  console.log(
    `  p95 of each run, ms: one tab ${runsText(ws, (s) => s.one.p95Ms)}; ten tabs ${runsText(ws, (s) => s.ten.p95Ms)}`,
  );
console.log(
  `  the clients' own event-loop delay, p99 of the worse turn: ${med(ws, (s) => s.one.clientLoopP99Ms).toFixed(1)} ms (one tab), ` +
    `${med(ws, (s) => s.ten.clientLoopP99Ms).toFixed(1)} ms (ten tabs)`,
);

let page;
if (browser) {
  const pageDeltas = Number(values['page-deltas']);
  const pagePace = Number(values['page-pace-ms']);
  const paragraph = Number(values['page-paragraph']);
  console.log(`\nchat: ${load()}`);
  console.log(
    `chat: per-delta latency to Chromium tabs, a turn of ${pageDeltas.toLocaleString('en-US')} deltas paced ${pagePace} ms` +
      `${paragraph > 0 ? ` in paragraphs of ${paragraph}` : ', one paragraph'}, ${runs} runs, medians`,
  );
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(measure('deltas-page', pageDeltas, pagePace, paragraph));
  const pick = (tabs, what) => ({
    p50: med(samples, (s) => s[tabs][what].p50Ms),
    p95: med(samples, (s) => s[tabs][what].p95Ms),
    max: med(samples, (s) => s[tabs][what].maxMs),
  });
  page = {
    oneReceived: pick('one', 'received'),
    onePainted: pick('one', 'painted'),
    tenReceived: pick('ten', 'received'),
    tenPainted: pick('ten', 'painted'),
  };
  header(['p50', 'p95', 'max']);
  for (const [name, f] of [
    ['(m) one tab, received by the page', page.oneReceived],
    ['(n) one tab, painted', page.onePainted],
    ['(o) ten tabs, received by the pages', page.tenReceived],
    ['(p) ten tabs, painted', page.tenPainted],
  ])
    row(name, [ms(f.p50), ms(f.p95), ms(f.max)]);
  if (runs > 1)
    console.log(
      `  p95 painted of each run, ms: one tab ${runsText(samples, (s) => s.one.painted.p95Ms)}; ` +
        `ten tabs ${runsText(samples, (s) => s.ten.painted.p95Ms)}`,
    );
  const hidden = Math.max(...samples.map((s) => s.hidden));
  const errors = samples.flatMap((s) => s.errors);
  if (hidden > 0) console.log(`  (${hidden} of the ten tabs were not visible)`);
  if (errors.length > 0) console.log(`  page errors: ${errors.slice(0, 3).join('; ')}`);
} else {
  console.log('\nchat: Chromium tabs skipped (no browser, or --no-browser)');
}

// 2. Time from Send to the first token.
function firstTokens(title, turns, agent, labels) {
  console.log(`\nchat: ${load()}`);
  console.log(
    `chat: time from Send to the first token, ${title}, ${turns} turns each (after one not counted)`,
  );
  const r = measure('ttft', turns, agent);
  header(['p50', 'p95']);
  row(labels[0], [ms(r.bare.p50Ms), ms(r.bare.p95Ms)]);
  row(labels[1], [ms(r.ws.p50Ms), ms(r.ws.p95Ms)]);
  row(labels[2], [ms(r.pageReceived.p50Ms), ms(r.pageReceived.p95Ms)]);
  row(labels[3], [ms(r.pagePainted.p50Ms), ms(r.pagePainted.p95Ms)]);
  if (r.errors.length > 0) console.log(`  page errors: ${r.errors.slice(0, 3).join('; ')}`);
  return r;
}
const scripted = browser
  ? firstTokens('the scripted agent', Number(values.turns), 'wire', [
      '(q) bare SDK client, received',
      '(r) cairn, ws client on /chat, received',
      '(s) cairn, web UI, received by the page',
      '(t) cairn, web UI, painted',
    ])
  : undefined;
const claude =
  browser && !values['no-agents']
    ? firstTokens('Claude Code against the fake model', Number(values['claude-turns']), 'claude-code', [
        '(u) bare SDK client, received',
        '(v) cairn, ws client on /chat, received',
        '(w) cairn, web UI, received by the page',
        '(x) cairn, web UI, painted',
      ])
    : undefined;

const loaded = values['no-load'] ? undefined : many();

console.log('\nratios and differences (lower is better for cairn):');
console.log(`  (k)        p95 per delta, one ws tab          ${ms(wsOne.p95)}  (target < 50 ms)`);
console.log(`  (l)        p95 per delta, ten ws tabs         ${ms(wsTen.p95)}  (target < 50 ms)`);
console.log(`  (l) / (k)  p95, ten tabs vs one              ${ratio(wsTen.p95, wsOne.p95).padStart(11)}`);
if (page) {
  console.log(`  (n)        p95 per delta painted, one tab     ${ms(page.onePainted.p95)}  (target < 50 ms)`);
  console.log(`  (p)        p95 per delta painted, ten tabs    ${ms(page.tenPainted.p95)}  (target < 50 ms)`);
  console.log(
    `  (p) / (n)  p95 painted, ten tabs vs one      ${ratio(page.tenPainted.p95, page.onePainted.p95).padStart(11)}`,
  );
}
const added = (r, names) => {
  console.log(
    `  ${names}  Send → painted vs bare, p50        ${ms(r.pagePainted.p50Ms - r.bare.p50Ms)} added, ${ratio(r.pagePainted.p50Ms, r.bare.p50Ms)}`,
  );
  console.log(
    `  ${names}  Send → painted vs bare, p95        ${ms(r.pagePainted.p95Ms - r.bare.p95Ms)} added, ${ratio(r.pagePainted.p95Ms, r.bare.p95Ms)}`,
  );
};
if (loaded) {
  console.log(`  (y)        p95 per delta, many paced sessions ${ms(loaded.paced)}  (target < 50 ms)`);
  console.log(
    `  (z) / (y)  p95, not paced vs paced           ${ratio(loaded.unpaced, loaded.paced).padStart(11)}`,
  );
}
if (scripted) added(scripted, '(t) − (q)');
if (claude) added(claude, '(x) − (u)');
