// The web UI in a real browser against the real server: the corpus sessions listed, a session read
// with its tool calls paired and a subagent lane opened in place, search landing on the exact item,
// a dump written, hostile transcript text shown as text, a live tail, and a long session virtualized.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { listSessions, type SessionHead, summarizeSession } from '@cairn/transcript';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { corpusPlatform } from '../../transcript/test/homes.js';
import { claudeSession } from './claude-session.js';
import {
  buildUi,
  corpusEnv,
  dropConnection,
  go,
  homeEnv,
  launch,
  openPage,
  openToggle,
  recordTiming,
  type Scheme,
  type Served,
  screenshot,
  serve,
  shownText,
  tempDir,
  timelineLoaded,
  violations,
} from './harness.js';

const SLOW = 180_000;

let webRoot: string;
let browser: Browser;

beforeAll(async () => {
  [webRoot, browser] = await Promise.all([buildUi(), launch()]);
}, SLOW);

afterAll(async () => {
  await browser?.close();
});

/** One op asked from inside the page, over a socket of its own (the token the page keeps logs it in). */
async function ask(page: Page, op: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  return await page.evaluate(
    async ([op, args]) => {
      const url = new URL('ws', window.location.href);
      url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
      const ws = new WebSocket(url.href, ['cairn', `cairn.token.${localStorage.getItem('cairn.token')}`]);
      await new Promise((resolve, reject) => {
        ws.onopen = resolve;
        ws.onerror = reject;
      });
      let n = 0;
      const call = (body: object) =>
        new Promise<Record<string, unknown>>((resolve) => {
          const request_id = `t${++n}`;
          const onMessage = (e: MessageEvent) => {
            const f = JSON.parse(e.data as string) as Record<string, unknown>;
            if (f.request_id !== request_id) return;
            ws.removeEventListener('message', onMessage);
            resolve(f);
          };
          ws.addEventListener('message', onMessage);
          ws.send(JSON.stringify({ request_id, ...body }));
        });
      await call({ op: 'hello', role: 'user', protocol_version: 1 });
      const reply = await call({ op, ...(args as object) });
      ws.close();
      return reply;
    },
    [op, args] as const,
  );
}

async function bothSchemes(
  served: Served,
  name: string,
  hash: string,
  ready: (page: Page) => Promise<unknown>,
): Promise<void> {
  for (const scheme of ['light', 'dark'] as Scheme[]) {
    const { page, context } = await openPage(browser, served, scheme);
    await go(page, hash);
    await ready(page);
    await screenshot(page, `${name}-${scheme}`);
    await context.close();
  }
}

