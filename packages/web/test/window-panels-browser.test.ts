// The panels around a long session's timeline, in Chromium, while the timeline holds only a window of
// its items at the session's end: the Files changed tab lists a file written only at the session's
// start, the Dump tab offers the session's whole span as a range, a link cut at an item outside the
// window is marked only once the window holds that item (the heading's link reaches it meanwhile), and
// the count of hidden records says it is of the items read in.
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LinksStore, linksPath } from '../../server/src/storage/links-store.js';
import { sessionHref } from '../src/route.js';
import { claudeSession } from './claude-session.js';
import {
  buildUi,
  go,
  homeEnv,
  launch,
  openPage,
  type Served,
  serve,
  shownText,
  tempDir,
  timelineLoaded,
} from './harness.js';

const SLOW = 240_000;
const SID = '7d1c0a52-3b9e-4f61-9a2d-5e8b1c4f0a77';
const CWD = '/home/dev/window-panels';
/** A file written by the session's first call, and by no other. */
const EARLY_FILE = `${CWD}/src/early-notes.ts`;
/** Generated calls after it: two items each, well past the size at which a session is windowed. */
const CALLS = 3000;
/** Where the session's work went on: a fork cut at its first prompt. */
const FORK = { agent: 'claude-code', sid: '0f3e9b7a-1c2d-4e5f-8a9b-0c1d2e3f4a5b' };

let browser: Browser;
let served: Served;
let firstUuid: string;
let lastUuid: string;
/** The session's first and last recorded times. */
let startedAt: number;
let endedAt: number;

beforeAll(async () => {
  const home = tempDir('cairn-home-');
  const env = homeEnv(home);
  const session = claudeSession(join(home, '.claude'), CWD, SID);
  const first = session.prompt('the first prompt: note things down');
  firstUuid = (JSON.parse(first) as { uuid: string }).uuid;
  startedAt = Date.parse((JSON.parse(first) as { timestamp: string }).timestamp);
  let lines = first + session.write(EARLY_FILE, 'export const notes = 1;\n');
  for (let i = 0; i < CALLS; i++) {
    if (i % 50 === 0) lines += session.prompt(`step ${i}: carry on`);
    lines += session.bash(`echo ${i}`, `${i}\n`);
  }
  const last = session.prompt('the last prompt of a long session');
  lastUuid = (JSON.parse(last) as { uuid: string }).uuid;
  endedAt = Date.parse((JSON.parse(last) as { timestamp: string }).timestamp);
  session.append(lines + last);

  let webRoot: string;
  [webRoot, browser] = await Promise.all([buildUi(), launch()]);
  served = await serve(env, webRoot);
  // Linked the way a fork records it, in the daemon's own links file.
  const store = new LinksStore(linksPath(served.cairnHome));
  try {
    store.add({
      kind: 'fork',
      from: { agent: 'claude-code', sid: SID },
      to: FORK,
      at_item: firstUuid,
      via: 'handoff',
      created_at: Date.now(),
    });
  } finally {
    store.close();
  }
}, SLOW);

afterAll(async () => {
  await served?.server.close();
  await browser?.close();
});

/** The timeline's window: the positions it holds, of how many. */
const windowOf = (page: Page) =>
  page.evaluate(() => {
    const view = document.querySelector('.timeline-view');
    const [, from, to, total] = /^(\d+)-(\d+)\/(\d+)$/.exec(view?.getAttribute('data-window') ?? '') ?? [];
    return { from: Number(from), to: Number(to), total: Number(total) };
  });

/** Opens the session and moves its window to the session's end (G), away from its first items. */
async function openAtEnd(page: Page): Promise<void> {
  await page.locator('.session-item').first().waitFor();
  await go(page, sessionHref('claude-code', SID));
  await timelineLoaded(page);
  expect((await windowOf(page)).total).toBeGreaterThan(2 * CALLS);
  await page.keyboard.press('G');
  await page.locator(`.vrow .row[data-uuid="${lastUuid}"]`).waitFor({ timeout: 30_000 });
  const w = await windowOf(page);
  expect(w.to).toBe(w.total);
  expect(w.from).toBeGreaterThan(CALLS);
}

