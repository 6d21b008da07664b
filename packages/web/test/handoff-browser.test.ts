// Hand-offs in Chromium, against the real server driving the real Claude Code and Codex adapters on
// the fake model: a corpus Claude Code session handed to Codex from the reader (the model receives
// the document, the new chat says where it came from, the source where it went), and a turn a 429
// stops, whose card carries the session on in the other agent in one click.
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentTestEnv, ensureTestAgents } from '../../runner/test/support/agents.js';
import {
  type FakeModel,
  type RecordedRequest,
  startFakeModel,
} from '../../runner/test/support/fake-model.js';
import { readLinks } from '../../server/src/storage/links-store.js';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { sessionHref } from '../src/route.js';
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
} from './harness.js';

const SLOW = 300_000;

let webRoot: string;
let browser: Browser;
let model: FakeModel;
let served: Served;
let scratch: string;
let project: string;
let claudeHome: string;

beforeAll(async () => {
  [webRoot, browser, , model] = await Promise.all([
    buildUi(),
    launch(),
    ensureTestAgents(),
    startFakeModel(),
  ]);
  const agentsHome = await ensureTestAgents();
  scratch = tempDir('cairn-handoff-');
  project = join(scratch, 'project');
  const cairnHome = join(scratch, 'cairn');
  mkdirSync(project, { recursive: true });
  mkdirSync(cairnHome, { recursive: true });
  symlinkSync(join(agentsHome, 'agents'), join(cairnHome, 'agents'));
  const claude = await agentTestEnv('claude-code', model.url, join(scratch, 'agent'));
  const codex = await agentTestEnv('codex', model.url, join(scratch, 'agent'));
  const reader = homeEnv(join(scratch, 'reader'));
  claudeHome = reader.CLAUDE_CONFIG_DIR!;
  // Claude Code retries a 429 ten times with back-off before it gives up; once is enough here.
  served = await serve({ ...reader, ...claude.env, ...codex.env, CLAUDE_CODE_MAX_RETRIES: '0' }, webRoot, {
    cairnHome,
  });
}, 900_000);

