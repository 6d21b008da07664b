// The reader on big sessions, in Chromium, each opened the first time (the daemon has indexed it
// but never read it for a reader) and then again: when its first rows are painted, when its whole
// history is in, the daemon's peak memory while it opens and what the tab holds once it is in (its JS
// heap after a collection, its DOM nodes); then scrolling the Claude Code one.
// The sessions: one Claude Code session of about 50 MB (reader-corpus.mjs) and one Codex rollout
// of about 196 MB (big-rollout.mjs), the sizes a reader was seen to give up on.
// `node scripts/bench/reader-big.mjs [--claude MB] [--codex MB] [--screens N] [--passes N]
//   [--no-trace]` (0 leaves a session out; --no-trace leaves out the traced scroll and its costs).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../chromium.mjs';
import { writeBigRollout } from './big-rollout.mjs';
import { Client } from './client.mjs';
import { agentEnv } from './corpus.mjs';
import { Daemon, killAll } from './daemon.mjs';
import { browserAvailable } from './first-screen.mjs';
import { buildReaderSession } from './reader-corpus.mjs';
import { SCROLL_MARK, scrollFrames } from './reader-scroll.mjs';
import { untilReady } from './ready.mjs';
import { median, percentile } from './stats.mjs';
import { traceCostLines, traceCosts } from './trace-costs.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'bin/cairn.js');

/**
 * Opens the session's address in a page warmed on the sessions list, as a returning reader would.
 * With `item`, opens a link to that item instead.
 * @returns {Promise<{ rowsPainted: number, targetPainted: number | undefined, loaded: number,
 *   held: number, heapMb: number, domNodes: number }>} ms from the navigation's start to the first
 *   frame painted with timeline rows, with the linked item's row, and to the session shown as in (its
 *   whole history, or a long one's first window); the items the page then holds
 */
async function openInPage({ port, token, agent, sid, timeoutMs, item }) {
  const base = `http://127.0.0.1:${port}/`;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    await context.addInitScript(() => {
      const w = window;
      const seen = new MutationObserver(() => {
        if (w.__firstRowsPainted === undefined && document.querySelector('.vrow .row'))
          requestAnimationFrame(() => {
            w.__firstRowsPainted ??= performance.now();
          });
        if (w.__targetPainted === undefined && document.querySelector('.vrow .row.target'))
          requestAnimationFrame(() => {
            w.__targetPainted ??= performance.now();
          });
        if (w.__loaded === undefined && document.querySelector('.status-line[data-loaded=yes]'))
          w.__loaded = performance.now();
      });
      seen.observe(document, { childList: true, subtree: true, attributes: true });
    });
    const page = await context.newPage();
    await page.goto(`${base}?token=${token}`);
    await page.locator('.session-item').first().waitFor({ timeout: timeoutMs });
    const link = item ? `?item=${encodeURIComponent(item.uuid)}&type=${encodeURIComponent(item.type)}` : '';
    await page.goto(`${base}?open=1#/s/${agent}/${sid}${link}`);
    await page.waitForSelector('.status-line[data-loaded=yes]', { timeout: timeoutMs });
    await page.waitForFunction(() => window.__firstRowsPainted !== undefined, null, { timeout: timeoutMs });
    if (item)
      await page.waitForFunction(() => window.__targetPainted !== undefined, null, { timeout: timeoutMs });
    const times = await page.evaluate(() => ({
      rowsPainted: window.__firstRowsPainted,
      targetPainted: window.__targetPainted,
      loaded: window.__loaded,
      // Items the page holds: the whole session, or the window of a long one.
      held: Number(document.querySelector('.timeline-view')?.getAttribute('data-held') ?? Number.NaN),
    }));
    return { ...times, ...(await tabMemory(context, page)) };
  } finally {
    await browser.close();
  }
}

/**
 * What the tab holds once the session is in: its JS heap after a collection, and its DOM nodes.
 * @returns {Promise<{ heapMb: number, domNodes: number }>}
 */
async function tabMemory(context, page) {
  const cdp = await context.newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  const { usedSize } = await cdp.send('Runtime.getHeapUsage');
  await cdp.send('Performance.enable');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const domNodes = metrics.find((m) => m.name === 'Nodes')?.value ?? Number.NaN;
  return { heapMb: usedSize / 1024 / 1024, domNodes };
}

/** The session's last item, as a link to it names it (asked of the daemon once it holds the session). */
async function lastItem({ port, token, agent, sid }) {
  const client = await Client.connect({ port, token });
  try {
    const ask = (args) =>
      client.request('transcript_items_read', { sid, agent, types: ALL_TYPES, limit: 1, ...args }, 120_000);
    const first = await ask({ offset: 0 });
    if (!first.ok) throw new Error(`transcript_items_read: ${JSON.stringify(first.error)}`);
    const last = await ask({ offset: first.total - 1 });
    if (!last.ok) throw new Error(`transcript_items_read: ${JSON.stringify(last.error)}`);
    const { uuid, type } = last.items[0];
    return { uuid, type };
  } finally {
    client.close();
  }
}

