// The secrets a hand-off would carry, reviewed in Chromium before anything is sent: a corpus Claude
// Code session with made-up keys planted in a prompt lists each key masked with a checkbox, the list
// never holds a key in clear, and ticking one leaves it in the document the daemon measures.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { sessionHref } from '../src/route.js';
import {
  buildUi,
  go,
  homeEnv,
  launch,
  openPage,
  type Served,
  screenshot,
  serve,
  shownText,
  tempDir,
} from './harness.js';

// Shapes of real keys, never real ones.
const SLACK = 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx';
const STRIPE = 'sk_live_4eC39HqLyjWDarjtT1zdp7dc';

let browser: Browser;
let served: Served;
let scratch: string;
let sid: string;

beforeAll(async () => {
  if (!corpus) return;
  let webRoot: string;
  [webRoot, browser] = await Promise.all([buildUi(), launch()]);
  scratch = tempDir('cairn-handoff-review-');
  const env = homeEnv(scratch);
  const original = readFileSync(corpusPath('claude', 'projects', '-work-spotter', 'short.jsonl'), 'utf8');
  sid = /"sessionId":"([^"]+)"/.exec(original)![1]!;
  const planted = original.replace(
    '"role":"user","content":"',
    `"role":"user","content":"post with SLACK_BOT_TOKEN=${SLACK} and charge with ${STRIPE}. `,
  );
  if (planted === original) throw new Error('the corpus session no longer has a prompt to plant in');
  const folder = join(env.CLAUDE_CONFIG_DIR!, 'projects', '-work-spotter');
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, `${sid}.jsonl`), planted);
  served = await serve(env, webRoot);
}, 300_000);

afterAll(async () => {
  await served?.server.close();
  await browser?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe.skipIf(!corpus)('reviewing what a hand-off redacts', () => {
  it('lists each secret masked and leaves in the one ticked', async () => {
    const { page, context, errors } = await openPage(browser, served);
    await go(page, sessionHref('claude-code', sid));
    await page.getByRole('button', { name: 'Hand off to…' }).click();
    const panel = page.locator('form.handoff-panel');
    const size = panel.locator('.handoff-size[data-ready=yes]');
    await size.waitFor({ timeout: 60_000 });
    expect(await shownText(size)).toContain('2 secrets redacted');

    const findings = panel.locator('.handoff-findings li');
    await expect.poll(() => findings.count()).toBe(2);
    const line = (n: number) => shownText(findings.nth(n)).then((t) => t.replace(/\s+/g, ' '));
    expect(await line(0)).toMatch(/Slack token xoxb…UvWx in message:user:in/);
    expect(await line(1)).toMatch(/Stripe key sk_l…p7dc in message:user:in/);
    // The reader shows the session as it is; the panel's list never holds a key in clear.
    const html = await panel.innerHTML();
    expect(html).not.toContain(SLACK);
    expect(html).not.toContain(STRIPE);

    const keepSlack = panel.getByRole('checkbox', { name: /keep this one: Slack token/ });
    await keepSlack.check();
    await expect
      .poll(() => shownText(panel.locator('.handoff-size')), { timeout: 30_000 })
      .toMatch(/1 secrets redacted \(Stripe key ×1\) · 1 left in/);
    expect(await keepSlack.isChecked()).toBe(true);
    await screenshot(page, 'handoff-review-light');
    // Unticked again, both are redacted once more.
    await keepSlack.uncheck();
    await expect
      .poll(() => shownText(panel.locator('.handoff-size')), { timeout: 30_000 })
      .toContain('2 secrets redacted');
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
