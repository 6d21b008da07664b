// Chatting with an agent in Chromium, against the real server driving the real Claude Code adapter,
// which talks to the fake model on 127.0.0.1: a new chat streams its reply; a permission card
// allowed writes the file and denied does not; Stop mid-stream frees the composer; a reload and a
// second tab mid-turn show every delta exactly once and the user's message once.
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { issueTicket, type RunningServer, startServer } from '@cairn/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentNoCredentialsEnv, agentTestEnv, ensureTestAgents } from '../../runner/test/support/agents.js';
import { type FakeModel, startFakeModel } from '../../runner/test/support/fake-model.js';
import { startWorkstationProcess } from '../../server/test/support/workstation-process.js';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import {
  buildUi,
  dropConnection,
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
const WIRE_AGENT = fileURLToPath(new URL('../../server/test/support/wire-agent.mjs', import.meta.url));

let webRoot: string;
let browser: Browser;
let model: FakeModel;
let served: Served;
let scratch: string;
let project: string;
let agentsHome: string;
/** Where the server reads Claude Code's sessions (and the driven agent writes them). */
let claudeHome: string;

beforeAll(async () => {
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
  // Beside the real agents, the scripted one (built with the SDK) for what none of them does: an
  // agent that takes no images, and one that runs commands through the terminal capability.
  writeFileSync(
    join(cairnHome, 'config.json'),
    JSON.stringify({
      agents: {
        wire: {
          name: 'Scripted agent',
          command: process.execPath,
          args: [WIRE_AGENT],
          env: { WIRE_AGENT_NO_IMAGES: '1', WIRE_AGENT_CHUNKS: '1' },
        },
      },
    }),
  );
  const claude = await agentTestEnv('claude-code', model.url, join(scratch, 'agent'));
  const codex = await agentTestEnv('codex', model.url, join(scratch, 'agent'));
  const reader = homeEnv(join(scratch, 'reader'));
  claudeHome = reader.CLAUDE_CONFIG_DIR!;
  // The server's local workstation hands its environment to the agents it starts: both agents'
  // settings together (they share the homes under the scratch folder).
  served = await serve({ ...reader, ...claude.env, ...codex.env }, webRoot, { cairnHome });
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
async function startChat(
  page: Page,
  shot?: string,
  agentKey = 'claude-code',
  folder: 'type' | 'recent' = 'type',
): Promise<string> {
  await page.getByRole('button', { name: 'New chat', exact: true }).click();
  const box = page.getByRole('textbox', { name: 'Project folder' });
  if (folder === 'recent') {
    // The folder of an earlier chat is offered, and one click fills it in.
    await page.locator(`.recent-folders .chip[title="${project}"]`).click({ timeout: 30_000 });
    expect(await box.inputValue()).toBe(project);
  } else {
    await box.fill(project);
  }
  const agent = page.getByRole('combobox', { name: 'Agent' });
  await expect.poll(() => agent.locator(`option[value="${agentKey}"]:not([disabled])`).count()).toBe(1);
  await agent.selectOption(agentKey);
  if (shot) await screenshot(page, shot);
  await page.getByRole('button', { name: 'Start', exact: true }).click();
  // The chat opens, or the form says why not.
  const refused = page.locator('.new-chat-form [role=alert]');
  await Promise.race([
    page.waitForURL(/#\/chat\/[^/]+$/, { timeout: 180_000 }),
    refused.waitFor({ timeout: 180_000 }).then(async () => {
      throw new Error(`the chat did not start: ${await refused.textContent()}`);
    }),
  ]);
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
      const thought = 'The person wants a greeting; a short one will do.';
      model.script({
        when: prompt,
        steps: [
          { kind: 'thinking', text: thought },
          { kind: 'text', text: reply, deltas: 6 },
        ],
        paceMs: 30,
      });
      const { page, context, errors, dialogs } = await openPage(browser, served);
      await page.waitForSelector('.sessions-view');
      await screenshot(page, 'chat-sessions-light');
      const id = await startChat(page, 'chat-new-light');
      // Shift+Enter starts a new line; Enter sends.
      await composer(page).fill('PROMPT-STREAM');
      await composer(page).press('Shift+Enter');
      expect(await composer(page).inputValue()).toBe('PROMPT-STREAM\n');
      expect(await page.locator('.chat-user').count()).toBe(0);
      await say(page, prompt);
      await expect.poll(() => lastReply(page), { timeout: 120_000 }).toContain(reply);
      await idle(page);
      expect(await page.locator('.chat-user', { hasText: prompt }).count()).toBe(1);
      expect(await composer(page).inputValue()).toBe('');
      // The thinking is folded away, and opens to show itself.
      const thinking = page.locator('.chat-assistant .thinking-fold').last();
      expect(await thinking.getAttribute('open')).toBeNull();
      await thinking.locator('summary').click();
      expect((await shownText(thinking)).replace(/\s+/g, ' ')).toContain(thought);
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
      // A second tab of the same chat sees the card too, and sees it settled by the first tab's answer.
      const other = await openPage(browser, served);
      await other.page.evaluate((h) => {
        window.location.hash = h;
      }, new URL(page.url()).hash);
      await other.page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
      await say(page, allowPrompt);
      const card = page.locator('.permission-card.pending');
      await card.waitFor({ timeout: 120_000 });
      await other.page.locator('.permission-card.pending').waitFor({ timeout: 60_000 });
      // The card's buttons carry the agent's own option names.
      const names = await card.locator('.permission-options button').allTextContents();
      expect(names.length).toBeGreaterThan(1);
      await screenshot(page, 'chat-permission-light');
      const allowName = (await card.locator('button[data-kind="allow_once"]').textContent())!;
      await card.locator('button[data-kind="allow_once"]').click();
      await page.waitForSelector('.permission-card.settled', { timeout: 60_000 });
      const settledElsewhere = other.page.locator('.permission-card.settled');
      await settledElsewhere.waitFor({ timeout: 60_000 });
      expect(await shownText(settledElsewhere)).toContain(`Answered: ${allowName}`);
      expect(await other.page.locator('.permission-card.pending').count()).toBe(0);
      await other.context.close();
      await expect.poll(() => textOf(allowed), { timeout: 60_000 }).toBe('allowed\n');
      await expect.poll(() => lastReply(page), { timeout: 120_000 }).toContain('Wrote allowed.txt.');
      await idle(page);
      // After a reload the stored turn shows its tool call, finished, and the reply after it.
      await page.reload();
      await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
      await page.locator('.chat-tool[data-status="ok"]').first().waitFor({ timeout: 30_000 });
      expect(await lastReply(page)).toContain('Wrote allowed.txt.');
      // …and its permission card, as it was settled.
      const kept = page.locator('.permission-card.settled');
      expect(await kept.count()).toBe(1);
      expect(await shownText(kept)).toContain(`Answered: ${allowName}`);
      await askingMode(page);

      const denyPrompt = 'PROMPT-DENY write another file';
      model.script(
        { when: denyPrompt, steps: [{ kind: 'write', path: denied, content: 'denied\n' }] },
        { when: denyPrompt, steps: [{ kind: 'text', text: 'I will not write it.' }] },
      );
      await say(page, denyPrompt);
      const second = page.locator('.permission-card.pending');
      await second.waitFor({ timeout: 120_000 });
      const reject = second.locator('button[data-kind^="reject"]').first();
      const rejectName = (await reject.textContent())!;
      await reject.click();
      await expect.poll(() => page.locator('.permission-card.pending').count(), { timeout: 60_000 }).toBe(0);
      expect(await shownText(page.locator('.permission-card.settled').last())).toContain(
        `Answered: ${rejectName}`,
      );
      await page.waitForSelector('.run-badge[data-busy=no]', { timeout: 120_000 });
      expect(existsSync(denied)).toBe(false);
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'shows a tool call running and then its result',
    async () => {
      const prompt = 'PROMPT-TOOL list the folder';
      const marker = join(project, 'marker-for-ls.txt');
      writeFileSync(marker, 'x');
      model.script(
        {
          when: prompt,
          steps: [
            {
              kind: 'tool',
              name: 'Bash',
              input: { command: `ls ${project}`, description: 'List the folder' },
            },
          ],
        },
        { when: prompt, steps: [{ kind: 'text', text: 'The folder holds a marker.' }] },
      );
      const { page, context, errors } = await openPage(browser, served);
      await startChat(page);
      await say(page, prompt);
      const tool = page.locator('.chat-tool').first();
      await tool.waitFor({ timeout: 120_000 });
      // Claude Code may ask before running a command: the first allowing answer lets it run.
      const ask = page.locator('.permission-card.pending button[data-kind="allow_once"]');
      await Promise.race([
        page
          .locator('.chat-tool[data-status="ok"], .chat-tool[data-status="err"]')
          .first()
          .waitFor({ timeout: 120_000 }),
        ask.waitFor({ timeout: 120_000 }).then(() => ask.click()),
      ]);
      await page.locator('.chat-tool[data-status="ok"]').first().waitFor({ timeout: 120_000 });
      await tool.locator('summary').click();
      await expect.poll(() => shownText(tool), { timeout: 30_000 }).toContain('marker-for-ls.txt');
      await expect.poll(() => lastReply(page), { timeout: 120_000 }).toContain('The folder holds a marker.');
      await screenshot(page, 'chat-tool-light');
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
      // And the first tab's connection drops, as a network would drop it: it reconnects and rebuilds.
      await dropConnection(page);
      await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
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
  it(
    'queues a message sent while the agent works and sends it after the turn; steers the running turn',
    async () => {
      const first = 'PROMPT-QUEUE-FIRST count for a while';
      const queued = 'PROMPT-QUEUE-SECOND then this';
      const steer = 'PROMPT-STEER mind the tests';
      // The first answer is held open until the queue's edits and the steer have landed in it.
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      model.script(
        {
          when: first,
          steps: [{ kind: 'text', text: words(40, 'q'), deltas: 40 }],
          paceMs: 100,
          until: released,
        },
        { when: queued, steps: [{ kind: 'text', text: 'Second answer.' }] },
      );
      const { page, context, errors } = await openPage(browser, served);
      await startChat(page);
      await say(page, first);
      await page.waitForSelector('.composer[data-busy=yes]', { timeout: 120_000 });
      // Enter while busy queues: the queue shows it, editable, and no user message appears yet.
      await say(page, `${queued} draft`);
      const row = page.locator('.queue-item').first();
      await row.waitFor({ timeout: 30_000 });
      // A second queued message, taken off the queue again.
      await say(page, 'PROMPT-QUEUE-DROPPED never sent');
      const dropped = page.locator('.queue-item', { hasText: 'PROMPT-QUEUE-DROPPED' });
      await dropped.waitFor({ timeout: 30_000 });
      await dropped.getByRole('button', { name: 'Remove', exact: true }).click();
      await expect.poll(() => dropped.count(), { timeout: 30_000 }).toBe(0);
      await row.getByRole('button', { name: 'Edit', exact: true }).click();
      await row.getByRole('textbox', { name: 'Queued message' }).fill(queued);
      await row.getByRole('button', { name: 'Save', exact: true }).click();
      await expect
        .poll(() => shownText(page.locator('.queue-item').first()), { timeout: 30_000 })
        .toContain(queued);
      expect(await page.locator('.chat-user', { hasText: queued }).count()).toBe(0);
      await screenshot(page, 'chat-queue-light');
      // Steer goes to the running turn.
      await composer(page).fill(steer);
      await page.getByRole('button', { name: 'Steer', exact: true }).click();
      // Seen in one look: the line goes as soon as the steered run starts.
      await page
        .locator('.steer-line', { hasText: 'Steering sent to the agent.' })
        .waitFor({ timeout: 30_000 });
      release();
      await model.waitForRequest((r) => JSON.stringify(r.body).includes(steer), 120_000);
      // The queued message goes out once the turn is over, and is answered.
      await expect.poll(() => lastReply(page), { timeout: 180_000 }).toContain('Second answer.');
      expect(await page.locator('.chat-user', { hasText: queued }).count()).toBe(1);
      expect(await page.locator('.queue-item').count()).toBe(0);
      expect(await page.locator('.chat-user', { hasText: 'PROMPT-QUEUE-DROPPED' }).count()).toBe(0);
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'sends a pasted image to the agent, and refuses one too large with a message',
    async () => {
      const prompt = 'PROMPT-IMAGE what is this';
      model.script({ when: prompt, steps: [{ kind: 'text', text: 'A single pixel.' }] });
      const { page, context, errors } = await openPage(browser, served);
      await startChat(page);
      const drop = (big: boolean) =>
        page.evaluate(
          ([b64, big]) => {
            const bytes = big
              ? new Uint8Array(700_000).fill(7)
              : Uint8Array.from(atob(b64 as string), (c) => c.charCodeAt(0));
            const dt = new DataTransfer();
            dt.items.add(new File([bytes], big ? 'big.png' : 'pixel.png', { type: 'image/png' }));
            document
              .querySelector('.composer')!
              .dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
          },
          [PIXEL, big] as const,
        );
      await drop(true);
      await expect.poll(() => shownText(page.locator('.composer-problem'))).toContain('too large');
      expect(await page.locator('.composer .thumb').count()).toBe(0);
      await drop(false);
      await page.locator('.composer .thumb').waitFor();
      await say(page, prompt);
      const request = await model.waitForRequest(
        (r) => JSON.stringify(r.body).includes(PIXEL.slice(0, 40)),
        120_000,
      );
      expect(request.dialect).toBe('anthropic');
      await expect.poll(() => lastReply(page), { timeout: 120_000 }).toContain('A single pixel.');
      await page.locator('.chat-user .thumb').waitFor();
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it.skipIf(!corpus)(
    'continues a Claude Code session read from disk: its history once, then a new turn',
    async () => {
      // A real corpus session, moved into this project folder as if it had been started here.
      const original = readFileSync(corpusPath('claude', 'projects', '-work-spotter', 'short.jsonl'), 'utf8');
      const sid = /"sessionId":"([^"]+)"/.exec(original)![1]!;
      const cwd = /"cwd":"([^"]+)"/.exec(original)![1]!;
      const folder = join(claudeHome, 'projects', project.replace(/[^a-zA-Z0-9]/g, '-'));
      mkdirSync(folder, { recursive: true });
      writeFileSync(
        join(folder, `${sid}.jsonl`),
        original.split(`"cwd":"${cwd}"`).join(`"cwd":"${project}"`),
      );
      const firstPrompt = firstUserText(original);

      const { page, context, errors } = await openPage(browser, served);
      const item = page.locator(`.session-item[data-sid="${sid}"]`);
      await item.waitFor({ timeout: 60_000 });
      await item.getByRole('button', { name: 'Continue', exact: true }).click();
      await page.waitForURL(/#\/chat\/[^/]+$/, { timeout: 120_000 });
      await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 120_000 });
      await expect
        .poll(() => page.locator('.chat-user', { hasText: firstPrompt.slice(0, 40) }).count(), {
          timeout: 60_000,
        })
        .toBe(1);
      const prompt = 'PROMPT-CONTINUE carry on';
      model.script({ when: prompt, steps: [{ kind: 'text', text: 'Carrying on from where we were.' }] });
      await say(page, prompt);
      await expect
        .poll(() => lastReply(page), { timeout: 120_000 })
        .toContain('Carrying on from where we were.');
      expect(await page.locator('.chat-user', { hasText: firstPrompt.slice(0, 40) }).count()).toBe(1);
      await screenshot(page, 'chat-continued-light');
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});

describe('chatting with the scripted agent in the browser', () => {
  it(
    'refuses an image with a message when the agent takes none',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await startChat(page, undefined, 'wire');
      await page.evaluate((b64) => {
        const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
        const dt = new DataTransfer();
        dt.items.add(new File([bytes], 'pixel.png', { type: 'image/png' }));
        document
          .querySelector('.composer')!
          .dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
      }, PIXEL);
      await expect
        .poll(() => shownText(page.locator('.composer-problem')))
        .toContain('does not take images: the image was not attached');
      expect(await page.locator('.composer .thumb').count()).toBe(0);
      // The message goes out without it, and the agent saw no image.
      await say(page, 'hello');
      await expect.poll(() => lastReply(page), { timeout: 60_000 }).toContain('t1c0');
      expect(await lastReply(page)).not.toContain('image:');
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'shows a command the agent runs as a dev process with its output, and ends it from the page',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await startChat(page, undefined, 'wire');
      await say(page, 'run: echo serving on port 4173; while true; do echo tick; sleep 0.1; done');
      const panel = page.getByRole('region', { name: 'Dev processes' });
      const item = panel.locator('.process-item[data-status=running]');
      await item.waitFor({ timeout: 60_000 });
      await expect.poll(() => shownText(item.locator('.process-tail'))).toContain('serving on port 4173');
      await expect.poll(() => shownText(item.locator('.process-tail'))).toContain('tick');
      await screenshot(page, 'chat-dev-process-light');
      // A reload shows it again, still running.
      await page.reload();
      await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
      await panel.locator('.process-item[data-status=running]').waitFor({ timeout: 30_000 });
      await panel.getByRole('button', { name: /^End process echo serving/ }).click();
      await panel.locator('.process-item[data-status=killed]').waitFor({ timeout: 30_000 });
      expect(await panel.getByRole('button', { name: /^End process/ }).count()).toBe(0);
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'runs a chat on another machine picked in New chat, and says so when that machine goes offline',
    async () => {
      const ticket = issueTicket(served.server.home, 'laptop');
      const stops: (() => Promise<void>)[] = [];
      const station = startWorkstationProcess({
        serverUrl: `http://127.0.0.1:${served.server.port}`,
        ticket,
        cairnHome: join(scratch, 'laptop'),
        env: { WIRE_AGENT_CHUNKS: '2' },
        onCleanup: (stop) => stops.push(stop),
      });
      try {
        expect(await served.server.drive.wire.waitForWorkstation('laptop', 30_000)).toBe(true);
        const { page, context, errors } = await openPage(browser, served);
        await page.getByRole('button', { name: 'New chat', exact: true }).click();
        const machine = page.getByRole('combobox', { name: 'Machine' });
        await expect.poll(() => machine.locator('option[value="laptop"]:not([disabled])').count()).toBe(1);
        expect(await machine.inputValue()).toBe('local');
        await machine.selectOption('laptop');
        // The agents are the laptop's: only the scripted one is declared there, nothing installed.
        const agent = page.getByRole('combobox', { name: 'Agent' });
        await expect.poll(() => agent.locator('option:not([disabled])').allTextContents()).toEqual(['Wire']);
        expect(await agent.inputValue()).toBe('wire');
        await page.getByRole('textbox', { name: 'Project folder' }).fill(join(scratch, 'laptop'));
        await screenshot(page, 'chat-new-machine-light');
        await page.getByRole('button', { name: 'Start', exact: true }).click();
        await page.waitForURL(/#\/chat\/[^/]+$/, { timeout: 60_000 });
        await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
        expect(await shownText(page.locator('.workstation-badge'))).toBe('on laptop');
        await say(page, 'hello laptop');
        await expect.poll(() => lastReply(page), { timeout: 60_000 }).toContain('t1c1');

        const gone = new Promise((r) => station.once('exit', r));
        station.kill('SIGTERM');
        await gone;
        await page.reload();
        await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
        await expect.poll(() => page.locator('.workstation-badge').getAttribute('data-online')).toBe('no');
        expect(await shownText(page.locator('.workstation-badge'))).toBe('on laptop · offline');
        await expect
          .poll(() => shownText(page.locator('.chat-log')))
          .toContain('The workstation laptop is not connected');
        // The history stays.
        expect(await lastReply(page)).toContain('t1c1');
        await screenshot(page, 'chat-machine-offline-light');
        expect(errors).toEqual([]);
        expect(await violations(page)).toEqual([]);
        await context.close();
      } finally {
        for (const stop of stops) await stop();
      }
    },
    SLOW,
  );
});

describe('chatting with Codex in the browser', () => {
  it(
    'streams the reply, and a permission card allowed applies the patch',
    async () => {
      const file = join(project, 'codex.txt');
      const { page, context, errors } = await openPage(browser, served);
      await page.waitForSelector('.sessions-view');
      // The project is known already (an earlier chat, or here the API): the form offers it.
      const known = await page.request.post(`${served.base}api/projects`, {
        headers: { authorization: `Bearer ${served.server.token}` },
        data: { path: project },
      });
      expect(known.ok()).toBe(true);
      await startChat(page, undefined, 'codex', 'recent');
      const hello = 'PROMPT-CODEX-HELLO say hello';
      model.script({
        when: hello,
        steps: [{ kind: 'text', text: 'Hello from codex on the fake model.', deltas: 4 }],
      });
      await say(page, hello);
      await expect
        .poll(() => lastReply(page), { timeout: 120_000 })
        .toContain('Hello from codex on the fake model.');
      await idle(page);
      const write = 'PROMPT-CODEX-WRITE write a file';
      model.script(
        { when: write, steps: [{ kind: 'write', path: file, content: 'from codex\n' }] },
        { when: write, steps: [{ kind: 'text', text: 'Patched.' }] },
      );
      await say(page, write);
      const card = page.locator('.permission-card.pending');
      await card.waitFor({ timeout: 120_000 });
      await card.locator('button[data-kind="allow_once"]').click();
      await expect.poll(() => textOf(file), { timeout: 120_000 }).toBe('from codex\n');
      await expect.poll(() => lastReply(page), { timeout: 120_000 }).toContain('Patched.');
      await screenshot(page, 'chat-codex-light');
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});

describe('a chat that is not there', () => {
  it(
    'says so instead of trying for ever',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.evaluate(() => {
        window.location.hash = '#/chat/no-such-chat';
      });
      await expect
        .poll(() => shownText(page.locator('.chat-log')), { timeout: 30_000 })
        .toContain('There is no chat session no-such-chat');
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});

describe('a daemon restarted mid-turn', () => {
  it(
    'ends the turn with a visible error, and the session goes on after the restart',
    async () => {
      const home = join(scratch, 'restart');
      const cairnHome = join(home, 'cairn');
      mkdirSync(cairnHome, { recursive: true });
      symlinkSync(join(agentsHome, 'agents'), join(cairnHome, 'agents'));
      const agent = await agentTestEnv('claude-code', model.url, join(home, 'agent'));
      const env = { ...homeEnv(join(home, 'reader')), ...agent.env };
      // No port named: the restarted daemon asks for its last one, and keeps its token.
      const start = (): Promise<RunningServer> =>
        startServer({
          env,
          homeDir: env.HOME,
          cairnHome,
          webRoot,
          waitForIndex: true,
          demo: false,
          rescanMs: 500,
        });
      let server = await start();
      const base = `http://127.0.0.1:${server.port}/`;
      const restartable: Served = { server, cairnHome, base, entry: `${base}?token=${server.token}` };
      const { page, context, errors } = await openPage(browser, restartable);
      try {
        await startChat(page);
        const prompt = 'PROMPT-RESTART keep talking';
        model.script({
          when: prompt,
          steps: [{ kind: 'text', text: 'Talking until the daemon goes', deltas: 3 }],
          hang: true,
        });
        await say(page, prompt);
        await expect
          .poll(() => lastReply(page), { timeout: 120_000 })
          .toContain('Talking until the daemon goes');
        const port = server.port;
        await server.catalog.settled();
        await server.close();
        await page.waitForSelector('.chat-log[data-ready=no]', { timeout: 30_000 });
        server = await start();
        expect(server.port).toBe(port);
        await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
        // The lost turn is told, not hidden; the prompt shows once.
        await expect
          .poll(() => page.locator('.chat-notice').allInnerTexts(), { timeout: 60_000 })
          .toContainEqual(expect.stringMatching(/stopped while this turn was running/));
        expect(await page.locator('.chat-user', { hasText: prompt }).count()).toBe(1);
        await page.waitForSelector('.composer[data-busy=no]');
        const next = 'PROMPT-AFTER-RESTART still there';
        model.script({ when: next, steps: [{ kind: 'text', text: 'Back again.' }] });
        await say(page, next);
        await expect.poll(() => lastReply(page), { timeout: 120_000 }).toContain('Back again.');
        await screenshot(page, 'chat-restarted-light');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
        await server.catalog.settled();
        await server.close();
      }
    },
    SLOW,
  );
});

describe('an agent without credentials', () => {
  let bare: Served;

  beforeAll(async () => {
    const home = join(scratch, 'bare');
    const cairnHome = join(home, 'cairn');
    // Only Claude Code's adapter is installed here: the others are offered for install.
    mkdirSync(join(cairnHome, 'agents'), { recursive: true });
    symlinkSync(join(agentsHome, 'agents', 'claude-code'), join(cairnHome, 'agents', 'claude-code'));
    const agent = await agentNoCredentialsEnv('claude-code', join(home, 'agent'));
    bare = await serve({ ...homeEnv(join(home, 'reader')), ...agent.env }, webRoot, { cairnHome });
  }, SLOW);

  afterAll(async () => {
    await bare?.server.catalog.settled();
    await bare?.server.close();
  });

  it(
    'offers to install a missing adapter, and shows the sign-in card with the methods the agent offers',
    async () => {
      const { page, context, errors } = await openPage(browser, bare);
      await page.waitForSelector('.sessions-view');
      await page.getByRole('button', { name: 'New chat', exact: true }).click();
      const missing = page.locator('.agent-roster li[data-agent="codex"]');
      await missing.waitFor({ timeout: 60_000 });
      expect(await missing.getByRole('button', { name: 'Install', exact: true }).isEnabled()).toBe(true);
      expect(await page.locator('select[name=agent] option[value="codex"]').isDisabled()).toBe(true);
      await screenshot(page, 'chat-install-light');
      await page.goBack();
      await startChat(page);
      await say(page, 'PROMPT-SIGNIN hello');
      const card = page.locator('.signin-card');
      await card.waitFor({ timeout: 120_000 });
      expect(await shownText(card)).toMatch(/sign-in needed/i);
      await screenshot(page, 'chat-sign-in-light');
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});

const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** The first prompt a person typed in a Claude Code session file. */
// What a file holds now, '' while it is not there. The agent may create a file before it
// writes it, so a test polls the text rather than the file's existence.
function textOf(path: string): string {
  return existsSync(path) ? readFileSync(path, 'utf8') : '';
}

function firstUserText(jsonl: string): string {
  for (const line of jsonl.split('\n')) {
    if (line.trim() === '') continue;
    const r = JSON.parse(line) as { type?: string; message?: { content?: unknown } };
    if (r.type !== 'user') continue;
    const c = r.message?.content;
    if (typeof c === 'string') return c.trim();
    if (Array.isArray(c)) {
      const t = c.find((b) => (b as { type?: string }).type === 'text') as { text?: string } | undefined;
      if (t?.text) return t.text.trim();
    }
  }
  throw new Error('no user prompt in the session');
}
