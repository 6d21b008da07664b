// The reader in a real browser on the corpus: a phone's layout keeps the title and a call's command in
// view and drops the key hints on touch, the timeline dates its items and divides its days, find in
// session reaches an item no row of the DOM holds yet, the reader's place survives a visit to another
// tab or to a session, and the theme chosen is kept across a reload.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildUi,
  corpusEnv,
  go,
  launch,
  openPage,
  PHONE,
  type Served,
  screenshot,
  serve,
  shownText,
  timelineLoaded,
  violations,
} from './harness.js';

const SLOW = 180_000;
const LONG = { agent: 'claude-code', sid: 'fa812bfe-b295-4cca-9c2f-fdf01028cb46' };
// A Codex rollout that runs from the evening of Feb 23 into Feb 24 (UTC).
const OVERNIGHT = { agent: 'codex', sid: '019c8a59-e9dd-71f0-9ae3-4079fe9726a9' };

let webRoot: string;
let browser: Browser;
let served: Served;

beforeAll(async () => {
  [webRoot, browser] = await Promise.all([buildUi(), launch()]);
  served = await serve(corpusEnv(), webRoot);
}, SLOW);

afterAll(async () => {
  await served?.server.close();
  await browser?.close();
});

async function openSession(page: Page, s: { agent: string; sid: string }, tab = ''): Promise<void> {
  await go(page, `#/s/${s.agent}/${s.sid}${tab}`);
  if (tab === '') await timelineLoaded(page);
}

/** The row at the top of the timeline's viewport, and how far it is scrolled past. */
const topRow = (page: Page) =>
  page.evaluate(() => {
    const scroller = document.querySelector('.timeline-scroll')!;
    const top = scroller.getBoundingClientRect().top;
    const rows = [...document.querySelectorAll<HTMLElement>('.vrow')].sort(
      (a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top,
    );
    const row = rows.find((r) => r.getBoundingClientRect().bottom > top + 1)!;
    return {
      uuid: row.querySelector('.row')?.getAttribute('data-uuid') ?? '',
      past: Math.round(top - row.getBoundingClientRect().top),
      scrollTop: scroller.scrollTop,
    };
  });

/** Waits two frames, so what the page changed is drawn. */
const frames = (page: Page) =>
  page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(0)))),
  );

describe('on a phone', () => {
  it(
    'keeps the session title, the Bash command and most of the screen for the timeline, and shows no key hints',
    async () => {
      const { page, context, errors } = await openPage(browser, served, 'light', PHONE);
      try {
        await page.locator('.session-item').first().waitFor();
        // Each title has the width of the screen, not the few letters left beside the facts.
        const titles = await page
          .locator('.session-title')
          .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
        expect(titles.length).toBeGreaterThan(5);
        for (const w of titles) expect(w).toBeGreaterThan(200);
        await screenshot(page, 'reader-phone-list');

        await openSession(page, { agent: 'claude-code', sid: 'tool_heavy' });
        const title = page.locator('.session-head .title-text');
        expect(await shownText(title)).toBe('start phoenix in background');
        const titleBox = (await title.boundingBox())!;
        expect(titleBox.x + titleBox.width).toBeLessThanOrEqual(390);
        // The first Bash call runs `mix phx.server`: its collapsed row shows the command.
        const command = page.locator('.row[data-type="tool:Bash"] .call-line').first();
        expect(await shownText(command)).toContain('mix phx.server');
        const commandBox = (await command.boundingBox())!;
        const commandWidth = await command.evaluate((e) => e.scrollWidth);
        expect(commandBox.width).toBeGreaterThanOrEqual(Math.min(commandWidth, 150));
        expect(commandBox.x + commandBox.width).toBeLessThanOrEqual(390);
        // Header, session heading and toolbar together: under a fifth of the screen's height.
        const timelineTop = await page
          .locator('.timeline-scroll')
          .evaluate((e) => e.getBoundingClientRect().top);
        expect(timelineTop).toBeLessThan(844 / 5);
        // A touch screen has no keys to hint at.
        expect(await page.locator('.keys-line').isVisible()).toBe(false);
        expect(await page.locator('.keys-button').isVisible()).toBe(false);
        // Find is within reach of a thumb: on screen, and a tap opens it.
        const findButton = page.locator('.find-open');
        const findBox = (await findButton.boundingBox())!;
        expect(findBox.x + findBox.width).toBeLessThanOrEqual(390);
        await findButton.tap();
        await page.locator('.find-input').fill('phoenix');
        await expect.poll(() => shownText(page.locator('.find-status'))).toMatch(/^1 of \d+$/);
        await screenshot(page, 'reader-phone-session');
        expect(errors).toEqual([]);
        expect(await violations(page)).toEqual([]);
      } finally {
        await context.close();
      }
    },
    SLOW,
  );

  it('shows the key hints where there is a keyboard and a mouse', async () => {
    const { page, context } = await openPage(browser, served);
    try {
      await openSession(page, { agent: 'claude-code', sid: 'tool_heavy' });
      expect(await page.locator('.keys-line').isVisible()).toBe(true);
    } finally {
      await context.close();
    }
  });
});

