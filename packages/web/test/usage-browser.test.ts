// The Usage page in a real browser on the corpus: its table holds the rows the daemon's usage_read
// answers (in the browser's time zone), sorts by a column, narrows to an agent through the address,
// draws the chart from a chunk the session list never asks for, stacks it by project, shows the
// op's cache hit ratio, dearest sessions and cost per project, lists every session in the cost tree
// with a link into it, and says in the console nothing went wrong.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../server/test/helpers.js';
import { claudeExchange } from '../../server/test/support/claude-lines.js';
import { corpus } from '../../transcript/test/corpus.js';
import {
  buildUi,
  corpusEnv,
  go,
  homeEnv,
  launch,
  openPage,
  type Served,
  screenshot,
  seriousAxeViolations,
  serve,
  tempDir,
  violations,
} from './harness.js';

const SLOW = 180_000;
const ZONE = 'America/New_York';

type Row = Record<string, unknown>;

/** The table's rows as the page shows them, in its order. */
const tableRows = (page: Page) =>
  page.$$eval('.usage-row', (rows) =>
    rows.map((r) => ({
      key: r.getAttribute('data-key'),
      totalTokens: Number(r.getAttribute('data-total-tokens')),
      cost: r.getAttribute('data-cost') === '' ? null : Number(r.getAttribute('data-cost')),
    })),
  );

const opRows = (rows: Row[]) =>
  rows.map((r) => ({ key: r.key, totalTokens: r.totalTokens, cost: r.totalCost }));

