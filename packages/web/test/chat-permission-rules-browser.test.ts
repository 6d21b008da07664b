// Permission rules remembered by cairn, in Chromium, against the real server driving the real
// Claude Code adapter and the fake model: "always allow this command in this project" on a card
// answers the next matching request of a later turn without a card, with a line naming the rule;
// the settings page lists the rule, and revoking it there brings the card back.
import { existsSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTestEnv, ensureTestAgents } from '../../runner/test/support/agents.js';
import { type FakeModel, startFakeModel } from '../../runner/test/support/fake-model.js';
import {
  buildUi,
  go,
  homeEnv,
  launch,
  openPage,
  type Served,
  screenshot,
  seriousAxeViolations,
  serve,
  shownText,
  tempDir,
  violations,
} from './harness.js';

const SLOW = 300_000;

let webRoot: string;
let browser: Browser;
let model: FakeModel;
let served: Served;
let scratch: string;
let project: string;

beforeAll(async () => {
  let agentsHome: string;
  [webRoot, browser, agentsHome, model] = await Promise.all([
    buildUi(),
    launch(),
    ensureTestAgents(),
    startFakeModel(),
  ]);
  scratch = tempDir('cairn-rules-');
  project = join(scratch, 'project');
  const cairnHome = join(scratch, 'cairn');
  mkdirSync(project, { recursive: true });
  mkdirSync(cairnHome, { recursive: true });
  symlinkSync(join(agentsHome, 'agents'), join(cairnHome, 'agents'));
  const claude = await agentTestEnv('claude-code', model.url, join(scratch, 'agent'));
  served = await serve({ ...homeEnv(join(scratch, 'reader')), ...claude.env }, webRoot, { cairnHome });
}, 900_000);

afterAll(async () => {
  await served?.server.catalog.settled();
  await served?.server.close();
  await browser?.close();
  await model?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const composer = (page: Page) => page.getByRole('textbox', { name: 'Message' });

async function say(page: Page, text: string): Promise<void> {
  await composer(page).fill(text);
  await composer(page).press('Enter');
}

const idle = async (page: Page): Promise<void> => {
  await page.waitForSelector('.run-badge[data-busy=no]', { timeout: 120_000 });
  await page.waitForSelector('.chat-assistant[data-streaming=no]', { timeout: 120_000 });
};

/** A new chat with Claude Code in the project, in the mode where it asks before a command. */
async function startChat(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'New chat', exact: true }).click();
  await page.getByRole('textbox', { name: 'Project folder' }).fill(project);
  const agent = page.getByRole('combobox', { name: 'Agent' });
  await expect.poll(() => agent.locator('option[value="claude-code"]:not([disabled])').count()).toBe(1);
  await agent.selectOption('claude-code');
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await page.waitForURL(/#\/chat\/[^/]+$/, { timeout: 180_000 });
  await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
  await askingMode(page);
}

async function askingMode(page: Page): Promise<void> {
  const select = page.locator('.config-options select[data-category="mode"]');
  await select.waitFor({ timeout: 60_000 });
  await select.selectOption('default');
  await expect.poll(() => select.inputValue(), { timeout: 30_000 }).toBe('default');
}

/** The fake model's turn: a `touch` of one file, then a word once the command has run. */
function scriptTouch(prompt: string, file: string, reply: string): void {
  model.script(
    {
      when: prompt,
      steps: [
        { kind: 'tool', name: 'Bash', input: { command: `touch ${file}`, description: 'Make a file' } },
      ],
    },
    { when: prompt, steps: [{ kind: 'text', text: reply }] },
  );
}

describe('permission rules remembered by cairn', () => {
  it(
    'answers the next matching request by a remembered rule, and asks again once it is revoked',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.waitForSelector('.sessions-view');
      await startChat(page);
      const chatHash = new URL(page.url()).hash;

      const first = join(project, 'rule-one.txt');
      scriptTouch('PROMPT-RULE-ONE', first, 'Made the first file.');
      await say(page, 'PROMPT-RULE-ONE make a file');
      const card = page.locator('.permission-card.pending');
      await card.waitFor({ timeout: 120_000 });
      const always = card.locator('button.perm-remember[data-scope="command"]');
      expect(await always.getAttribute('data-rule')).toBe('Bash(touch*)');
      expect(await shownText(always)).toContain('Always allow this command in this project');
      expect(await card.locator('button.perm-remember[data-scope="tool"]').getAttribute('data-rule')).toBe(
        'Bash',
      );
      await screenshot(page, 'chat-permission-remember-light');
      await always.click();
      await page.waitForSelector('.permission-card.settled', { timeout: 60_000 });
      await expect.poll(() => existsSync(first), { timeout: 60_000 }).toBe(true);
      await idle(page);

      // A later turn's matching request is answered by the rule: no card, a line that names it.
      const second = join(project, 'rule-two.txt');
      scriptTouch('PROMPT-RULE-TWO', second, 'Made the second file.');
      await say(page, 'PROMPT-RULE-TWO make another');
      const line = page.locator('.permission-rule-line[data-rule="Bash(touch*)"]');
      await line.waitFor({ timeout: 120_000 });
      expect((await shownText(line)).replace(/\s+/g, ' ')).toContain(
        "allowed by this project's rule Bash(touch*)",
      );
      await expect.poll(() => existsSync(second), { timeout: 60_000 }).toBe(true);
      await idle(page);
      expect(await page.locator('.permission-card').count()).toBe(1);
      await screenshot(page, 'chat-permission-rule-line-light');
      // The line is there after a reload too.
      await page.reload();
      await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
      await line.waitFor({ timeout: 30_000 });

      // The settings page lists the rule under the project on this machine, and revokes it.
      await go(page, '#/settings');
      const listed = page.locator(
        `.settings-project[aria-label="Rules of ${project} on local"] .settings-rule`,
      );
      await listed.first().waitFor({ timeout: 30_000 });
      expect(await listed.getAttribute('data-rule')).toBe('Bash(touch*)');
      await screenshot(page, 'settings-permission-rules-light');
      expect(await violations(page)).toEqual([]);
      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.getByRole('button', { name: `Revoke Bash(touch*) in ${project} on local` }).click();
      await page.locator('.settings-empty').waitFor({ timeout: 30_000 });

      // Without the rule, the same kind of request asks again.
      await go(page, chatHash);
      await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
      await askingMode(page);
      const third = join(project, 'rule-three.txt');
      scriptTouch('PROMPT-RULE-THREE', third, 'Made the third file.');
      await say(page, 'PROMPT-RULE-THREE and one more');
      const again = page.locator('.permission-card.pending');
      await again.waitFor({ timeout: 120_000 });
      await again.locator('button[data-kind="allow_once"]').click();
      await expect.poll(() => existsSync(third), { timeout: 60_000 }).toBe(true);
      await idle(page);
      expect(await page.locator('.permission-rule-line').count()).toBe(1);
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