describe('dates', () => {
  it(
    'opens the timeline with its date and divides the days where the local date changes',
    async () => {
      const { page, context, errors } = await openPage(browser, served, 'light', { timezoneId: 'UTC' });
      try {
        await openSession(page, OVERNIGHT);
        const first = page.locator('.vrow').first().locator('.day-divider time');
        expect(await first.getAttribute('datetime')).toBe('2026-02-23');
        expect(await shownText(first)).toContain('February 23, 2026');
        // Scroll down screen by screen until the next day's divider is drawn.
        const found = await page.evaluate(async () => {
          const scroller = document.querySelector<HTMLElement>('.timeline-scroll')!;
          const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
          for (let y = 0; y < scroller.scrollHeight; y += scroller.clientHeight / 2) {
            scroller.scrollTop = y;
            await frame();
            const divider = document.querySelector('.day-divider time[datetime="2026-02-24"]');
            if (divider) {
              divider.scrollIntoView({ block: 'center' });
              await frame();
              const vrow = divider.closest<HTMLElement>('.vrow')!;
              const index = Number(vrow.dataset.index);
              const timeOf = (i: number) =>
                document.querySelector(`.vrow[data-index="${i}"] .row time.at`)?.getAttribute('datetime');
              return { text: divider.textContent, before: timeOf(index - 1), after: timeOf(index) };
            }
          }
          return undefined;
        });
        expect(found).toBeDefined();
        expect(found!.text).toContain('February 24, 2026');
        // The row above the divider is of the evening before, the row it opens of the next day.
        expect(found!.before?.slice(0, 10)).toBe('2026-02-23');
        expect(found!.after?.slice(0, 10)).toBe('2026-02-24');
        await screenshot(page, 'reader-day-divider');
        expect(errors).toEqual([]);
        expect(await violations(page)).toEqual([]);
      } finally {
        await context.close();
      }
    },
    SLOW,
  );
});

describe('find in session', () => {
  it(
    'reaches a folded item off screen, highlights the match, and steps to the next and previous',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      try {
        await openSession(page, LONG);
        // No row in the DOM holds the word yet: it is in replies, folded thinking and commands of the
        // session's last third.
        expect(
          await page
            .locator('.timeline-scroll')
            .evaluate((e) => e.textContent?.includes('DynamicSupervisor')),
        ).toBe(false);
        await page.locator('.timeline-scroll').click({ position: { x: 5, y: 5 } });
        await page.keyboard.press('Control+f');
        const input = page.locator('.find-input');
        await expect.poll(() => input.evaluate((e) => e === document.activeElement)).toBe(true);
        await input.fill('dynamicsupervisor');
        const status = page.locator('.find-status');
        await expect.poll(() => shownText(status)).toMatch(/^1 of \d+$/);
        const total = Number((await shownText(status)).split(' of ')[1]);
        expect(total).toBeGreaterThanOrEqual(3);

        const current = async () => {
          await frames(page);
          return await page.evaluate(() => {
            const h = CSS.highlights.get('find-current');
            const ranges = h ? [...h].map((r) => r.toString()) : [];
            const target = document.querySelector('.row.target');
            const box = target?.getBoundingClientRect();
            const scroller = document.querySelector('.timeline-scroll')!.getBoundingClientRect();
            // The match itself is in sight, not only the row that holds it: what is drawn where the
            // match is, is the element that holds it (not a box it scrolls out of, nor another row).
            const range = h ? ([...h][0] as Range | undefined) : undefined;
            const r = range?.getBoundingClientRect();
            const there = r && document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
            const holder = range?.startContainer.parentElement;
            const rangeInView =
              r !== undefined &&
              r.top >= scroller.top &&
              r.bottom <= scroller.bottom &&
              !!there &&
              !!holder &&
              (there === holder || holder.contains(there) || there.contains(holder));
            return {
              ranges,
              rangeInView,
              uuid: target?.getAttribute('data-uuid'),
              inView: box !== undefined && box.top < scroller.bottom && box.bottom > scroller.top,
              others: CSS.highlights.get('find-match')?.size ?? 0,
            };
          });
        };
        await expect.poll(async () => (await current()).ranges.length).toBeGreaterThan(0);
        // The timeline aims at the row until it holds still; on a busy machine that takes frames.
        await expect.poll(async () => (await current()).inView).toBe(true);
        const one = await current();
        expect(one.ranges.every((r) => r.toLowerCase() === 'dynamicsupervisor')).toBe(true);
        await expect.poll(async () => (await current()).rangeInView).toBe(true);
        expect(one.uuid).toBeTruthy();
        await screenshot(page, 'reader-find-first');

        await input.press('Enter');
        await expect.poll(() => shownText(status)).toBe(`2 of ${total}`);
        await expect.poll(async () => (await current()).ranges.length).toBeGreaterThan(0);
        await expect.poll(async () => (await current()).inView).toBe(true);
        const two = await current();
        expect(two.uuid).not.toBe(one.uuid);
        await expect.poll(async () => (await current()).rangeInView).toBe(true);

        await page.locator('.find-prev').click();
        await expect.poll(() => shownText(status)).toBe(`1 of ${total}`);
        await expect.poll(async () => (await current()).uuid).toBe(one.uuid);
        // Before the first is the last.
        await input.press('Shift+Enter');
        await expect.poll(() => shownText(status)).toBe(`${total} of ${total}`);

        await input.press('Escape');
        expect(await page.locator('.find-bar').count()).toBe(0);
        // The highlights go with the effect that drew them, which runs after the bar's last frame.
        await expect.poll(() => page.evaluate(() => CSS.highlights.has('find-current'))).toBe(false);

        // "/" opens it again, outside a text field.
        await page.locator('.timeline-scroll').click({ position: { x: 5, y: 5 } });
        await page.keyboard.press('/');
        await expect.poll(() => input.evaluate((e) => e === document.activeElement)).toBe(true);
        await input.fill('no such words anywhere in it');
        await expect.poll(() => shownText(status)).toBe('no match');
        expect(errors).toEqual([]);
        expect(await violations(page)).toEqual([]);
      } finally {
        await context.close();
      }
    },
    SLOW,
  );
});

