// Search narrowed by the list's filters, and a person's stars and tags, in a real browser on the
// corpus: the project, agent and date filters narrow the hits and stay on screen while searching;
// the row a hit lands on is outlined visibly in the light and the dark theme; a session and a row
// are starred, a session tagged, the list filtered by star and tag, a search finds a session by its
// tag, and a tag with a bidi control shows it as a code point.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import {
  buildUi,
  corpusEnv,
  go,
  launch,
  openPage,
  type Scheme,
  type Served,
  screenshot,
  serve,
  shownText,
  violations,
} from './harness.js';

const SLOW = 180_000;
/** A Claude Code session with two subagents. */
const SESSION = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';

/** WCAG relative luminance contrast between two `rgb(…)` colours. */
function contrast(a: string, b: string): number {
  const lum = (c: string) => {
    const [r, g, bl] = (c.match(/[\d.]+/g) ?? []).slice(0, 3).map((v) => {
      const s = Number(v) / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

/** The sessions the hit groups show, in order. */
const hitSessions = (page: Page) =>
  page.$$eval('.hit-group', (els) => els.map((e) => e.getAttribute('data-sid') ?? ''));

/** Waits for the search to answer, then for the hits to settle: a filter just changed may not have
 * started its search yet, so the hits must read the same, not searching, over a few frames. */
async function searched(page: Page): Promise<string[]> {
  let last = '';
  let same = 0;
  await expect
    .poll(
      async () => {
        const line = await shownText(page.locator('.search-results .summary-line'));
        const now = /Searching/.test(line) ? '' : `${line}\n${(await hitSessions(page)).join(',')}`;
        same = now !== '' && now === last ? same + 1 : 0;
        last = now;
        return same;
      },
      { interval: 100 },
    )
    .toBeGreaterThanOrEqual(3);
  return await hitSessions(page);
}

describe.skipIf(!corpus)('search with filters, stars and tags', () => {
  let webRoot: string;
  let browser: Browser;
  let served: Served;
  /** Each corpus session's folder, by sid. */
  let cwdOf: Map<string, string | undefined>;
  let agentOf: Map<string, string>;

  beforeAll(async () => {
    [webRoot, browser] = await Promise.all([buildUi(), launch()]);
    served = await serve(corpusEnv(), webRoot);
    const entries = served.server.catalog.all();
    cwdOf = new Map(entries.map((e) => [e.sid, e.head.cwd]));
    agentOf = new Map(entries.map((e) => [e.sid, e.agent]));
  }, SLOW);

  afterAll(async () => {
    await served?.server.close();
    await browser?.close();
  });

  it(
    'narrows hits by project, agent and date, with the filters on screen while searching',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.waitForSelector('.session-item');
      await go(page, '#/?q=phoenix');
      const all = await searched(page);
      expect(all.length).toBeGreaterThan(1);
      // The filters are there while searching; the list's sort order is not, hits come best first.
      await expect(page.locator('select[name=project]').isVisible()).resolves.toBe(true);
      await expect(page.locator('input[name=since]').isVisible()).resolves.toBe(true);
      await expect(page.locator('select[name=sort]').isVisible()).resolves.toBe(false);

      // Project: only the hits of sessions in that very folder.
      const project = cwdOf.get(all[0]!)!;
      expect(project).toBeDefined();
      await page.selectOption('select[name=project]', project);
      await expect.poll(() => new URL(page.url()).hash).toContain('project=');
      const inProject = await searched(page);
      expect(inProject.length).toBeGreaterThan(0);
      expect(inProject.length).toBeLessThan(all.length);
      for (const sid of inProject) expect(cwdOf.get(sid), sid).toBe(project);
      expect(await page.inputValue('input[type=search]')).toBe('phoenix');
      await screenshot(page, 'search-filtered-project-light');

      // Agent: the chips narrow the hits and keep the project.
      const agents = [...new Set(all.map((s) => agentOf.get(s)!))];
      await page.click('.filters a.chip >> text=all agents');
      await page.click('button:has-text("clear filters")');
      const everyAgent = await searched(page);
      expect(everyAgent.sort()).toEqual([...all].sort());
      const agent = agents[0]!;
      await page.click(`.filters a.chip:text-is("${agent}")`);
      await expect.poll(() => new URL(page.url()).hash).toContain(`agent=${agent}`);
      const ofAgent = await searched(page);
      expect(ofAgent.length).toBeGreaterThan(0);
      for (const sid of ofAgent) expect(agentOf.get(sid)).toBe(agent);
      if (agents.length > 1) expect(ofAgent.length).toBeLessThan(all.length);

      // Date: nothing said after tomorrow; clearing the filter brings the hits back.
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      await page.fill('input[name=since]', tomorrow);
      await expect.poll(() => new URL(page.url()).hash).toContain('since=');
      expect(await searched(page)).toEqual([]);
      expect(await shownText(page.locator('.search-results .summary-line'))).toContain('within the filters');
      await page.click('button:has-text("clear filters")');
      expect((await searched(page)).sort()).toEqual([...ofAgent].sort());
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it.each(['light', 'dark'] as Scheme[])(
    'outlines the row a hit lands on so it shows in the %s theme',
    async (scheme) => {
      const { page, context, errors } = await openPage(browser, served, scheme);
      await go(page, '#/?q=phoenix');
      await page.waitForSelector('.hit a');
      await page.locator('.hit a').first().click();
      const target = page.locator('.row.target');
      await target.waitFor({ timeout: 60_000 });
      const colours = await page.evaluate(() => {
        const row = document.querySelector('.row.target')!;
        const style = getComputedStyle(row);
        // The page behind the row: the first ancestor with a background of its own.
        let behind = 'rgb(255, 255, 255)';
        for (let el = row.parentElement; el; el = el.parentElement) {
          const bg = getComputedStyle(el).backgroundColor;
          if (bg !== 'rgba(0, 0, 0, 0)' && bg !== 'transparent') {
            behind = bg;
            break;
          }
        }
        return {
          theme: document.documentElement.dataset.theme,
          outline: style.outlineColor,
          outlineWidth: Number.parseFloat(style.outlineWidth),
          outlineStyle: style.outlineStyle,
          behind,
          fill: style.backgroundColor,
        };
      });
      expect(colours.theme).toBe(scheme);
      expect(colours.outlineStyle).toBe('solid');
      expect(colours.outlineWidth).toBeGreaterThanOrEqual(2);
      // A mark that is not text needs 3:1 against what is around it, and against the row's own fill.
      expect(contrast(colours.outline, colours.behind)).toBeGreaterThanOrEqual(3);
      expect(contrast(colours.outline, colours.fill)).toBeGreaterThanOrEqual(3);
      await screenshot(page, `search-landed-outline-${scheme}`);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'stars a session and a row, tags a session, filters by them and finds the session by its tag',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await go(page, '#/?sort=tokens');
      const item = page.locator(`.session-item[data-sid="${SESSION}"]`);
      await item.waitFor();
      const others = await page.locator('.session-item').count();
      expect(others).toBeGreaterThan(1);

      await item.locator('.session-star').click();
      await expect.poll(() => item.locator('.session-star').getAttribute('aria-pressed')).toBe('true');
      await item.locator('.add-tag').click();
      await item.locator('.tag-input').fill('release-notes');
      await item.locator('.tag-input').press('Enter');
      await item.locator('.tag-chip[data-tag="release-notes"]').waitFor();
      // A tag holding a bidi override is kept, and drawn with the override as a code point.
      await item.locator('.add-tag').click();
      await item.locator('.tag-input').fill('invoice\u202Egnp.exe');
      await item.locator('.tag-input').press('Enter');
      const hostile = item.locator('.tag-chip[data-tag="invoice\u202Egnp.exe"] a');
      await hostile.waitFor();
      expect(await shownText(hostile)).toBe('#invoice⟨U+202E⟩gnp.exe');

      // Filtered by the star, then by the tag: that session alone.
      await page.check('input[name=starred]');
      await expect.poll(() => page.locator('.session-item').count()).toBe(1);
      await page.uncheck('input[name=starred]');
      await expect.poll(() => page.locator('.session-item').count()).toBe(others);
      await page.selectOption('select[name=tag]', 'release-notes');
      await expect.poll(() => page.locator('.session-item').count()).toBe(1);
      expect(await page.locator('.session-item').getAttribute('data-sid')).toBe(SESSION);
      await screenshot(page, 'sessions-filtered-by-tag-light');

      // A search for the tag names the session, above the full-text hits.
      await go(page, '#/?q=release-notes');
      const tagged = page.locator(`.tagged-session[data-sid="${SESSION}"]`);
      await tagged.waitFor();
      expect(await shownText(tagged)).toContain('#release-notes');

      // A row of its timeline, starred: the star stays on it and the list links to it.
      await go(page, `#/s/claude-code/${SESSION}`);
      const row = page.locator('.row.item[data-type="message:user:out"]').first();
      await row.waitFor({ timeout: 60_000 });
      const uuid = await row.getAttribute('data-uuid');
      await row.hover();
      await row.locator('.item-star').click();
      await expect.poll(() => row.locator('.item-star').getAttribute('aria-pressed')).toBe('true');
      await context.close();

      // A new page reads the marks from the server again.
      const again = await openPage(browser, served);
      await go(again.page, '#/?starred=1');
      const kept = again.page.locator(`.session-item[data-sid="${SESSION}"]`);
      await kept.waitFor();
      expect(await again.page.locator('.session-item').count()).toBe(1);
      expect(await kept.locator('.tag-chip').count()).toBe(2);
      await kept.locator('.starred-items summary').click();
      const link = kept.locator('.starred-items a').first();
      expect(await link.getAttribute('href')).toContain(`item=${uuid}`);
      await link.click();
      const landed = again.page.locator('.row.target');
      await landed.waitFor({ timeout: 60_000 });
      expect(await landed.getAttribute('data-uuid')).toBe(uuid);
      expect(await landed.locator('.item-star').getAttribute('aria-pressed')).toBe('true');
      expect(errors).toEqual([]);
      expect(again.errors).toEqual([]);
      expect(await violations(again.page)).toEqual([]);
      await again.context.close();
    },
    SLOW,
  );
});
