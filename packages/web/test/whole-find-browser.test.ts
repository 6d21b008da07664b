// A long session's whole-session search and its toolbar counts, in a real browser: a word said in
// more prompts than one page of hits lists them all, page after page in the session's order, saying
// how many there are; and the toolbar never shows a count of the items held where the session's own
// count belongs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isPromptItem } from '@cairn/protocol';
import { classifyTranscript, loadTranscript } from '@cairn/transcript';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { corpusPlatform } from '../../transcript/test/homes.js';
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
/** A corpus session of Claude Code, its records after the generated ones. */
const CORPUS_PROJECT = '-work-spotter';
const SID = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
/** Generated tool calls, two items each: enough for the reader to hold a window of the session. */
const CALLS = 2200;
/** A word no corpus session says, in this many prompts: more than one page of hits (50). */
const WORD = 'quokkamarine';
const SIGHTINGS = 130;

let browser: Browser;
let served: Served;
/** The prompts that say the word, in the session's order. */
const sightings: string[] = [];
/** The person's prompts in the session's own lane, as the server counts them. */
let promptCount: number;

beforeAll(async () => {
  const home = tempDir('cairn-home-');
  const session = claudeSession(join(home, '.claude'), '/home/dev/spotter', SID);
  let lines = session.prompt('the first prompt of a long session');
  for (let i = 0; i < CALLS; i++) {
    if (i % 16 === 0 && sightings.length < SIGHTINGS) {
      const line = session.prompt(`${WORD} sighting ${sightings.length} from the deck`);
      sightings.push((JSON.parse(line) as { uuid: string }).uuid);
      lines += line;
    }
    lines += session.bash(`echo ${i}`, `${i}\n`, { error: i % 331 === 0 });
  }
  session.append(lines);
  session.append(readFileSync(corpusPath('claude', 'projects', CORPUS_PROJECT, `${SID}.jsonl`), 'utf8'));

  const loaded = await loadTranscript(corpusPlatform(), { path: session.path, agent: 'claude-code' });
  if (!loaded.ok) throw new Error(loaded.error.message);
  const main = classifyTranscript(loaded.value, {});
  if (!main.ok) throw new Error(main.error.message);
  const items = main.value.items as { type: string; typed?: boolean }[];
  promptCount = items.filter(isPromptItem).length;

  let webRoot: string;
  [webRoot, browser] = await Promise.all([buildUi(), launch()]);
  served = await serve(homeEnv(home), webRoot);
}, SLOW);

afterAll(async () => {
  await served?.server.close();
  await browser?.close();
});

/** The number a hit's text names: "sighting 12". */
const sightingOf = (text: string): number => Number(/sighting (\d+)/.exec(text)?.[1] ?? Number.NaN);

const hitNumbers = async (page: Page): Promise<number[]> =>
  (await page.locator('.whole-find-hit').allInnerTexts()).map(sightingOf);

describe.skipIf(!corpus)('a long session searched whole', () => {
  it(
    'lists every hit of a word said more than a page of times, page after page, saying how many',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.locator('.session-item').first().waitFor();
      await go(page, `#/s/claude-code/${SID}`);
      await timelineLoaded(page);
      // Held as a window: find in the page does not see every item.
      await page.locator('.timeline-view[data-window]').waitFor();
      await page.keyboard.press('/');
      await page.locator('.find-input').fill(WORD);
      // The index may still be reading the session when asked first.
      await expect
        .poll(
          async () => {
            await page.locator('.whole-find-search').click();
            await page.locator('.whole-find [role=status]').waitFor();
            return shownText(page.locator('.whole-find [role=status]'));
          },
          { timeout: 60_000 },
        )
        .toBe(`50 of ${SIGHTINGS} matching items in the whole session`);
      expect(await hitNumbers(page)).toEqual([...Array(50).keys()]);

      await page.locator('.whole-find-more').click();
      await expect.poll(() => page.locator('.whole-find-hit').count()).toBe(100);
      expect(await shownText(page.locator('.whole-find [role=status]'))).toBe(
        `100 of ${SIGHTINGS} matching items in the whole session`,
      );
      // The last page is what is left.
      expect(await shownText(page.locator('.whole-find-more'))).toBe(`Show ${SIGHTINGS - 100} more`);
      await page.locator('.whole-find-more').click();
      await expect.poll(() => page.locator('.whole-find-hit').count()).toBe(SIGHTINGS);
      expect(await shownText(page.locator('.whole-find [role=status]'))).toBe(
        `${SIGHTINGS} matching items in the whole session`,
      );
      expect(await page.locator('.whole-find-more').count()).toBe(0);
      // Every sighting once, in the session's order.
      expect(await hitNumbers(page)).toEqual([...Array(SIGHTINGS).keys()]);

      // A hit of the last page lands on its prompt.
      await page.locator('.whole-find-hit').last().click();
      const hit = `.row.target[data-uuid="${sightings.at(-1)}"]`;
      await page.locator(hit).waitFor({ timeout: 30_000 });

      // A new word starts over from its first page.
      await page.locator('.find-input').fill(`${WORD} deck`);
      await expect.poll(() => page.locator('.whole-find-hit').count()).toBe(0);
      await page.locator('.whole-find-search').click();
      await expect
        .poll(() => shownText(page.locator('.whole-find [role=status]')))
        .toBe(`50 of ${SIGHTINGS} matching items in the whole session`);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    "shows no count in the toolbar but the whole session's, from the moment the session opens",
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.locator('.session-item').first().waitFor();
      // Every text the counts show, from before the session opens.
      await page.evaluate(() => {
        const w = window as unknown as { __counts: string[] };
        w.__counts = [];
        const record = () => {
          const text = document.querySelector('.toolbar-counts')?.textContent;
          if (text && text !== w.__counts.at(-1)) w.__counts.push(text);
        };
        new MutationObserver(record).observe(document.body, {
          subtree: true,
          childList: true,
          characterData: true,
        });
      });
      await go(page, `#/s/claude-code/${SID}`);
      await timelineLoaded(page);
      const whole = `${promptCount.toLocaleString('en-US')} prompts`;
      await expect.poll(() => shownText(page.locator('.toolbar-counts'))).toMatch(new RegExp(`^${whole}`));
      // The summary's count of failed calls, over every lane, is the last to come.
      await expect.poll(() => shownText(page.locator('.toolbar-counts .failed-count'))).toMatch(/all lanes$/);
      const final = await page.locator('.toolbar-counts').textContent();
      const failedFinal = /· (.*)$/.exec(final ?? '')?.[1];
      const counts = await page.evaluate(() => (window as unknown as { __counts: string[] }).__counts);
      expect(counts.length).toBeGreaterThan(0);
      // First no number, then the session's; never a count of the items held.
      expect(counts[0]).toMatch(/^– prompts/);
      for (const text of counts) {
        const [, prompts, failed] = /^(.*) prompts · (.*)$/.exec(text) ?? [];
        expect([`– prompts`, whole]).toContain(`${prompts} prompts`);
        expect(failed).not.toMatch(/shown/);
        // The failed calls: none counted yet, the session's own lane as the server counts it, or the
        // summary's over all lanes.
        if (failed !== '– failed calls' && failed !== failedFinal)
          expect(failed).toMatch(/^[\d,]+ failed calls$/);
      }
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
