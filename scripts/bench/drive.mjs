// The drive benchmark, after the corpus benches in `npm run bench` (or alone with
// `npm run bench -- --only drive`, or `node scripts/bench/drive.mjs`):
//   1. a burst of 100,000 updates from the scripted agent (packages/server/test/support/
//      wire-agent.mjs), through a workstation with its journal on disk, the in-process link and
//      the server half with its event log on disk, to a server subscriber: updates per second and
//      p95 latency from the agent (each chunk carries the time it was sent), median of the runs,
//      and journal bytes per event; against the same agent driven by a bare SDK client (no journal)
//   2. cairn's added time to first token: the real Claude Code adapter against the fake model,
//      from the prompt to the first agent_message_chunk, turn by turn, bare client vs cairn; and
//      the same with the scripted agent (one chunk a turn), where no model or agent variance hides
//      what the client's path costs
// The measurements (scripts/bench/drive-measure.ts, which uses the tests' support files) are
// bundled here and run in a fresh process each.
// Options: --runs N (bursts of each kind, default 3), --chunks N (default 100000), --turns N
// (Claude Code turns, default 10), --scripted-turns N (default 50), --no-agents (skip Claude Code).
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleMeasure, runMeasure } from './measure-bundle.mjs';
import { median } from './stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    chunks: { type: 'string', default: '100000' },
    turns: { type: 'string', default: '10' },
    'scripted-turns': { type: 'string', default: '50' },
    'no-agents': { type: 'boolean' },
  },
});
const runs = Number(values.runs);
const chunks = Number(values.chunks);
const turns = Number(values.turns);
const scriptedTurns = Number(values['scripted-turns']);

const bundle = await bundleMeasure(root, 'drive-measure', ['better-sqlite3', 'ws']);

const measure = (what, count) => runMeasure(root, bundle, [what, count]);

const ms = (x) => `${x.toFixed(1).padStart(8)} ms`;
const rate = (x) => `${Math.round(x).toLocaleString('en-US').padStart(9)} /s`;

console.log(
  `\ndrive: a burst of ${chunks.toLocaleString('en-US')} updates from the scripted agent, ${runs} runs each, medians`,
);
const bare = [];
const cairn = [];
for (let i = 0; i < runs; i++) {
  bare.push(measure('burst-bare', chunks));
  cairn.push(measure('burst-cairn', chunks));
}
const summarize = (samples) => ({
  perSecond: median(samples.map((s) => s.perSecond)),
  p50Ms: median(samples.map((s) => s.p50Ms)),
  p95Ms: median(samples.map((s) => s.p95Ms)),
  seconds: median(samples.map((s) => s.seconds)),
});
const b = summarize(bare);
const c = summarize(cairn);
console.log(
  `  ${''.padEnd(40)} ${'updates'.padStart(12)} ${'p50 latency'.padStart(11)} ${'p95 latency'.padStart(11)}`,
);
for (const [name, s] of [
  ['(e) bare SDK client, no journal', b],
  ['(f) workstation + journal → server', c],
]) {
  console.log(`  ${name.padEnd(40)} ${rate(s.perSecond)} ${ms(s.p50Ms)} ${ms(s.p95Ms)}`);
}
const last = cairn[cairn.length - 1];
console.log(
  `  journal: ${median(cairn.map((s) => s.entryBytesPerEvent)).toFixed(0)} B of frame per event, ` +
    `${median(cairn.map((s) => s.fileBytesPerEvent)).toFixed(0)} B of file per event ` +
    `(${last.journalEvents.toLocaleString('en-US')} events a run; chunks carry an 18-character send time)`,
);

const samplesText = (xs) => xs.map((x) => x.toFixed(0)).join(' ');
function firstTokens(title, what, count, labels) {
  console.log(`\ndrive: time to first token, ${title}, ${count} turns each (after one not counted)`);
  const r = measure(what, count);
  console.log(`  ${''.padEnd(40)} ${'p50'.padStart(11)} ${'p95'.padStart(11)}`);
  console.log(`  ${labels[0].padEnd(40)} ${ms(r.bare.p50Ms)} ${ms(r.bare.p95Ms)}`);
  console.log(`  ${labels[1].padEnd(40)} ${ms(r.cairn.p50Ms)} ${ms(r.cairn.p95Ms)}`);
  if (count <= 20) {
    console.log(`  samples, ms: bare ${samplesText(r.bare.samples)}`);
    console.log(`               cairn ${samplesText(r.cairn.samples)}`);
  }
  return r;
}
const first = values['no-agents']
  ? undefined
  : firstTokens('Claude Code against the fake model', 'ttft', turns, [
      '(g) bare SDK client',
      '(h) cairn (workstation → server)',
    ]);
const scripted = firstTokens('the scripted agent', 'ttft-scripted', scriptedTurns, [
  '(i) bare SDK client',
  '(j) cairn (workstation → server)',
]);

console.log('\nratios (lower is better for cairn):');
console.log(`  (e) / (f)  burst rate, bare vs cairn    ${(b.perSecond / c.perSecond).toFixed(2)}x`);
console.log(`  (f) / (e)  p95 latency, cairn vs bare   ${(c.p95Ms / b.p95Ms).toFixed(2)}x`);
const added = (r, names) => {
  console.log(`  ${names}  time to first token, p50    ${(r.cairn.p50Ms - r.bare.p50Ms).toFixed(1)} ms`);
  console.log(
    `  ${names}  time to first token, p95    ${(r.cairn.p95Ms - r.bare.p95Ms).toFixed(1)} ms  (target < 5 ms)`,
  );
};
if (first) added(first, '(h) − (g)');
added(scripted, '(j) − (i)');
