// Search and the dump builder in a real browser on the corpus: hits are grouped by session under the
// session's title with their date and time; "include tool output" checked right after typing stays
// checked; a hit lands with its item's top in view and the query's words highlighted in it; the dump
// builder offers a session's subagents, names types in words beside their selectors, counts tools in
// calls, and names in its selection line only tools this session used.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import {
  buildUi,
  corpusEnv,
  go,
  launch,
  openPage,
  type Served,
  screenshot,
  seriousAxeViolations,
  serve,
  shownText,
  violations,
} from './harness.js';

const SLOW = 180_000;
/** A Claude Code session with two subagents (and the compaction summarizer). */
const TWO_SUBAGENTS = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-/;

/** The text the page highlights under the name, joined. */
const highlighted = (page: Page, name: string) =>
  page.evaluate((n) => {
    const h = CSS.highlights.get(n);
    return h ? [...h].map((r) => (r as Range).toString()) : [];
  }, name);

/** Whether the page marks some words, all of them in the text the target row draws now. */
const marksInTarget = (page: Page) =>
  page.evaluate(() => {
    const row = document.querySelector('.row.target');
    const ranges = [...(CSS.highlights.get('search-hit') ?? [])] as Range[];
    return row !== null && ranges.length > 0 && ranges.every((r) => row.contains(r.startContainer));
  });