describe.skipIf(!corpus)('the web UI over the corpus', () => {
  let served: Served;
  let heads: SessionHead[];

  beforeAll(async () => {
    heads = [];
    for await (const entry of listSessions(corpusPlatform())) if (!('ref' in entry)) heads.push(entry);
    served = await serve(corpusEnv(), webRoot);
  }, SLOW);

  afterAll(async () => {
    await served?.server.close();
  });

  it(
    'lists every corpus session, grouped by project, and filters by agent',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.waitForSelector('.session-item');
      const shown = await page.$$eval('.session-item', (els) => els.map((e) => e.getAttribute('data-sid')));
      expect(new Set(shown)).toEqual(new Set(heads.map((h) => h.id)));
      const projects = await page.$$eval('.project h2', (els) => els.length);
      expect(projects).toBe(new Set(heads.map((h) => h.cwd ?? '')).size);
      // Newest activity first: each project's first session is no older than the next project's.
      await page.click('.filters a:text-is("codex")');
      await page.waitForFunction(
        (n) => document.querySelectorAll('.session-item').length === n,
        heads.filter((h) => h.agent === 'codex').length,
      );
      const agents = await page.$$eval('.session-item .agent-badge', (els) => els.map((e) => e.textContent));
      expect(new Set(agents)).toEqual(new Set(['codex']));
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
      await bothSchemes(served, 'sessions', '#/', (p) => p.waitForSelector('.session-item'));
    },
    SLOW,
  );

  it(
    'shows a session with a tool call paired with its result and a subagent lane opened in place',
    async () => {
      const head = heads.find(
        (h) => h.agent === 'claude-code' && h.files.some((f) => /subagents\/agent-a(?!compact)/.test(f)),
      );
      expect(head).toBeDefined();
      const { page, context, errors } = await openPage(browser, served);
      await go(page, `#/s/claude-code/${head!.id}`);
      await timelineLoaded(page);

      // A Bash call the server paired with its result, found through the server's own items.
      const read = await ask(page, 'transcript_items_read', {
        sid: head!.id,
        agent: 'claude-code',
        types: ['tool:Bash'],
        limit: 500,
      });
      const items = read.items as Record<string, unknown>[];
      const call = items.find((i) => i.role === 'use' && typeof i.result_item === 'string');
      const result = items.find((i) => i.role === 'result' && i.tool_use_id === call?.tool_use_id);
      expect(call && result).toBeTruthy();
      // The call's URL lands on it; its result is drawn in the same row.
      await go(
        page,
        `#/s/claude-code/${head!.id}?item=${encodeURIComponent(call!.uuid as string)}&type=tool%3ABash`,
      );
      const row = page.locator(`.row.target[data-uuid="${call!.uuid as string}"][data-type="tool:Bash"]`);
      await row.waitFor();
      expect(await row.locator('.badge.tool').getAttribute('class')).not.toContain('status-pending');
      const body = await shownText(row.locator('.fold-body'));
      expect(body).toContain(`$ ${call!.command as string}`);
      const output = ((result!.stdout ?? result!.stderr ?? '') as string).trim();
      if (output !== '') expect(body).toContain(output.split('\n')[0]!.slice(0, 60));

      // A subagent's spawn opens its lane below it, starting with the brief it was given.
      const subs = await ask(page, 'transcript_items_read', {
        sid: head!.id,
        agent: 'claude-code',
        types: ['message:sub:out'],
      });
      const spawnItem = (subs.items as Record<string, unknown>[]).find(
        (i) => typeof i.agent_id === 'string',
      )!;
      const laneId = spawnItem.agent_id as string;
      await go(
        page,
        `#/s/claude-code/${head!.id}?item=${encodeURIComponent(spawnItem.uuid as string)}&type=message%3Asub%3Aout`,
      );
      const spawn = page.locator(`.row.target[data-uuid="${spawnItem.uuid as string}"]`);
      await spawn.waitFor();
      await spawn.locator('.fold-toggle:has-text("brief")').click();
      const brief = (await shownText(spawn.locator('.fold-body').first())).trim();
      expect(brief).toBe((spawnItem.prompt as string).trim());
      await openToggle(spawn.locator('.lane-toggle'));
      const laneStart = page.locator(`.lane-start[data-lane="${laneId}"]`);
      await laneStart.waitFor();
      await expect.poll(() => shownText(laneStart)).toMatch(/\d+ items/);
      const firstInLane = page.locator(`.row.item[data-lane="${laneId}"]`).first();
      await firstInLane.waitFor();
      expect((await shownText(firstInLane)).replace(/\s+/g, ' ')).toContain(
        brief.replace(/\s+/g, ' ').slice(0, 80),
      );
      // Closing the lane takes its rows away again.
      await spawn.locator('.lane-toggle').click();
      await expect.poll(() => page.locator(`.row.item[data-lane="${laneId}"]`).count()).toBe(0);
      await spawn.locator('.lane-toggle').click();
      await laneStart.waitFor();
      await screenshot(page, 'session-lane-light');
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
      await bothSchemes(served, 'session', `#/s/claude-code/${head!.id}`, timelineLoaded);
    },
    SLOW,
  );

  it(
    'finds a word with search and its link lands on the item',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.waitForSelector('.session-item');
      await page.fill('input[type=search]', 'phoenix');
      await page.waitForSelector('.hit');
      expect(page.url()).toContain('q=phoenix');
      const marks = await page.$$eval('.hit mark', (els) => els.map((e) => e.textContent?.toLowerCase()));
      expect(marks.length).toBeGreaterThan(0);
      expect(marks.every((m) => m?.includes('phoenix'))).toBe(true);
      await screenshot(page, 'search-light');
      const href = (await page.locator('.hit a').first().getAttribute('href'))!;
      expect(href).toMatch(/^#\/s\/[a-z-]+\/[^?]+\?item=/);
      await page.locator('.hit a').first().click();
      const target = page.locator('.row.target');
      await target.waitFor({ timeout: 60_000 });
      await expect.poll(() => target.isVisible()).toBe(true);
      await expect.poll(async () => (await shownText(target)).toLowerCase()).toContain('phoenix');
      const box = await target.boundingBox();
      expect(box && box.y >= 0 && box.y < 860).toBe(true);
      await screenshot(page, 'search-landed-light');
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
      await bothSchemes(served, 'search', '#/?q=phoenix', (p) => p.waitForSelector('.hit'));
    },
    SLOW,
  );

  it(
    'writes a dump with the counts it showed, and serves it as JSON and Markdown',
    async () => {
      const head = heads.find((h) => h.agent === 'claude-code' && h.files.length > 1) ?? heads[0]!;
      const { page, context, errors } = await openPage(browser, served);
      await go(page, `#/s/${head.agent}/${head.id}/dump`);
      await page.waitForSelector('.dump-form .family');
      await page.check('input[name=preset][value=howto]');
      // Leave out one type the preset keeps, and watch the count follow.
      const before = Number(await page.getAttribute('.selected', 'data-count'));
      const kept = page.locator('.types input[type=checkbox][data-type]:checked').first();
      const dropped = (await kept.getAttribute('data-type'))!;
      const droppedCount = Number(
        (await shownText(page.locator(`label:has(input[data-type="${dropped}"]) .count`))).replace(/,/g, ''),
      );
      await kept.uncheck();
      await expect
        .poll(async () => Number(await page.getAttribute('.selected', 'data-count')))
        .toBe(before - droppedCount);
      const selected = before - droppedCount;
      expect(selected).toBeGreaterThan(0);

      await page.click('button:has-text("Write dump")');
      await page.waitForSelector('.written');
      const name = (await page.getAttribute('.written', 'data-dump'))!;
      const file = join(served.cairnHome, 'dumps', name);
      expect(existsSync(file)).toBe(true);
      const dump = JSON.parse(readFileSync(file, 'utf8')) as { items: { type: string }[]; types: string[] };
      expect(dump.items.length).toBe(selected);
      expect(dump.items.some((i) => i.type === dropped)).toBe(false);
      expect(dump.types).toContain(`-${dropped}`);

      const authorization = { authorization: `Bearer ${served.server.token}` };
      const json = await page.request.get(
        new URL((await page.getAttribute('a:has-text("Download JSON")', 'href'))!, served.base).href,
        { headers: authorization },
      );
      expect(json.headers()['content-disposition']).toContain('attachment');
      expect((JSON.parse(await json.text()) as { items: unknown[] }).items.length).toBe(selected);
      const md = await page.request.get(
        new URL((await page.getAttribute('a:has-text("Download Markdown")', 'href'))!, served.base).href,
        { headers: authorization },
      );
      expect(md.ok()).toBe(true);
      expect(await md.text()).toMatch(/^#/);
      // The button itself fetches with the token the page keeps and hands the file over.
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.click('a:has-text("Download Markdown")'),
      ]);
      expect(download.suggestedFilename()).toBe(name.replace(/\.json$/, '.md'));
      expect(readFileSync((await download.path())!, 'utf8')).toMatch(/^#/);
      await screenshot(page, 'dump-written-light');
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
      await bothSchemes(served, 'dump', `#/s/${head.agent}/${head.id}/dump`, (p) =>
        p.waitForSelector('.dump-form .family'),
      );
      await bothSchemes(served, 'summary', `#/s/${head.agent}/${head.id}/summary`, (p) =>
        p.waitForSelector('.cards'),
      );
    },
    SLOW,
  );

  it(
    'shows the library’s numbers for a session and marks its compactions on the context plot',
    async () => {
      const head = heads.find((h) => h.agent === 'claude-code' && h.files.length > 1)!;
      const summary = await summarizeSession(corpusPlatform(), {
        agent: head.agent,
        path: head.path,
        sessionId: head.id,
      });
      expect(summary.ok).toBe(true);
      const s = summary.ok ? summary.value : {};
      const { page, context, errors } = await openPage(browser, served);
      await go(page, `#/s/${head.agent}/${head.id}/summary`);
      await page.waitForSelector('.cards');
      const card = (label: string) => shownText(page.locator(`.card[data-number="${label}"] dd`).first());
      expect(await card('Turns')).toBe(String(s.turns));
      expect((await card('Requests')).replace(/,/g, '')).toBe(String(s.requests));
      expect(await card('Compactions')).toBe(String(s.compactions));
      expect(await card('Subagents')).toBe(String(s.subagents));
      expect(s.compactions).toBeGreaterThan(0);
      expect(await page.locator('.compaction-mark').count()).toBe(s.compactions);
      expect(await page.locator('.context-plot path.line').count()).toBe(1);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'opens the largest corpus session quickly (time to first screen is recorded)',
    async () => {
      const largest = [...heads].sort((a, b) => b.size - a.size)[0]!;
      const { page, context } = await openPage(browser, served);
      await page.waitForSelector('.session-item');
      const started = Date.now();
      await page.click(`.session-item[data-sid="${largest.id}"] a`);
      await page.waitForSelector('.vrow .row');
      const firstScreen = Date.now() - started;
      await timelineLoaded(page);
      const loaded = Date.now() - started;
      const items = await shownText(page.locator('.status-line'));
      recordTiming('largestCorpusSession', {
        session: largest.id,
        bytes: largest.size,
        items,
        firstScreenMs: firstScreen,
        allItemsMs: loaded,
      });
      console.log(
        `largest corpus session: first screen ${firstScreen} ms, all items ${loaded} ms (${items})`,
      );
      expect(await page.locator('.vrow').count()).toBeGreaterThan(0);
      await context.close();
    },
    SLOW,
  );
});

