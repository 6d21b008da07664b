// What the agent recorded, shown as a person reads it, in a real browser over a session written the
// way Claude Code writes one: a prompt's image and an MCP screenshot as thumbnails that open full size
// (from the keyboard too), an SVG never drawn, the MCP call by server and tool with its JSON folded and
// highlighted, the plan as Markdown with its approval, the question with its options and answer, and
// the command that resumes the session in its folder, copied exactly.
import { join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type StructuredSession,
  writeStructuredSession,
} from '../../transcript/test/support/structured-session.js';
import {
  buildUi,
  go,
  homeEnv,
  launch,
  openPage,
  openToggle,
  type Served,
  screenshot,
  seriousAxeViolations,
  serve,
  shownText,
  tempDir,
  violations,
  type Watched,
} from './harness.js';

const SLOW = 180_000;
const CWD = "/home/dev/site dir/it's";

let webRoot: string;
let browser: Browser;
let served: Served;
let s: StructuredSession;
let w: Watched;

beforeAll(async () => {
  const home = tempDir('cairn-structured-');
  const env = homeEnv(home);
  s = writeStructuredSession(join(home, '.claude'), CWD);
  [webRoot, browser] = await Promise.all([buildUi(), launch()]);
  served = await serve(env, webRoot);
  w = await openPage(browser, served);
  await go(w.page, `#/s/claude-code/${s.sid}`);
  await w.page.locator('.row[data-type="message:user:in"]').first().waitFor({ timeout: 60_000 });
}, SLOW);

afterAll(async () => {
  await browser?.close();
  await served?.server.close();
});

const rowOf = (page: Page, type: string, nth = 0): Locator =>
  page.locator(`.row[data-type="${type}"]`).nth(nth);

/** Opens a row's first fold and answers its body. */
async function open(row: Locator): Promise<Locator> {
  await openToggle(row.locator('.fold-toggle').first());
  const body = row.locator('.fold-body').first();
  await body.waitFor();
  return body;
}

/** The decoded width of an image once the browser has drawn it (0 when it could not decode it). */
async function drawnWidth(img: Locator): Promise<number> {
  await img.waitFor();
  await expect
    .poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth > 0), {
      timeout: 20_000,
    })
    .toBe(true);
  return await img.evaluate((el: HTMLImageElement) => el.naturalWidth);
}

