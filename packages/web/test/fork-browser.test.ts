// Forking from a prompt of the reader's timeline, in Chromium, against the real server driving the
// real Claude Code and Codex adapters on the fake model. A corpus Claude Code session forked at its
// second prompt to Claude Code is forked by Claude Code itself: its model gets the turns before that
// prompt, then the prompt again, none of what came after and no hand-off document. Forked to Codex,
// the same prompt goes as a document of the history up to and including it. Either way the new chat
// says where it was forked from, and how.
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  let agentsHome: string;
  [webRoot, browser, agentsHome, model] = await Promise.all([
    buildUi(),
    launch(),
    ensureTestAgents(),
    startFakeModel(),
  ]);
  scratch = tempDir('cairn-fork-');
  project = join(scratch, 'project');
  const cairnHome = join(scratch, 'cairn');
  mkdirSync(project, { recursive: true });
  mkdirSync(cairnHome, { recursive: true });
  symlinkSync(join(agentsHome, 'agents'), join(cairnHome, 'agents'));
  const claude = await agentTestEnv('claude-code', model.url, join(scratch, 'agent'));
  const codex = await agentTestEnv('codex', model.url, join(scratch, 'agent'));
  const reader = homeEnv(join(scratch, 'reader'));
  claudeHome = reader.CLAUDE_CONFIG_DIR!;
  served = await serve({ ...reader, ...claude.env, ...codex.env }, webRoot, { cairnHome });
}, 900_000);

afterAll(async () => {
  await served?.server.catalog.settled();
  await served?.server.close();
  await browser?.close();
  await model?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const bodyOf = (r: RecordedRequest): string => JSON.stringify(r.body);

/** Text as a JSON body carries it, so that quotes and newlines match. */
const asJson = (text: string): string => JSON.stringify(text).slice(1, -1);

/** The prompts a Claude Code session's user typed, with their record ids, in order. */
function typedPrompts(jsonl: string): { uuid: string; text: string }[] {
  const out: { uuid: string; text: string }[] = [];
  for (const line of jsonl.split('\n')) {
    if (!line.trim()) continue;
    const r = JSON.parse(line) as {
      type?: string;
      uuid?: string;
      isMeta?: boolean;
      message?: { content?: unknown };
    };
    const content = r.message?.content;
    if (r.type === 'user' && !r.isMeta && typeof content === 'string' && !content.startsWith('<') && r.uuid)
      out.push({ uuid: r.uuid, text: content });
  }
  return out;
}

async function openedChat(page: Page): Promise<string> {
  const chatOf = (url: URL): string | undefined => /^#\/chat\/([^/]+)$/.exec(url.hash)?.[1];
  await page.waitForURL((url) => chatOf(url) !== undefined, { timeout: 180_000 });
  await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
  return decodeURIComponent(chatOf(new URL(page.url()))!);
}

interface Placed {
  readonly sid: string;
  readonly folder: string;
  readonly placed: string;
  readonly first: { uuid: string; text: string };
  readonly at: { uuid: string; text: string };
  readonly next: { uuid: string; text: string };
}

let placedOnce: Placed | undefined;

/** A corpus Claude Code session with three prompts or more, placed in this project folder as if it
 * had been started here; forked at its second prompt. */
function placeSession(): Placed {
  if (placedOnce) return placedOnce;
  const original = readFileSync(
    corpusPath(
      'claude',
      'projects',
      '-Users-yoavfarhi-dev-pomodoro-claude',
      '36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2.jsonl',
    ),
    'utf8',
  );
  const sid = /"sessionId":"([^"]+)"/.exec(original)![1]!;
  const cwd = /"cwd":"([^"]+)"/.exec(original)![1]!;
  const placed = original.split(`"cwd":"${cwd}"`).join(`"cwd":"${project}"`);
  const folder = join(claudeHome, 'projects', project.replace(/[^a-zA-Z0-9]/g, '-'));
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, `${sid}.jsonl`), placed);
  const prompts = typedPrompts(original);
  expect(prompts.length).toBeGreaterThanOrEqual(3);
  const [first, at, next] = prompts as [(typeof prompts)[0], (typeof prompts)[0], (typeof prompts)[0]];
  placedOnce = { sid, folder, placed, first, at, next };
  return placedOnce;
}

/** The fork panel opened from the prompt `at` of the timeline, reached from the keyboard. */
async function openForkPanel(page: Page, sid: string, at: { uuid: string; text: string }) {
  // The timeline opened at the prompt to fork from, as a link to it opens it.
  await go(page, sessionHref('claude-code', sid, 'timeline', { uuid: at.uuid }));
  const row = page.locator('.row[data-type="message:user:in"]', { hasText: at.text.slice(0, 30) });
  await row.waitFor({ timeout: 60_000 });
  // The action takes the focus and Enter opens the panel.
  const fork = row.getByRole('button', { name: 'fork from here' });
  await fork.focus();
  await page.keyboard.press('Enter');
  const panel = page.locator('form.fork-panel');
  await panel.waitFor();
  // Same agent by default.
  await expect
    .poll(() => panel.locator('select[name=handoff-agent]').inputValue(), { timeout: 30_000 })
    .toBe('claude-code');
  return panel;
}