describe('position', () => {
  it(
    'is kept from the timeline to the summary and back, and on the list across a visit to a session',
    async () => {
      const { page, context, errors } = await openPage(browser, served, 'light', {
        viewport: { width: 1000, height: 600 },
      });
      try {
        await page.locator('.session-item').first().waitFor();
        await openSession(page, LONG);
        await page.locator('.timeline-scroll').evaluate((e) => {
          e.scrollTop = 15_000;
        });
        await frames(page);
        await frames(page);
        const before = await topRow(page);
        expect(before.scrollTop).toBeGreaterThan(10_000);
        await page.locator('.tabs a', { hasText: 'Summary' }).click();
        await page.locator('.summary-view').waitFor();
        await page.locator('.tabs a', { hasText: 'Timeline' }).click();
        await timelineLoaded(page);
        // The same row at the top, scrolled past by the same few pixels.
        await expect
          .poll(async () => {
            const now = await topRow(page);
            return { uuid: now.uuid, near: Math.abs(now.past - before.past) <= 4 };
          })
          .toEqual({ uuid: before.uuid, near: true });
        await screenshot(page, 'reader-position-timeline');

        // The list: scrolled down, a session opened, and Back.
        await go(page, '#/');
        await page.locator('.session-item').first().waitFor();
        const listTop = await page.locator('main').evaluate((e) => {
          e.scrollTop = e.scrollHeight - e.clientHeight;
          return e.scrollTop;
        });
        expect(listTop).toBeGreaterThan(100);
        await frames(page);
        await page.locator('.session-item a').last().click();
        await page.locator('.session-view').waitFor();
        await page.goBack();
        await page.locator('.session-item').first().waitFor();
        await expect.poll(() => page.locator('main').evaluate((e) => e.scrollTop)).toBe(listTop);
        await screenshot(page, 'reader-position-list');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    },
    SLOW,
  );
});

describe('theme', () => {
  it('is chosen among system, light and dark, named for assistive technology, and kept across a reload', async () => {
    const { page, context, errors } = await openPage(browser, served, 'light');
    try {
      await page.locator('.session-item').first().waitFor();
      const picker = page.getByRole('combobox', { name: 'Colour theme' });
      expect(await picker.inputValue()).toBe('system');
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
      const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      const light = await background();

      await picker.selectOption('dark');
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
      const dark = await background();
      expect(dark).not.toBe(light);
      await page.reload();
      await page.locator('.session-item').first().waitFor();
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
      expect(await page.getByRole('combobox', { name: 'Colour theme' }).inputValue()).toBe('dark');
      expect(await background()).toBe(dark);
      await screenshot(page, 'reader-theme-dark');

      // Back to the system's, which is light here.
      await page.getByRole('combobox', { name: 'Colour theme' }).selectOption('system');
      await page.reload();
      await page.locator('.session-item').first().waitFor();
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('light');
      expect(await background()).toBe(light);
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
