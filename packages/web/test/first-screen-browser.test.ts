// A long session's first screen in a real browser: its first rows are drawn from the head the server
// sends while it reads the session, before the history arrives, and the history then takes their
// place rather than adding to them. A second reader, once the stream is open, gets the same rows.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusPath } from '../../transcript/test/corpus.js';
import { buildUi, go, homeEnv, launch, openPage, type Served, serve, shownText, tempDir } from './harness.js';

const SLOW = 180_000;
const PROJECT = '-work-spotter';
// 3.3 MB, long enough to be previewed by its head.
const SID = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';

let browser: Browser;
let served: Served;

beforeAll(async () => {
  const home = tempDir('cairn-home-');
  const env = homeEnv(home);
  const dir = join(home, '.claude', 'projects', PROJECT);
  mkdirSync(dir, { recursive: true });
  copyFileSync(corpusPath('claude', 'projects', PROJECT, `${SID}.jsonl`), join(dir, `${SID}.jsonl`));
  let webRoot: string;
  [webRoot, browser] = await Promise.all([buildUi(), launch()]);
  served = await serve(env, webRoot);
}, SLOW);

afterAll(async () => {
  await served?.server.close();
  await browser?.close();
});

/** Opens the session and waits for its whole history; answers what the page saw on the way. */
async function open(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as { __firstRow?: { uuid: string; loaded: string } };
    const seen = new MutationObserver(() => {
      const row = document.querySelector('.vrow .row');
      if (!row) return;
      seen.disconnect();
      w.__firstRow = {
        uuid: row.getAttribute('data-uuid') ?? '',
        loaded: document.querySelector('.status-line')?.getAttribute('data-loaded') ?? '',
      };
    });
    seen.observe(document, { childList: true, subtree: true });
  });
  await go(page, `#/s/claude-code/${SID}`);
  await page.waitForSelector('.status-line[data-loaded=yes]', { timeout: 60_000 });
  return page.evaluate(() => {
    const at = (name: string) => performance.getEntriesByName(name).at(-1)?.startTime ?? Number.NaN;
    const w = window as unknown as { __firstRow?: { uuid: string; loaded: string } };
    return {
      firstRow: w.__firstRow,
      firstItems: at('cairn:first-items'),
      history: at('cairn:history'),
      topUuid: document.querySelector('.vrow .row')?.getAttribute('data-uuid') ?? '',
    };
  });
}

describe('a long session opened the first time', () => {
  it(
    'draws its first rows before the history arrives, and the history replaces them',
    async () => {
      const first = await openPage(browser, served);
      const again = await openPage(browser, served);
      try {
        await first.page.locator('.session-item').first().waitFor();
        const cold = await open(first.page);
        // Rows were drawn while the history was still to come.
        expect(cold.firstRow?.loaded).toBe('no');
        expect(cold.firstItems).toBeLessThan(cold.history);
        const coldCount = await shownText(first.page.locator('.status-line'));
        expect(coldCount).toMatch(/^[\d,.\sK]+ items$/);

        // Opened again with the stream open: no preview, the history alone, and the same rows.
        await again.page.locator('.session-item').first().waitFor();
        const warm = await open(again.page);
        expect(warm.history).toBeLessThanOrEqual(warm.firstItems);
        expect(await shownText(again.page.locator('.status-line'))).toBe(coldCount);
        expect(cold.topUuid).toBe(warm.topUuid);
        expect(cold.firstRow?.uuid).toBe(warm.topUuid);
        // The last row is the same too: nothing of the preview was left among the history's rows.
        const last = async (page: Page) => {
          await page.keyboard.press('G');
          await page.waitForTimeout(300);
          return page.evaluate(() => {
            const rows = [...document.querySelectorAll('.vrow .row')];
            return rows.at(-1)?.getAttribute('data-uuid') ?? '';
          });
        };
        expect(await last(first.page)).toBe(await last(again.page));
        expect(first.errors).toEqual([]);
        expect(again.errors).toEqual([]);
      } finally {
        await first.context.close();
        await again.context.close();
      }
    },
    SLOW,
  );
});