describe('the web UI over hand-made sessions', () => {
  let served: Served;
  let home: string;
  let env: Record<string, string>;
  let live: ReturnType<typeof claudeSession>;
  const hostile = {
    prompt:
      'Please render <script>alert("prompt")</script> and <img src=x onerror="alert(\'prompt\')"> for me',
    reply:
      'Here it is: <script>alert("reply")</script> <img src=x onerror="alert(\'reply\')"> and [a link](javascript:alert(1)) **done**',
    command: 'echo "<img src=x onerror=alert(3)>"',
    output: '<script>alert(4)</script><img src=x onerror=alert(5)>',
  };

  beforeAll(async () => {
    home = tempDir('cairn-home-');
    env = homeEnv(home);
    const xss = claudeSession(
      env.CLAUDE_CONFIG_DIR!,
      '/home/dev/hostile',
      '11111111-1111-4111-8111-111111111111',
    );
    xss.append(
      xss.prompt(hostile.prompt) + xss.say(hostile.reply) + xss.bash(hostile.command, hostile.output),
    );
    live = claudeSession(env.CLAUDE_CONFIG_DIR!, '/home/dev/live', '22222222-2222-4222-8222-222222222222');
    live.append(live.prompt('first prompt of the live session') + live.say('first answer'));
    // 20,000 items: four records (and items) per turn.
    const big = claudeSession(
      env.CLAUDE_CONFIG_DIR!,
      '/home/dev/big',
      '33333333-3333-4333-8333-333333333333',
    );
    const turns: string[] = [];
    for (let t = 0; t < 5000; t++) {
      turns.push(big.prompt(`prompt number ${t}`) + big.say(`answer number ${t} with *some* markdown`));
      turns.push(big.bash(`ls step-${t}`, `file-${t}.txt`, { error: t % 500 === 7 }));
    }
    big.append(turns.join(''));
    served = await serve(env, webRoot);
  }, SLOW);

  afterAll(async () => {
    await served?.server.close();
  });

  it(
    'shows <script> and <img onerror> from a transcript as text and runs nothing',
    async () => {
      const { page, context, dialogs, errors } = await openPage(browser, served);
      await page.waitForSelector('.session-item');
      // The listing shows the first prompt as the title, as text.
      expect(
        await shownText(page.locator('.session-item[data-sid="11111111-1111-4111-8111-111111111111"]')),
      ).toContain('<script>alert("prompt")</script>');
      await go(page, '#/s/claude-code/11111111-1111-4111-8111-111111111111');
      await timelineLoaded(page);
      await page.locator('.fold-toggle:has(.badge.tool)').first().click();
      const text = await shownText(page.locator('.timeline-scroll'));
      expect(text).toContain('<script>alert("prompt")</script>');
      expect(text).toContain(`<img src=x onerror="alert('prompt')">`);
      expect(text).toContain('<script>alert("reply")</script>');
      expect(text).toContain(hostile.command);
      expect(text).toContain(hostile.output);
      // Nothing of it became an element, ran, or was even attempted.
      expect(
        await page
          .locator('.timeline-scroll script, .timeline-scroll img, .timeline-scroll [onerror]')
          .count(),
      ).toBe(0);
      expect(await page.locator('.markdown a[href^="javascript"]').count()).toBe(0);
      await go(page, '#/?q=script');
      await page.waitForSelector('.hit, .search-results .summary-line');
      await page.waitForTimeout(500);
      expect(await page.locator('.search-results img, .search-results script').count()).toBe(0);
      expect(dialogs).toEqual([]);
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await go(page, '#/s/claude-code/11111111-1111-4111-8111-111111111111');
      await timelineLoaded(page);
      await screenshot(page, 'hostile-text-light');
      await context.close();
    },
    SLOW,
  );

  it(
    'follows a live session as records are appended, and stops following when scrolled up',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await go(page, '#/s/claude-code/22222222-2222-4222-8222-222222222222');
      await timelineLoaded(page);
      // Following is turned on with `f` just before the records come, as a person would.
      const followByKey = async () => {
        if (await page.locator('.follow.on').count()) {
          await page.keyboard.press('f');
          await page.waitForSelector('.follow:not(.on)');
        }
        await page.keyboard.press('f');
        await page.waitForSelector('.follow.on');
      };
      await followByKey();
      for (let i = 0; i < 30; i++)
        live.append(live.prompt(`appended prompt ${i}`) + live.say(`appended answer ${i}`));
      const last = page.locator('.row:has-text("appended answer 29")');
      await last.waitFor({ timeout: 60_000 });
      await expect.poll(() => last.isVisible()).toBe(true);
      // The moves the page makes itself in the next second (as the rows drawn are measured) are
      // not taken for the person's: following stays on.
      expect(await page.locator('.follow.on').count()).toBe(1);
      await followByKey();
      await page.waitForTimeout(150);
      await page.evaluate(() => {
        const list = document.querySelector('.timeline-scroll') as HTMLElement;
        list.scrollTop -= 300;
      });
      await page.waitForTimeout(300);
      expect(await page.locator('.follow.on').count()).toBe(1);
      // Scrolling up by hand stops following; what arrives then is counted, not jumped to.
      await page.mouse.move(640, 500);
      await page.mouse.wheel(0, -3000);
      await page.waitForSelector('.follow:not(.on)');
      live.append(live.prompt('one more prompt') + live.say('one more answer'));
      await page.waitForSelector('.unseen');
      expect(await shownText(page.locator('.unseen'))).toMatch(/new/);
      await page.click('.unseen');
      await page.locator('.row:has-text("one more answer")').waitFor();

      // A dropped connection resumes after the last frame seen: what was appended meanwhile arrives
      // once, nothing twice.
      await dropConnection(page);
      await page.waitForSelector('.conn-closed, .conn-connecting');
      for (let i = 0; i < 3; i++)
        live.append(live.prompt(`while away ${i}`) + live.say(`answer while away ${i}`));
      await page.waitForSelector('.conn-open');
      const lastAway = page.locator('.row:has-text("answer while away 2")');
      await lastAway.waitFor({ timeout: 60_000 });
      for (let i = 0; i < 3; i++)
        expect(await page.locator(`.row:has-text("answer while away ${i}")`).count()).toBe(1);
      // 2 first, 60 appended, 2 more, 6 while away.
      await expect.poll(() => shownText(page.locator('.status-line'))).toMatch(/^70 items/);
      // The listing marks the session active, from the sessions topic.
      await go(page, '#/');
      await page.locator('.session-item.active[data-sid="22222222-2222-4222-8222-222222222222"]').waitFor();
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'keeps a session of about 20,000 items virtualized and navigable by keyboard',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      const started = Date.now();
      await go(page, '#/s/claude-code/33333333-3333-4333-8333-333333333333');
      await page.waitForSelector('.vrow .row', { timeout: 60_000 });
      const firstScreen = Date.now() - started;
      await timelineLoaded(page);
      const allItems = Date.now() - started;
      recordTiming('twentyThousandItems', { firstScreenMs: firstScreen, allItemsMs: allItems });
      console.log(`20,000-item session: first screen ${firstScreen} ms, all items ${allItems} ms`);
      const status = await shownText(page.locator('.status-line'));
      const count = Number(/([\d,.]+K?) items/.exec(status)?.[1]?.replace(/,/g, '').replace('K', '000'));
      expect(count).toBeGreaterThanOrEqual(19_000);
      // Only what is on screen (and a margin) is in the page.
      expect(await page.locator('.vrow').count()).toBeLessThan(120);
      await page.keyboard.press('G');
      await page.locator('.row:has-text("answer number 4999")').waitFor();
      await page.keyboard.press('g');
      await page.locator('.row:has-text("prompt number 0")').waitFor();
      await page.keyboard.press('j');
      await page.locator('.row.target:has-text("prompt number 1")').waitFor();
      await page.keyboard.press(']');
      await page.locator('.row.target.failed:has-text("ls step-7")').waitFor();
      await page.keyboard.press(']');
      await page.locator('.row.target.failed:has-text("ls step-507")').waitFor();
      await page.keyboard.press('[');
      await page.locator('.row.target.failed:has-text("ls step-7")').waitFor();
      expect(await page.locator('.vrow').count()).toBeLessThan(120);
      await screenshot(page, 'big-session-light');
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
