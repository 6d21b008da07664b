// Scrolling a long session in Debian's Chromium: the page's frames, timed by requestAnimationFrame,
// while the mouse wheel scrolls the timeline down screen after screen, as a reader would.
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../chromium.mjs';
import { sourceMapsOf, TRACED } from './trace-costs.mjs';

// A wheel notch, and the pause between notches: 25 notches a second, about five screens a second, a
// brisk reader's flick held for twenty screens.
const NOTCH_PX = 120;
const NOTCH_MS = 40;

/** The page's mark where a traced scroll begins. */
export const SCROLL_MARK = 'cairn-bench:scroll';

/** Starts recording the time between consecutive frames in the page. */
const startFrames = (page) =>
  page.evaluate(() => {
    const w = window;
    w.__frames = [];
    w.__framing = true;
    let last = 0;
    const tick = (now) => {
      w.__frames.push(now - last);
      last = now;
      if (w.__framing) requestAnimationFrame(tick);
    };
    requestAnimationFrame((now) => {
      last = now;
      requestAnimationFrame(tick);
    });
  });

const stopFrames = (page) =>
  page.evaluate(() => {
    window.__framing = false;
    return window.__frames;
  });

/**
 * Opens the session once its history is in, then scrolls `screens` screens down it by wheel.
 * @returns {Promise<{ frames: number[], idle: number[], scrolledPx: number, screenPx: number,
 *   items: string }>} frames: the time between consecutive frames (ms) while scrolling; idle: the same
 *   on the same page, still, just before (what the machine allows a page that does nothing); with
 *   `trace`, also `trace`: Chromium's performance trace of the scroll (its events), which slows the
 *   frames it records, and `maps`: the source maps of the scripts it sampled
 */
export async function scrollFrames({
  port,
  token,
  agent,
  sid,
  screens = 20,
  timeoutMs = 300_000,
  trace = false,
}) {
  const base = `http://127.0.0.1:${port}/`;
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const page = await context.newPage();
    await page.goto(`${base}?token=${token}#/s/${agent}/${sid}`);
    await page.waitForSelector('.status-line[data-loaded=yes]', { timeout: timeoutMs });
    const scroller = page.locator('.timeline-scroll');
    const box = await scroller.boundingBox();
    if (!box) throw new Error('no timeline on the page');
    const screenPx = box.height;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    // Settle: the first rows measured, the highlighter in.
    await page.waitForTimeout(500);
    await startFrames(page);
    await page.waitForTimeout(1500);
    const idle = await stopFrames(page);
    if (trace) {
      await browser.startTracing(page, { categories: TRACED });
      // The profiler's start takes the page's thread for a moment: past before the scroll, which a
      // mark tells the costs to count from.
      await page.waitForTimeout(1000);
      await page.evaluate((mark) => performance.mark(mark), SCROLL_MARK);
    }
    await startFrames(page);
    const notches = Math.ceil((screens * screenPx) / NOTCH_PX);
    for (let i = 0; i < notches; i++) {
      await page.mouse.wheel(0, NOTCH_PX);
      await page.waitForTimeout(NOTCH_MS);
    }
    // The last notch's frames drawn.
    await page.waitForTimeout(200);
    const frames = await stopFrames(page);
    let traced = {};
    if (trace) {
      const events = JSON.parse((await browser.stopTracing()).toString('utf8')).traceEvents;
      traced = { trace: events, maps: await sourceMapsOf(page, events) };
    }
    const result = await page.evaluate(() => ({
      scrolledPx: document.querySelector('.timeline-scroll').scrollTop,
      items: document.querySelector('.status-line')?.textContent ?? '',
    }));
    await context.close();
    return { ...result, frames, idle, screenPx, ...traced };
  } finally {
    await browser.close();
  }
}
