// pi's limits in the chat, in Chromium, against the real server driving pi (through pi-acp) on the
// fake model. pi-acp ends a refused turn as if pi had answered, with nothing said; the provider's
// words are read back from pi's own session file, so the turn fails with them and the chat shows
// the limit's card as it does for every other agent. A turn answered afterwards, and a refusal that
// is no limit, get no card.
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentTestEnv, ensureTestAgents } from '../../runner/test/support/agents.js';
import { type FakeModel, startFakeModel } from '../../runner/test/support/fake-model.js';
import { buildUi, homeEnv, launch, openPage, type Served, serve, shownText, tempDir } from './harness.js';

const SLOW = 300_000;

let webRoot: string;
let browser: Browser;
let model: FakeModel;
let served: Served;
let scratch: string;
let project: string;

beforeAll(async () => {
  [webRoot, browser, , model] = await Promise.all([
    buildUi(),
    launch(),
    ensureTestAgents(),
    startFakeModel(),
  ]);
  const agentsHome = await ensureTestAgents();
  scratch = tempDir('cairn-pi-limit-');
  project = join(scratch, 'project');
  const cairnHome = join(scratch, 'cairn');
  mkdirSync(project, { recursive: true });
  mkdirSync(cairnHome, { recursive: true });
  symlinkSync(join(agentsHome, 'agents'), join(cairnHome, 'agents'));
  const pi = await agentTestEnv('pi', model.url, join(scratch, 'agent'));
  // pi's own retries would run on after the turn has ended, and land in the next one.
  const settings = join(pi.env.HOME!, '.pi', 'agent', 'settings.json');
  const kept = JSON.parse(readFileSync(settings, 'utf8'));
  writeFileSync(
    settings,
    JSON.stringify({ ...kept, retry: { enabled: false, provider: { maxRetries: 0 } } }),
  );
  served = await serve({ ...homeEnv(join(scratch, 'reader')), ...pi.env }, webRoot, { cairnHome });
}, 900_000);

afterAll(async () => {
  await served?.server.catalog.settled();
  await served?.server.close();
  await browser?.close();
  await model?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

afterEach(() => {
  model.limit('openai-chat', null);
  model.fail('openai-chat', null);
});

async function send(page: Page, text: string): Promise<void> {
  const assistants = await page.locator('.chat-assistant').count();
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await page.getByRole('textbox', { name: 'Message' }).press('Enter');
  // The turn's answer is in, and done.
  await expect.poll(() => page.locator('.chat-assistant').count(), { timeout: 120_000 }).toBe(assistants + 1);
  await expect.poll(() => page.locator('.chat-assistant.streaming').count(), { timeout: 120_000 }).toBe(0);
}

describe('a pi turn stopped by a limit', () => {
  it(
    'shows the rate limit pi wrote down, and no card for the turns after it',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.getByRole('button', { name: 'New chat', exact: true }).click();
      await page.getByRole('textbox', { name: 'Project folder' }).fill(project);
      const agent = page.getByRole('combobox', { name: 'Agent' });
      await expect.poll(() => agent.locator('option[value="pi"]:not([disabled])').count()).toBe(1);
      await agent.selectOption('pi');
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await page.waitForURL((url) => /^#\/chat\/[^/]+$/.test(url.hash), { timeout: 180_000 });
      await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });

      model.limit('openai-chat', { kind: 'rate', retryAfterSeconds: 1 });
      await page.getByRole('textbox', { name: 'Message' }).fill('PROMPT-PI-LIMIT tidy the readme');
      await page.getByRole('textbox', { name: 'Message' }).press('Enter');
      const card = page.locator('.usage-limit-card');
      await card.waitFor({ timeout: 180_000 });
      expect(await card.getAttribute('data-kind')).toBe('rate');
      expect(await shownText(card)).toContain('Rate limit reached');
      expect(await shownText(card)).toContain('pi stopped: too many requests for now; it resets in 1s.');
      expect(await shownText(page.locator('.chat-error').last())).toMatch(
        /^429 Rate limit reached for requests/,
      );
      await card.getByRole('button', { name: /^Continue in / }).waitFor();
      model.limit('openai-chat', null);

      // Answered now: its message has no error and the one card stays the limited turn's.
      await send(page, 'PROMPT-PI-AFTER carry on');
      const answered = page.locator('.chat-assistant').last();
      await expect.poll(() => shownText(answered), { timeout: 60_000 }).toContain('Done.');
      expect(await answered.locator('.chat-error').count()).toBe(0);
      expect(await page.locator('.usage-limit-card').count()).toBe(1);

      // A bad request fails the turn with pi's words, and is no limit.
      model.fail('openai-chat', {
        status: 400,
        body: {
          error: {
            message: "Invalid 'messages': empty array.",
            type: 'invalid_request_error',
            param: 'messages',
            code: 'empty_array',
          },
        },
      });
      await send(page, 'PROMPT-PI-BAD once more');
      const refused = page.locator('.chat-assistant').last();
      await expect
        .poll(() => shownText(refused.locator('.chat-error')), { timeout: 60_000 })
        .toBe("400 Invalid 'messages': empty array.");
      expect(await page.locator('.usage-limit-card').count()).toBe(1);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
