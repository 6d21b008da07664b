// Forking from a prompt of the reader's timeline, in Chromium, against the real server driving the
// real Claude Code adapter on the fake model: a corpus Claude Code session forked at its second
// prompt starts a new Claude Code session whose model gets the history up to that prompt and none
// of what came after it, and the new chat says where it was forked from.
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
  const reader = homeEnv(join(scratch, 'reader'));
  claudeHome = reader.CLAUDE_CONFIG_DIR!;
  served = await serve({ ...reader, ...claude.env }, webRoot, { cairnHome });
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

describe('forking from a prompt of the timeline', () => {
  it.skipIf(!corpus)(
    'forks a corpus Claude Code session at its second prompt: the model gets the history up to it, not after',
    async () => {
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
      const reply = 'Going on from the fork point.';
      model.script({ when: 'Fork of claude-code session', steps: [{ kind: 'text', text: reply }] });

      const { page, context, errors } = await openPage(browser, served);
      // The timeline opened at the prompt to fork from, as a link to it opens it.
      await go(page, sessionHref('claude-code', sid, 'timeline', { uuid: at.uuid }));
      const row = page.locator('.row[data-type="message:user:in"]', { hasText: at.text.slice(0, 30) });
      await row.waitFor({ timeout: 60_000 });
      // Reached from the keyboard: the action takes the focus and Enter opens the panel.
      const fork = row.getByRole('button', { name: 'fork from here' });
      await fork.focus();
      await page.keyboard.press('Enter');
      const panel = page.locator('form.fork-panel');
      await panel.waitFor();
      expect(await shownText(panel.locator('.fork-point'))).toContain('up to and including this prompt');
      // Same agent by default.
      await expect
        .poll(() => panel.locator('select[name=handoff-agent]').inputValue(), { timeout: 30_000 })
        .toBe('claude-code');
      const size = panel.locator('.handoff-size[data-ready=yes]');
      await size.waitFor({ timeout: 60_000 });
      expect(await shownText(size)).toMatch(/^\d+ items · /);
      await screenshot(page, 'fork-panel-light');
      expect(
        (await seriousAxeViolations(page)).filter((v) => v.targets.some((t) => /handoff|fork/.test(t))),
      ).toEqual([]);
      await panel.getByRole('button', { name: 'Send and open the chat' }).click();
      const chatId = await openedChat(page);

      // The model got the history up to the fork point: the first two prompts, not the third.
      const request = await model.waitForRequest(
        (r) => r.dialect === 'anthropic' && bodyOf(r).includes('Fork of claude-code session'),
        120_000,
      );
      expect(bodyOf(request)).toContain(sid);
      expect(bodyOf(request)).toContain(asJson(first.text.slice(0, 40)));
      expect(bodyOf(request)).toContain(asJson(at.text));
      expect(model.requests.filter((r) => bodyOf(r).includes(asJson(next.text)))).toEqual([]);
      await expect
        .poll(() => shownText(page.locator('.chat-assistant').last()), { timeout: 120_000 })
        .toContain(reply);

      // The new chat says where it was forked from and at which item; the link says so too.
      const links = readLinks(served.cairnHome, { sid });
      expect(links).toHaveLength(1);
      expect(links[0]).toMatchObject({
        kind: 'fork',
        from: { agent: 'claude-code', sid },
        to: { agent: 'claude-code' },
      });
      const atItem = links[0]!.at_item!;
      expect(atItem.startsWith(at.uuid)).toBe(true);
      const from = page.locator('.session-link.link-from');
      await from.waitFor({ timeout: 30_000 });
      expect(await shownText(from)).toMatch(/^forked from claude-code .+ at /);
      expect(await from.getAttribute('data-kind')).toBe('fork');
      expect(await from.locator('a').nth(1).getAttribute('href')).toBe(
        sessionHref('claude-code', sid, 'timeline', { uuid: atItem }),
      );
      expect(page.url()).toContain(encodeURIComponent(chatId));
      // The forked session's file is as it was.
      expect(readFileSync(join(folder, `${sid}.jsonl`), 'utf8')).toBe(placed);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
