// Accessibility sweep of the states the static sweep cannot reach: a session that is recording now
// (its "active" mark in the list and in the reader's header) and a chat whose turn failed (the
// error under the reply and the notices around it). axe-core finds no serious or critical
// violation on them, in light and in dark.
import { appendFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import {
  buildUi,
  go,
  homeEnv,
  launch,
  openPage,
  type Scheme,
  type Served,
  screenshot,
  seriousAxeViolations,
  serve,
  tempDir,
  violations,
} from './harness.js';

const SLOW = 240_000;
const SPOTTER = ['claude', 'projects', '-work-spotter'];
const WIRE_AGENT = fileURLToPath(new URL('../../server/test/support/wire-agent.mjs', import.meta.url));

describe.skipIf(!corpus)('accessibility of live states', () => {
  let webRoot: string;
  let browser: Browser;
  let served: Served;
  let sessionFile: string;
  let project: string;
  let records = 0;

  beforeAll(async () => {
    [webRoot, browser] = await Promise.all([buildUi(), launch()]);
    const scratch = tempDir('cairn-axe-live-');
    const env = homeEnv(join(scratch, 'home'));
    const folder = join(env.CLAUDE_CONFIG_DIR!, 'projects', '-work-spotter');
    mkdirSync(folder, { recursive: true });
    sessionFile = join(folder, 'tool_heavy.jsonl');
    cpSync(corpusPath(...SPOTTER, 'tool_heavy.jsonl'), sessionFile);
    project = join(scratch, 'project');
    mkdirSync(project, { recursive: true });
    // The scripted agent dies half-way through its reply: the turn fails with an error, and the
    // session it held is reported lost.
    const cairnHome = join(scratch, 'cairn');
    mkdirSync(cairnHome, { recursive: true });
    writeFileSync(
      join(cairnHome, 'config.json'),
      JSON.stringify({
        agents: {
          wire: {
            name: 'Scripted agent',
            command: process.execPath,
            args: [WIRE_AGENT],
            env: { WIRE_AGENT_MODE: 'crash', WIRE_AGENT_CHUNKS: '4' },
          },
        },
      }),
    );
    served = await serve(env, webRoot, { cairnHome });
  }, SLOW);

  afterAll(async () => {
    await served?.server.catalog.settled();
    await served?.server.close();
    await browser?.close();
  });

  /** Appends a copy of the session's last record, stamped now, as an agent still at work would. */
  function recordNow(): void {
    const last = readFileSync(sessionFile, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .at(-1)!;
    const record = JSON.parse(last) as Record<string, unknown>;
    records += 1;
    record.uuid = `00000000-0000-4000-8000-${String(records).padStart(12, '0')}`;
    record.timestamp = new Date().toISOString();
    appendFileSync(sessionFile, `${JSON.stringify(record)}\n`);
  }

  async function failedChat(page: Page): Promise<void> {
    await go(page, '#/');
    await page.getByRole('button', { name: 'New chat', exact: true }).click();
    await page.getByRole('textbox', { name: 'Project folder' }).fill(project);
    const agent = page.getByRole('combobox', { name: 'Agent' });
    await expect.poll(() => agent.locator('option[value="wire"]:not([disabled])').count()).toBe(1);
    await agent.selectOption('wire');
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.waitForURL(/#\/chat\/[^/]+$/, { timeout: 60_000 });
    await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
    const composer = page.getByRole('textbox', { name: 'Message' });
    await composer.fill('go');
    await composer.press('Enter');
    await page.locator('.chat-error').waitFor({ timeout: 60_000 });
    await page.locator('.chat-notice').first().waitFor({ timeout: 60_000 });
  }

  for (const scheme of ['light', 'dark'] as Scheme[]) {
    it(
      `shows an active session and a failed chat with no serious violation, in ${scheme}`,
      async () => {
        const { page, context, errors } = await openPage(browser, served, scheme);
        try {
          const found: Record<string, unknown> = {};
          const check = async (name: string) => {
            const serious = await seriousAxeViolations(page);
            if (serious.length > 0) found[name] = serious;
            await screenshot(page, `axe-live-${scheme}-${name.replace(/ /g, '-')}`);
          };

          recordNow();
          await page.locator('.session-item.active[data-sid="tool_heavy"] .active-label').waitFor({
            timeout: 30_000,
          });
          await check('active in the list');

          await go(page, '#/s/claude-code/tool_heavy');
          await page.waitForSelector('.status-line[data-loaded=yes]');
          await page.locator('.session-view .active-label').waitFor({ timeout: 30_000 });
          await check('active session');

          await failedChat(page);
          await check('failed chat');

          expect(found).toEqual({});
          expect(errors).toEqual([]);
          expect(await violations(page)).toEqual([]);
        } finally {
          await context.close();
        }
      },
      SLOW,
    );
  }
});