const ALL_TYPES = ['message', 'thinking', 'notice', 'system', 'hook', 'tool'];

const mb = (x) => `${x.toFixed(0)} MB`;

const s = (ms) => `${(ms / 1000).toFixed(2)} s`;

async function run() {
  const { values } = parseArgs({
    options: {
      claude: { type: 'string', default: '50' },
      codex: { type: 'string', default: '196' },
      screens: { type: 'string', default: '20' },
      passes: { type: 'string', default: '3' },
      trace: { type: 'boolean', default: true },
    },
    allowNegative: true,
  });
  if (!browserAvailable()) {
    console.log('\nreader on big sessions: no Chromium: skipped');
    return;
  }
  const source = process.env.CAIRN_CORPUS ?? resolve(root, '../shared/corpus');
  const work = mkdtempSync(join(tmpdir(), 'cairn-bench-reader-big-'));
  let d;
  try {
    const sessions = [];
    if (Number(values.claude) > 0) {
      const c = buildReaderSession({ source, work, targetBytes: Number(values.claude) * 1024 * 1024 });
      sessions.push({ name: `Claude Code, ${(c.bytes / 1024 / 1024).toFixed(0)} MB`, ...c, scroll: true });
    }
    if (Number(values.codex) > 0) {
      const r = writeBigRollout({ source, work, bytes: Number(values.codex) * 1024 * 1024 });
      const sid = /([0-9a-f-]{36})\.jsonl$/.exec(r.path)[1];
      sessions.push({ name: `Codex rollout, ${(r.bytes / 1024 / 1024).toFixed(0)} MB`, agent: 'codex', sid });
    }
    d = new Daemon({ cli, env: { ...agentEnv(work), CAIRN_HOME: join(work, 'cairn') } });
    await untilReady(d, 30 * 60 * 1000);
    const { port, token } = await d.url;
    console.log('\nreader on big sessions (Chromium; from navigation start):');
    const row = (label, value) => console.log(`  ${label.padEnd(44)} ${value}`);
    for (const session of sessions) {
      const at = { port, token, agent: session.agent, sid: session.sid, timeoutMs: 20 * 60 * 1000 };
      d.resetPeak();
      const first = await openInPage(at);
      const peak = d.usage().peakRssMb;
      const again = await openInPage(at);
      row(
        `${session.name}: first open`,
        `first rows painted ${s(first.rowsPainted)}, all loaded ${s(first.loaded)}; daemon peak ${peak.toFixed(0)} MB; tab heap ${mb(first.heapMb)}, ${first.domNodes} DOM nodes, ${first.held} items held`,
      );
      row(
        '    opened again',
        `first rows painted ${s(again.rowsPainted)}, all loaded ${s(again.loaded)}; tab heap ${mb(again.heapMb)}`,
      );
      const linked = await openInPage({ ...at, item: await lastItem(at) });
      row(
        '    a link to its last item, opened again',
        `linked row painted ${s(linked.targetPainted)}, all loaded ${s(linked.loaded)}`,
      );
      if (!session.scroll) continue;
      const passes = [];
      for (let i = 0; i < Number(values.passes); i++)
        passes.push(await scrollFrames({ ...at, screens: Number(values.screens) }));
      const p95s = passes.map((p) => percentile(p.frames, 95));
      const frames = passes.flatMap((p) => p.frames);
      row(
        `    scroll ${values.screens} screens (${passes.length} passes)`,
        `p95 frame ${median(p95s).toFixed(1)} ms (${p95s.map((x) => x.toFixed(1)).join(', ')}), max ${Math.max(...frames).toFixed(0)} ms; still page p95 ${median(passes.map((p) => percentile(p.idle, 95))).toFixed(1)} ms`,
      );
      // One more pass under Chromium's performance trace, apart from the timed ones (tracing slows
      // the page): where the scroll's time goes, to name the cost before changing anything.
      if (values.trace) {
        const traced = await scrollFrames({ ...at, screens: Number(values.screens), trace: true });
        row('    the same scroll, traced', `p95 frame ${percentile(traced.frames, 95).toFixed(1)} ms`);
        for (const line of traceCostLines(traceCosts(traced.trace, traced.maps, SCROLL_MARK)))
          console.log(line);
      }
    }
  } finally {
    await d?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

try {
  await run();
} catch (e) {
  console.error(`bench: ${e.stack ?? e}`);
  process.exitCode = 1;
} finally {
  killAll();
}