describe.skipIf(!corpus)('search and the dump builder on the corpus', () => {
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

  it(
    'groups hits by session under its title, each with its date and time',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.waitForSelector('.session-item');
      const titles = new Map(
        await page.$$eval('.session-item', (els) =>
          els.map((e) => [
            e.getAttribute('data-sid') ?? '',
            e.querySelector('.session-title')?.textContent ?? '',
          ]),
        ),
      );
      await page.fill('input[type=search]', 'phoenix');
      await page.waitForSelector('.hit-group');
      const groups = await page.$$eval('.hit-group', (els) =>
        els.map((g) => ({
          sid: g.getAttribute('data-sid') ?? '',
          title: g.querySelector('h2 .session-title')?.textContent ?? '',
          hits: g.querySelectorAll('.hit').length,
          times: [...g.querySelectorAll('.hit time')].map((t) => t.textContent ?? ''),
        })),
      );
      expect(groups.length).toBeGreaterThan(1);
      // One group per session, each under the title the list gives it, never its id.
      expect(new Set(groups.map((g) => g.sid)).size).toBe(groups.length);
      for (const g of groups) {
        expect(g.title, g.sid).toBe(titles.get(g.sid));
        expect(g.title).not.toMatch(UUID);
        expect(g.times.length).toBe(g.hits);
        // A date and a time of day: "Feb 10, 2026, 10:58 PM" or "10 Feb 2026, 22:58".
        for (const t of g.times) expect(t).toMatch(/\d{4}.*\d{1,2}:\d{2}/);
      }
      expect(groups.some((g) => g.hits > 1)).toBe(true);
      await screenshot(page, 'search-grouped-light');
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'keeps "include tool output" checked when it is checked right after typing',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.waitForSelector('.session-item');
      await page.fill('input[type=search]', 'mix');
      // At once, before the pause after typing has run its search.
      await page.check('.search-bar input[type=checkbox]');
      await page.waitForSelector('.hit-group');
      // Well past the pause: the query it starts must not undo the box.
      await page.waitForTimeout(1200);
      expect(await page.isChecked('.search-bar input[type=checkbox]')).toBe(true);
      const url = new URL(page.url());
      const params = new URLSearchParams(url.hash.slice(url.hash.indexOf('?') + 1));
      expect(params.get('q')).toBe('mix');
      expect(params.get('tools')).toBe('1');
      expect(await shownText(page.locator('.search-results .summary-line'))).not.toContain(
        'tool output not searched',
      );
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'lands with the item’s top in view and the query’s words highlighted in it',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      // Tool output is searched too, so a hit can land in a tall output.
      await go(page, '#/?q=defmodule&tools=1');
      await page.waitForSelector('.hit');
      const hits = page.locator('.hit a');
      const n = Math.min(await hits.count(), 3);
      expect(n).toBeGreaterThan(0);
      let tall = 0;
      for (let i = 0; i < n; i++) {
        await go(page, '#/?q=defmodule&tools=1');
        await page.locator('.hit a').nth(i).waitFor();
        const href = (await page.locator('.hit a').nth(i).getAttribute('href'))!;
        expect(href).toContain('q=defmodule');
        await page.locator('.hit a').nth(i).click();
        const target = page.locator('.row.target');
        await target.waitFor({ timeout: 60_000 });
        // The item's top is at the top of the timeline, unless the timeline ends before it could be.
        await expect
          .poll(() =>
            page.evaluate(() => {
              const scroller = document.querySelector('.timeline-scroll')!;
              const top = scroller.getBoundingClientRect().top;
              const row = document.querySelector('.row.target')!.getBoundingClientRect();
              const atEnd = scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 2;
              return (row.top >= top - 2 && row.top <= top + 48) || (atEnd && row.top >= top - 2);
            }),
          )
          .toBe(true);
        await expect.poll(async () => (await highlighted(page, 'search-hit')).length).toBeGreaterThan(0);
        const marks = await highlighted(page, 'search-hit');
        expect(marks.every((m) => m.toLowerCase() === 'defmodule')).toBe(true);
        // Every highlight is inside the item landed on.
        expect(await marksInTarget(page)).toBe(true);
        if (i === 0) {
          // Scrolled away by the wheel (which ends the hold on the item), the row is no longer drawn;
          // scrolled back, it is drawn anew, and marked again.
          const box = (await page.locator('.timeline-scroll').boundingBox())!;
          await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
          const [at, height] = await page.$eval('.timeline-scroll', (el) => [el.scrollTop, el.scrollHeight]);
          const away = at > height / 2 ? -at : height;
          await page.mouse.wheel(0, away);
          await expect.poll(() => page.locator('.row.target').count()).toBe(0);
          await page.$eval('.timeline-scroll', (el, top) => (el.scrollTop = top), at);
          await target.waitFor();
          await expect.poll(() => marksInTarget(page)).toBe(true);
        }
        const height = (await target.boundingBox())!.height;
        if (height > tall) await screenshot(page, 'search-landed-tall-light');
        tall = Math.max(tall, height);
        if (i === 0) await screenshot(page, 'search-landed-highlighted-light');
      }
      // One of them is an item several screens tall (a long tool output): its start was shown, not its middle.
      expect(tall).toBeGreaterThan(2000);
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'offers the subagents as subjects, names types in words, counts calls, and names only tools used',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await go(page, `#/s/claude-code/${TWO_SUBAGENTS}/dump`);
      await page.waitForSelector('.dump-form .family');
      const subjects = await page.$$eval('select[name=subject] option', (os) =>
        os.map((o) => ({ value: (o as HTMLOptionElement).value, text: o.textContent ?? '' })),
      );
      const values = subjects.map((s) => s.value);
      expect(values).toContain('a93ccab');
      expect(values).toContain('aa84377');
      expect(subjects.find((s) => s.value === 'a93ccab')!.text).toContain('Explore existing codebase');

      // Words first, the selector beside them.
      const reply = page.locator('label:has(input[data-type="message:user:out"]) .type-label');
      expect(await shownText(reply)).toContain('Assistant replies');
      expect(await shownText(reply.locator('code'))).toBe('message:user:out');
      for (const label of await page.$$eval('.types .type-label', (els) =>
        els.map((e) => e.textContent ?? ''),
      ))
        expect(label.replace(/\S+$/, '').trim()).not.toBe('');

      // A tool counts its calls: half of its items, calls and results together.
      const bash = page.locator('label:has(input[data-type="tool:Bash"]) .count');
      const items = Number(await bash.getAttribute('data-items'));
      const calls = Number((await shownText(bash)).replace(/[^\d]/g, ''));
      expect(await shownText(bash)).toMatch(/^\d[\d,]* calls?$/);
      expect(calls).toBeGreaterThan(0);
      expect(calls).toBeLessThan(items);
      expect(items - calls).toBeLessThanOrEqual(calls);

      // The howto preset names every agent's shell and file tools; the line names this session's.
      await page.check('input[name=preset][value=howto]');
      const line = () => shownText(page.locator('.selection-line'));
      await expect.poll(line).toContain('tool:Bash');
      const text = await line();
      for (const other of [
        'tool:exec_command',
        'tool:run_shell_command',
        'tool:read_file',
        'tool:apply_patch',
      ])
        expect(text).not.toContain(other);
      expect(text).toMatch(/and \d+ tools no item here uses/);
      await screenshot(page, 'dump-labels-light');

      // Choosing a subagent counts its own items.
      const before = Number(await page.getAttribute('.selected', 'data-count'));
      await page.selectOption('select[name=subject]', 'a93ccab');
      await expect
        .poll(async () => Number(await page.getAttribute('.selected', 'data-count')))
        .not.toBe(before);
      expect(Number(await page.getAttribute('.selected', 'data-count'))).toBeGreaterThan(0);
      await screenshot(page, 'dump-subagent-light');
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
