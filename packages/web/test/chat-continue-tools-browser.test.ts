// A continued Claude Code session in the browser shows its past's tool calls as the chat draws live
// ones: each Write with its file and the lines it wrote, done, between the replies.
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { buildUi, homeEnv, launch, openPage, type Served, serve, shownText, tempDir } from './harness.js';

const SLOW = 180_000;
const SESSION = '36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2';
const FOLDER = '-Users-yoavfarhi-dev-pomodoro-claude';

describe.skipIf(!corpus)('a continued session in the chat', () => {
  let webRoot: string;
  let browser: Browser;
  let served: Served;
  let project: string;

  beforeAll(async () => {
    [webRoot, browser] = await Promise.all([buildUi(), launch()]);
    const home = tempDir('cairn-home-');
    const env = homeEnv(home);
    mkdirSync(join(home, '.claude', 'projects', FOLDER), { recursive: true });
    copyFileSync(
      corpusPath('claude', 'projects', FOLDER, `${SESSION}.jsonl`),
      join(home, '.claude', 'projects', FOLDER, `${SESSION}.jsonl`),
    );
    project = join(home, 'project');
    mkdirSync(project, { recursive: true });
    served = await serve(env, webRoot);
    await served.server.drive.wire.waitForWorkstation('local');
  }, SLOW);

  afterAll(async () => {
    await served?.server.close();
    await browser?.close();
  });

  it(
    'draws the Write calls of its past with their files and results',
    async () => {
      const res = await fetch(`${served.base}api/sessions/continue`, {
        method: 'POST',
        headers: { authorization: `Bearer ${served.server.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ agent: 'claude-code', nativeSessionId: SESSION, cwd: project }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      const { session } = (await res.json()) as { session: { id: string } };
      const { page, context, errors } = await openPage(browser, served);
      await page.goto(`${served.entry}#/chat/${encodeURIComponent(session.id)}`);
      await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
      const writes = page.locator('.chat-assistant .chat-tool', {
        has: page.locator('.badge.tool', { hasText: /^Write$/ }),
      });
      await expect.poll(() => writes.count(), { timeout: 30_000 }).toBe(3);
      for (const w of await writes.all()) expect(await w.getAttribute('data-status')).toBe('ok');
      const first = writes.first();
      expect(await shownText(first.locator('.call-line'))).toMatch(/\.(html|css|js)$/);
      await first.locator('summary').click();
      await first.locator('.diffs').waitFor({ timeout: 10_000 });
      expect(await first.locator('.diffs .patch-path').count()).toBe(1);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
