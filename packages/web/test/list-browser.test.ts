// The session list in a real browser on the corpus: each row shows its model, prompts, tokens, cost
// (with the price catalog named), duration and git branch; sorting by tokens, cost or duration puts
// the largest first; each filter narrows the list; and slash commands are prompts: counted, reached
// with j/k, drawn as the person's prompt, and a title for a session that starts with one, while the
// caveat Claude Code writes before local command output reads as a sentence, not XML.
import { nodePlatform, summarizeSession } from '@cairn/transcript';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import {
  buildUi,
  corpusEnv,
  go,
  launch,
  openPage,
  type Served,
  screenshot,
  seriousAxeViolations,
  serve,
  shownText,
  violations,
} from './harness.js';

const SLOW = 180_000;
const SPOTTER = '4d5611e5-241a-462a-8d15-5122611a9569';

/** Every row's sid and the value a fact of it carries, in the order the page shows them. */
const rowValues = (page: Page, fact: string) =>
  page.$$eval(
    '.session-item',
    (els, f) =>
      els.map((el) => {
        const v = el.querySelector(`.session-facts .${f}`)?.getAttribute('data-value');
        return {
          sid: el.getAttribute('data-sid') ?? '',
          value: v === null || v === undefined ? undefined : Number(v),
        };
      }),
    fact,
  );

const itemCount = (page: Page) => page.locator('.session-item').count();

