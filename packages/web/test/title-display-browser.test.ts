// A session's title, folder and prompt that try to fool the eye, in a real browser: the list, the
// session's heading, its tooltip, the breadcrumb, the tab's title, the Summary tab's prompts and a
// search's summary line show bidi and zero-width characters as code points, never raw.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeSession } from './claude-session.js';
import { buildUi, go, homeEnv, launch, openPage, type Served, serve, shownText, tempDir } from './harness.js';

const SLOW = 180_000;
const SID = '55555555-5555-4555-8555-555555555555';
const TITLE = 'invoice\u202Egnp.exe\u200B notes';
const SHOWN_TITLE = 'invoice⟨U+202E⟩gnp.exe⟨U+200B⟩ notes';
const CWD = '/home/dev/bills\u202Efdp.sh';
const SHOWN_CWD = '/home/dev/bills⟨U+202E⟩fdp.sh';
const RAW = /[\u202E\u200B]/;

let browser: Browser;
let served: Served;

beforeAll(async () => {
  const home = tempDir('cairn-home-');
  const env = homeEnv(home);
  const s = claudeSession(env.CLAUDE_CONFIG_DIR!, CWD, SID);
  s.append(
    `${JSON.stringify({ type: 'custom-title', customTitle: TITLE, sessionId: SID })}\n` +
      s.prompt('sort the bills\u202Evsc') +
      s.say('sorted'),
  );
  const [webRoot, launched] = await Promise.all([buildUi(), launch()]);
  browser = launched;
  served = await serve(env, webRoot);
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await served?.server.close();
});

describe('a hostile session title in the web UI', () => {
  it(
    'shows bidi and zero-width characters as code points in the list, heading, tooltip, breadcrumb, tab title, prompts and search line',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      const row = page.locator(`.session-item[data-sid="${SID}"]`);
      await row.waitFor();
      const listed = await shownText(row);
      expect(listed).toContain(SHOWN_TITLE);
      expect(listed).not.toMatch(RAW);
      expect(await rawOnPage(page)).toEqual([]);

      await go(page, `#/s/claude-code/${SID}`);
      const heading = page.locator('.session-head h1');
      await heading.waitFor();
      await page.waitForFunction((t) => document.title.includes(t), SHOWN_TITLE);
      const headingText = await shownText(heading.locator('.title-text'));
      expect(headingText).toBe(SHOWN_TITLE);
      expect(await heading.getAttribute('title')).toBe(SHOWN_TITLE);
      const tabTitle = await page.title();
      expect(tabTitle).toBe(`${SHOWN_TITLE} · cairn`);
      const crumbs = await shownText(page.locator('.session-head .crumbs'));
      expect(crumbs).toContain(SHOWN_CWD);
      for (const shown of [headingText, tabTitle, crumbs]) expect(shown).not.toMatch(RAW);

      // Nothing on the page, the timeline drawn and tooltips included, carries the characters raw.
      await page.waitForSelector('.status-line[data-loaded=yes]', { timeout: 60_000 });
      await page.waitForSelector('.row:has-text("sorted")');
      expect(await rawOnPage(page)).toEqual([]);

      // The Summary tab lists the prompt; a search for words holding the character names them.
      await go(page, `#/s/claude-code/${SID}/summary`);
      const prompt = page.locator('ol.prompts li');
      await prompt.waitFor();
      expect(await shownText(prompt)).toBe('sort the bills⟨U+202E⟩vsc');
      expect(await rawOnPage(page)).toEqual([]);
      await go(page, `#/?q=${encodeURIComponent('bills\u202Evsc')}`);
      const line = page.locator('.search-results .summary-line');
      await expect.poll(() => shownText(line), { timeout: 30_000 }).toMatch(/result.*bills⟨U\+202E⟩vsc/);
      expect(await rawOnPage(page)).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});

/** Where the page's text, its tooltips or the tab's title hold a bidi or zero-width character raw. */
function rawOnPage(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const re = /[\u202E\u200B]/;
    const found: string[] = [];
    if (re.test(document.title)) found.push('the tab title');
    if (re.test(document.body.textContent ?? '')) found.push('the page text');
    for (const el of document.querySelectorAll('[title], [aria-label]'))
      for (const name of ['title', 'aria-label'])
        if (re.test(el.getAttribute(name) ?? '')) found.push(`${name} of ${el.outerHTML.slice(0, 80)}`);
    return found;
  });
}
