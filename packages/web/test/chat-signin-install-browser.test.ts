// Signing an agent in and installing one from the browser, against the real server and real
// adapters: Gemini CLI installed from the new-chat form (npm from its cache only) shows its progress
// and stays installed after a reload; Codex with no key, talking to the fake model on 127.0.0.1,
// shows a sign-in card whose key field makes the next turn pass, the key kept in cairn's own state
// and handed to the agent; and an agent declared in config.json while the server runs shows up
// without a restart.
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentNoCredentialsEnv, ensureTestAgents } from '../../runner/test/support/agents.js';
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

const SLOW = 300_000;
const KEY = 'sk-test-0123456789abcdef';

let webRoot: string;
let browser: Browser;
let model: FakeModel;
let served: Served;
let scratch: string;
let project: string;
let agentHome: string;

beforeAll(async () => {
  let agentsHome: string;
  [webRoot, browser, agentsHome, model] = await Promise.all([
    buildUi(),
    launch(),
    ensureTestAgents(),
    startFakeModel(),
  ]);
  scratch = tempDir('cairn-signin-');
  project = join(scratch, 'project');
  const cairnHome = join(scratch, 'cairn');
  mkdirSync(project, { recursive: true });
  mkdirSync(join(cairnHome, 'agents'), { recursive: true });
  // Claude Code is there already; Gemini CLI is installed by the test, from npm's cache only.
  symlinkSync(join(agentsHome, 'agents', 'codex'), join(cairnHome, 'agents', 'codex'));
  agentHome = join(scratch, 'agent');
  const gemini = await agentNoCredentialsEnv('gemini-cli', agentHome);
  // Codex with no key: its own provider, whose address is the fake model's, needs the key the
  // sign-in card adds.
  const codex = await agentNoCredentialsEnv('codex', agentHome);
  writeFileSync(
    join(codex.env.CODEX_HOME!, 'config.toml'),
    [
      'model = "gpt-5.5"',
      'model_provider = "fake"',
      '[model_providers.fake]',
      'name = "Fake"',
      `base_url = "${model.url}/v1"`,
      'wire_api = "responses"',
      'requires_openai_auth = true',
      '',
    ].join('\n'),
  );
  served = await serve(
    {
      ...homeEnv(join(scratch, 'reader')),
      ...gemini.env,
      ...codex.env,
      // npm finds the packages in this user's cache and never asks the network.
      npm_config_cache: process.env.npm_config_cache ?? join(homedir(), '.npm'),
      npm_config_userconfig: process.env.npm_config_userconfig ?? join(homedir(), '.npmrc'),
      npm_config_offline: 'true',
    },
    webRoot,
    { cairnHome },
  );
}, 900_000);

afterAll(async () => {
  await served?.server.catalog.settled();
  await served?.server.close();
  await browser?.close();
  await model?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const geminiRow = (page: Page) => page.locator('.agent-roster li[data-agent="gemini-cli"]');
const geminiOption = (page: Page) => page.locator('select[name=agent] option[value="gemini-cli"]');

async function openNewChat(page: Page): Promise<void> {
  await page.waitForSelector('.sessions-view');
  await page.getByRole('button', { name: 'New chat', exact: true }).click();
  await page.waitForSelector('.new-chat-form');
}

/** Every file under `dir` whose bytes hold `text`, except those `skip` names. */
function filesHolding(dir: string, text: string, skip: (path: string) => boolean): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (skip(path)) continue;
      const st = statSync(path, { throwIfNoEntry: false });
      if (st?.isDirectory()) walk(path);
      else if (st?.isFile() && readFileSync(path).includes(text)) found.push(path);
    }
  };
  walk(dir);
  return found;
}

