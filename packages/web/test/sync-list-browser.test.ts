// Sessions synced from another machine, in the session list of a real browser: each row names its
// machine and offers neither Continue nor marks (both act on the server's own sessions); one synced
// while the page is open appears, and one gone from its machine goes, without a reload; the row and
// the session's page say when its machine is no longer connected.
import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { makeTicket } from '@cairn/server';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { buildUi, homeEnv, launch, openPage, type Served, serve, shownText, tempDir } from './harness.js';

const SLOW = 180_000;

/** A workstation's `/sync` socket, open once the server has said what it holds. */
async function syncSocket(served: Served, ticket: string) {
  const ws = new WebSocket(`ws://127.0.0.1:${served.server.port}/sync`, {
    headers: { authorization: `Bearer ${ticket}` },
  });
  const frames: Record<string, unknown>[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(data.toString()) as Record<string, unknown>));
  await expect.poll(() => frames.length).toBe(1);
  let batch = 0;
  const send = async (frame: Record<string, unknown>) => {
    batch++;
    ws.send(JSON.stringify({ ...frame, batch }));
    await expect.poll(() => frames.at(-1)).toMatchObject({ type: 'sync_ack', batch });
  };
  return { ws, send };
}

const head = (sid: string, title: string, at: number) => ({
  agent: 'claude-code',
  sid,
  path: `/home/olga/.claude/projects/-work-elsewhere/${sid}.jsonl`,
  cwd: '/work/elsewhere',
  title,
  size: 2048,
  active: false,
  last_activity_at: at,
});

describe.skipIf(!corpus)('synced sessions in the list', () => {
  let webRoot: string;
  let browser: Browser;
  let served: Served;

  beforeAll(async () => {
    [webRoot, browser] = await Promise.all([buildUi(), launch()]);
    const home = tempDir('cairn-home-');
    const env = homeEnv(home);
    const project = join(home, '.claude', 'projects', '-work-spotter');
    mkdirSync(project, { recursive: true });
    cpSync(corpusPath('claude', 'projects', '-work-spotter', 'short.jsonl'), join(project, 'short.jsonl'));
    served = await serve(env, webRoot);
  }, SLOW);

  afterAll(async () => {
    await served?.server.close();
    await browser?.close();
  });

  it(
    'marks each with its machine, offers no Continue, and follows what the machine syncs',
    async () => {
      const issued = makeTicket(served.cairnHome, 'olga-box');
      if (!issued.ok) throw new Error(issued.error.message);
      const sync = await syncSocket(served, issued.ticket);
      const now = Date.now();
      // A title as a transcript may hold it: a right-to-left override shown as its code point.
      const hostile = 'invoice\u202egnp.exe';
      await sync.send({
        type: 'sync_put',
        sessions: [{ agent: 'claude-code', sid: 'far-1', stamp: 'v1', head: head('far-1', hostile, now) }],
      });

      const { page, errors } = await openPage(browser, served);
      const far = page.locator('.session-item[data-sid="far-1"]');
      await far.waitFor();
      expect(await shownText(far.locator('.workstation-badge'))).toBe('on olga-box');
      expect(await shownText(far.locator('.session-title'))).toContain('U+202E');
      expect(await far.locator('.continue-button').count()).toBe(0);
      expect(await far.locator('.session-marks').count()).toBe(0);
      // The server's own session keeps both, and names no machine.
      const mine = page.locator('.session-item[data-sid="short"]');
      await mine.waitFor();
      expect(await mine.locator('.workstation-badge').count()).toBe(0);
      expect(await mine.locator('.session-marks').count()).toBe(1);

      // Its documents are searched with the server's own, the hit marked with the machine.
      await sync.send({
        type: 'sync_docs',
        agent: 'claude-code',
        sid: 'far-1',
        replace: true,
        low: 1,
        high: 1,
        docs: [
          {
            key: 'p1',
            item_uuid: 'far-1-p1',
            item_type: 'message:user:in',
            target: 'prompt',
            text: 'quarantine the flaky zyxwvut suite',
          },
        ],
      });
      await page.locator('input[type=search], .search-box input').first().fill('zyxwvut');
      const group = page.locator('.hit-group[data-sid="far-1"]');
      await group.waitFor();
      expect(await shownText(group.locator('.workstation-badge'))).toBe('on olga-box');
      await page.locator('input[type=search], .search-box input').first().fill('');

      // Synced while the page is open: it appears; gone from its machine: it goes.
      await sync.send({
        type: 'sync_put',
        sessions: [{ agent: 'claude-code', sid: 'far-2', stamp: 'v1', head: head('far-2', 'second', now) }],
      });
      await page.locator('.session-item[data-sid="far-2"]').waitFor();
      await sync.send({ type: 'sync_remove', sessions: [{ agent: 'claude-code', sid: 'far-1' }] });
      await far.waitFor({ state: 'detached' });
      // Opened: what its machine synced, the command that resumes it there, and no Continue, hand-off
      // or tabs, which would act on this machine.
      await page.locator('.session-item[data-sid="far-2"] a').first().click();
      const view = page.locator('.synced-session');
      await view.waitFor();
      expect(await shownText(view.locator('.synced-notice'))).toMatch(
        /^This session is on workstation olga-box,/,
      );
      expect(await shownText(view.locator('h1'))).toBe('second');
      expect(await shownText(view.locator('.workstation-badge'))).toBe('on olga-box');
      expect(await view.locator('.resume-command').count()).toBe(1);
      expect(await view.locator('.continue-button').count()).toBe(0);
      expect(await view.locator('.tabs').count()).toBe(0);
      // Its machine is connected now; once it leaves, the page and the list say so.
      await expect.poll(() => view.locator('.synced-notice').getAttribute('data-presence')).toBe('online');
      expect(await shownText(view.locator('.synced-notice'))).toMatch(
        /^This session is on workstation olga-box, online now, which syncs/,
      );
      sync.ws.close();
      await expect.poll(() => view.locator('.synced-notice').getAttribute('data-presence')).toBe('offline');
      expect(await shownText(view.locator('.synced-notice'))).toMatch(
        /^Workstation olga-box is offline \(last heard .+\)\. This is what it synced before it went;/,
      );
      expect(await shownText(view.locator('.workstation-badge'))).toBe('on olga-box · offline');
      expect(await view.locator('.workstation-badge.offline').count()).toBe(1);
      await page.goBack();
      await expect
        .poll(() => shownText(page.locator('.session-item[data-sid="far-2"] .workstation-badge')))
        .toBe('on olga-box · offline');
      expect(errors).toEqual([]);
    },
    SLOW,
  );
});
