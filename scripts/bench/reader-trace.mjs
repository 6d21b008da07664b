// Where a scroll's long frames go: a Chromium performance trace of the reader scrolled by wheel, on
// the reader bench's session, summed by what the main thread did in its long tasks (script by
// function, style, layout, paint, observers). Not part of `npm run bench`: run it when the scroll
// figure moves, to name the cause before changing anything. With --open it traces the session's
// opening instead, from the navigation until its whole history is in.
// `node scripts/bench/reader-trace.mjs [--size MB] [--screens N] [--open] [--out trace.json]`
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../chromium.mjs';
import { Daemon, killAll } from './daemon.mjs';
import { buildReaderSession } from './reader-corpus.mjs';
import { untilReady } from './ready.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'bin/cairn.js');
const { values } = parseArgs({
  options: {
    size: { type: 'string', default: '3.3' },
    screens: { type: 'string', default: '20' },
    out: { type: 'string' },
    open: { type: 'boolean', default: false },
  },
});
const source = process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus');
const LONG_MS = 16;

/** The events nested in a long task, by name, and the script's own time by function. */
function summarize(events) {
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
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
  // Sampled stacks: each sample's leaf function, for the script's own time.
  const nodes = new Map();
  const selfMs = new Map();
  for (const e of events) {
    if (e.name !== 'ProfileChunk') continue;
    const chunk = e.args?.data?.cpuProfile;
    for (const n of chunk?.nodes ?? []) nodes.set(n.id, n.callFrame);
    const deltas = e.args?.data?.timeDeltas ?? [];
    (chunk?.samples ?? []).forEach((id, i) => {
      const f = nodes.get(id);
      if (!f) return;
      const key = `${f.functionName || '(anonymous)'} ${f.url?.split('/').pop() ?? ''}:${f.lineNumber}:${f.columnNumber}`;
      selfMs.set(key, (selfMs.get(key) ?? 0) + (deltas[i] ?? 0) / 1000);
    });
  }
  return { tasks, longMs, byName, selfMs };
}

const TRACED = [
  'devtools.timeline',
  'disabled-by-default-devtools.timeline',
  'v8.execute',
  'disabled-by-default-v8.cpu_profiler',
  'blink.user_timing',
];

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
}

async function run() {
  const work = mkdtempSync(join(tmpdir(), 'cairn-bench-trace-'));
  let d;
  try {
    const session = buildReaderSession({ source, work, targetBytes: Number(values.size) * 1024 * 1024 });
    d = new Daemon({ cli, env: { ...session.env, CAIRN_HOME: join(work, 'cairn') } });
    await untilReady(d, 300_000);
    const { port, token } = await d.url;
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
      if (values.open) {
        await page.goto(`http://127.0.0.1:${port}/?token=${token}`);
        await page.locator('.session-item').first().waitFor({ timeout: 300_000 });
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
