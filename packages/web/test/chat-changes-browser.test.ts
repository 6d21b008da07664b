// The chat's Changes panel in Chromium, against the real server driving the real Claude Code adapter
// on the fake model: once the agent writes a file, the panel lists it with the lines written, says the
// change is in the working tree, and its link opens the Write call in the conversation. It stays after
// a reload, built from the stored turn.
import { mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
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
  serve,
  shownText,
  tempDir,
  violations,
} from './harness.js';

const SLOW = 240_000;

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
  scratch = tempDir('cairn-chat-changes-');
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

async function startChat(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'New chat', exact: true }).click();
  await page.getByRole('textbox', { name: 'Project folder' }).fill(project);
  const agent = page.getByRole('combobox', { name: 'Agent' });
  await expect.poll(() => agent.locator('option[value="claude-code"]:not([disabled])').count()).toBe(1);
  await agent.selectOption('claude-code');
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  const refused = page.locator('.new-chat-form [role=alert]');
  await Promise.race([
    page.waitForURL(/#\/chat\/[^/]+$/, { timeout: 180_000 }),
    refused.waitFor({ timeout: 180_000 }).then(async () => {
      throw new Error(`the chat did not start: ${await refused.textContent()}`);
    }),
  ]);
  await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
}

const textOf = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/** The panel's file, opened, with its changes showing. */
async function openFile(page: Page, path: string) {
  const panel = page.locator('.chat-changes');
  await panel.waitFor({ timeout: 60_000 });
  if ((await panel.getAttribute('open')) === null) await panel.locator('> summary').click();
  const file = panel.locator(`.changed-file[data-path="${path}"]`);
  await file.locator('> summary').click();
  await file.locator('.changes .diff').first().waitFor({ timeout: 30_000 });
  return { panel, file };
}

describe('the chat’s Changes panel', () => {
  it(
    'lists the file the agent wrote with its diff, links to the call, and says where to undo it',
    async () => {
      const notes = join(project, 'notes.txt');
      const { page, context, errors } = await openPage(browser, served);
      await startChat(page);
      // Nothing changed yet: no panel.
      expect(await page.locator('.chat-changes').count()).toBe(0);

      const prompt = 'PROMPT-CHANGES write the notes';
      model.script(
        { when: prompt, steps: [{ kind: 'write', path: notes, content: 'first line\nsecond line\n' }] },
        { when: prompt, steps: [{ kind: 'text', text: 'Wrote the notes.' }] },
      );
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill(prompt);
      await box.press('Enter');
      await expect.poll(() => textOf(notes), { timeout: 120_000 }).toBe('first line\nsecond line\n');
      await page.waitForSelector('.run-badge[data-busy=no]', { timeout: 120_000 });

      const { panel, file } = await openFile(page, notes);
      expect(await shownText(panel.locator('> summary'))).toContain('Changes · 1 file');
      expect(await shownText(panel.locator('.chat-changes-undo'))).toContain('working tree');
      expect(await shownText(panel.locator('.chat-changes-undo code'))).toBe(notes);
      const change = file.locator('.changes > li');
      expect(await change.count()).toBe(1);
      expect(await shownText(change.locator('.change-link'))).toMatch(/^1\. .*\(write\)$/);
      const added = await change.locator('.diff .dl.add .tx').allInnerTexts();
      expect(added.slice(0, 2)).toEqual(['first line', 'second line']);
      expect(await change.locator('.diff .dl.del').count()).toBe(0);

      // The link opens the Write call in the conversation.
      const call = page.locator('.chat-assistant .chat-tool').filter({ hasText: 'notes.txt' }).first();
      expect(await call.getAttribute('open')).toBeNull();
      await change.locator('.change-link').click();
      await expect.poll(() => call.getAttribute('open'), { timeout: 10_000 }).not.toBeNull();

      // After a reload the stored turn gives the same list.
      await page.reload();
      await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
      const again = await openFile(page, notes);
      expect(await again.file.locator('.changes > li').count()).toBe(1);
      expect(await shownText(again.file.locator('.diff'))).toContain('second line');
      // The open panel passes the accessibility checks the rest of the chat does.
      expect(await violations(page)).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