const HANDOFF_HEADING = 'Fork of claude-code session';

describe('forking from a prompt of the timeline', () => {
  it.skipIf(!corpus)(
    'forks a corpus Claude Code session at its second prompt through Claude Code’s own fork: the turns before it, the prompt again, nothing after',
    async () => {
      const { sid, folder, placed, first, at, next } = placeSession();
      const reply = 'Going on from the fork point, in the agent’s own fork.';
      // Only the fork's first turn carries the prompt it was forked at, asked again.
      model.script({
        when: ({ body }) => {
          const text = JSON.stringify(body);
          return text.includes(asJson(at.text)) && !text.includes(HANDOFF_HEADING);
        },
        steps: [{ kind: 'text', text: reply }],
      });

      const { page, context, errors } = await openPage(browser, served);
      const panel = await openForkPanel(page, sid, at);
      // The agent makes the fork: the panel says so, and has no document to measure or review.
      await expect.poll(() => panel.getAttribute('data-via'), { timeout: 30_000 }).toBe('agent');
      const point = await shownText(panel.locator('.fork-point'));
      expect(point).toContain('Claude Code forks this session itself');
      expect(point).toContain('asked the prompt again');
      expect(await panel.locator('.handoff-size').count()).toBe(0);
      expect(await panel.locator('select[name=handoff-preset]').count()).toBe(0);
      await screenshot(page, 'fork-panel-agent-light');
      expect(
        (await seriousAxeViolations(page)).filter((v) => v.targets.some((t) => /handoff|fork/.test(t))),
      ).toEqual([]);
      const asked = model.requests.length;
      await panel.getByRole('button', { name: 'Fork and open the chat' }).click();
      const chatId = await openedChat(page);

      // The model is asked in the fork: the turns before the prompt, the prompt once, nothing after,
      // and no document.
      const request = await model.waitForRequest(
        (r) =>
          r.dialect === 'anthropic' &&
          !r.auxiliary &&
          model.requests.indexOf(r) >= asked &&
          bodyOf(r).includes(asJson(at.text)),
        120_000,
      );
      const sent = bodyOf(request);
      expect(sent).toContain(asJson(first.text.slice(0, 40)));
      expect(sent.split(asJson(at.text)).length - 1).toBe(1);
      expect(sent).not.toContain(HANDOFF_HEADING);
      expect(model.requests.filter((r) => bodyOf(r).includes(asJson(next.text)))).toEqual([]);
      expect(model.requests.filter((r) => bodyOf(r).includes(HANDOFF_HEADING))).toEqual([]);
      await expect
        .poll(() => shownText(page.locator('.chat-assistant').last()), { timeout: 120_000 })
        .toContain(reply);

      // The link says it is a fork made by the agent, at the prompt; the new chat says so too.
      const links = readLinks(served.cairnHome, { sid });
      expect(links).toHaveLength(1);
      expect(links[0]).toMatchObject({
        kind: 'fork',
        from: { agent: 'claude-code', sid },
        to: { agent: 'claude-code' },
        via: 'agent',
      });
      expect(links[0]!.to.sid).not.toBe(sid);
      const atItem = links[0]!.at_item!;
      expect(atItem.startsWith(at.uuid)).toBe(true);
      const from = page.locator('.session-link.link-from');
      await from.waitFor({ timeout: 30_000 });
      expect(await shownText(from)).toMatch(/^forked from claude-code .+ at .+\(by the agent\)/);
      expect(await from.getAttribute('data-kind')).toBe('fork');
      expect(await from.getAttribute('data-via')).toBe('agent');
      expect(await from.locator('a').nth(1).getAttribute('href')).toBe(
        sessionHref('claude-code', sid, 'timeline', { uuid: atItem }),
      );
      expect(page.url()).toContain(encodeURIComponent(chatId));
      await screenshot(page, 'fork-chat-agent-light');
      // The forked session's file is as it was: the agent wrote its fork as a session of its own.
      expect(readFileSync(join(folder, `${sid}.jsonl`), 'utf8')).toBe(placed);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it.skipIf(!corpus)(
    'forks the same prompt to Codex as a hand-off: the model gets the document up to and including it',
    async () => {
      const { sid, folder, placed, first, at, next } = placeSession();
      const reply = 'Going on from the fork point, from the document.';
      model.script({ when: HANDOFF_HEADING, steps: [{ kind: 'text', text: reply }] });

      const { page, context, errors } = await openPage(browser, served);
      const panel = await openForkPanel(page, sid, at);
      await panel.locator('select[name=handoff-agent] option[value="codex"]').waitFor({ state: 'attached' });
      await panel.locator('select[name=handoff-agent]').selectOption('codex');
      // Another agent gets a document: the panel measures it and lists what it redacts.
      await expect.poll(() => panel.getAttribute('data-via')).toBe('handoff');
      expect(await shownText(panel.locator('.fork-point'))).toContain('up to and including this prompt');
      const size = panel.locator('.handoff-size[data-ready=yes]');
      await size.waitFor({ timeout: 60_000 });
      expect(await shownText(size)).toMatch(/^\d+ items · /);
      expect(await panel.locator('input[name=handoff-cwd]').inputValue()).toBe(project);
      await screenshot(page, 'fork-panel-light');
      expect(
        (await seriousAxeViolations(page)).filter((v) => v.targets.some((t) => /handoff|fork/.test(t))),
      ).toEqual([]);
      await panel.getByRole('button', { name: 'Send and open the chat' }).click();
      const chatId = await openedChat(page);

      // Codex's model got the document: the history up to the fork point, not after.
      const request = await model.waitForRequest(
        (r) => r.dialect === 'openai-responses' && bodyOf(r).includes(HANDOFF_HEADING),
        120_000,
      );
      expect(bodyOf(request)).toContain(sid);
      expect(bodyOf(request)).toContain(asJson(first.text.slice(0, 40)));
      expect(bodyOf(request)).toContain(asJson(at.text));
      expect(model.requests.filter((r) => bodyOf(r).includes(asJson(next.text)))).toEqual([]);
      await expect
        .poll(() => shownText(page.locator('.chat-assistant').last()), { timeout: 120_000 })
        .toContain(reply);

      const links = readLinks(served.cairnHome, { sid }).filter((l) => l.to.agent === 'codex');
      expect(links).toHaveLength(1);
      expect(links[0]).toMatchObject({
        kind: 'fork',
        from: { agent: 'claude-code', sid },
        to: { agent: 'codex' },
        via: 'handoff',
      });
      const atItem = links[0]!.at_item!;
      expect(atItem.startsWith(at.uuid)).toBe(true);
      const from = page.locator('.session-link.link-from');
      await from.waitFor({ timeout: 30_000 });
      expect(await shownText(from)).toMatch(/^forked from claude-code .+ at .+\(as a document\)/);
      expect(await from.getAttribute('data-via')).toBe('handoff');
      expect(await from.locator('a').nth(1).getAttribute('href')).toBe(
        sessionHref('claude-code', sid, 'timeline', { uuid: atItem }),
      );
      expect(page.url()).toContain(encodeURIComponent(chatId));
      expect(readFileSync(join(folder, `${sid}.jsonl`), 'utf8')).toBe(placed);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it.skipIf(!corpus)(
    'hands the history off when Claude Code cannot fork there, and the panel says so and shows what was sent',
    async () => {
      // At the first prompt no answer comes before it, so the agent's own fork has nowhere to cut.
      const { sid, first } = placeSession();
      const reply = 'Going on from the first prompt, from the document.';
      model.script({
        when: ({ body, dialect }) =>
          dialect === 'anthropic' && JSON.stringify(body).includes(HANDOFF_HEADING),
        steps: [{ kind: 'text', text: reply }],
      });

      const { page, context, errors } = await openPage(browser, served);
      const panel = await openForkPanel(page, sid, first);
      await expect.poll(() => panel.getAttribute('data-via'), { timeout: 30_000 }).toBe('agent');
      await panel.getByRole('button', { name: 'Fork and open the chat' }).click();

      // The panel stays, says the fork went as a document, and measures the document that went.
      const note = panel.locator('.fork-fell-back');
      await note.waitFor({ timeout: 180_000 });
      expect(await shownText(note)).toContain('could not fork this session itself');
      expect(await note.getAttribute('data-via')).toBe('handoff');
      expect(await panel.getAttribute('data-via')).toBe('handoff');
      const size = panel.locator('.handoff-size[data-ready=yes]');
      await size.waitFor({ timeout: 60_000 });
      expect(await shownText(size)).toMatch(/^\d+ items · /);
      expect(await panel.locator('select[name=handoff-agent]').isDisabled()).toBe(true);
      expect(await panel.getByRole('button', { name: /open the chat$/ }).count()).toBe(0);
      await screenshot(page, 'fork-panel-fell-back-light');

      const request = await model.waitForRequest(
        (r) => r.dialect === 'anthropic' && !r.auxiliary && bodyOf(r).includes(HANDOFF_HEADING),
        120_000,
      );
      expect(bodyOf(request)).toContain(asJson(first.text.slice(0, 40)));
      const links = readLinks(served.cairnHome, { sid }).filter(
        (l) => l.via === 'handoff' && l.to.agent === 'claude-code',
      );
      expect(links).toHaveLength(1);
      expect(links[0]!.at_item!.startsWith(first.uuid)).toBe(true);

      await note.getByRole('link', { name: 'Open the chat' }).click();
      await openedChat(page);
      await expect
        .poll(() => shownText(page.locator('.chat-assistant').last()), { timeout: 120_000 })
        .toContain(reply);
      const from = page.locator('.session-link.link-from');
      await from.waitFor({ timeout: 30_000 });
      expect(await shownText(from)).toMatch(/^forked from claude-code .+\(as a document\)/);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
