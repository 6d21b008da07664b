// The session's panels in a real browser on the corpus: the files a session changed with their diffs
// and links back to the calls, one failed-call count that the toolbar, the Summary tab and the Dump tab
// agree on, a page opened without its token that says what to do, a project crumb for every agent,
// and the Dump tab and the timeline's toolbar at a phone's width without sideways scrolling.
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
  serve,
  shownText,
  timelineLoaded,
  violations,
} from './harness.js';

const SLOW = 180_000;
// A Claude Code session with a subagent and a compaction summarizer: 13 calls failed over its lanes.
const SPOTTER = { agent: 'claude-code', sid: '4d5611e5-241a-462a-8d15-5122611a9569' };
// A Claude Code session that wrote three files and edited them; and a Codex one that patched three.
const POMODORO = { agent: 'claude-code', sid: '36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2' };
const PATCHES = { agent: 'codex', sid: '019a085e-04c1-7f81-a09e-9555f6a1fb40' };

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

/** How far each of `selectors` reaches past the viewport's right edge, and whether the page scrolls sideways. */
const overflow = (page: Page, selectors: string[]) =>
  page.evaluate((list) => {
    const width = document.documentElement.clientWidth;
    const past: Record<string, number> = {};
    const culprits: string[] = [];
    const name = (el: Element) => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`;
    for (const sel of list) {
      let worst = 0;
      for (const el of document.querySelectorAll(sel)) {
        const over = Math.max(el.getBoundingClientRect().right - width, el.scrollWidth - el.clientWidth);
        if (over > 0) culprits.push(`${name(el)} ${Math.round(over)}`);
        worst = Math.max(worst, over);
        for (const child of el.querySelectorAll('*')) {
          const r = child.getBoundingClientRect();
          if (r.width > 0 && r.right > width) culprits.push(`${name(child)} ${Math.round(r.right - width)}`);
          if (r.width > 0) worst = Math.max(worst, r.right - width);
        }
      }
      past[sel] = Math.round(worst);
    }
    return { past, page: document.documentElement.scrollWidth - width, culprits: culprits.slice(0, 8) };
  }, selectors);

describe('a session on a phone', () => {
  it(
    'fits the timeline toolbar and the Dump tab in 390 px, with no key hints on a touch screen',
    async () => {
      const { page, context, errors } = await openPage(browser, served, 'light', PHONE);
      await go(page, `#/s/${SPOTTER.agent}/${SPOTTER.sid}`);
      await timelineLoaded(page);
      const bar = await overflow(page, ['.toolbar']);
      expect(bar.page, bar.culprits.join(', ')).toBeLessThanOrEqual(0);
      expect(bar.past['.toolbar'], bar.culprits.join(', ')).toBeLessThanOrEqual(0);
      expect(await page.locator('.keys-line').isVisible()).toBe(false);
      expect(await page.locator('.keys-button').isVisible()).toBe(false);

      await go(page, `#/s/${SPOTTER.agent}/${SPOTTER.sid}/dump`);
      await page.waitForSelector('.dump-form .types .count', { timeout: 30_000 });
      const dump = await overflow(page, ['.dump-view']);
      expect(dump.page).toBeLessThanOrEqual(0);
      expect(dump.past['.dump-view'], dump.culprits.join(', ')).toBeLessThanOrEqual(0);
      // A dump written, its paths and type names wrap inside the width too.
      await page.getByRole('button', { name: 'Write dump' }).click();
      await page.waitForSelector('.written', { timeout: 30_000 });
      const written = await overflow(page, ['.dump-view']);
      expect(written.page).toBeLessThanOrEqual(0);
      expect(written.past['.dump-view'], written.culprits.join(', ')).toBeLessThanOrEqual(0);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});

