// The composer's helpers in Chromium, against the real server driving the real Claude Code adapter
// and the fake model: `/` lists the commands the adapter announced and inserts the one chosen; `@`
// completes a file of the project, and the prompt carries that file to the model; ↑ recalls the
// chat's earlier prompt and ↓ goes back to an empty composer.
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTestEnv, ensureTestAgents } from '../../runner/test/support/agents.js';
import { type FakeModel, startFakeModel } from '../../runner/test/support/fake-model.js';
import {
  buildUi,
  homeEnv,
  launch,
  openPage,
  type Served,
  screenshot,
  seriousAxeViolations,
  serve,
  tempDir,
} from './harness.js';

const SLOW = 240_000;
/** Only the attached file holds it: the model sees it only if the file went with the prompt. */
const MARKER = 'GREETING-MARKER-4711';

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
  scratch = tempDir('cairn-composer-');
  project = join(scratch, 'project');
  mkdirSync(join(project, 'src'), { recursive: true });
  mkdirSync(join(project, 'node_modules', 'greeter'), { recursive: true });
  writeFileSync(join(project, 'src', 'greeting.ts'), `export const greeting = '${MARKER}';\n`);
  writeFileSync(join(project, 'node_modules', 'greeter', 'greeting.js'), 'module.exports = 1;\n');
  writeFileSync(join(project, 'README.md'), '# A project\n');
  const cairnHome = join(scratch, 'cairn');
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

async function startChat(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'New chat', exact: true }).click();
  await page.getByRole('textbox', { name: 'Project folder' }).fill(project);
  const agent = page.getByRole('combobox', { name: 'Agent' });
  await expect.poll(() => agent.locator('option[value="claude-code"]:not([disabled])').count()).toBe(1);
  await agent.selectOption('claude-code');
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await page.waitForURL(/#\/chat\/[^/]+$/, { timeout: 180_000 });
  await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
}

const options = (page: Page, list: string) => page.getByRole('listbox', { name: list }).getByRole('option');

describe('the composer with Claude Code', () => {
  it(
    'lists the announced commands under /, completes project files under @ and sends them, recalls with ↑',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await startChat(page);
      const box = page.getByRole('textbox', { name: 'Message' });

      // `/`: the adapter's commands, each with its description; typing narrows them.
      await box.click();
      await box.pressSequentially('/');
      const commands = options(page, 'Commands');
      await expect.poll(() => commands.count(), { timeout: 60_000 }).toBeGreaterThan(1);
      const names = (await commands.locator('.suggestion-name').allTextContents()).map((n) => n.trim());
      expect(names.every((n) => /^\/\S+$/.test(n))).toBe(true);
      expect(await commands.locator('.suggestion-description').count()).toBeGreaterThan(0);
      await screenshot(page, 'chat-composer-commands');
      // The open list passes the accessibility checks: the box points at its options.
      expect(await seriousAxeViolations(page)).toEqual([]);
      const chosen = names[1]!;
      await box.pressSequentially(chosen.slice(1, 4));
      const narrowed = (await commands.locator('.suggestion-name').allTextContents()).map((n) => n.trim());
      expect(narrowed).toContain(chosen);
      expect(narrowed.length).toBeLessThanOrEqual(names.length);
      // The keys move through the list and the box says which option is highlighted.
      expect(await commands.first().getAttribute('aria-selected')).toBe('true');
      const target = narrowed.indexOf(chosen);
      for (let i = 0; i < target; i++) await box.press('ArrowDown');
      expect(await box.getAttribute('aria-activedescendant')).toBe(
        await commands.nth(target).getAttribute('id'),
      );
      await box.press('Tab');
      expect(await box.inputValue()).toBe(`${chosen} `);
      expect(await page.getByRole('listbox').count()).toBe(0);
      // Escape closes the list without touching the text.
      await box.fill('');
      await box.pressSequentially('/');
      await commands.first().waitFor();
      await box.press('Escape');
      expect(await page.getByRole('listbox').count()).toBe(0);
      expect(await box.inputValue()).toBe('/');

      // `@`: the project's files, node_modules left out; Enter takes the highlighted one.
      await box.fill('');
      await box.pressSequentially('explain @greet');
      const files = options(page, 'Project files');
      await expect.poll(() => files.allTextContents(), { timeout: 30_000 }).toEqual(['src/greeting.ts']);
      await screenshot(page, 'chat-composer-files');
      await box.press('Enter');
      expect(await box.inputValue()).toBe('explain @src/greeting.ts ');
      await box.pressSequentially('please');
      const prompt = 'explain @src/greeting.ts please';
      model.script({ when: MARKER, steps: [{ kind: 'text', text: 'It exports a greeting.' }] });
      await box.press('Enter');
      // The model got the file's text with the prompt: Claude Code embeds what the prompt carries.
      const request = await model.waitForRequest((r) => JSON.stringify(r.body).includes(MARKER), 120_000);
      expect(JSON.stringify(request.body)).toContain('src/greeting.ts');
      await page.waitForSelector('.run-badge[data-busy=no]', { timeout: 120_000 });
      await expect
        .poll(() => page.locator('.chat-assistant').last().textContent(), { timeout: 60_000 })
        .toContain('It exports a greeting.');
      expect(await page.locator('.chat-user .prompt-text').last().textContent()).toContain(prompt);

      // ↑ in the empty composer recalls the prompt; ↓ goes forward to the empty composer again.
      expect(await box.inputValue()).toBe('');
      await box.press('ArrowUp');
      expect(await box.inputValue()).toBe(prompt);
      await box.press('ArrowDown');
      expect(await box.inputValue()).toBe('');
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
