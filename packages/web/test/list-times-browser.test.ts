// The session list in a real browser shows what the records say: sessions copied just now show
// when they last recorded something (months ago), none is marked active, one the server sees grow
// is marked active at once, and a session whose main file is gone says so.
import { appendFileSync, cpSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { buildUi, homeEnv, launch, openPage, type Served, serve, shownText, tempDir } from './harness.js';

const SLOW = 180_000;
const SPOTTER = ['claude', 'projects', '-work-spotter'];
const LOST = '4d5611e5-241a-462a-8d15-5122611a9569';

/** The last line's timestamp of a JSONL file, as ms. */
const lastLineTime = (path: string): number =>
  Date.parse(
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { timestamp?: string })
      .findLast((r) => typeof r.timestamp === 'string')!.timestamp!,
  );

describe.skipIf(!corpus)('the session list of copied sessions', () => {
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
    for (const name of ['short.jsonl', 'tool_heavy.jsonl'])
      cpSync(corpusPath(...SPOTTER, name), join(project, name));
    // A session whose main file is gone: only its subagents' files remain.
    cpSync(corpusPath(...SPOTTER, LOST), join(project, LOST), { recursive: true });
    served = await serve(env, webRoot);
  }, SLOW);

  afterAll(async () => {
    await served?.server.close();
    await browser?.close();
  });

  it(
    'shows their record times and no active mark, until one grows',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.waitForSelector('.session-item[data-sid="short"]');
      expect(await page.locator('.session-item.active').count()).toBe(0);
      expect(await page.locator('.active-label').count()).toBe(0);
      for (const sid of ['short', 'tool_heavy']) {
        const at = lastLineTime(join(project, `${sid}.jsonl`));
        const when = page.locator(`.session-item[data-sid="${sid}"] .when`);
        // Months before the copy: a date with its time, not "just now" or "n minutes ago".
        const expected = await page.evaluate(
          (t) =>
            `${new Date(t).toLocaleDateString()} ${new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' }).format(t)}`,
          at,
        );
        expect(await shownText(when)).toBe(expected);
      }

      const line = readFileSync(join(project, 'short.jsonl'), 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .at(-1)!;
      const record = JSON.parse(line) as Record<string, unknown>;
      record.uuid = '00000000-0000-4000-8000-00000000feed';
      record.timestamp = new Date().toISOString();
      appendFileSync(join(project, 'short.jsonl'), `${JSON.stringify(record)}\n`);
      await page.locator('.session-item.active[data-sid="short"] .active-label').waitFor({ timeout: 30_000 });
      expect(await shownText(page.locator('.session-item[data-sid="short"] .when'))).toBe('just now');
      expect(await page.locator('.session-item.active').count()).toBe(1);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'marks a session whose main file is gone and offers no Continue for it',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      const lost = page.locator(`.session-item[data-sid="${LOST}"]`);
      await lost.waitFor();
      expect(await shownText(lost.locator('.lost-main'))).toContain('subagents only');
      expect(await lost.locator('.continue-button').count()).toBe(0);
      expect(await page.locator('.session-item[data-sid="short"] .lost-main').count()).toBe(0);
      expect(await page.locator('.session-item[data-sid="short"] .continue-button').count()).toBe(1);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