describe('the panels of a session held as a window', () => {
  it(
    'lists in Files changed a file written only at the start, and offers the whole span in the Dump tab',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await openAtEnd(page);
      // Its count of hidden records is of the items read in, and says so.
      expect(await page.locator('.hidden-records').getAttribute('title')).toBe(
        'counted in the items read in around the view',
      );

      await page.locator('nav.tabs a', { hasText: 'Files changed' }).click();
      const files = page.locator('.changed-files > li');
      await files.first().waitFor({ timeout: 30_000 });
      expect(await files.count()).toBe(1);
      expect(await shownText(files.first())).toContain('early-notes.ts');
      expect(await shownText(page.locator('.files-total'))).toMatch(/^1 file changed by 1 call/);

      // Back on the timeline, the window is still at the end: the panel did not move it.
      await page.locator('nav.tabs a', { hasText: 'Timeline' }).click();
      await timelineLoaded(page);
      expect((await windowOf(page)).from).toBeGreaterThan(CALLS);

      await page.locator('nav.tabs a', { hasText: 'Dump' }).click();
      const whole = page.locator('.dump-view .range button', { hasText: 'whole session' });
      await whole.waitFor({ timeout: 30_000 });
      await whole.click();
      // As the tab writes a time in a datetime-local field: local time, to the minute.
      const local = (ms: number) =>
        page.evaluate(
          (at) => new Date(at - new Date(at).getTimezoneOffset() * 60_000).toISOString().slice(0, 16),
          ms,
        );
      expect(await page.locator('input[name=since]').inputValue()).toBe(await local(startedAt));
      expect(await page.locator('input[name=until]').inputValue()).toBe(await local(endedAt + 60_000));
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'marks a link at its item once the window holds it, not at the end, and reaches it from the heading',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.locator('.session-item').first().waitFor();
      await go(page, sessionHref('claude-code', SID));
      await timelineLoaded(page);
      // Opened at the start: the marker follows the prompt it was cut at.
      const marker = page.locator(`.link-marker[data-sid="${FORK.sid}"]`);
      await marker.waitFor({ timeout: 30_000 });
      const before = await page.evaluate((sid) => {
        const row = document.querySelector(`.link-marker[data-sid="${sid}"]`)?.closest('.vrow');
        const at = Number(row?.getAttribute('data-index'));
        return document.querySelector(`.vrow[data-index="${at - 1}"] [data-uuid]`)?.getAttribute('data-uuid');
      }, FORK.sid);
      expect(before).toBe(firstUuid);

      // At the end, away from that prompt: no marker there (it would say the work left at the end).
      await page.keyboard.press('G');
      await page.locator(`.vrow .row[data-uuid="${lastUuid}"]`).waitFor({ timeout: 30_000 });
      expect((await windowOf(page)).from).toBeGreaterThan(CALLS);
      for (let i = 0; i < 5; i++) {
        await page.locator('.timeline-scroll').evaluate((el) => {
          el.scrollTop = el.scrollHeight;
        });
        await page.waitForTimeout(100);
      }
      expect(await marker.count()).toBe(0);

      // The heading's link lands on the prompt it was cut at, and the marker is drawn after it again.
      const at = page.locator('.session-link.link-to a.link-at');
      expect(await at.getAttribute('href')).toBe(
        sessionHref('claude-code', SID, 'timeline', { uuid: firstUuid }),
      );
      await at.click();
      await page.locator(`.row.target[data-uuid="${firstUuid}"]`).waitFor({ timeout: 30_000 });
      await marker.waitFor({ timeout: 30_000 });
      expect((await windowOf(page)).from).toBe(0);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