afterAll(async () => {
  await served?.server.catalog.settled();
  await served?.server.close();
  await browser?.close();
  await model?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

// A test that failed half-way leaves no limit behind for the next.
afterEach(() => {
  model.limit('anthropic', null);
  model.limit('openai-responses', null);
});

/** Serious accessibility violations in what this feature draws (the panel, the card, the links). */
const ownAxeViolations = async (page: Page) =>
  (await seriousAxeViolations(page)).filter((v) =>
    v.targets.some((t) => /handoff|usage-limit|limit-actions|session-link/.test(t)),
  );

const bodyOf = (r: RecordedRequest): string => JSON.stringify(r.body);

/** The new chat's id, once the page went to it (away from `from`, when given). */
async function openedChat(page: Page, from?: string): Promise<string> {
  const chatOf = (url: URL): string | undefined => /^#\/chat\/([^/]+)$/.exec(url.hash)?.[1];
  await page.waitForURL(
    (url) => {
      const id = chatOf(url);
      return id !== undefined && decodeURIComponent(id) !== from;
    },
    { timeout: 180_000 },
  );
  await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
  return decodeURIComponent(chatOf(new URL(page.url()))!);
}

const lastReply = (page: Page): Promise<string> =>
  shownText(page.locator('.chat-assistant').last()).then((t) => t.replace(/\s+/g, ' ').trim());

describe('handing a session off from the reader', () => {
  it.skipIf(!corpus)(
    'hands a corpus Claude Code session to Codex: the model gets the document, both sessions show the link',
    async () => {
      // A real corpus session, placed in this project folder as if it had been started here.
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
      const reply = 'Picking the work up from the hand-off.';
      model.script({ when: 'Hand-off of claude-code session', steps: [{ kind: 'text', text: reply }] });

      const { page, context, errors } = await openPage(browser, served);
      await go(page, sessionHref('claude-code', sid));
      await page.getByRole('button', { name: 'Hand off to…' }).click();
      const panel = page.locator('form.handoff-panel');
      await panel.locator('select[name=handoff-agent] option[value="codex"]').waitFor({ state: 'attached' });
      await panel.locator('select[name=handoff-agent]').selectOption('codex');
      // The size is measured before anything is sent: items, bytes, tokens and the secrets found.
      const size = panel.locator('.handoff-size[data-ready=yes]');
      await size.waitFor({ timeout: 60_000 });
      expect(await shownText(size)).toMatch(
        /\d+ items · .+ · about \d[\d,]* tokens · (no secrets found|\d+ secrets redacted)/,
      );
      expect(await panel.locator('input[name=handoff-cwd]').inputValue()).toBe(project);
      // A narrower selection makes a smaller document.
      const whole = await shownText(size);
      await panel.locator('input[name=handoff-types]').fill('-tool');
      await expect.poll(() => shownText(panel.locator('.handoff-size'))).not.toBe(whole);
      await panel.locator('input[name=handoff-types]').fill('');
      await expect.poll(() => shownText(panel.locator('.handoff-size'))).toBe(whole);
      await screenshot(page, 'handoff-panel-light');
      expect(await ownAxeViolations(page)).toEqual([]);
      await panel.getByRole('button', { name: 'Send and open the chat' }).click();
      const chatId = await openedChat(page);

      // Codex's model got the document: its heading, the source and the session's own first prompt.
      const request = await model.waitForRequest(
        (r) => r.dialect === 'openai-responses' && bodyOf(r).includes('Hand-off of claude-code session'),
        120_000,
      );
      expect(bodyOf(request)).toContain(sid);
      expect(bodyOf(request)).toContain(JSON.stringify(firstPrompt.slice(0, 40)).slice(1, -1));
      await expect.poll(() => lastReply(page), { timeout: 120_000 }).toContain(reply);

      // The new chat says where it came from, linking to the source in the reader.
      const from = page.locator('.session-link.link-from');
      await from.waitFor({ timeout: 30_000 });
      expect(await shownText(from)).toMatch(/^continued from claude-code/);
      expect(await from.locator('a').first().getAttribute('href')).toBe(sessionHref('claude-code', sid));
      const links = readLinks(served.cairnHome, { sid });
      expect(links).toHaveLength(1);
      expect(links[0]).toMatchObject({
        kind: 'handoff',
        from: { agent: 'claude-code', sid },
        to: { agent: 'codex' },
      });
      const codexSid = links[0]!.to.sid;
      expect(await from.getAttribute('data-sid')).toBe(sid);
      await screenshot(page, 'handoff-chat-light');

      // The source says where it went, linking to the new session and its chat.
      await go(page, sessionHref('claude-code', sid));
      const to = page.locator('.session-link.link-to');
      await to.waitFor({ timeout: 30_000 });
      expect(await shownText(to)).toMatch(/^continued in codex/);
      expect(await to.getAttribute('data-sid')).toBe(codexSid);
      expect(await to.locator('a').first().getAttribute('href')).toBe(sessionHref('codex', codexSid));
      // The chat's link follows the list of chats, asked once the session's links are drawn.
      await expect.poll(() => to.locator(`a[href="#/chat/${chatId}"]`).count()).toBe(1);
      // The source file is as it was.
      expect(readFileSync(join(folder, `${sid}.jsonl`), 'utf8')).toBe(
        original.split(`"cwd":"${cwd}"`).join(`"cwd":"${project}"`),
      );
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});

describe('a turn stopped by a usage or rate limit', () => {
  it(
    'shows the limit on a card whose one click carries the session on in Codex',
    async () => {
      model.limit('anthropic', { kind: 'rate', retryAfterSeconds: 30 });
      const { page, context, errors } = await openPage(browser, served);
      await page.getByRole('button', { name: 'New chat', exact: true }).click();
      await page.getByRole('textbox', { name: 'Project folder' }).fill(project);
      const agent = page.getByRole('combobox', { name: 'Agent' });
      await expect.poll(() => agent.locator('option[value="claude-code"]:not([disabled])').count()).toBe(1);
      await agent.selectOption('claude-code');
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      const first = await openedChat(page);
      const prompt = 'PROMPT-LIMIT add the export button';
      await page.getByRole('textbox', { name: 'Message' }).fill(prompt);
      await page.getByRole('textbox', { name: 'Message' }).press('Enter');

      const card = page.locator('.usage-limit-card');
      await card.waitFor({ timeout: 180_000 });
      expect(await card.getAttribute('data-kind')).toBe('rate');
      expect(await shownText(card)).toContain('Rate limit reached');
      expect(await shownText(card)).toContain('claude-code stopped: too many requests for now');
      await screenshot(page, 'usage-limit-card-light');
      expect(await ownAxeViolations(page)).toEqual([]);
      model.limit('anthropic', null);

      const reply = 'Carrying on where the limit stopped it.';
      model.script({ when: 'Hand-off of claude-code session', steps: [{ kind: 'text', text: reply }] });
      await card.getByRole('button', { name: 'Continue in Codex' }).click();
      const second = await openedChat(page, first);
      expect(second).not.toBe(first);
      // Codex's model gets the document of the session the limit stopped, its prompt in it.
      await model.waitForRequest(
        (r) =>
          r.dialect === 'openai-responses' &&
          bodyOf(r).includes('Hand-off of claude-code session') &&
          bodyOf(r).includes('PROMPT-LIMIT add the export button'),
        120_000,
      );
      await expect.poll(() => lastReply(page), { timeout: 120_000 }).toContain(reply);
      const from = page.locator('.session-link.link-from');
      await from.waitFor({ timeout: 30_000 });
      expect(await shownText(from)).toMatch(/^continued from claude-code/);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});

describe('continuing by itself after a limit (opt-in)', () => {
  it(
    'hands a Codex session whose quota is spent to Claude Code without a click',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      // The setting the card's checkbox keeps, chosen beforehand.
      await page.evaluate(() => localStorage.setItem('cairn.limit.continueIn', 'claude-code'));
      model.limit('openai-responses', { kind: 'quota' });
      await page.getByRole('button', { name: 'New chat', exact: true }).click();
      await page.getByRole('textbox', { name: 'Project folder' }).fill(project);
      const agent = page.getByRole('combobox', { name: 'Agent' });
      await expect.poll(() => agent.locator('option[value="codex"]:not([disabled])').count()).toBe(1);
      await agent.selectOption('codex');
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      const first = await openedChat(page);
      const reply = 'Claude carries on after the quota ran out.';
      model.script({ when: 'Hand-off of codex session', steps: [{ kind: 'text', text: reply }] });
      await page.getByRole('textbox', { name: 'Message' }).fill('PROMPT-QUOTA write the changelog');
      await page.getByRole('textbox', { name: 'Message' }).press('Enter');

      // The card names the spent quota, and the page goes on to the new chat by itself.
      const second = await openedChat(page, first);
      const request = await model.waitForRequest(
        (r) => r.dialect === 'anthropic' && bodyOf(r).includes('Hand-off of codex session'),
        120_000,
      );
      expect(bodyOf(request)).toContain('PROMPT-QUOTA write the changelog');
      await expect.poll(() => lastReply(page), { timeout: 120_000 }).toContain(reply);
      expect(await shownText(page.locator('.session-link.link-from'))).toMatch(/^continued from codex/);
      model.limit('openai-responses', null);

      // Back in the first chat, its card says which limit it was; the chat itself is as it was.
      await go(page, `#/chat/${encodeURIComponent(first)}`);
      const card = page.locator('.usage-limit-card');
      await card.waitFor({ timeout: 60_000 });
      expect(await card.getAttribute('data-kind')).toBe('usage');
      expect(await shownText(card)).toContain('Usage limit reached');
      expect(await page.locator('.session-link.link-to').count()).toBe(1);
      expect(new URL(page.url()).hash).toBe(`#/chat/${encodeURIComponent(first)}`);
      expect(second).not.toBe(first);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});

function firstUserText(jsonl: string): string {
  for (const line of jsonl.split('\n')) {
    if (!line.trim()) continue;
    const record = JSON.parse(line) as { type?: string; message?: { content?: unknown } };
    if (record.type !== 'user') continue;
    const content = record.message?.content;
    if (typeof content === 'string') return content;
  }
  throw new Error('no user prompt in the session');
}
