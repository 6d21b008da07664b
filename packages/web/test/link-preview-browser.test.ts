// A link into a long session, opened while the daemon has not read it yet: the page shows the linked
// item at once, from the daemon's preview of the part of the file around its record, and keeps it in
// view when the history's window around it takes the preview's place.
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { claudeSession } from './claude-session.js';
import { buildUi, go, homeEnv, inView, launch, openPage, type Served, serve, tempDir } from './harness.js';

const SLOW = 240_000;
const SID = '5b1d7f2e-7c1a-4e0b-9d3c-1f2a3b4c5d6e';
/** Generated tool calls: two items each, far more than a page holds whole. */
const CALLS = 12_000;

let browser: Browser;
let served: Served;
let linkedUuid: string;

beforeAll(async () => {
  const home = tempDir('cairn-home-');
  const session = claudeSession(join(home, '.claude'), '/home/dev/linked', SID);
  let lines = session.prompt('the first prompt of a long session');
  for (let i = 0; i < CALLS; i++) {
    if (i % 50 === 0) lines += session.prompt(`step ${i}: carry on`);
    if (i === (CALLS * 2) / 3) {
      const linked = session.prompt('the prompt a link names, two thirds in');
      linkedUuid = (JSON.parse(linked) as { uuid: string }).uuid;
      lines += linked;
    }
    lines += session.bash(`echo ${i}`, `${'y'.repeat(200)} ${i}\n`);
  }
  session.append(lines);
  let webRoot: string;
  [webRoot, browser] = await Promise.all([buildUi(), launch()]);
  served = await serve(homeEnv(home), webRoot);
}, SLOW);

afterAll(async () => {
  await served?.server.close();
  await browser?.close();
});

it(
  'shows the linked item before the history comes, and keeps it in view once it has',
  async () => {
    const { page, context, errors } = await openPage(browser, served);
    await page.locator('.session-item').first().waitFor();
    const row = `.row.target[data-uuid="${linkedUuid}"]`;
    // Watches, frame by frame, for the linked row on screen, and notes whether the history had come.
    await page.evaluate((sel) => {
      const w = window as unknown as { __landed?: { beforeHistory: boolean; link: boolean } };
      const look = () => {
        const found = document.querySelector(sel);
        const scroller = document.querySelector('.timeline-scroll');
        if (found && scroller) {
          const r = found.getBoundingClientRect();
          const s = scroller.getBoundingClientRect();
          if (r.top >= s.top - 1 && r.top < s.bottom) {
            w.__landed = {
              beforeHistory: performance.getEntriesByName('cairn:history').length === 0,
              link: found.querySelector('.permalink') !== null,
            };
            return;
          }
        }
        requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    }, row);
    await go(page, `#/s/claude-code/${SID}?item=${linkedUuid}&type=message%3Auser%3Ain`);
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { __landed?: unknown }).__landed), {
        timeout: 60_000,
      })
      .toEqual({ beforeHistory: true, link: false });
    // The history's row of the same item, with its permalink, in view once the window took its place.
    await page.locator(`${row} .permalink`).waitFor({ timeout: 60_000 });
    await expect.poll(() => inView(page, row), { timeout: 30_000 }).toBe(true);
    expect(await page.locator('.notice-bar').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  },
  SLOW,
);