describe('agents from the browser', () => {
  it(
    'installs an agent with its progress shown, and it stays installed after a reload',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await openNewChat(page);
      await geminiRow(page).waitFor({ timeout: 60_000 });
      expect(await geminiOption(page).isDisabled()).toBe(true);
      await geminiRow(page).getByRole('button', { name: 'Install', exact: true }).click();
      // The phase and npm's lines show while it runs.
      const progress = geminiRow(page).locator('.install-progress');
      await progress.waitFor({ timeout: 30_000 });
      await expect
        .poll(async () => (await progress.getAttribute('data-phase')) ?? '', { timeout: 120_000 })
        .toMatch(/preparing|downloading|checking/);
      await expect.poll(() => progress.locator('.install-line').count(), { timeout: 240_000 }).toBe(1);
      expect(await shownText(progress.locator('.install-line'))).toMatch(/\S/);
      await screenshot(page, 'chat-install-progress-light');
      // When it ends the list knows, with no reload.
      await expect.poll(() => geminiOption(page).isDisabled(), { timeout: 280_000 }).toBe(false);
      expect(await geminiRow(page).count()).toBe(0);
      // A new page load, from the start.
      await page.goto(served.entry);
      await openNewChat(page);
      await expect.poll(() => geminiOption(page).count(), { timeout: 30_000 }).toBe(1);
      expect(await geminiOption(page).isDisabled()).toBe(false);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'takes an API key on the sign-in card, keeps it owner-only in cairn’s state, and the next turn passes',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await openNewChat(page);
      await page.getByRole('textbox', { name: 'Project folder' }).fill(project);
      const agent = page.getByRole('combobox', { name: 'Agent' });
      const codexOption = page.locator('select[name=agent] option[value="codex"]');
      await expect.poll(() => codexOption.isDisabled(), { timeout: 30_000 }).toBe(false);
      await agent.selectOption('codex');
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await page.waitForURL(/#\/chat\/[^/]+$/, { timeout: 60_000 });
      // Without a key Codex refuses the session, and so the prompt: the card names its ways to
      // sign in.
      await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 120_000 });
      await page.getByRole('textbox', { name: 'Message' }).fill('PROMPT-CODEX-NO-KEY hello');
      await page.getByRole('textbox', { name: 'Message' }).press('Enter');
      const card = page.locator('.signin-card');
      await card.waitFor({ timeout: 120_000 }).catch(async (error: unknown) => {
        throw new Error(`no sign-in card; the chat shows: ${await shownText(page.locator('.chat-log'))}`, {
          cause: error,
        });
      });
      const keyMethod = card.locator('li[data-method="api-key"]');
      await keyMethod.waitFor({ timeout: 10_000 }).catch(async (error: unknown) => {
        throw new Error(`no api-key method; the card shows: ${await shownText(card)}`, { cause: error });
      });
      // Each way has its exact terminal command; one a key does not answer can be started here.
      expect(await shownText(keyMethod.locator('.signin-command'))).toContain(
        'cairn agents login codex --method api-key',
      );
      for (const other of await card.locator('li[data-method]:not([data-method="api-key"])').all()) {
        const id = (await other.getAttribute('data-method'))!;
        expect(await shownText(other.locator('.signin-command'))).toContain(
          `cairn agents login codex --method ${id}`,
        );
        expect(await other.getByRole('button', { name: 'Sign in', exact: true }).isEnabled()).toBe(true);
        expect(await other.locator('input').count()).toBe(0);
      }
      const field = keyMethod.locator('input[name=api-key]');
      expect(await field.getAttribute('type')).toBe('password');
      await field.fill(KEY);
      await screenshot(page, 'chat-sign-in-key-light');
      await keyMethod.getByRole('button', { name: 'Save key', exact: true }).click();
      await card.waitFor({ state: 'detached', timeout: 60_000 });
      await expect
        .poll(() => shownText(page.locator('.chat-log')), { timeout: 30_000 })
        .toContain('The key is kept for Codex');

      const prompt = 'PROMPT-CODEX-KEY hello';
      model.script({ when: prompt, steps: [{ kind: 'text', text: 'Signed in and answering.' }] });
      await page.getByRole('textbox', { name: 'Message' }).fill(prompt);
      await page.getByRole('textbox', { name: 'Message' }).press('Enter');
      await expect
        .poll(() => shownText(page.locator('.chat-log')), { timeout: 120_000 })
        .toContain('Signed in and answering.')
        .catch(async (error: unknown) => {
          const paths = model.requests.map((r) => `${r.method} ${r.path}`).join(', ');
          throw new Error(
            `no answer; the chat shows: ${await shownText(page.locator('.chat-log'))}; the model heard: ${paths}`,
            { cause: error },
          );
        });
      // The agent sent the key it was given to the model.
      const asked = model.requests.find((r) => JSON.stringify(r.body).includes(prompt));
      expect(asked?.headers.authorization).toBe(`Bearer ${KEY}`);

      // Kept in cairn's own state, for its owner only, and not in cairn's logs or databases.
      const keys = join(served.cairnHome, 'agent-keys.json');
      expect(statSync(keys).mode & 0o777).toBe(0o600);
      expect(JSON.parse(readFileSync(keys, 'utf8'))).toEqual({
        codex: { env: { CODEX_API_KEY: KEY }, method: 'api-key' },
      });
      expect(filesHolding(served.cairnHome, KEY, (p) => p === keys || p.endsWith('/agents'))).toEqual([]);
      // cairn writes nothing into the agent's folders; what Codex keeps there is its own doing once
      // signed in (its login file, and its snapshots of the shell environment it was given).
      const codexHome = join(agentHome, 'codex-home');
      for (const path of filesHolding(agentHome, KEY, () => false))
        expect(path.replace(`${codexHome}/`, '')).toMatch(/^(auth\.json|shell_snapshots\/[^/]+)$/);
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'shows an agent declared in config.json while the server runs, and keeps it through a broken edit',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await openNewChat(page);
      const declared = page.locator('select[name=agent] option[value="helper"]');
      expect(await declared.count()).toBe(0);
      const config = join(served.cairnHome, 'config.json');
      writeFileSync(
        config,
        JSON.stringify({ agents: { helper: { name: 'Helper agent', command: process.execPath, args: [] } } }),
      );
      // The open form follows the roster: no reload, no restart.
      await expect.poll(() => declared.count(), { timeout: 30_000 }).toBe(1);
      expect(await shownText(declared)).toContain('Helper agent');
      // A half-written file: the form says what is wrong, and the agent stays.
      writeFileSync(config, '{"agents": {"helper": ');
      const problems = page.locator('.config-problems');
      await problems.waitFor({ timeout: 30_000 });
      expect(await shownText(problems)).toMatch(/config\.json is not JSON/);
      expect(await declared.count()).toBe(1);
      await screenshot(page, 'chat-config-problem-light');
      writeFileSync(config, JSON.stringify({ agents: {} }));
      await expect.poll(() => declared.count(), { timeout: 30_000 }).toBe(0);
      await expect.poll(() => problems.count(), { timeout: 30_000 }).toBe(0);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
