// A long session in a real browser: tens of thousands of generated items before a corpus session with
// two subagents. The page holds only a window of its items, pages read around the view: its first
// and last items are reached with g and G and by scrolling while the items held stay bounded; j/k and
// ]/[ step through the prompts and failures of the whole session, counted as the server counts them;
// find says it looks in the items held and lands a hit of the whole session's search outside them; a
// link to an item of its end, or of a subagent spawned there, lands when opened cold; and being
// written, it opens on its last page and follows what is appended.
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isPromptItem } from '@cairn/protocol';
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
  inView,
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
/** A word said once, in a prompt far from the session's start, and where that prompt sits. */
const RARE_WORD = 'zebracornish';
let rareUuid: string;
let rarePosition: number;
/** The person's prompts in the session's own lane. */
let promptCount: number;

beforeAll(async () => {
  const home = tempDir('cairn-home-');
  const env = homeEnv(home);
  session = claudeSession(join(home, '.claude'), '/home/dev/spotter', SID);
  let lines = session.prompt('the first prompt of a long session');
  firstUuid = (JSON.parse(lines) as { uuid: string }).uuid;
  for (let i = 0; i < CALLS; i++) {
    if (i % 50 === 0) lines += session.prompt(`step ${i}: carry on`);
    if (i === 6000) {
      const rare = session.prompt(`a ${RARE_WORD} walked in`);
      rareUuid = (JSON.parse(rare) as { uuid: string }).uuid;
      lines += rare;
    }
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
  const main = classifyTranscript(loaded.value, {});
  if (!main.ok) throw new Error(main.error.message);
  const mainItems = main.value.items as { uuid: string; type: string; typed?: boolean }[];
  rarePosition = mainItems.findIndex((i) => i.uuid === rareUuid);
  promptCount = mainItems.filter(isPromptItem).length;
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

/** Counts, from now, the history chunks the page receives. */
const countChunks = (page: Page) =>
  page.evaluate(() => {
    const w = window as unknown as { __chunks: number; __sockets: WebSocket[] };
    w.__chunks = 0;
    for (const socket of w.__sockets)
      socket.addEventListener('message', (e) => {
        if (typeof e.data === 'string' && e.data.includes('"type":"transcript_chunk"')) w.__chunks++;
      });
  });

/** The timeline's window: the positions it holds, of how many, and how many items the page holds. */
const windowOf = (page: Page) =>
  page.evaluate(() => {
    const view = document.querySelector('.timeline-view');
    const [, from, to, total] = /^(\d+)-(\d+)\/(\d+)$/.exec(view?.getAttribute('data-window') ?? '') ?? [];
    return {
      from: Number(from),
      to: Number(to),
      total: Number(total),
      held: Number(view?.getAttribute('data-held')),
    };
  });

/** The most items the page may hold: eight pages of 500, and a page more at the live tail. */
const HELD_MAX = 4500;

describe.skipIf(!corpus)('a session of tens of thousands of items', () => {
  it(
    'holds a window of its items around the view, reaching its first and last items with g and G and by scrolling',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.locator('.session-item').first().waitFor();
      await countChunks(page);
      await go(page, `#/s/claude-code/${SID}`);
      await timelineLoaded(page);
      // "21.9K items", say: the server's count, not what the page holds.
      const [, count, thousands] = /([\d.,]+)(K?) items/.exec(await shownText(page.locator('.status-line')))!;
      expect(Number(count!.replaceAll(',', '')) * (thousands ? 1000 : 1)).toBeGreaterThan(2 * CALLS);
      const opened = await windowOf(page);
      expect(opened.total).toBeGreaterThan(2 * CALLS);
      expect(opened.held).toBeGreaterThan(0);
      expect(opened.held).toBeLessThanOrEqual(HELD_MAX);
      // No history came whole: only a page.
      expect(await page.evaluate(() => (window as unknown as { __chunks: number }).__chunks)).toBe(0);

      await page.keyboard.press('G');
      const last = `.vrow .row[data-uuid="${lastUuid}"]`;
      await page.locator(last).waitFor();
      await expect.poll(() => inView(page, last)).toBe(true);
      expect((await windowOf(page)).to).toBe(opened.total);

      await page.keyboard.press('g');
      const first = `.vrow .row[data-uuid="${firstUuid}"]`;
      await page.locator(first).waitFor();
      await expect.poll(() => inView(page, first)).toBe(true);
      const top = await windowOf(page);
      expect(top.from).toBe(0);
      expect(top.held).toBeLessThanOrEqual(HELD_MAX);

      // Wheel turns scroll the list on from the top; the rows drawn stay few, and pages are read on
      // ahead of the view.
      const box = (await page.locator('.timeline-scroll').boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      for (let i = 0; i < 40; i++) await page.mouse.wheel(0, 1200);
      await expect.poll(async () => (await windowOf(page)).to).toBeGreaterThan(top.to);
      const drawnRows = await page.locator('.vrow').count();
      expect(drawnRows).toBeGreaterThan(5);
      expect(drawnRows).toBeLessThan(200);

      // Dragged to the middle: the pages there are read, those far away dropped, and rows drawn.
      await page.locator('.timeline-scroll').evaluate((el) => {
        el.scrollTop = el.scrollHeight / 2;
      });
      await expect
        .poll(async () => {
          const w = await windowOf(page);
          return w.from > 5000 && w.to < w.total - 5000;
        })
        .toBe(true);
      // Rows, not placeholders, where the view was dropped.
      await expect
        .poll(() =>
          page.evaluate(() => {
            const s = document.querySelector('.timeline-scroll')!.getBoundingClientRect();
            return [...document.querySelectorAll('.vrow .row')].filter((row) => {
              const r = row.getBoundingClientRect();
              return r.bottom > s.top && r.top < s.bottom;
            }).length;
          }),
        )
        .toBeGreaterThan(2);
      expect((await windowOf(page)).held).toBeLessThanOrEqual(HELD_MAX);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'steps through the prompts and failures of the whole session, and counts them as the server does',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.locator('.session-item').first().waitFor();
      await go(page, `#/s/claude-code/${SID}`);
      await timelineLoaded(page);
      await expect
        .poll(() => shownText(page.locator('.toolbar-counts')))
        .toMatch(new RegExp(`^${promptCount.toLocaleString('en-US')} prompts`));
      await page.keyboard.press('g');
      await page.locator(`.vrow .row[data-uuid="${firstUuid}"]`).waitFor();
      // The first failure is near the start; the second is past the first pages.
      await page.keyboard.press(']');
      await page.locator('.row.target.failed').waitFor();
      const firstFailure = await page.locator('.row.target.failed').getAttribute('data-uuid');
      await page.keyboard.press(']');
      await expect
        .poll(() => page.locator('.row.target.failed').getAttribute('data-uuid'))
        .not.toBe(firstFailure);
      await expect.poll(() => inView(page, '.row.target.failed')).toBe(true);
      expect(await shownText(page.locator('.row.target.failed'))).toContain('echo 997');
      // k goes back to the prompt before it: "step 950".
      await page.keyboard.press('k');
      await expect.poll(() => shownText(page.locator('.row.target'))).toContain('step 950: carry on');
      expect((await windowOf(page)).held).toBeLessThanOrEqual(HELD_MAX);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'finds in the items it holds, says so, and lands a hit of the whole session outside them',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.locator('.session-item').first().waitFor();
      await go(page, `#/s/claude-code/${SID}`);
      await timelineLoaded(page);
      await page.keyboard.press('g');
      await page.locator(`.vrow .row[data-uuid="${firstUuid}"]`).waitFor();
      const before = await windowOf(page);
      expect(before.to).toBeLessThan(rarePosition);
      await page.keyboard.press('/');
      await page.locator('.find-input').fill(RARE_WORD);
      await expect.poll(() => shownText(page.locator('.find-status'))).toBe('no match');
      await expect.poll(() => shownText(page.locator('.whole-find-note'))).toMatch(/items read in/);
      // The index may still be reading the session when asked first.
      await expect
        .poll(
          async () => {
            await page.locator('.whole-find-search').click();
            await page.locator('.whole-find [role=status]').waitFor();
            return page.locator('.whole-find-hit').count();
          },
          { timeout: 60_000 },
        )
        .toBe(1);
      await page.locator('.whole-find-hit').click();
      const hit = `.row.target[data-uuid="${rareUuid}"]`;
      await page.locator(hit).waitFor({ timeout: 30_000 });
      await expect.poll(() => inView(page, hit)).toBe(true);
      const after = await windowOf(page);
      expect(after.from).toBeLessThanOrEqual(rarePosition);
      expect(after.to).toBeGreaterThan(rarePosition);
      expect(after.held).toBeLessThanOrEqual(HELD_MAX);
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
  // Last: it adds prompts to the session.
  it(
    'being written, opens on its last page, follows its end as it grows, and keeps its window bounded',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.locator('.session-item').first().waitFor();
      const written = session.prompt('a prompt written just before the reader opens');
      const writtenUuid = (JSON.parse(written) as { uuid: string }).uuid;
      session.append(written);
      // The list shows the session as being written.
      await page.locator(`.session-item.active[data-sid="${SID}"]`).waitFor({ timeout: 20_000 });
      await go(page, `#/s/claude-code/${SID}`);
      await timelineLoaded(page);
      const row = (uuid: string) => `.vrow .row[data-uuid="${uuid}"]`;
      await page.locator(row(writtenUuid)).waitFor();
      await expect.poll(() => inView(page, row(writtenUuid))).toBe(true);
      expect(await page.locator('button.follow').getAttribute('aria-pressed')).toBe('true');
      const opened = await windowOf(page);
      expect(opened.to).toBe(opened.total);

      // What the agent appends shows at the end, in view, and counts.
      let lines = '';
      const uuids: string[] = [];
      for (let i = 0; i < 3; i++) {
        const line = session.prompt(`a prompt appended while the reader follows, ${i}`);
        uuids.push((JSON.parse(line) as { uuid: string }).uuid);
        lines += line;
      }
      session.append(lines);
      await page.locator(row(uuids[2]!)).waitFor({ timeout: 20_000 });
      await expect.poll(() => inView(page, row(uuids[2]!))).toBe(true);
      const grown = await windowOf(page);
      expect(grown.total).toBe(opened.total + 3);
      expect(grown.to).toBe(grown.total);
      expect(grown.held).toBeLessThanOrEqual(HELD_MAX);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
