// The model and the time in a real browser on the corpus: a list row and the session header name
// the main agent's model and show the time spent in turns beside the wall-clock span, and the
// Summary tab has both, for a Codex session resumed the next day.
import { loadTranscript, modelAndTime, nodePlatform } from '@cairn/transcript';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { buildUi, corpusEnv, go, launch, openPage, type Served, serve, shownText } from './harness.js';

const SLOW = 180_000;
const RESUMED_CODEX = '019c8a59-e9dd-71f0-9ae3-4079fe9726a9';
const OPUS_WITH_HAIKU = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';

describe.skipIf(!corpus)('the model and the time in the UI', () => {
  let webRoot: string;
  let browser: Browser;
  let served: Served;

  beforeAll(async () => {
    [webRoot, browser] = await Promise.all([buildUi(), launch()]);
    served = await serve(corpusEnv(), webRoot);
  }, SLOW);

  afterAll(async () => {
    await served?.server.close();
    await browser?.close();
  });

  it(
    'shows active time beside wall-clock time in the list, the header and the Summary tab',
    async () => {
      const loaded = await loadTranscript(nodePlatform({ env: {} }), {
        path: corpusPath('codex/sessions/2026/02/23', `rollout-2026-02-23T12-54-34-${RESUMED_CODEX}.jsonl`),
      });
      if (!loaded.ok) throw new Error(loaded.error.message);
      const facts = modelAndTime(loaded.value);

      const { page, context, errors } = await openPage(browser, served);
      const row = page.locator(`.session-item[data-sid="${RESUMED_CODEX}"]`);
      const active = row.locator('.session-facts .active-time');
      await active.waitFor();
      expect(Number(await active.getAttribute('data-value'))).toBe(facts.activeMs);
      expect(await shownText(active)).toMatch(/^\d+ h \d+ min active$/);
      expect(await shownText(row.locator('.session-facts .duration'))).toBe('24 h 14 min');

      await go(page, `#/s/codex/${RESUMED_CODEX}`);
      const time = page.locator('.session-head .head-time');
      await time.waitFor();
      expect(await shownText(time)).toMatch(/^· \d+ h \d+ min active of 24 h 14 min$/);
      expect(await shownText(page.locator('.session-head .head-model'))).toBe('· gpt-5.3-codex');

      await go(page, `#/s/codex/${RESUMED_CODEX}/summary`);
      const card = page.locator('.card[data-number="Active time"] dd').first();
      await card.waitFor();
      expect(await shownText(card)).toMatch(/^\d+ h \d+ min$/);
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );

  it(
    "names the main agent's model, not the subagents'",
    async () => {
      const { page, context, errors } = await openPage(browser, served);
      const row = page.locator(`.session-item[data-sid="${OPUS_WITH_HAIKU}"]`);
      await row.locator('.session-facts .model').waitFor();
      expect(await row.locator('.model').getAttribute('data-value')).toBe('claude-opus-4-6');
      await go(page, `#/s/claude-code/${OPUS_WITH_HAIKU}/summary`);
      const card = page.locator('.card[data-number="Model"]');
      await card.waitFor();
      expect(await shownText(card)).toContain('the main agent’s');
      expect(errors).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
