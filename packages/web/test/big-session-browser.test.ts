// A long session in a real browser: tens of thousands of generated items before a corpus session with
// two subagents, so that the subagents' spawns arrive in the history's last chunks. The history is
// drawn a few times as it comes in, not once per chunk; its first and last items are reached by
// scrolling while the list keeps only the rows in view in the page; and a link to an item of the
// session's end, or of a subagent spawned there, lands on it when opened cold.
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyTranscript, loadTranscript } from '@cairn/transcript';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { corpusPlatform } from '../../transcript/test/homes.js';
import { claudeSession } from './claude-session.js';
import {
  buildUi,
  go,
  homeEnv,
  launch,
  openPage,
  type Served,
  serve,
  shownText,
  tempDir,
  timelineLoaded,
} from './harness.js';

const SLOW = 240_000;
const CORPUS_PROJECT = '-work-spotter';
/** 3.3 MB of Claude Code with two subagents. */
const SID = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
const LANE = 'aa84377';
/** Generated tool calls before the corpus session's own records: two items each. */
const CALLS = 10_000;

let browser: Browser;
let served: Served;
let firstUuid: string;
let lastUuid: string;
let laneUuid: string;
let laneType: string;

beforeAll(async () => {
  const home = tempDir('cairn-home-');
  const env = homeEnv(home);
  const session = claudeSession(join(home, '.claude'), '/home/dev/spotter', SID);
  let lines = session.prompt('the first prompt of a long session');
  firstUuid = (JSON.parse(lines) as { uuid: string }).uuid;
  for (let i = 0; i < CALLS; i++) {
    if (i % 50 === 0) lines += session.prompt(`step ${i}: carry on`);
    lines += session.bash(`echo ${i}`, `${i}\n`, { error: i % 997 === 0 });
  }
  session.append(lines);
  // The corpus session's records, then its subagents' files beside the session's file.
  const source = corpusPath('claude', 'projects', CORPUS_PROJECT, `${SID}.jsonl`);
  session.append(readFileSync(source, 'utf8'));
  cpSync(corpusPath('claude', 'projects', CORPUS_PROJECT, SID), join(session.path, '..', SID), {
    recursive: true,
  });
  const last = session.prompt('the last prompt of a long session');
  lastUuid = (JSON.parse(last) as { uuid: string }).uuid;
  session.append(last);

  // An item late in a subagent's lane, as a search hit would name it.
  const loaded = await loadTranscript(corpusPlatform(), { path: session.path, agent: 'claude-code' });
  if (!loaded.ok) throw new Error(loaded.error.message);
  const lane = classifyTranscript(loaded.value, { agentId: LANE });
  if (!lane.ok) throw new Error(lane.error.message);
  const laneItems = lane.value.items as { uuid: string; type: string; role?: string }[];
  const target = laneItems.filter((i) => i.type.startsWith('tool:') && i.role === 'use').at(-1)!;
  laneUuid = target.uuid;
  laneType = target.type;

  let webRoot: string;
  [webRoot, browser] = await Promise.all([buildUi(), launch()]);
  served = await serve(env, webRoot);
}, SLOW);

afterAll(async () => {
  await served?.server.close();
  await browser?.close();
});

/** Counts, from now, the history chunks the page receives and how many times it draws part of them. */
const countRedraws = (page: Page) =>
  page.evaluate(() => {
    const w = window as unknown as { __redraws: number; __chunks: number; __sockets: WebSocket[] };
    w.__redraws = 0;
    w.__chunks = 0;
    new PerformanceObserver((list) => {
      w.__redraws += list.getEntriesByName('cairn:history-drawn').length;
    }).observe({ type: 'mark' });
    for (const socket of w.__sockets)
      socket.addEventListener('message', (e) => {
        if (typeof e.data === 'string' && e.data.includes('"type":"transcript_chunk"')) w.__chunks++;
      });
  });

/** Whether the row is on screen, inside the timeline's scroller. */
const inView = (page: Page, selector: string) =>
  page.evaluate((sel) => {
    const row = document.querySelector(sel);
    const scroller = document.querySelector('.timeline-scroll');
    if (!row || !scroller) return false;
    const r = row.getBoundingClientRect();
    const s = scroller.getBoundingClientRect();
    return r.top >= s.top - 1 && r.top < s.bottom;
  }, selector);

describe.skipIf(!corpus)('a session of tens of thousands of items', () => {
  it(
    'draws its history a few times, reaches its first and last items, and keeps only the rows in view',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.locator('.session-item').first().waitFor();
      await countRedraws(page);
      await go(page, `#/s/claude-code/${SID}`);
      await timelineLoaded(page);
      // "21.9K items", say.
      const [, count, thousands] = /([\d.,]+)(K?) items/.exec(await shownText(page.locator('.status-line')))!;
      expect(Number(count!.replaceAll(',', '')) * (thousands ? 1000 : 1)).toBeGreaterThan(2 * CALLS);
      // Drawn as it came, but in fewer redraws than chunks: more items wait for each redraw as more
      // are drawn.
      const { redraws, chunks } = await page.evaluate(() => {
        const w = window as unknown as { __redraws: number; __chunks: number };
        return { redraws: w.__redraws, chunks: w.__chunks };
      });
      expect(chunks).toBeGreaterThan(10);
      expect(redraws).toBeGreaterThan(1);
      expect(redraws).toBeLessThan(chunks * 0.7);

      await page.keyboard.press('g');
      await page.locator(`.vrow .row[data-uuid="${firstUuid}"]`).waitFor();
      expect(await inView(page, `.vrow .row[data-uuid="${firstUuid}"]`)).toBe(true);
      // Wheel turns scroll the list on from the top; the rows drawn stay few.
      const box = (await page.locator('.timeline-scroll').boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      for (let i = 0; i < 20; i++) await page.mouse.wheel(0, 600);
      await page.waitForTimeout(200);
      const drawnRows = await page.locator('.vrow').count();
      expect(drawnRows).toBeGreaterThan(5);
      expect(drawnRows).toBeLessThan(200);

      await page.keyboard.press('G');
      const last = `.vrow .row[data-uuid="${lastUuid}"]`;
      await page.locator(last).waitFor();
      await expect.poll(() => inView(page, last)).toBe(true);
      expect(await page.locator('.vrow').count()).toBeLessThan(200);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    "lands, opened cold, on the session's last item and on an item of a subagent spawned at its end",
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.locator('.session-item').first().waitFor();
      await go(page, `#/s/claude-code/${SID}?item=${lastUuid}&type=message%3Auser%3Ain`);
      const lastRow = `.row.target[data-uuid="${lastUuid}"]`;
      await page.locator(lastRow).waitFor({ timeout: 60_000 });
      await expect.poll(() => inView(page, lastRow)).toBe(true);
      await context.close();

      const cold = await openPage(browser, served);
      await cold.page.locator('.session-item').first().waitFor();
      await go(
        cold.page,
        `#/s/claude-code/${SID}?item=${encodeURIComponent(laneUuid)}&type=${encodeURIComponent(laneType)}&lane=${LANE}`,
      );
      const laneRow = `.row.target[data-uuid="${laneUuid}"][data-lane="${LANE}"]`;
      await cold.page.locator(laneRow).waitFor({ timeout: 60_000 });
      await expect.poll(() => inView(cold.page, laneRow)).toBe(true);
      expect(await cold.page.locator('.notice-bar').count()).toBe(0);
      expect(errors).toEqual([]);
      expect(cold.errors).toEqual([]);
      await cold.context.close();
    },
    SLOW,
  );
});
