// Keeping the chat list in order from the browser: rename a chat (the title shows in the list and
// in the chat itself), archive it (out of the list, under "Archived", and back), and delete one
// after its confirm step. Real server, real agent wire with the scripted agent, real Chromium.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildUi,
  go,
  homeEnv,
  launch,
  openPage,
  type Served,
  seriousAxeViolations,
  serve,
  tempDir,
  violations,
} from './harness.js';

const SLOW = 240_000;
const WIRE_AGENT = fileURLToPath(new URL('../../server/test/support/wire-agent.mjs', import.meta.url));

let webRoot: string;
let browser: Browser;
let served: Served;
let scratch: string;
let project: string;

beforeAll(async () => {
  [webRoot, browser] = await Promise.all([buildUi(), launch()]);
  scratch = tempDir('cairn-manage-');
  project = join(scratch, 'project');
  const cairnHome = join(scratch, 'cairn');
  mkdirSync(project, { recursive: true });
  mkdirSync(cairnHome, { recursive: true });
  writeFileSync(
    join(cairnHome, 'config.json'),
    JSON.stringify({
      agents: { wire: { name: 'Scripted agent', command: process.execPath, args: [WIRE_AGENT] } },
    }),
  );
  served = await serve(homeEnv(join(scratch, 'home')), webRoot, { cairnHome });
  await served.server.drive.wire.waitForWorkstation('local');
}, SLOW);

afterAll(async () => {
  await served?.server.close();
  await browser?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A new chat with the scripted agent, made over the API as the new-chat form would. */
async function newChat(): Promise<string> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${served.base}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${served.server.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    // biome-ignore lint/suspicious/noExplicitAny: read field by field
    return (await res.json()) as any;
  };
  for (let i = 0; i < 100 && !served.server.drive.wire.roster('local').some((b) => b.key === 'wire'); i++)
    await new Promise((r) => setTimeout(r, 50));
  const { project: p } = await post('api/projects', { path: project });
  const { session } = await post('api/sessions', { projectId: p.id, agent: 'wire' });
  return session.id as string;
}

const row = (page: Page, id: string) => page.locator(`.chat-row[data-chat="${id}"]`);
const listed = (page: Page) =>
  page.evaluate(() => [...document.querySelectorAll('.chat-row')].map((el) => el.getAttribute('data-chat')));

describe('managing chats in the browser', () => {
  it(
    'renames, archives, unarchives and deletes chats from the list',
    async () => {
      const kept = await newChat();
      const gone = await newChat();
      const { page, errors } = await openPage(browser, served);
      await go(page, '#/chat');
      await expect.poll(() => listed(page)).toEqual(expect.arrayContaining([kept, gone]));
      expect(await seriousAxeViolations(page)).toEqual([]);

      // Rename: the person's title replaces "New chat" in the list and in the chat's own header.
      await row(page, kept).getByRole('button', { name: 'Rename' }).click();
      await row(page, kept).getByRole('textbox', { name: 'Chat title' }).fill('Fix the <b>flaky</b> test');
      await row(page, kept).getByRole('button', { name: 'Save' }).click();
      await expect
        .poll(() => row(page, kept).locator('.chat-row-title').textContent())
        .toBe('Fix the <b>flaky</b> test');
      // Shown as text, never as markup.
      expect(await row(page, kept).locator('.chat-row-title b').count()).toBe(0);
      await go(page, `#/chat/${kept}`);
      await expect.poll(() => page.locator('h1').first().textContent()).toBe('Fix the <b>flaky</b> test');
      await go(page, '#/chat');

      // Archive: out of the default list, listed under "Archived", and back with Unarchive.
      await row(page, kept).getByRole('button', { name: 'Archive' }).click();
      await expect.poll(() => listed(page)).toEqual([gone]);
      await page.getByRole('button', { name: 'Archived', exact: true }).click();
      await expect.poll(() => listed(page)).toEqual([kept]);
      await row(page, kept).getByRole('button', { name: 'Unarchive' }).click();
      await expect.poll(() => listed(page)).toEqual([]);
      await page.getByRole('button', { name: 'Chats', exact: true }).click();
      await expect.poll(async () => (await listed(page)).sort()).toEqual([kept, gone].sort());

      // Delete asks first; "Keep" leaves the chat, "Delete" forgets it.
      await row(page, gone).getByRole('button', { name: 'Delete…' }).click();
      await expect
        .poll(() => row(page, gone).getByRole('alert').textContent())
        .toMatch(/agent's own session files stay/);
      await row(page, gone).getByRole('button', { name: 'Keep' }).click();
      expect((await listed(page)).sort()).toEqual([kept, gone].sort());
      await row(page, gone).getByRole('button', { name: 'Delete…' }).click();
      await row(page, gone).getByRole('button', { name: 'Delete', exact: true }).click();
      await expect.poll(() => listed(page)).toEqual([kept]);
      // Gone from the server too, not only from the page.
      await page.reload();
      await expect.poll(() => listed(page)).toEqual([kept]);

      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
    },
    SLOW,
  );
});
