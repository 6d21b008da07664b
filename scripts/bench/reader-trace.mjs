// Where a scroll's long frames go: a Chromium performance trace of the reader scrolled by wheel, on
// the reader bench's session, summed by what the main thread did in its long tasks (script by
// function, style, layout, paint, observers). Not part of `npm run bench`: run it when the scroll
// figure moves, to name the cause before changing anything. With --open it traces the session's
// opening instead, from the navigation until its whole history is in, and where the time before its
// first items went; --again opens it once before the traced opening (the daemon has read it), and
// --codex MB traces a Codex rollout of that size instead (big-rollout.mjs).
// `node scripts/bench/reader-trace.mjs [--size MB] [--codex MB] [--screens N] [--open] [--again]
//   [--out trace.json]`
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../chromium.mjs';
import { writeBigRollout } from './big-rollout.mjs';
import { agentEnv } from './corpus.mjs';
import { Daemon, killAll } from './daemon.mjs';
import { buildReaderSession } from './reader-corpus.mjs';
import { untilReady } from './ready.mjs';
import { mainThread, sampledFunctions, TRACED } from './trace-costs.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'bin/cairn.js');
const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '3.3' },
    screens: { type: 'string', default: '20' },
    out: { type: 'string' },
    open: { type: 'boolean', default: false },
    again: { type: 'boolean', default: false },
    codex: { type: 'string' },
  },
});
const source = process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus');
const LONG_MS = 16;

/** The events nested in a long task, by name, and the script's own time by function. */
function summarize(events) {
  const main = mainThread(events);
  const onMain = events.filter((e) => main && e.pid === main.pid && e.tid === main.tid && e.ph === 'X');
  const tasks = onMain.filter((e) => e.name === 'RunTask' && e.dur / 1000 >= LONG_MS);
  const byName = new Map();
  let longMs = 0;
  for (const task of tasks) {
    longMs += task.dur / 1000;
    const end = task.ts + task.dur;
    for (const e of onMain) {
      if (e === task || e.ts < task.ts || e.ts + e.dur > end) continue;
      byName.set(e.name, (byName.get(e.name) ?? 0) + e.dur / 1000);
    }
  }
  return { tasks, longMs, byName, selfMs: sampledFunctions(events) };
}

/**
 * The page's own marks (cairn:…) from the navigation's start, and where the main thread's time went
 * before the first items were drawn: what a first screen waits for.
 */
function beforeFirstItems(events) {
  const navigation = events.filter((e) => e.name === 'navigationStart').sort((a, b) => b.ts - a.ts)[0];
  if (!navigation) return;
  const marks = new Map();
  for (const e of events)
    if (e.name.startsWith('cairn:') && e.ts >= navigation.ts && !marks.has(e.name)) marks.set(e.name, e.ts);
  const ms = (ts) => ((ts - navigation.ts) / 1000).toFixed(0);
  console.log(
    `  marks from the navigation: ${[...marks].map(([name, ts]) => `${name} ${ms(ts)} ms`).join(', ')}`,
  );
  // The longest tasks, placed against the page's redraws of its history: a task that holds the page
  // long after its first items is a jank the person feels while the rest comes in.
  const drawn = events
    .filter((e) => e.name === 'cairn:history-drawn' && e.ts >= navigation.ts)
    .map((e) => ms(e.ts));
  console.log(`  history redrawn at: ${drawn.join(', ')} ms`);
  const main0 = mainThread(events);
  const longest = events
    .filter(
      (e) => main0 && e.pid === main0.pid && e.tid === main0.tid && e.ph === 'X' && e.name === 'RunTask',
    )
    .filter((e) => e.ts >= navigation.ts)
    .sort((a, b) => b.dur - a.dur)
    .slice(0, 5);
  console.log(
    `  longest tasks: ${longest.map((t) => `${(t.dur / 1000).toFixed(0)} ms at ${ms(t.ts)} ms`).join(', ')}`,
  );
  const firstItems = marks.get('cairn:first-items');
  if (firstItems === undefined) return;
  const main = mainThread(events);
  const byName = new Map();
  let busy = 0;
  for (const e of events) {
    if (!main || e.pid !== main.pid || e.tid !== main.tid || e.ph !== 'X') continue;
    if (e.ts < navigation.ts || e.ts + e.dur > firstItems) continue;
    if (e.name === 'RunTask') busy += e.dur / 1000;
    else byName.set(e.name, (byName.get(e.name) ?? 0) + e.dur / 1000);
  }
  const top = [...byName.entries()].sort((a, b) => b[1] - a[1]).slice(0, 10);
  console.log(
    `  before the first items (${ms(firstItems)} ms): main thread busy ${busy.toFixed(0)} ms, idle (waiting on the daemon) ${((firstItems - navigation.ts) / 1000 - busy).toFixed(0)} ms`,
  );
  for (const [name, v] of top) console.log(`    ${v.toFixed(0).padStart(6)} ms  ${name}`);
}