describe.skipIf(!corpus)('the session list on the corpus', () => {
  let webRoot: string;
  let browser: Browser;
  let served: Served;
  let env: Record<string, string>;

  beforeAll(async () => {
    [webRoot, browser] = await Promise.all([buildUi(), launch()]);
    env = corpusEnv();
    served = await serve(env, webRoot);
  }, SLOW);

  afterAll(async () => {
    await served?.server.close();
    await browser?.close();
  });

  it(
    'shows the model, prompts, tokens, cost with its catalog, duration and branch of each session',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      const row = page.locator(`.session-item[data-sid="${SPOTTER}"]`);
      await row.locator('.session-facts .cost').waitFor();
      const summary = await summarizeSession(nodePlatform({ env, homeDir: env.HOME }), {
        agent: 'claude-code',
        path: corpusPath('claude', 'projects', '-work-spotter', `${SPOTTER}.jsonl`),
      });
      if (!summary.ok) throw new Error(summary.error.message);
      expect(await row.locator('.model').getAttribute('data-value')).toBe('claude-opus-4-6');
      expect(Number(await row.locator('.tokens').getAttribute('data-value'))).toBe(
        summary.value.inputTokens! + summary.value.outputTokens!,
      );
      expect(await shownText(row.locator('.prompts'))).toMatch(/^\d+ prompts?$/);
      const cost = row.locator('.cost');
      expect(await shownText(cost)).toMatch(/^\$\d+\.\d\d$/);
      expect(await cost.getAttribute('title')).toContain('genai-prices 0.1.8');
      expect(Number(await row.locator('.duration').getAttribute('data-value'))).toBe(
        Math.round(summary.value.durationMs!),
      );
      expect(await shownText(row.locator('.branch'))).toContain('spotter-dov');
      expect(await shownText(page.locator('.prices-note'))).toContain('genai-prices 0.1.8');
      // Codex sessions are priced from their own provider and show their branch.
      const codex = page.locator('.session-item[data-agent="codex"]').filter({ has: page.locator('.cost') });
      expect(await codex.count()).toBeGreaterThan(0);
      expect(await shownText(codex.first().locator('.model'))).toMatch(/^gpt-/);
      expect(await shownText(page.locator('.session-item[data-agent="codex"] .branch').first())).toContain(
        'main',
      );
      await screenshot(page, 'list-facts-light');
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'keeps the facts readable in the dark and on a phone',
    async () => {
      for (const [name, scheme, options] of [
        ['list-facts-dark', 'dark', {}],
        [
          'list-facts-phone',
          'light',
          { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
        ],
      ] as const) {
        const { page, context, errors } = await openPage(browser, served, scheme, options);
        const row = page.locator(`.session-item[data-sid="${SPOTTER}"]`);
        await row.locator('.session-facts .cost').waitFor();
        for (const fact of ['.session-title', '.model', '.tokens', '.cost'])
          expect(await row.locator(fact).isVisible(), `${name} ${fact}`).toBe(true);
        // The facts stay inside the row, under the title.
        const [rowBox, factsBox, titleBox] = await Promise.all([
          row.boundingBox(),
          row.locator('.session-facts').boundingBox(),
          row.locator('.session-title').boundingBox(),
        ]);
        expect(factsBox!.x + factsBox!.width).toBeLessThanOrEqual(rowBox!.x + rowBox!.width + 1);
        expect(factsBox!.y).toBeGreaterThanOrEqual(titleBox!.y + titleBox!.height - 1);
        await screenshot(page, name);
        expect(await seriousAxeViolations(page)).toEqual([]);
        expect(errors).toEqual([]);
        expect(await violations(page)).toEqual([]);
        await context.close();
      }
    },
    SLOW,
  );

  it(
    'sorts by tokens, cost and duration, the largest first and the unknown last',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.locator('.session-item .session-facts .tokens').first().waitFor();
      const recent = (await rowValues(page, 'tokens')).map((r) => r.sid);
      for (const [sort, fact] of [
        ['tokens', 'tokens'],
        ['cost', 'cost'],
        ['duration', 'duration'],
      ] as const) {
        await page.selectOption('select[name=sort]', sort);
        await page.locator('.session-list.sorted').waitFor();
        expect(page.url()).toContain(`sort=${sort}`);
        const shown = await rowValues(page, fact);
        const known = shown.filter((r) => r.value !== undefined).map((r) => r.value!);
        expect(known.length, sort).toBeGreaterThan(2);
        expect(known, sort).toEqual([...known].sort((a, b) => b - a));
        // Sessions without the number come after every one with it.
        const firstUnknown = shown.findIndex((r) => r.value === undefined);
        if (firstUnknown !== -1)
          expect(shown.slice(firstUnknown).every((r) => r.value === undefined)).toBe(true);
        expect(
          shown.map((r) => r.sid),
          sort,
        ).not.toEqual(recent);
        await screenshot(page, `list-sorted-${sort}-light`);
      }
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'narrows the list by agent, project, date, activity and failures',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await page.locator('.session-item .session-facts .tokens').first().waitFor();
      const all = await itemCount(page);
      const narrowsTo = async (change: () => Promise<unknown>, test: (n: number) => boolean) => {
        await change();
        await expect.poll(() => itemCount(page)).not.toBe(all);
        const n = await itemCount(page);
        expect(n).toBeLessThan(all);
        expect(test(n)).toBe(true);
        return n;
      };
      const clear = async () => {
        await go(page, '#/');
        await expect.poll(() => itemCount(page)).toBe(all);
      };

      await narrowsTo(
        () => page.click('.filters a:text-is("codex")'),
        (n) => n > 0,
      );
      expect(
        new Set(await page.$$eval('.session-item', (els) => els.map((e) => e.getAttribute('data-agent')))),
      ).toEqual(new Set(['codex']));
      await clear();

      const spotter = await page.$$eval('select[name=project] option', (os) =>
        os.map((o) => (o as HTMLOptionElement).value).find((v) => v.endsWith('/spotter')),
      );
      expect(spotter).toBeDefined();
      await narrowsTo(
        () => page.selectOption('select[name=project]', spotter!),
        (n) => n > 1,
      );
      expect(await page.locator('.project h2').count()).toBe(1);
      await screenshot(page, 'list-filter-project-light');
      await clear();

      // The corpus's Claude Code sessions ran in February 2026; the 2025 ones are left out.
      await narrowsTo(
        () => page.fill('input[name=since]', '2026-02-01'),
        (n) => n > 0,
      );
      expect(page.url()).toContain('since=2026-02-01');
      const times = await page.$$eval('.session-item .when', (els) =>
        els.map((e) => e.getAttribute('title') ?? ''),
      );
      expect(times.every((t) => !t.includes('2025'))).toBe(true);
      await clear();

      // Nothing in the corpus is being written to now.
      await narrowsTo(
        () => page.check('input[name=active]'),
        (n) => n === 0,
      );
      await clear();

      await narrowsTo(
        () => page.check('input[name=failed]'),
        (n) => n > 0,
      );
      const failures = await page.$$eval('.session-item', (els) =>
        els.map((e) => Number(e.querySelector('.failures')?.getAttribute('data-value') ?? 0)),
      );
      expect(failures.every((f) => f > 0)).toBe(true);
      await screenshot(page, 'list-filter-failed-light');
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    'counts slash commands as prompts, reaches them with j/k, and titles a session by one',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      // subagent.jsonl starts with a slash command.
      const started = page.locator('.session-item[data-sid="subagent"] .session-title');
      await started.waitFor();
      expect(await shownText(started)).toMatch(/^\/handgemacht:create-beads websearch to learn/);
      // tool_heavy.jsonl: two typed prompts and `/mcp`.
      expect(await shownText(page.locator('.session-item[data-sid="tool_heavy"] .prompts'))).toBe(
        '3 prompts',
      );

      await go(page, '#/s/claude-code/tool_heavy');
      await page.waitForSelector('.status-line[data-loaded=yes]', { timeout: 60_000 });
      expect(await shownText(page.getByText(/\d+ prompts · \d+ failed calls/))).toMatch(/^3 prompts/);
      const command = page.locator('.row[data-type="notice:slash"] .slash-prompt');
      expect(await command.count()).toBe(1);
      expect(await shownText(command.locator('.command-name'))).toBe('/mcp');
      expect((await shownText(command.locator('.who'))).toLowerCase()).toContain('you');
      // The caveat reads as a sentence; no wrapper of Claude Code's shows as markup.
      expect(await page.locator('.row[data-type="system:caveat"] .caveat').count()).toBe(1);
      const text = await shownText(page.locator('.timeline-scroll'));
      for (const tag of ['<local-command-caveat>', '<command-name>', '<local-command-stdout>'])
        expect(text).not.toContain(tag);

      const targetType = () => page.locator('.row.target').getAttribute('data-type');
      await page.locator('.timeline-scroll').click({ position: { x: 5, y: 5 } });
      // From the first prompt at the top, j goes to the command, then to the last prompt; k comes back.
      const reached: string[] = [];
      for (const key of ['j', 'j', 'k', 'k']) {
        await page.keyboard.press(key);
        await expect.poll(() => page.locator('.row.target').count()).toBe(1);
        await expect.poll(targetType).not.toBe(reached.at(-1));
        reached.push((await targetType())!);
      }
      expect(reached).toEqual(['notice:slash', 'message:user:in', 'notice:slash', 'message:user:in']);
      await page.keyboard.press('j');
      await expect.poll(targetType).toBe('notice:slash');
      await screenshot(page, 'slash-command-prompt-light');
      expect(await seriousAxeViolations(page)).toEqual([]);
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