describe('the files a session changed', () => {
  it(
    'lists each file with its changes read from the records, a combined diff, and links to the calls',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await go(page, `#/s/${POMODORO.agent}/${POMODORO.sid}/files`);
      const files = page.locator('.changed-file');
      await files.first().waitFor({ timeout: 30_000 });
      expect(await page.locator('.tabs a.current').textContent()).toBe('Files changed');
      expect(
        await files.evaluateAll((els) => els.map((e) => e.getAttribute('data-path')!.split('/').at(-1))),
      ).toEqual(['index.html', 'styles.css', 'script.js']);
      expect(await shownText(page.locator('.files-total'))).toBe('3 files changed by 23 calls, all lanes');

      const styles = page.locator('.changed-file[data-path$="styles.css"]');
      await styles.locator('summary').click();
      const changes = styles.locator('.change');
      // The changes are drawn once the file is opened.
      await expect.poll(() => changes.count(), { timeout: 10_000 }).toBe(12);
      // The Write's content and each Edit's before and after come from the records, read on opening.
      await expect.poll(() => styles.locator('.change .diff').count(), { timeout: 30_000 }).toBe(12);
      expect(await changes.nth(0).locator('.dl.add').count()).toBe(167);
      expect(await changes.nth(1).locator('.dl.add').count()).toBe(1);
      expect(await changes.nth(1).locator('.dl.del').count()).toBe(0);

      await styles.getByRole('button', { name: 'combined' }).click();
      await styles.locator('.changes').waitFor({ state: 'detached' });
      const combined = styles.locator('.diff');
      expect(await combined.count()).toBe(1);
      const headings = await combined.locator('.dl.skip .tx').allTextContents();
      expect(headings.filter((h) => /^\d+\. (Write|Edit) /.test(h))).toHaveLength(12);
      expect(await combined.locator('.dl.add').count()).toBe(228);

      // A change's link lands the timeline on its call.
      await styles.getByRole('button', { name: 'each change' }).click();
      await styles.locator('.changes').waitFor();
      const link = changes.nth(1).locator('a.change-link');
      const href = (await link.getAttribute('href'))!;
      expect(href).toContain('item=');
      await link.click();
      const target = page.locator('.row.target');
      await target.waitFor({ timeout: 60_000 });
      expect(await target.getAttribute('data-type')).toBe('tool:Edit');
      expect(await shownText(target)).toContain('styles.css');
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'shows a Codex patch’s files with the lines the patch carries',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await go(page, `#/s/${PATCHES.agent}/${PATCHES.sid}/files`);
      const index = page.locator('.changed-file[data-path="index.html"]');
      await index.waitFor({ timeout: 30_000 });
      expect(await page.locator('.changed-file').count()).toBe(3);
      expect(await shownText(index.locator('summary'))).toContain('2 changes');
      await index.locator('summary').click();
      await expect.poll(() => index.locator('.change').count(), { timeout: 10_000 }).toBe(2);
      expect(await index.locator('.change').nth(0).locator('.dl.add').count()).toBe(27);
      expect(await shownText(index.locator('.change-head').nth(0))).toContain('apply_patch (add)');
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});

describe('one count of failed calls', () => {
  it(
    'says the same number, for all lanes, in the toolbar, the Summary tab and the Dump tab',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await go(page, `#/s/${SPOTTER.agent}/${SPOTTER.sid}`);
      await timelineLoaded(page);
      const failed = page.locator('.toolbar .failed-count');
      await expect.poll(() => failed.textContent(), { timeout: 30_000 }).toBe('13 failed calls, all lanes');

      await go(page, `#/s/${SPOTTER.agent}/${SPOTTER.sid}/summary`);
      const card = page.locator('.card[data-number="Failed tool calls"]');
      await card.waitFor({ timeout: 30_000 });
      expect(await shownText(card)).toMatch(/^Failed tool calls\s+13\s+all lanes$/);
      const subagents = await page.locator('.card[data-number="Subagents"] dd').first().textContent();
      const compactions = await page.locator('.card[data-number="Compactions"] dd').first().textContent();

      await go(page, `#/s/${SPOTTER.agent}/${SPOTTER.sid}/dump`);
      const numbers = page.locator('.dump-view .session-numbers');
      await numbers.waitFor({ timeout: 30_000 });
      expect(await shownText(numbers)).toBe(
        `13 failed calls, all lanes · ${subagents} subagents · ${compactions} compaction${compactions === '1' ? '' : 's'}, all lanes`,
      );
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});

describe('an address without the token', () => {
  it(
    'says what to do on the whole page, and takes a pasted address',
    async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(served.base);
      const message = page.locator('.token-needed');
      await message.waitFor({ timeout: 20_000 });
      const text = await shownText(message);
      expect(text).toContain('cairn url');
      expect(text).toContain('opened without its token');
      // No view waits behind it.
      expect(await page.locator('.sessions-view, .spinner').count()).toBe(0);

      await page.locator('#token-paste').fill('not a token!');
      await page.getByRole('button', { name: 'Use it' }).click();
      expect(await shownText(message.locator('.error'))).toContain('neither a token');

      await page.locator('#token-paste').fill(served.entry);
      await page.getByRole('button', { name: 'Use it' }).click();
      await page.waitForSelector('.conn.conn-open', { timeout: 20_000 });
      await page.locator('.sessions-view').waitFor({ timeout: 20_000 });
      expect(await page.locator('.token-needed').count()).toBe(0);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});

describe('the breadcrumb', () => {
  it(
    'names a Gemini CLI session’s project as the other agents’ sessions are named, by their folder',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      const crumb = page.locator('.session-head .project-crumb');
      await go(page, `#/s/${POMODORO.agent}/${POMODORO.sid}/summary`);
      await expect
        .poll(() => crumb.textContent(), { timeout: 30_000 })
        .toBe('/Users/yoavfarhi/dev/pomodoro/claude');
      await go(page, '#/s/gemini-cli/0b23371a-ce2e-4b1c-81a0-44af5d94d9ce/summary');
      await expect.poll(() => crumb.textContent(), { timeout: 30_000 }).toBe('project 2d33ff91…');
      expect(await crumb.getAttribute('title')).toContain('Gemini CLI records no folder');
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
