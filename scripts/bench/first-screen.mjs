// Time to first screen in Debian's Chromium: a page logged in by its stored token, showing the sessions list,
// loads a session's URL (a full load: the whole app starts again). The figure is the page's own, from
// navigation start to the first frame painted with timeline rows; the app's marks (loaded, session
// open, history arriving, first items) and the driver's wall time are kept beside it.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../chromium.mjs';

export const browserAvailable = () => existsSync(CHROMIUM_PATH);

/**
 * Opens each of `sids` once (each a different session, so every run reads it anew on the server).
 * The first load of the browser and of the app's code is not timed. Requests for the addresses in
 * `block` (paths under the server's root) fail, as if those files were never there; requests for those
 * in `watch` are counted, in the load and for `settleMs` after its first screen. `suffix` follows the
 * session in its address (`?item=…` lands on an item).
 * @returns {Promise<{ sid: string, visibleMs: number, marks: Record<string, number | undefined>,
 *   requested: number }[]>} requested: how many requests were made for `watch` in that load
 */
export async function firstScreens({
  port,
  token,
  agent,
  sids,
  suffix = '',
  block = [],
  watch = [],
  settleMs = 0,
  timeoutMs = 30_000,
}) {
  const base = `http://127.0.0.1:${port}/`;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const runs = [];
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    for (const path of block) await context.route(`${base}${path}`, (route) => route.abort());
    const watched = new Set(watch.map((path) => `${base}${path}`));
    let requested = 0;
    context.on('request', (request) => {
      if (watched.has(request.url())) requested++;
    });
    // In the page, from navigation start: the first frame painted after timeline rows entered the DOM.
    await context.addInitScript(() => {
      const w = window;
      const seen = new MutationObserver(() => {
        if (!document.querySelector('.vrow .row')) return;
        seen.disconnect();
        requestAnimationFrame(() => {
          w.__firstRowsPainted = performance.now();
        });
      });
      seen.observe(document, { childList: true, subtree: true });
    });
    const page = await context.newPage();
    // The browser and the page's code warmed once on the sessions list, as a returning user's are;
    // the page keeps the token from this address for the loads that follow.
    await page.goto(`${base}?token=${token}`);
    await page.locator('.session-item').first().waitFor({ timeout: timeoutMs });
    for (const [i, sid] of sids.entries()) {
      // Another address on the same site: a full load in the same renderer, not a jump within the page.
      const started = performance.now();
      requested = 0;
      await page.goto(`${base}?run=${i}#/s/${agent}/${sid}${suffix}`);
      await page.locator('.vrow .row').first().waitFor({ state: 'visible', timeout: timeoutMs });
      const visibleMs = performance.now() - started;
      const marks = await page.evaluate(() => {
        const at = (name) => performance.getEntriesByName(name)[0]?.startTime;
        const nav = performance.getEntriesByType('navigation')[0];
        return {
          loaded: nav?.domContentLoadedEventEnd,
          open: at('cairn:session-open'),
          history: at('cairn:history'),
          firstItems: at('cairn:first-items'),
          rowsPainted: window.__firstRowsPainted,
        };
      });
      if (settleMs > 0) await page.waitForTimeout(settleMs);
      runs.push({ sid, visibleMs, marks, requested });
    }
    await context.close();
  } finally {
    await browser.close();
  }
  return runs;
}