/** Prints where the trace's long tasks went (and keeps the trace when asked). */
function report(buffer, session) {
  if (values.out) writeFileSync(values.out, buffer);
  const { traceEvents } = JSON.parse(buffer.toString('utf8'));
  const { tasks, longMs, byName, selfMs } = summarize(traceEvents);
  const top = (m, n) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `    ${v.toFixed(0).padStart(6)} ms  ${k}`)
      .join('\n');
  console.log(
    `${session.lines} records; ${tasks.length} tasks of ${LONG_MS} ms or more on the main thread, ${longMs.toFixed(0)} ms in all; longest ${Math.max(0, ...tasks.map((t) => t.dur / 1000)).toFixed(0)} ms`,
  );
  console.log(`  inside them, by event (nested events counted in each):\n${top(byName, 18)}`);
  console.log(`  script by function (sampled, whole trace):\n${top(selfMs, 25)}`);
  beforeFirstItems(traceEvents);
}

/** The Codex rollout the reader bench opens, laid out in `work`. */
function codexSession(work) {
  const r = writeBigRollout({ source, work, bytes: Number(values.codex) * 1024 * 1024 });
  const sid = /([0-9a-f-]{36})\.jsonl$/.exec(r.path)[1];
  return {
    env: agentEnv(work),
    agent: 'codex',
    sid,
    lines: readFileSync(r.path).toString('latin1').split('\n').length - 1,
  };
}

async function run() {
  const work = mkdtempSync(join(tmpdir(), 'cairn-bench-trace-'));
  let d;
  try {
    const session = values.codex
      ? codexSession(work)
      : buildReaderSession({ source, work, targetBytes: Number(values.size) * 1024 * 1024 });
    d = new Daemon({ cli, env: { ...session.env, CAIRN_HOME: join(work, 'cairn') } });
    await untilReady(d, 300_000);
    const { port, token } = await d.url;
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      if (values.open) {
        await page.goto(`http://127.0.0.1:${port}/?token=${token}`);
        await page.locator('.session-item').first().waitFor({ timeout: 300_000 });
        if (values.again) {
          await page.goto(`http://127.0.0.1:${port}/?open=1#/s/${session.agent}/${session.sid}`);
          await page.waitForSelector('.status-line[data-loaded=yes]', { timeout: 600_000 });
          // A page of its own again, so that the traced opening starts with a navigation.
          await page.goto('about:blank');
        }
        await browser.startTracing(page, { categories: TRACED });
        const started = Date.now();
        await page.goto(`http://127.0.0.1:${port}/?open=1#/s/${session.agent}/${session.sid}`);
        await page.waitForSelector('.status-line[data-loaded=yes]', { timeout: 600_000 });
        console.log(`opened, whole history in, after ${Date.now() - started} ms`);
        report(await browser.stopTracing(), session);
        return;
      }
      await page.goto(`http://127.0.0.1:${port}/?token=${token}#/s/${session.agent}/${session.sid}`);
      await page.waitForSelector('.status-line[data-loaded=yes]', { timeout: 300_000 });
      const box = await page.locator('.timeline-scroll').boundingBox();
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.waitForTimeout(1000);
      await browser.startTracing(page, { categories: TRACED });
      const notches = Math.ceil((Number(values.screens) * box.height) / 120);
      for (let i = 0; i < notches; i++) {
        await page.mouse.wheel(0, 120);
        await page.waitForTimeout(40);
      }
      await page.waitForTimeout(300);
      report(await browser.stopTracing(), session);
    } finally {
      await browser.close();
    }
  } finally {
    await d?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

try {
  await run();
} catch (e) {
  console.error(`trace: ${e.stack ?? e}`);
  process.exitCode = 1;
} finally {
  killAll();
}
