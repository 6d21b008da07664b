// The reader on big sessions, in Chromium, each opened the first time (the daemon has indexed it
// but never read it for a reader) and then again: when its first rows are painted, when its whole
// history is in, and the daemon's peak memory while it opens; then scrolling the Claude Code one.
// The sessions: one Claude Code session of about 50 MB (reader-corpus.mjs) and one Codex rollout
// of about 196 MB (big-rollout.mjs), the sizes a reader was seen to give up on.
// `node scripts/bench/reader-big.mjs [--claude MB] [--codex MB] [--screens N] [--passes N]`
// (0 leaves a session out).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../chromium.mjs';
import { writeBigRollout } from './big-rollout.mjs';
import { agentEnv } from './corpus.mjs';
import { Daemon, killAll } from './daemon.mjs';
import { browserAvailable } from './first-screen.mjs';
import { buildReaderSession } from './reader-corpus.mjs';
import { scrollFrames } from './reader-scroll.mjs';
import { untilReady } from './ready.mjs';
import { median, percentile } from './stats.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const cli = join(root, 'bin/cairn.js');

/**
 * Opens the session's address in a page warmed on the sessions list, as a returning reader would.
 * @returns {Promise<{ rowsPainted: number, loaded: number }>} ms from the navigation's start to the
 *   first frame painted with timeline rows, and to the whole history shown as in
 */
async function openInPage({ port, token, agent, sid, timeoutMs }) {
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
        if (w.__loaded === undefined && document.querySelector('.status-line[data-loaded=yes]')) {
          w.__loaded = performance.now();
          seen.disconnect();
        }
      });
      seen.observe(document, { childList: true, subtree: true, attributes: true });
    });
    const page = await context.newPage();
    await page.goto(`${base}?token=${token}`);
    await page.locator('.session-item').first().waitFor({ timeout: timeoutMs });
    await page.goto(`${base}?open=1#/s/${agent}/${sid}`);
    await page.waitForSelector('.status-line[data-loaded=yes]', { timeout: timeoutMs });
    await page.waitForFunction(() => window.__firstRowsPainted !== undefined, null, { timeout: timeoutMs });
    return await page.evaluate(() => ({ rowsPainted: window.__firstRowsPainted, loaded: window.__loaded }));
  } finally {
    await browser.close();
  }
}

const s = (ms) => `${(ms / 1000).toFixed(2)} s`;

async function run() {
  const { values } = parseArgs({
    options: {
      claude: { type: 'string', default: '50' },
      codex: { type: 'string', default: '196' },
      screens: { type: 'string', default: '20' },
      passes: { type: 'string', default: '3' },
    },
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
        `first rows painted ${s(first.rowsPainted)}, all loaded ${s(first.loaded)}; daemon peak ${peak.toFixed(0)} MB`,
      );
      row('    opened again', `first rows painted ${s(again.rowsPainted)}, all loaded ${s(again.loaded)}`);
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
