// The Summary tab's cost tree in a real browser, on a corpus session with two subagents and a
// compaction agent: one row per lane, nested under the main agent, with the tokens a count of the
// transcript's requests gives each lane and costs that add up to the session's; a subagent's row
// opens that lane in the reader; the context plot marks the compaction where the main lane made it.
import { loadTranscript, nodePlatform, type Transcript } from '@cairn/transcript';
import type { Browser } from 'playwright-core';
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
const SESSION = { agent: 'claude-code', sid: 'fa812bfe-b295-4cca-9c2f-fdf01028cb46' };

let webRoot: string;
let browser: Browser;
let served: Served;
let transcript: Transcript;

beforeAll(async () => {
  if (!corpus) return;
  const env = corpusEnv();
  [webRoot, browser] = await Promise.all([buildUi(), launch()]);
  served = await serve(env, webRoot);
  const path = corpusPath('claude', 'projects', '-work-spotter', `${SESSION.sid}.jsonl`);
  const loaded = await loadTranscript(nodePlatform({ env, homeDir: env.HOME }), {
    agent: SESSION.agent,
    path,
  });
  if (!loaded.ok) throw new Error(loaded.error.message);
  transcript = loaded.value;
}, SLOW);

afterAll(async () => {
  await served?.server.close();
  await browser?.close();
});

/** Input and output tokens of each lane's requests, counted from the transcript. */
function tokensByLane(t: Transcript): Map<string, number> {
  const out = new Map<string, number>();
  for (const e of t.events) {
    if (e.kind !== 'request' || !e.payload.usage) continue;
    const { inputTokens, outputTokens } = e.payload.usage;
    out.set(e.agentId, (out.get(e.agentId) ?? 0) + inputTokens + outputTokens);
  }
  return out;
}

describe.skipIf(!corpus)('the cost tree', () => {
  it(
    'lists every lane nested as it spawned, adds up to the session, and links into a subagent',
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      await go(page, `#/s/${SESSION.agent}/${SESSION.sid}/summary`);
      const rows = page.locator('.cost-tree tbody tr');
      await rows.first().waitFor({ timeout: 30_000 });

      const shown = await rows.evaluateAll((trs) =>
        trs.map((tr) => ({
          lane: tr.getAttribute('data-lane') ?? '',
          depth: Number(tr.getAttribute('data-depth')),
          parent: tr.getAttribute('data-parent') ?? '',
          tokens: Number(tr.getAttribute('data-tokens')),
          cost: tr.getAttribute('data-cost') ?? '',
          name: tr.querySelector('th a')?.textContent ?? '',
        })),
      );
      const main = transcript.agents.find((a) => a.parentId === undefined)!;
      // The main lane first, then every subagent under it.
      expect(shown.map((r) => r.lane).sort()).toEqual(transcript.agents.map((a) => a.id).sort());
      expect(shown[0]).toMatchObject({ lane: main.id, depth: 0, parent: '', name: 'Main agent' });
      for (const row of shown.slice(1)) expect(row).toMatchObject({ depth: 1, parent: main.id });
      expect(shown.map((r) => r.name)).toContain('Explore existing codebase');

      // Each lane's tokens are those of its requests; the lanes add up to the whole session.
      const counted = tokensByLane(transcript);
      for (const row of shown) expect(row.tokens, row.lane).toBe(counted.get(row.lane) ?? 0);
      const total = page.locator('.cost-tree tfoot tr');
      const totalTokens = Number(await total.getAttribute('data-tokens'));
      expect(totalTokens).toBe([...counted.values()].reduce((a, b) => a + b, 0));
      const totalCost = Number(await total.getAttribute('data-cost'));
      expect(totalCost).toBeGreaterThan(0);
      expect(shown.every((r) => r.cost !== '')).toBe(true);
      const lanesCost = shown.reduce((n, r) => n + Number(r.cost), 0);
      expect(Math.abs(lanesCost - totalCost)).toBeLessThan(0.005);
      // The Cost card (the session list's number) says the same to the cent.
      const card = await shownText(page.locator('.card[data-number="Cost"] dd').first());
      expect(card).toBe(`$${totalCost.toFixed(2)}`);
      // Shares: the main lane's cost share in words, and the column's heading.
      expect(await page.locator('.cost-tree thead th').allTextContents()).toContain('Share of cost');
      const mainShare = await shownText(rows.first().locator('td').nth(6));
      expect(mainShare).toBe(`${(Math.round((Number(shown[0]!.cost) / totalCost) * 1000) / 10).toFixed(1)}%`);

      // The compaction is marked on the context plot, where the main lane made it.
      await expect.poll(() => page.locator('.context-plot .compaction-mark').count()).toBe(1);
      expect(await page.locator('.context-plot figcaption').textContent()).not.toContain('outside');

      expect(await seriousAxeViolations(page)).toEqual([]);
      await page.locator('.cost-tree').scrollIntoViewIfNeeded();
      await screenshot(page, 'summary-cost-tree');

      // A subagent's row opens its lane in the reader, on its first item.
      const sub = shown.find((r) => r.name === 'Explore existing codebase')!;
      await page.locator(`.cost-tree tr[data-lane="${sub.lane}"] th a`).click();
      await expect.poll(() => page.evaluate(() => window.location.hash)).toContain(`lane=${sub.lane}`);
      const landed = page.locator(`.row.target[data-lane="${sub.lane}"]`);
      await landed.waitFor({ timeout: 60_000 });
      expect(await landed.getAttribute('data-type')).toBe('message:user:in');

      expect(await violations(page)).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
