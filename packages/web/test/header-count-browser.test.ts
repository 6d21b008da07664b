// The header's count of indexed sessions follows the sessions on disk: a session written after the
// page opened raises it without a reload.
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { buildUi, homeEnv, launch, openPage, type Served, serve, shownText, tempDir } from './harness.js';

const SLOW = 180_000;
const SPOTTER = ['claude', 'projects', '-work-spotter'];

describe.skipIf(!corpus)('the header count of indexed sessions', () => {
  let webRoot: string;
  let browser: Browser;
  let served: Served;
  let project: string;

  beforeAll(async () => {
    [webRoot, browser] = await Promise.all([buildUi(), launch()]);
    const home = tempDir('cairn-home-');
    const env = homeEnv(home);
    project = join(home, '.claude', 'projects', '-work-spotter');
    mkdirSync(project, { recursive: true });
    cpSync(corpusPath(...SPOTTER, 'short.jsonl'), join(project, 'short.jsonl'));
    served = await serve(env, webRoot);
  }, SLOW);

  afterAll(async () => {
    await served?.server.close();
    await browser?.close();
  });

  it(
    'counts a session that appears while the page is open',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      const count = page.locator('.indexed-count');
      await expect.poll(() => shownText(count), { timeout: 60_000 }).toBe('1 sessions indexed');
      cpSync(corpusPath(...SPOTTER, 'tool_heavy.jsonl'), join(project, 'tool_heavy.jsonl'));
      await page.waitForSelector('.session-item[data-sid="tool_heavy"]', { timeout: 60_000 });
      await expect.poll(() => shownText(count), { timeout: 30_000 }).toBe('2 sessions indexed');
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