describe('images, structured tools and the resume command', () => {
  it("draws a prompt's image as a thumbnail that opens full size, by mouse and by keyboard", async () => {
    const { page } = w;
    const prompt = rowOf(page, 'message:user:in');
    const thumb = prompt.locator('button.image-thumb');
    expect(await drawnWidth(thumb.locator('img'))).toBe(64);
    expect(await thumb.getAttribute('aria-label')).toMatch(
      /^open prompt image 1 \[image: image\/png, \d+ B\] full size$/,
    );
    const src = await thumb.locator('img').getAttribute('src');
    expect(src).toBe(`data:image/png;base64,${s.promptImage}`);

    await thumb.click();
    const dialog = page.locator('dialog.image-dialog[open]');
    await dialog.waitFor();
    expect(await drawnWidth(dialog.locator('img'))).toBe(64);
    await screenshot(page, 'structured-image-dialog');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    await thumb.focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await dialog.locator('button', { hasText: 'close' }).click();
    await dialog.waitFor({ state: 'detached' });
  });

  it('never draws an SVG a prompt carried, and says why', async () => {
    const { page } = w;
    const prompt = rowOf(page, 'message:user:in', 1);
    const note = prompt.locator('.image-note');
    await expect.poll(() => shownText(note), { timeout: 20_000 }).toMatch(/image\/svg\+xml is not shown/);
    expect(await prompt.locator('img').count()).toBe(0);
    expect(
      await page.evaluate(() => (window as unknown as { __svgScript?: number }).__svgScript),
    ).toBeUndefined();
  });

  it('shows an MCP call by server and tool, its JSON folded and highlighted, and its screenshot', async () => {
    const { page } = w;
    const row = rowOf(page, 'tool:mcp__playwright__browser_take_screenshot');
    const badge = row.locator('.badge.tool').first();
    expect(await shownText(badge)).toBe('playwright · browser_take_screenshot');
    expect(await badge.locator('.mcp-name').getAttribute('title')).toBe(
      'mcp__playwright__browser_take_screenshot',
    );
    const body = await open(row);
    const json = body.locator('.mcp-json');
    expect(await shownText(json.locator('.fold-toggle'))).toMatch(/JSON result · \d+ lines/);
    expect(await json.locator('.fold-body').count()).toBe(0);
    await json.locator('.fold-toggle').click();
    const code = json.locator('code');
    await expect.poll(() => code.getAttribute('class'), { timeout: 20_000 }).toContain('hljs');
    expect(await shownText(code)).toBe(JSON.stringify(s.mcpJson, null, 2));
    expect(await code.locator('.hljs-attr').count()).toBeGreaterThan(0);
    expect(await drawnWidth(body.locator('button.image-thumb img'))).toBe(80);
    // The page's text holds the image's note, never its base64.
    const text = await page.evaluate(() => document.body.textContent ?? '');
    expect(text).not.toContain(s.screenshot.slice(0, 40));
    expect(text).not.toContain(s.promptImage.slice(0, 40));
  });

  it('shows the picture a Read of an image file answered with', async () => {
    const { page } = w;
    const body = await open(rowOf(page, 'tool:Read'));
    expect(await drawnWidth(body.locator('button.image-thumb img'))).toBe(32);
  });

  it('renders the plan as Markdown, never as live HTML, and says it was approved', async () => {
    const { page } = w;
    const row = rowOf(page, 'tool:ExitPlanMode');
    expect(await shownText(row.locator('.result-summary'))).toContain('approved');
    const body = await open(row);
    expect(await shownText(body.locator('.badge.plan-approved'))).toBe('Plan approved');
    expect(await shownText(body.locator('.plan-text h1'))).toBe('Plan: thumbnails');
    expect(await shownText(body.locator('.plan-text strong'))).toBe('record');
    expect(await body.locator('.plan-text img').count()).toBe(0);
    expect(
      await page.evaluate(() => (window as unknown as { __planScript?: number }).__planScript),
    ).toBeUndefined();
  });

  it('shows the question, its options and the answer chosen', async () => {
    const { page } = w;
    const row = rowOf(page, 'tool:AskUserQuestion');
    expect(await shownText(row.locator('.call-line'))).toBe(s.question);
    expect(await shownText(row.locator('.result-summary'))).toContain('1 of 1 answered');
    const body = await open(row);
    expect(await shownText(body.locator('.question-text'))).toContain(s.question);
    const options = body.locator('.question-options li');
    expect(await options.count()).toBe(2);
    expect(await shownText(body.locator('.option.chosen .option-label'))).toBe(s.answer);
    expect(await shownText(body.locator('.answer-text'))).toBe(s.answer);
    await screenshot(page, 'structured-tools');
  });

  it('offers the command that resumes the session in its folder, and copies it exactly', async () => {
    const { page, context } = w;
    const expected = `cd '/home/dev/site dir/it'\\''s' && claude --resume ${s.sid}`;
    expect(await shownText(page.locator('.resume-line'))).toBe(expected);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: served.base });
    await page.locator('.resume-command button').click();
    await expect.poll(() => shownText(page.locator('.resume-command button'))).toBe('copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(expected);
  });

  it('leaves no error, no policy violation and no serious accessibility violation', async () => {
    const { page } = w;
    expect(w.errors).toEqual([]);
    expect(w.dialogs).toEqual([]);
    expect(await violations(page)).toEqual([]);
    expect(await seriousAxeViolations(page)).toEqual([]);
  });

  it('reads as well in the dark theme', async () => {
    const dark = await openPage(browser, served, 'dark');
    await go(dark.page, `#/s/claude-code/${s.sid}`);
    await rowOf(dark.page, 'message:user:in').locator('button.image-thumb img').waitFor({ timeout: 60_000 });
    await open(rowOf(dark.page, 'tool:ExitPlanMode'));
    await open(rowOf(dark.page, 'tool:AskUserQuestion'));
    await open(rowOf(dark.page, 'tool:mcp__playwright__browser_take_screenshot'));
    await screenshot(dark.page, 'structured-tools-dark');
    expect(await seriousAxeViolations(dark.page)).toEqual([]);
    expect(dark.errors).toEqual([]);
    await dark.context.close();
  });
});
