// `cairn export --format html` opened in Chromium, offline, from the file: no console error, no
// request, the session's items and each subagent's lane item for item; and a page of hostile items
// shows their markup as text, runs nothing and asks for nothing.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { TranscriptItem } from '@cairn/protocol';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../../scripts/chromium.mjs';
import { corpus } from '../../transcript/test/corpus.js';
import { renderHtml } from '../src/export-html.js';
import { cairn, corpusEnv } from './run.js';

const SID = '4d5611e5-241a-462a-8d15-5122611a9569';
const EVERY = 'message,thinking,notice,system,hook,tool';

interface Opened {
  page: Page;
  requests: string[];
  errors: string[];
}

async function open(browser: Browser, file: string): Promise<Opened> {
  const context = await browser.newContext({ offline: true, javaScriptEnabled: true });
  const page = await context.newPage();
  const url = pathToFileURL(file).href;
  const requests: string[] = [];
  const errors: string[] = [];
  page.on('request', (r) => {
    if (r.url() !== url) requests.push(r.url());
  });
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('dialog', (d) => {
    errors.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await page.goto(url, { waitUntil: 'load' });
  return { page, requests, errors };
}

describe.skipIf(!corpus)('cairn export --format html', () => {
  let browser: Browser;
  const env = corpusEnv();
  const dir = mkdtempSync(join(tmpdir(), 'cairn-export-html-'));

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('opens offline with no error and no request, item for item with the session and its lanes', async () => {
    const out = join(dir, 'session.html');
    const r = cairn(['export', SID, '--format', 'html', '--out', out], env);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('redacted: no secrets found');
    const html = readFileSync(out, 'utf8');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('http-equiv="Content-Security-Policy"');

    const { page, requests, errors } = await open(browser, out);
    expect(requests).toEqual([]);
    expect(errors).toEqual([]);

    const main = JSON.parse(cairn(['dump', SID, '--types', EVERY, '--json'], env).stdout) as {
      entries: Record<string, number>;
      ids: Array<{ kind: string; id: string }>;
    };
    const total = (entries: Record<string, number>) => Object.values(entries).reduce((a, b) => a + b, 0);
    expect(await page.locator('main > article.item').count()).toBe(total(main.entries));
    const lanes = main.ids.filter((e) => e.kind === 'agent');
    expect(lanes.length).toBeGreaterThan(0);
    for (const lane of lanes) {
      const dumped = JSON.parse(
        cairn(['dump', SID, '--agent-id', lane.id, '--types', EVERY, '--json'], env).stdout,
      ) as { entries: Record<string, number> };
      const shown = page.locator(`details.lane[data-agent-id="${lane.id}"] > article.item`);
      expect(await shown.count(), lane.id).toBe(total(dumped.entries));
    }
    // Prompts, replies, folded thinking and tool calls are all there, thinking closed.
    for (const cls of ['prompt', 'reply', 'thinking', 'tool'])
      expect(await page.locator(`article.item.${cls}`).count(), cls).toBeGreaterThan(0);
    expect(await page.locator('article.thinking details[open]').count()).toBe(0);
  }, 120_000);

  it('shows hostile text as text, runs nothing and loads nothing', async () => {
    const hostile = (type: string, text: string, extra: object = {}): TranscriptItem =>
      ({ uuid: `u-${type}-${text.length}`, type, at: 0, text, ...extra }) as unknown as TranscriptItem;
    const items = [
      hostile('message:user:in', '<script>alert(1)</script><img src="http://127.0.0.1:9/p.png">'),
      hostile(
        'message:user:out',
        '# Title\n\n<img src=x onerror="alert(2)"> [go](javascript:alert(3)) ![pic](http://127.0.0.1:9/i.png) [site](https://example.com)\n\n```\n<b>code</b>\n```',
      ),
      hostile('thinking', '<iframe src="http://127.0.0.1:9/"></iframe>'),
      {
        uuid: 'u-tool',
        type: 'tool:Edit',
        role: 'use',
        at: 0,
        input: {
          file_path: 'a.html',
          old_string: '<a href="x">',
          new_string: '<style>body{display:none}</style>',
        },
      } as unknown as TranscriptItem,
    ];
    const out = join(dir, 'hostile.html');
    writeFileSync(
      out,
      renderHtml({
        agent: 'claude-code',
        sid: 's"<x>',
        items,
        lanes: [],
        redaction: 'redacted: no secrets found',
      }),
    );
    const { page, requests, errors } = await open(browser, out);
    expect(requests).toEqual([]);
    expect(errors).toEqual([]);
    expect(await page.locator('script, iframe, img, style ~ style, [onerror]').count()).toBe(0);
    const body = await page.locator('main').textContent();
    expect(body).toContain('<script>alert(1)</script>');
    expect(body).toContain('<img src=x onerror="alert(2)">');
    expect(body).toContain('[image: pic]');
    expect(body).toContain('<style>body{display:none}</style>');
    expect(await page.locator('a[href^="javascript"]').count()).toBe(0);
    expect(await page.locator('a[href="https://example.com"]').count()).toBe(1);
    expect(await page.locator('article.reply h1').textContent()).toBe('Title');
  }, 60_000);
});
