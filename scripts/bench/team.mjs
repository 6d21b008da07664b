// The team server's bench (`npm run bench -- --only team`, or `node scripts/bench/team.mjs`): three
// workstations, each streaming one turn of the scripted agent, through two server processes into
// PostgreSQL, each followed by a browser on the other process; and the same through one process on
// SQLite, side by side. Twice: as fast as the agents send (what the server sustains), and paced at
// --rate chunks a second each (the latency of a server that keeps up). For each: updates per second
// end to end (from the agents' first chunk to the browsers' last), the agents' own rate, agent →
// browser latency p50 / p95 after each agent's first three seconds (a fresh server's first turn is
// slower) and the p95 of those seconds apart, and the event log's size per million
// events. Medians of --runs runs
// (scripts/bench/team-measure.ts, each in a fresh process).
// Options: --runs N (default 3), --chunks N (each workstation's turn, default 30000), --rate N (the
// paced runs' chunks a second per workstation, default 1000; 0 skips them).
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleMeasure, runMeasure } from './measure-bundle.mjs';
import { bytesText, median } from './stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    chunks: { type: 'string', default: '30000' },
    rate: { type: 'string', default: '1000' },
  },
});
const runs = Number(values.runs);
const chunks = Number(values.chunks);
const paced = Number(values.rate);

const bundle = await bundleMeasure(root, 'team-measure', ['better-sqlite3', 'ws', 'pg']);

const measure = (mode, rate) => runMeasure(root, bundle, [mode, chunks, rate]);

const summary = (xs) => ({
  perSecond: median(xs.map((x) => x.perSecond)),
  agentPerSecond: median(xs.map((x) => x.agentPerSecond)),
  p50Ms: median(xs.map((x) => x.p50Ms)),
  p95Ms: median(xs.map((x) => x.p95Ms)),
  startP95Ms: median(xs.map((x) => x.startP95Ms)),
  bytes: median(xs.map((x) => x.bytesPerMillionEvents)),
});
const perSecond = (x) => `${Math.round(x).toLocaleString('en-US').padStart(9)} /s`;
const ms = (x) => (Number.isFinite(x) ? `${x.toFixed(0).padStart(7)} ms` : '      –   ');

function bench(rate) {
  const how =
    rate > 0 ? `paced at ${rate.toLocaleString('en-US')} a second each` : 'as fast as the agents send';
  console.log(
    `\nteam: 3 workstations, each one turn of ${chunks.toLocaleString('en-US')} chunks ${how}, ${runs} runs each, medians`,
  );
  const samples = { postgres: [], sqlite: [] };
  // Taken in turn, so that the machine's load falls on both alike.
  for (let i = 0; i < runs; i++)
    for (const mode of ['postgres', 'sqlite']) samples[mode].push(measure(mode, rate));
  const pgs = summary(samples.postgres);
  const lite = summary(samples.sqlite);
  console.log(
    `  ${''.padEnd(32)} ${'end to end'.padStart(12)} ${'each agent'.padStart(12)} ${'p50'.padStart(10)} ${'p95'.padStart(10)} ${'first 3 s p95'.padStart(14)} ${'per 1M events'.padStart(14)}`,
  );
  for (const [name, s] of [
    ['(a) 2 processes, PostgreSQL', pgs],
    ['(b) 1 process, SQLite', lite],
  ]) {
    console.log(
      `  ${name.padEnd(32)} ${perSecond(s.perSecond)} ${perSecond(s.agentPerSecond)} ${ms(s.p50Ms)} ${ms(s.p95Ms)} ${ms(s.startP95Ms).padStart(14)} ${bytesText(s.bytes).padStart(14)}`,
    );
  }
  console.log(
    `  (a) / (b)  updates per second ${(pgs.perSecond / lite.perSecond).toFixed(2)}x, p95 latency ${(pgs.p95Ms / lite.p95Ms).toFixed(2)}x, bytes per event ${(pgs.bytes / lite.bytes).toFixed(2)}x`,
  );
}

bench(0);
if (paced > 0) bench(paced);
