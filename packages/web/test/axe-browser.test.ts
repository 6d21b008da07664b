// Accessibility sweep: axe-core, run inside the page, finds no serious or critical violation on any view
// of the UI (the list, a session's timeline, its summary, a record as written, search results, the dump
// builder, the new chat form), in light and in dark, over the corpus.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildUi,
  corpusEnv,
  go,
  launch,
  openPage,
  type Scheme,
  type Served,
  screenshot,
  seriousAxeViolations,
  serve,
  violations,
} from './harness.js';

const SLOW = 180_000;
const SESSION = '#/s/claude-code/tool_heavy';

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

interface View {
  readonly name: string;
  /** Brings the page to the view and waits until it is drawn. */
  open(page: Page): Promise<void>;
}

const VIEWS: View[] = [
  {
    name: 'list',
    open: async (page) => {
      await go(page, '#/');
      await page.locator('.session-item').first().waitFor();
    },
  },
  {
    name: 'timeline',
    open: async (page) => {
      await go(page, SESSION);
      await page.waitForSelector('.status-line[data-loaded=yes]');
    },
  },
  {
    name: 'find',
    open: async (page) => {
      await go(page, SESSION);
      await page.waitForSelector('.status-line[data-loaded=yes]');
      await page.locator('.find-open').click();
      await page.locator('.find-input').fill('phoenix');
      await page.locator('.find-status').filter({ hasText: ' of ' }).waitFor();
    },
  },
  {
    name: 'summary',
    open: async (page) => {
      await go(page, `${SESSION}/summary`);
      await page.locator('.summary-view .card').first().waitFor();
    },
  },
  {
    name: 'raw record',
    open: async (page) => {
      await go(page, SESSION);
      await page.waitForSelector('.status-line[data-loaded=yes]');
      await page.locator('.row[data-type="tool:Bash"] .fold-toggle').first().click();
      await page.getByRole('button', { name: 'show the record as written' }).first().click();
      await page.locator('.raw .text-block').first().waitFor();
    },
  },
  {
    name: 'search',
    open: async (page) => {
      await go(page, '#/?q=phoenix');
      await page.locator('.hits .hit').first().waitFor();
    },
  },
  {
    name: 'dump builder',
    open: async (page) => {
      await go(page, `${SESSION}/dump`);
      await page.locator('.dump-form').first().waitFor();
    },
  },
  {
    name: 'new chat',
    open: async (page) => {
      await go(page, '#/chat');
      await page.locator('.new-chat-form').waitFor();
    },
  },
];

for (const scheme of ['light', 'dark'] as Scheme[]) {
  describe(`in ${scheme}`, () => {
    it(
      'every view has no serious or critical accessibility violation',
      async () => {
        const { page, context, errors } = await openPage(browser, served, scheme);
        try {
          const found: Record<string, unknown> = {};
          for (const view of VIEWS) {
            await view.open(page);
            const serious = await seriousAxeViolations(page);
            if (serious.length > 0) found[view.name] = serious;
            await screenshot(page, `axe-${scheme}-${view.name.replace(/ /g, '-')}`);
          }
          expect(found).toEqual({});
          expect(errors).toEqual([]);
          expect(await violations(page)).toEqual([]);
        } finally {
          await context.close();
        }
      },
      SLOW,
    );
  });
}
