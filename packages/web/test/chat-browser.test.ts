// Chatting with an agent in Chromium, against the real server driving the real Claude Code adapter,
// which talks to the fake model on 127.0.0.1: a new chat streams its reply; a permission card
// allowed writes the file and denied does not; Stop mid-stream frees the composer; a reload and a
// second tab mid-turn show every delta exactly once and the user's message once.
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
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
  scratch = tempDir('cairn-chat-');
  project = join(scratch, 'project');
  const cairnHome = join(scratch, 'cairn');
  mkdirSync(project, { recursive: true });
  mkdirSync(cairnHome, { recursive: true });
  symlinkSync(join(agentsHome, 'agents'), join(cairnHome, 'agents'));
  const agent = await agentTestEnv('claude-code', model.url, join(scratch, 'agent'));
  // The server's local workstation hands its environment to the agents it starts.
  served = await serve({ ...homeEnv(join(scratch, 'reader')), ...agent.env }, webRoot, { cairnHome });
}, 900_000);

afterAll(async () => {
  // The agents' session files are still being indexed: the index settles before the server closes.
  await served?.server.catalog.settled();
  await served?.server.close();
  await browser?.close();
  await model?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Opens the new-chat form from the sessions page and starts a chat with Claude Code in the project. */
async function startChat(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'New chat', exact: true }).click();
  await page.getByRole('textbox', { name: 'Project folder' }).fill(project);
  const agent = page.getByRole('combobox', { name: 'Agent' });
  await expect.poll(() => agent.locator('option[value="claude-code"]:not([disabled])').count()).toBe(1);
  await agent.selectOption('claude-code');
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  await page.waitForURL(/#\/chat\/[^/]+$/, { timeout: 60_000 });
  await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
  return decodeURIComponent(new URL(page.url()).hash.replace(/^#\/chat\//, ''));
}

const composer = (page: Page) => page.getByRole('textbox', { name: 'Message' });

async function say(page: Page, text: string): Promise<void> {
  await composer(page).fill(text);
  await composer(page).press('Enter');
}

/** The text of the chat's last assistant message, as shown. */
const lastReply = (page: Page): Promise<string> =>
  shownText(page.locator('.chat-assistant').last()).then((t) => t.replace(/\s+/g, ' ').trim());

/** Only the Markdown of the last assistant message: its words, without labels or usage. */
const replyWords = async (page: Page): Promise<string> =>
  (await page.locator('.chat-assistant').last().locator('.markdown').allInnerTexts())
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();

const idle = async (page: Page): Promise<void> => {
  await page.waitForSelector('.run-badge[data-busy=no]', { timeout: 120_000 });
  await page.waitForSelector('.chat-assistant[data-streaming=no]', { timeout: 120_000 });
};

/** Claude Code asks before a write only in its `default` mode. */
async function askingMode(page: Page): Promise<void> {
  const select = page.locator('.config-options select[data-category="mode"]');
  await select.waitFor({ timeout: 60_000 });
  await select.selectOption('default');
  await expect.poll(() => select.inputValue(), { timeout: 30_000 }).toBe('default');
}

const words = (n: number, tag: string): string =>
  Array.from({ length: n }, (_, i) => `${tag}${String(i + 1).padStart(2, '0')}`).join(' ');

describe('chatting with Claude Code in the browser', () => {
  it(
    'starts a new chat from the sessions page and streams the reply, with its usage',
    async () => {
      const prompt = 'PROMPT-STREAM say hello';
      const reply = 'Hello from the fake model, streamed in pieces.';
      model.script({ when: prompt, steps: [{ kind: 'text', text: reply, deltas: 6 }], paceMs: 30 });
      const { page, context, errors, dialogs } = await openPage(browser, served);
      await page.waitForSelector('.sessions-view');
      const id = await startChat(page);
      await say(page, prompt);
      await expect.poll(() => lastReply(page), { timeout: 120_000 }).toContain(reply);
      await idle(page);
      expect(await page.locator('.chat-user', { hasText: prompt }).count()).toBe(1);
      expect(await composer(page).inputValue()).toBe('');
      // The usage line of the message carries the tokens the model reported.
      await expect.poll(() => shownText(page.locator('.chat-assistant .usage-line').last())).toMatch(/out/);
      await screenshot(page, 'chat-streamed-light');
      expect(errors).toEqual([]);
      expect(dialogs).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
      const dark = await openPage(browser, served, 'dark');
      await dark.page.evaluate(
        (h) => {
          window.location.hash = h;
        },
        `#/chat/${encodeURIComponent(id)}`,
      );
      await dark.page.waitForSelector('.chat-assistant .usage-line');
      await screenshot(dark.page, 'chat-streamed-dark');
      await dark.context.close();
    },
    SLOW,
  );

  it(
    'writes the file when the permission card is allowed, and not when it is denied',
    async () => {
      const allowed = join(project, 'allowed.txt');
      const denied = join(project, 'denied.txt');
      const { page, context, errors } = await openPage(browser, served);
      await startChat(page);
      await askingMode(page);

      const allowPrompt = 'PROMPT-ALLOW write a file';
      model.script(
        { when: allowPrompt, steps: [{ kind: 'write', path: allowed, content: 'allowed\n' }] },
        { when: allowPrompt, steps: [{ kind: 'text', text: 'Wrote allowed.txt.' }] },
      );
      await say(page, allowPrompt);
      const card = page.locator('.permission-card.pending');
      await card.waitFor({ timeout: 120_000 });
      // The card's buttons carry the agent's own option names.
      const names = await card.locator('.permission-options button').allTextContents();
      expect(names.length).toBeGreaterThan(1);
      await screenshot(page, 'chat-permission-light');
      await card.locator('button[data-kind="allow_once"]').click();
      await page.waitForSelector('.permission-card.settled', { timeout: 60_000 });
      await expect.poll(() => existsSync(allowed), { timeout: 60_000 }).toBe(true);
      expect(readFileSync(allowed, 'utf8')).toBe('allowed\n');
      await expect.poll(() => lastReply(page), { timeout: 120_000 }).toContain('Wrote allowed.txt.');
      await idle(page);

      const denyPrompt = 'PROMPT-DENY write another file';
      model.script(
        { when: denyPrompt, steps: [{ kind: 'write', path: denied, content: 'denied\n' }] },
        { when: denyPrompt, steps: [{ kind: 'text', text: 'I will not write it.' }] },
      );
      await say(page, denyPrompt);
      const second = page.locator('.permission-card.pending');
      await second.waitFor({ timeout: 120_000 });
      await second.locator('button[data-kind^="reject"]').first().click();
      await expect.poll(() => page.locator('.permission-card.settled').count(), { timeout: 60_000 }).toBe(2);
      await page.waitForSelector('.run-badge[data-busy=no]', { timeout: 120_000 });
      expect(existsSync(denied)).toBe(false);
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'stops a turn mid-stream and frees the composer',
    async () => {
      const prompt = 'PROMPT-STOP talk forever';
      model.script({
        when: prompt,
        steps: [{ kind: 'text', text: 'Starting a very long answer', deltas: 3 }],
        hang: true,
      });
      const { page, context, errors } = await openPage(browser, served);
      await startChat(page);
      await say(page, prompt);
      await expect.poll(() => lastReply(page), { timeout: 120_000 }).toContain('Starting a very long answer');
      await page.waitForSelector('.composer[data-busy=yes]');
      const stop = page.getByRole('button', { name: 'Stop', exact: true });
      expect(await stop.isEnabled()).toBe(true);
      await stop.click();
      await page.waitForSelector('.composer[data-busy=no]', { timeout: 60_000 });
      await page.waitForSelector('.chat-assistant[data-streaming=no]', { timeout: 60_000 });
      expect(await stop.isEnabled()).toBe(false);
      expect(await page.getByRole('button', { name: 'Send', exact: true }).isEnabled()).toBe(true);
      // The composer takes the next message at once.
      const next = 'PROMPT-AFTER-STOP are you there';
      model.script({ when: next, steps: [{ kind: 'text', text: 'Still here.' }] });
      await say(page, next);
      await expect.poll(() => lastReply(page), { timeout: 120_000 }).toContain('Still here.');
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'shows every delta exactly once after a reload mid-turn and in a second tab opened mid-turn',
    async () => {
      const prompt = 'PROMPT-RELOAD count slowly';
      const text = words(60, 'w');
      model.script({ when: prompt, steps: [{ kind: 'text', text, deltas: 60 }], paceMs: 60 });
      const { page, context, errors } = await openPage(browser, served);
      const id = await startChat(page);
      await say(page, prompt);
      await expect.poll(() => lastReply(page), { timeout: 120_000 }).toContain('w05');
      await page.reload();
      await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
      // A second tab joins while the turn still streams.
      const other = await openPage(browser, served);
      await other.page.evaluate(
        (h) => {
          window.location.hash = h;
        },
        `#/chat/${encodeURIComponent(id)}`,
      );
      await other.page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
      for (const p of [page, other.page]) {
        await expect.poll(() => lastReply(p), { timeout: 120_000 }).toContain('w60');
        await idle(p);
        // Each word once and in order (the agent may add a notice of its own after them).
        expect((await replyWords(p)).match(/w\d{2}/g)).toEqual(text.split(' '));
        expect(await p.locator('.chat-user', { hasText: prompt }).count()).toBe(1);
        expect(await p.locator('.chat-assistant').count()).toBe(1);
      }
      await screenshot(other.page, 'chat-second-tab-light');
      expect(errors).toEqual([]);
      expect(other.errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await other.context.close();
      await context.close();
    },
    SLOW,
  );
});
