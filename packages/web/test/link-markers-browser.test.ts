// Where a session's work went on, in Chromium against the real server on the corpus: a corpus Claude
// Code session forked at its second prompt and handed off at its first shows, in its own timeline, a
// divider right after each of those prompts whose link names the other session and opens it.
import { classifyTranscript, listSessions, loadTranscript } from '@cairn/transcript';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LinksStore, linksPath } from '../../server/src/storage/links-store.js';
import { corpus } from '../../transcript/test/corpus.js';
import { corpusPlatform } from '../../transcript/test/homes.js';
import { sessionHref } from '../src/route.js';
import {
  buildUi,
  corpusEnv,
  go,
  launch,
  openPage,
  type Served,
  seriousAxeViolations,
  serve,
  shownText,
  timelineLoaded,
  violations,
} from './harness.js';

const SLOW = 180_000;
// The source: a Claude Code session with two prompts. The other ends: two more corpus sessions, so
// that following a marker's link opens a session that is there.
const SOURCE = { agent: 'claude-code', sid: 'fa812bfe-b295-4cca-9c2f-fdf01028cb46' };
const FORK = { agent: 'claude-code', sid: '36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2' };
const HANDOFF = { agent: 'codex', sid: '019a085e-04c1-7f81-a09e-9555f6a1fb40' };

let webRoot: string;
let browser: Browser;
let served: Served;
let prompts: { uuid: string; text: string }[];

/** The person's prompts of a corpus session, as the transcript library reads them. */
async function promptsOf(sid: string): Promise<{ uuid: string; text: string }[]> {
  const platform = corpusPlatform();
  for await (const entry of listSessions(platform)) {
    if ('ref' in entry || entry.id !== sid) continue;
    const loaded = await loadTranscript(platform, {
      agent: entry.agent,
      path: entry.path,
      sessionId: entry.id,
    });
    if (!loaded.ok) break;
    const main = classifyTranscript(loaded.value);
    if (!main.ok) break;
    return main.value.items.flatMap((i) =>
      i.type === 'message:user:in'
        ? [{ uuid: i.uuid, text: String((i as { text?: unknown }).text ?? '') }]
        : [],
    );
  }
  throw new Error(`no corpus session ${sid}`);
}

beforeAll(async () => {
  [webRoot, browser] = await Promise.all([buildUi(), launch()]);
  served = await serve(corpusEnv(), webRoot);
  prompts = await promptsOf(SOURCE.sid);
  // Linked the way a fork and a hand-off record it, in the daemon's own links file.
  const store = new LinksStore(linksPath(served.cairnHome));
  try {
    store.add({
      kind: 'fork',
      from: SOURCE,
      to: FORK,
      at_item: prompts[1]!.uuid,
      via: 'handoff',
      created_at: Date.now(),
    });
    store.add({
      kind: 'handoff',
      from: SOURCE,
      to: HANDOFF,
      at_item: prompts[0]!.uuid,
      created_at: Date.now(),
    });
  } finally {
    store.close();
  }
}, SLOW);

afterAll(async () => {
  await served?.server.close();
  await browser?.close();
});

describe.skipIf(!corpus)("markers in the source's timeline", () => {
  it(
    'draws "forked into" and "continued in" right after the prompts they left at, linking to the other sessions',
    async () => {
      expect(prompts.length).toBeGreaterThan(1);
      const { page, context, errors } = await openPage(browser, served, 'light');
      try {
        // Opened at the second prompt, so that its rows are drawn whatever the session's length.
        await go(page, sessionHref(SOURCE.agent, SOURCE.sid, 'timeline', { uuid: prompts[1]!.uuid }));
        await timelineLoaded(page);
        // Named by what it links to: the verb, the agent, and the other session's title.
        const fork = page.getByRole('link', { name: new RegExp(`^forked into ${FORK.agent} \\S`) });
        await fork.waitFor({ timeout: 30_000 });
        expect(await fork.getAttribute('href')).toBe(sessionHref(FORK.agent, FORK.sid));

        // The row right before the marker draws the prompt it was forked at.
        const place = (sid: string) =>
          page.evaluate((other) => {
            const marker = document.querySelector(`.link-marker[data-sid="${other}"]`)?.closest('.vrow');
            const at = Number(marker?.getAttribute('data-index'));
            const before = document.querySelector(`.vrow[data-index="${at - 1}"] [data-uuid]`);
            return { at, before: before?.getAttribute('data-uuid'), type: before?.getAttribute('data-type') };
          }, sid);
        expect(await place(FORK.sid)).toMatchObject({ before: prompts[1]!.uuid, type: 'message:user:in' });

        // The hand-off, at the first prompt, has its own marker after that one.
        await go(page, sessionHref(SOURCE.agent, SOURCE.sid, 'timeline', { uuid: prompts[0]!.uuid }));
        const handoff = page.getByRole('link', { name: new RegExp(`^continued in ${HANDOFF.agent} \\S`) });
        await handoff.waitFor({ timeout: 30_000 });
        const named = await shownText(handoff.locator('q'));
        expect(await place(HANDOFF.sid)).toMatchObject({ before: prompts[0]!.uuid, type: 'message:user:in' });
        expect(await seriousAxeViolations(page)).toEqual([]);

        // Its link opens the session the work went on in.
        await handoff.click();
        await page.waitForFunction(
          (hash) => window.location.hash === hash,
          sessionHref(HANDOFF.agent, HANDOFF.sid),
          { timeout: 10_000 },
        );
        await timelineLoaded(page);
        // The marker named the session by the title its own page is headed with.
        expect(named.length).toBeGreaterThan(0);
        const heading = await shownText(page.locator('h1 .title-text'));
        expect(heading.startsWith(named.replace(/…$/, ''))).toBe(true);
        expect(await page.locator('.link-marker').count()).toBe(0);
        expect(errors).toEqual([]);
        expect(await violations(page)).toEqual([]);
      } finally {
        await context.close();
      }
    },
    SLOW,
  );
});
