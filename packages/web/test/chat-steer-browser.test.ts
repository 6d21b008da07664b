// A steer in a real browser: the reply cut off by it ends where it stopped, the steer's message
// stands after it, and the agent's next words follow as a reply of their own; a reload shows the
// same order. The agent is the scripted one over the real server and agent wire.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildUi, homeEnv, launch, openPage, type Served, serve, shownText, tempDir } from './harness.js';

const SLOW = 240_000;
const WIRE_AGENT = fileURLToPath(new URL('../../server/test/support/wire-agent.mjs', import.meta.url));
const STEER = 'PROMPT-STEER mind the tests';

let webRoot: string;
let browser: Browser;
let served: Served;
let scratch: string;
let project: string;

beforeAll(async () => {
  [webRoot, browser] = await Promise.all([buildUi(), launch()]);
  scratch = tempDir('cairn-steer-');
  project = join(scratch, 'project');
  const cairnHome = join(scratch, 'cairn');
  mkdirSync(project, { recursive: true });
  mkdirSync(cairnHome, { recursive: true });
  writeFileSync(
    join(cairnHome, 'config.json'),
    JSON.stringify({
      agents: {
        wire: {
          name: 'Scripted agent',
          command: process.execPath,
          args: [WIRE_AGENT],
          // Long enough (40 chunks, 150 ms apart) that the steer lands mid-reply on a busy machine.
          env: { WIRE_AGENT_CHUNKS: '40', WIRE_AGENT_DELAY_MS: '150' },
        },
      },
    }),
  );
  served = await serve(homeEnv(join(scratch, 'home')), webRoot, { cairnHome });
}, SLOW);

afterAll(async () => {
  await served?.server.close();
  await browser?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** The chat's messages in the order drawn: who, and the text shown. */
const drawn = (page: Page): Promise<{ who: string; text: string }[]> =>
  page.evaluate(() =>
    [...document.querySelectorAll('.chat-log .chat-user, .chat-log .chat-assistant')].map((el) => ({
      who: el.classList.contains('chat-user') ? 'user' : 'assistant',
      text: (
        (el.classList.contains('chat-user')
          ? el.querySelector('.prompt-text')?.textContent
          : [...el.querySelectorAll('.markdown')].map((m) => m.textContent).join(' ')) ?? ''
      )
        .replace(/\s+/g, ' ')
        .trim(),
    })),
  );

describe('steering a reply in the browser', () => {
  it(
    'keeps the cut-off part, the steer and the rest apart and in order, live and after a reload',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.getByRole('button', { name: 'New chat', exact: true }).click();
      await page.getByRole('textbox', { name: 'Project folder' }).fill(project);
      const agent = page.getByRole('combobox', { name: 'Agent' });
      await expect.poll(() => agent.locator('option[value="wire"]:not([disabled])').count()).toBe(1);
      await agent.selectOption('wire');
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      await page.waitForURL(/#\/chat\/[^/]+$/, { timeout: 120_000 });
      await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });

      const composer = page.getByRole('textbox', { name: 'Message' });
      await composer.fill('go');
      await composer.press('Enter');
      await expect
        .poll(async () => (await drawn(page)).at(-1)?.text ?? '', { timeout: 60_000 })
        .toMatch(/t1c3 /);
      await composer.fill(STEER);
      await page.getByRole('button', { name: 'Steer', exact: true }).click();
      await page.waitForSelector('.run-badge[data-busy=no]', { timeout: 120_000 });

      const live = await drawn(page);
      expect(live.map((m) => m.who)).toEqual(['user', 'assistant', 'user', 'assistant']);
      expect(live[0]!.text).toBe('go');
      expect(live[2]!.text).toBe(STEER);
      // Each chunk once: the first part from the start, the rest after the steer, none run together.
      const before = live[1]!.text.split(' ');
      const after = live[3]!.text.split(' ');
      expect(before[0]).toBe('t1c0');
      expect(after.at(-1)).toBe('t1c39');
      expect([...before, ...after]).toEqual(Array.from({ length: 40 }, (_, i) => `t1c${i}`));

      await page.reload();
      await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
      await expect.poll(() => drawn(page), { timeout: 30_000 }).toEqual(live);
      expect(errors).toEqual([]);
      expect(await shownText(page.locator('.chat-log'))).not.toMatch(/t1c\d+t1c/);
      await context.close();
    },
    SLOW,
  );
});
