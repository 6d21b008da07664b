// A long session in a real browser: tens of thousands of generated items before a corpus session with
// two subagents, so that the subagents' spawns arrive in the history's last chunks. The history is
// drawn a few times as it comes in, not once per chunk; its first and last items are reached by
// scrolling while the list keeps only the rows in view in the page; opened again, its first rows are
// painted while the history still streams, and a link to its end paints that page first and keeps it
// in place when the history arrives; and a link to an item of the session's end, or of a subagent
// spawned there, lands on it when opened cold.
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
let session: ReturnType<typeof claudeSession>;

beforeAll(async () => {
  const home = tempDir('cairn-home-');
  const env = homeEnv(home);
  session = claudeSession(join(home, '.claude'), '/home/dev/spotter', SID);
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

/** One painted frame, as the page's rows were when it was drawn. */
interface Frame {
  /** The status line's `data-loaded`: whether the whole history was in. */
  loaded: string;
  rows: number;
  /** The top of the row of `uuid` against the scroller's top, or null when it is not drawn. */
  targetTop: number | null;
}

/** Records, from now until the whole history is in, each frame the page paints. */
const recordFrames = (page: Page, uuid: string) =>
  page.evaluate((u) => {
    const w = window as unknown as { __frames: Frame[] };
    w.__frames = [];
    const sample = () => {
      const scroller = document.querySelector('.timeline-scroll');
      const row = document.querySelector(`.vrow .row[data-uuid="${u}"]`);
      const loaded = document.querySelector('.status-line')?.getAttribute('data-loaded') ?? '';
      w.__frames.push({
        loaded,
        rows: document.querySelectorAll('.vrow .row').length,
        targetTop:
          row && scroller ? row.getBoundingClientRect().top - scroller.getBoundingClientRect().top : null,
      });
      // A few frames past the history's arrival, for the swap to be painted.
      if (w.__frames.filter((f) => f.loaded === 'yes').length < 30) requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
  }, uuid);

const framesOf = (page: Page): Promise<Frame[]> =>
  page.evaluate(() => (window as unknown as { __frames: Frame[] }).__frames);

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
    'opened again, paints its first rows, or the page a link names, before its history is in, and keeps that page in place once it is',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.locator('.session-item').first().waitFor();
      // Read once, so that the daemon holds the session and streams its history at once.
      await go(page, `#/s/claude-code/${SID}`);
      await timelineLoaded(page);
      await go(page, '#/');
      await page.locator('.session-item').first().waitFor();

      await recordFrames(page, firstUuid);
      await go(page, `#/s/claude-code/${SID}`);
      await timelineLoaded(page);
      await expect.poll(async () => (await framesOf(page)).filter((f) => f.loaded === 'yes').length).toBe(30);
      const fromStart = await framesOf(page);
      const firstPainted = fromStart.findIndex((f) => f.rows > 0);
      // The first rows were painted while the history was still streaming, and rows stayed on screen
      // from then on: the page never went empty as the rest came in.
      expect(fromStart[firstPainted]?.loaded).toBe('no');
      expect(fromStart[firstPainted]?.targetTop).not.toBeNull();
      expect(fromStart.slice(firstPainted).every((f) => f.rows > 0)).toBe(true);
      await go(page, '#/');
      await page.locator('.session-item').first().waitFor();

      // A link to the session's last prompt: its page is read and painted first, with the linked row
      // at the top, while the history streams from the start; then the history takes the page's place
      // and the row stays where it was.
      await recordFrames(page, lastUuid);
      const marks = () =>
        page.evaluate(() => ({
          page: performance.getEntriesByName('cairn:opening-page').length,
          drawn: performance.getEntriesByName('cairn:history-drawn').length,
        }));
      const before = await marks();
      await go(page, `#/s/claude-code/${SID}?item=${lastUuid}&type=message%3Auser%3Ain`);
      await timelineLoaded(page);
      await expect.poll(async () => (await framesOf(page)).filter((f) => f.loaded === 'yes').length).toBe(30);
      const after = await marks();
      expect(after.page).toBe(before.page + 1);
      const linked = await framesOf(page);
      const height = await page.locator('.timeline-scroll').evaluate((el) => el.clientHeight);
      const inView = (f: Frame) => f.targetTop !== null && f.targetTop > -10 && f.targetTop < height;
      // Shown while the history was still to come; from the last frame before it came, the linked row
      // stayed where it was: no frame drew the history's start, or an empty list, in between.
      const arrived = linked.findIndex((f) => f.loaded === 'yes');
      expect(linked.slice(0, arrived).some(inView)).toBe(true);
      const lastBefore = linked[arrived - 1]!;
      expect(inView(lastBefore)).toBe(true);
      for (const f of linked.slice(arrived)) {
        expect(inView(f)).toBe(true);
        expect(Math.abs(f.targetTop! - lastBefore.targetTop!)).toBeLessThan(40);
      }
      expect(await page.locator(`.row.target[data-uuid="${lastUuid}"]`).count()).toBe(1);
      // The whole session is there around it: its first item is reached from it.
      await page.keyboard.press('g');
      await page.locator(`.vrow .row[data-uuid="${firstUuid}"]`).waitFor();
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
  // Last: it adds a prompt to the session.
  it(
    'being written, opens on its last page while the history streams, and keeps following its end once it is in',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.locator('.session-item').first().waitFor();
      const written = session.prompt('a prompt written just before the reader opens');
      const writtenUuid = (JSON.parse(written) as { uuid: string }).uuid;
      session.append(written);
      // The list shows the session as being written.
      await page.locator(`.session-item.active[data-sid="${SID}"]`).waitFor({ timeout: 20_000 });
      await recordFrames(page, writtenUuid);
      const pages = () => page.evaluate(() => performance.getEntriesByName('cairn:opening-page').length);
      const before = await pages();
      await go(page, `#/s/claude-code/${SID}`);
      await timelineLoaded(page);
      await expect.poll(async () => (await framesOf(page)).filter((f) => f.loaded === 'yes').length).toBe(30);
      expect(await pages()).toBe(before + 1);
      const frames = await framesOf(page);
      const height = await page.locator('.timeline-scroll').evaluate((el) => el.clientHeight);
      const inView = (f: Frame) => f.targetTop !== null && f.targetTop > -10 && f.targetTop < height;
      // The newest prompt was on screen before the history was in, and stayed there as it came.
      const arrived = frames.findIndex((f) => f.loaded === 'yes');
      expect(frames.slice(0, arrived).some(inView)).toBe(true);
      for (const f of frames.slice(arrived)) expect(inView(f)).toBe(true);
      expect(await page.locator('button.follow').getAttribute('aria-pressed')).toBe('true');
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
