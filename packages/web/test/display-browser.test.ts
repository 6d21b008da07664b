// Transcript text that tries to fool the eye, in a real browser: a path with a bidi override reads
// in its real order, terminal escapes in command output are gone, and a reply of one 200 KB line
// wraps inside the page.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeSession } from './claude-session.js';
import { buildUi, go, homeEnv, launch, openPage, type Served, serve, shownText, tempDir } from './harness.js';

const SLOW = 180_000;
const SID = '44444444-4444-4444-8444-444444444444';
const PATH = '/home/dev/file\u202Egnp.exe';
const LONG = `start-${'x'.repeat(200_000)}-end`;

let browser: Browser;
let served: Served;

beforeAll(async () => {
  const home = tempDir('cairn-home-');
  const env = homeEnv(home);
  const s = claudeSession(env.CLAUDE_CONFIG_DIR!, '/home/dev/tricks', SID);
  s.append(
    s.prompt(`open ${PATH} for me`) +
      s.bash(`ls -l ${PATH}`, '\u001b[1;31mred warning\u001b[0m and \u001b[32mgreen ok\u001b[0m') +
      s.say(LONG) +
      s.say('the last reply'),
  );
  const [webRoot, launched] = await Promise.all([buildUi(), launch()]);
  browser = launched;
  served = await serve(env, webRoot);
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await served?.server.close();
});

describe('display tricks in the web UI', () => {
  it(
    'shows bidi controls as code points, strips terminal escapes and wraps a 200 KB line',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.waitForSelector(`.session-item[data-sid="${SID}"]`);
      const listed = await shownText(page.locator(`.session-item[data-sid="${SID}"]`));
      expect(listed).toContain('file⟨U+202E⟩gnp.exe');
      expect(listed).not.toContain('\u202E');

      await go(page, `#/s/claude-code/${SID}`);
      await page.waitForSelector('.status-line[data-loaded=yes]', { timeout: 60_000 });
      await page.locator('.fold-toggle:has(.badge.tool)').first().click();
      await page.waitForSelector('.row:has-text("the last reply")');
      const text = await shownText(page.locator('.timeline-scroll'));
      expect(text).toContain('open /home/dev/file⟨U+202E⟩gnp.exe for me');
      expect(text).toContain('ls -l /home/dev/file⟨U+202E⟩gnp.exe');
      expect(text).not.toContain('\u202E');
      expect(text).toContain('red warning and green ok');
      expect(text).not.toContain('\u001b');
      expect(text).not.toMatch(/\[(1;31|32|0)m/);

      const reply = page.locator('.markdown:has-text("start-xxx")').first();
      await reply.waitFor();
      const box = await reply.boundingBox();
      const width = await page.evaluate(() => document.documentElement.clientWidth);
      expect(box).not.toBeNull();
      expect(box!.x + box!.width).toBeLessThanOrEqual(width);
      expect(box!.height).toBeGreaterThan(200);
      const overflow = await page.evaluate(() => {
        const el = document.querySelector('.timeline-scroll')!;
        return {
          doc: document.documentElement.scrollWidth - document.documentElement.clientWidth,
          list: el.scrollWidth - el.clientWidth,
        };
      });
      expect(overflow.doc).toBeLessThanOrEqual(0);
      expect(overflow.list).toBeLessThanOrEqual(0);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