describe.skipIf(!corpus)('the Usage page on the corpus', () => {
  let webRoot: string;
  let browser: Browser;
  let served: Served;
  let client: Client;

  beforeAll(async () => {
    [webRoot, browser] = await Promise.all([buildUi(), launch()]);
    served = await serve(corpusEnv(), webRoot);
    client = await Client.open(served.server);
  }, SLOW);

  afterAll(async () => {
    await client?.close();
    await served?.server.close();
    await browser?.close();
  });

  it(
    'shows the op’s rows, sorts them, narrows them by agent, and loads the chart only there',
    async () => {
      const { page, errors, context } = await openPage(browser, served, 'light', { timezoneId: ZONE });
      const consoleErrors: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') consoleErrors.push(m.text());
      });
      const scripts: string[] = [];
      page.on('request', (r) => {
        if (r.resourceType() === 'script') scripts.push(r.url());
      });
      // The session list first: every script it needs, and none of them the chart.
      await page.locator('.session-item').first().waitFor();
      await page.waitForLoadState('networkidle');
      const listScripts = new Set(scripts);

      await page.locator('.top-nav a', { hasText: 'Usage' }).click();
      expect(await page.evaluate(() => window.location.hash)).toBe('#/usage');
      await page.locator('.usage-row').first().waitFor();
      await page.locator('.usage-chart svg rect').first().waitFor();

      // The chart came in a chunk of its own that the list never loaded.
      const usageOnly = scripts.filter((u) => !listScripts.has(u));
      expect(usageOnly.length).toBeGreaterThan(0);
      const bodies = await Promise.all(usageOnly.map((u) => context.request.get(u).then((r) => r.text())));
      expect(bodies.some((b) => b.includes('usage-chart-tick'))).toBe(true);
      for (const u of listScripts) {
        const body = await context.request.get(u).then((r) => r.text());
        expect(body.includes('usage-chart-tick'), u).toBe(false);
      }

      // The table is the op's rows, oldest first, in the browser's zone.
      const daily = await client.request('usage_read', { kind: 'daily', timezone: ZONE });
      expect(daily.ok).toBe(true);
      expect(await tableRows(page)).toEqual(opRows(daily.rows as Row[]));
      expect((daily.rows as Row[]).length).toBeGreaterThan(1);
      // A bar per row.
      expect(await page.locator('.usage-periods .usage-chart-bar').count()).toBe(
        (daily.rows as Row[]).length,
      );
      await screenshot(page, 'usage-page');

      // Sorted by cost, the dearest first, and the header says so.
      await page.locator('.usage-table th button', { hasText: 'Cost' }).click();
      const byCost = await tableRows(page);
      const costs = byCost.map((r) => r.cost ?? -1);
      expect(costs).toEqual([...costs].sort((a, b) => b - a));
      expect(await page.locator('.usage-table th[aria-sort="descending"]').textContent()).toContain('Cost');

      // Back to the periods' order.
      await page.locator('.usage-table th button', { hasText: 'Period' }).click();
      expect(await tableRows(page)).toEqual(opRows(daily.rows as Row[]));

      // Weeks, by address.
      await go(page, '#/usage?by=weekly');
      const weekly = await client.request('usage_read', { kind: 'weekly', timezone: ZONE });
      await expect.poll(() => tableRows(page), { timeout: 15_000 }).toEqual(opRows(weekly.rows as Row[]));

      // One agent, from the menu: the address carries it, and the rows are that agent's.
      await page.locator('.usage-agent').selectOption('codex');
      await expect.poll(() => page.evaluate(() => window.location.hash)).toContain('agent=codex');
      const codex = await client.request('usage_read', { kind: 'weekly', agent: 'codex', timezone: ZONE });
      await expect.poll(() => tableRows(page), { timeout: 15_000 }).toEqual(opRows(codex.rows as Row[]));

      // The cost tree: every session of the report, each a link to its numbers.
      await go(page, '#/usage');
      const sessions = await client.request('usage_read', { kind: 'session', timezone: ZONE });
      const sessionRows = sessions.rows as Row[];
      const tree = () =>
        page.$$eval('.usage-tree-session', (els) =>
          els.map((e) => ({
            sid: e.getAttribute('data-sid'),
            href: e.querySelector('a')?.getAttribute('href'),
          })),
        );
      await expect
        .poll(async () => (await tree()).map((s) => s.sid).sort(), { timeout: 15_000 })
        .toEqual(sessionRows.map((r) => r.key as string).sort());
      const treeSessions = await tree();
      for (const s of treeSessions) expect(s.href).toMatch(new RegExp(`^#/s/[a-z-]+/${s.sid}/summary$`));

      // The cache hit ratio: a row per period, each the op's cache reads over all its input.
      const cacheRows = await page.$$eval('.usage-cache-row', (rows) =>
        rows.map((r) => ({ key: r.getAttribute('data-key'), ratio: Number(r.getAttribute('data-ratio')) })),
      );
      expect(cacheRows.map((r) => r.key)).toEqual((daily.rows as Row[]).map((r) => r.key));
      for (const [i, r] of (daily.rows as Row[]).entries()) {
        const read = r.cacheReadTokens as number;
        const input = (r.inputTokens as number) + read + (r.cacheCreationTokens as number);
        expect(cacheRows[i]!.ratio).toBeCloseTo(read / input, 9);
      }
      expect(await page.locator('.usage-cache .usage-chart-bar').count()).toBe((daily.rows as Row[]).length);

      // The ten dearest sessions, each a link into the reader.
      const dearest = [...sessionRows]
        .sort(
          (a, b) =>
            ((b.totalCost as number | null) ?? -1) - ((a.totalCost as number | null) ?? -1) ||
            (b.totalTokens as number) - (a.totalTokens as number),
        )
        .slice(0, 10);
      const top = await page.$$eval('.usage-top-row', (rows) =>
        rows.map((r) => ({
          sid: r.getAttribute('data-sid'),
          cost: r.getAttribute('data-cost') === '' ? null : Number(r.getAttribute('data-cost')),
          href: r.querySelector('a')?.getAttribute('href'),
        })),
      );
      expect(top.map((r) => ({ sid: r.sid, cost: r.cost }))).toEqual(
        dearest.map((r) => ({ sid: r.key, cost: r.totalCost })),
      );
      for (const [i, r] of top.entries())
        expect(r.href).toBe(`#/s/${(dearest[i]!.agents as string[])[0]}/${r.sid}`);

      // The cost per project: the op's project pieces added up over the periods, the dearest first.
      const perProject = new Map<string, { tokens: number; cost: number }>();
      for (const r of daily.rows as Row[])
        for (const p of r.projectBreakdowns as {
          project: string;
          totalTokens: number;
          cost: number | null;
        }[]) {
          const sum = perProject.get(p.project) ?? { tokens: 0, cost: 0 };
          sum.tokens += p.totalTokens;
          sum.cost += p.cost ?? 0;
          perProject.set(p.project, sum);
        }
      const projectRows = await page.$$eval('.usage-project-row', (rows) =>
        rows.map((r) => ({
          project: r.getAttribute('data-project'),
          tokens: Number(r.getAttribute('data-total-tokens')),
          cost: Number(r.getAttribute('data-cost')),
        })),
      );
      expect(projectRows.length).toBe(perProject.size);
      expect(projectRows.length).toBeGreaterThan(1);
      for (const r of projectRows) {
        const want = perProject.get(r.project!)!;
        expect(r.tokens, r.project!).toBe(want.tokens);
        expect(r.cost, r.project!).toBeCloseTo(want.cost, 9);
      }
      expect(projectRows.reduce((s, r) => s + r.tokens, 0)).toBe((daily.totals as Row).totalTokens);
      const projectCosts = projectRows.map((r) => r.cost);
      expect(projectCosts).toEqual([...projectCosts].sort((a, b) => b - a));

      // Stacked by project, by address: the legend names the projects and the bars stay one per row.
      await go(page, '#/usage?stack=project');
      await expect
        .poll(() =>
          page.locator('.usage-choice[aria-label="Stacked by"] [aria-current="true"]').textContent(),
        )
        .toBe('By project');
      await page.locator('.usage-periods .usage-chart-bar').first().waitFor();
      expect(await page.locator('.usage-periods .usage-chart-bar').count()).toBe(
        (daily.rows as Row[]).length,
      );
      expect(await page.locator('.usage-periods .usage-legend-item').count()).toBeGreaterThan(1);
      await screenshot(page, 'usage-page-by-project');

      // No window is open over the corpus's old sessions, and the page says so.
      expect(await page.locator('.usage-window').textContent()).toContain('No 5-hour window is open');

      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(await violations(page)).toEqual([]);
      expect(errors).toEqual([]);
      expect(consoleErrors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});

const SID = '0c0ffee0-0000-4000-8000-00000000b2b2';

/** A request of a Claude Code session, at `at`, as its user line and its reply line. */
const request = (i: number, at: number): string =>
  claudeExchange({
    sessionId: SID,
    cwd: '/home/dev/burn',
    i,
    at,
    usage: { input_tokens: 100, output_tokens: 1_000, cache_read_input_tokens: 10_000 },
  });

describe('the Usage page while a session works', () => {
  let webRoot: string;
  let browser: Browser;
  let served: Served;
  let file: string;

  beforeAll(async () => {
    const home = tempDir('cairn-usage-live-');
    const env = homeEnv(home);
    const project = join(home, '.claude', 'projects', '-home-dev-burn');
    mkdirSync(project, { recursive: true });
    file = join(project, `${SID}.jsonl`);
    const now = Date.now();
    writeFileSync(file, request(0, now - 90 * 60_000) + request(1, now - 60 * 60_000));
    [webRoot, browser] = await Promise.all([buildUi(), launch()]);
    served = await serve(env, webRoot);
  }, SLOW);

  afterAll(async () => {
    await served?.server.close();
    await browser?.close();
  });

  it(
    'shows the open billing window and follows it as the session grows',
    async () => {
      const { page, errors, context } = await openPage(browser, served);
      await go(page, '#/usage');
      const tokens = page.locator('.usage-window-open .usage-facts dd[data-value]');
      await tokens.waitFor();
      expect(await tokens.getAttribute('data-value')).toBe(String(2 * 11_100));
      expect(await page.locator('.usage-burn').textContent()).toMatch(/tokens\/min/);
      expect(await page.locator('.usage-projection').textContent()).toMatch(/min left/);
      const link = page.locator('.usage-window-sessions a');
      expect(await link.getAttribute('href')).toBe(`#/s/claude-code/${SID}`);

      // A third request arrives: the window counts it without a reload.
      appendFileSync(file, request(2, Date.now() - 60_000));
      await expect
        .poll(() => tokens.getAttribute('data-value'), { timeout: 20_000 })
        .toBe(String(3 * 11_100));
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
