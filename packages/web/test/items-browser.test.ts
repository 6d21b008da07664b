// The reader's items in a real browser on corpus sessions: tool results shown in human form (a Read's
// file, Grep matches, a Glob's list, web searches, a Gemini write), a failure's reason on the call's
// collapsed row, highlighted code (a Read, a reply's fenced block, an edit's diff), one divider per
// compaction with its summary as Markdown, Edit counts equal to the diff's, and hook badges that open.
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TranscriptItem } from '@cairn/protocol';
import { classifyTranscript, listSessions, loadTranscript, type SessionHead } from '@cairn/transcript';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { corpusPlatform } from '../../transcript/test/homes.js';
import { claudeSession } from './claude-session.js';
import {
  buildUi,
  corpusEnv,
  go,
  homeEnv,
  launch,
  openPage,
  type Scheme,
  type Served,
  screenshot,
  seriousAxeViolations,
  serve,
  shownText,
  tempDir,
  violations,
} from './harness.js';

const SLOW = 180_000;
type Fields = Record<string, unknown>;

let webRoot: string;
let browser: Browser;

beforeAll(async () => {
  [webRoot, browser] = await Promise.all([buildUi(), launch()]);
}, SLOW);

afterAll(async () => {
  await browser?.close();
});

describe.skipIf(!corpus)("the reader's items over the corpus", () => {
  let served: Served;
  let heads: SessionHead[];
  const itemsOf = new Map<string, Fields[]>();

  /** The session whose main file has this name (without extension). */
  const session = (stem: string): SessionHead => {
    const head = heads.find(
      (h) =>
        h.path
          .split('/')
          .pop()!
          .replace(/\.jsonl?$/, '') === stem,
    );
    if (!head) throw new Error(`no corpus session ${stem}`);
    return head;
  };

  /** The items of a session's main lane, as the library classifies them. */
  async function items(head: SessionHead): Promise<Fields[]> {
    const known = itemsOf.get(head.id);
    if (known) return known;
    const loaded = await loadTranscript(corpusPlatform(), { path: head.path, agent: head.agent });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const c = classifyTranscript(loaded.value);
    if (!c.ok) throw new Error(c.error.message);
    const list = c.value.items as (TranscriptItem & Fields)[];
    itemsOf.set(head.id, list);
    return list;
  }

  /** Opens a session on one item; resolves to that item's row. */
  async function rowOf(page: Page, head: SessionHead, item: Fields): Promise<Locator> {
    const type = encodeURIComponent(String(item.type));
    await go(page, `#/s/${head.agent}/${head.id}?item=${encodeURIComponent(String(item.uuid))}&type=${type}`);
    const row = page.locator(
      `.row.target[data-uuid="${String(item.uuid)}"][data-type="${String(item.type)}"]`,
    );
    await row.waitFor({ timeout: 60_000 });
    return row;
  }

  /** Opens a row's fold (landing on an item may have opened it already). */
  const open = async (row: Locator): Promise<Locator> => {
    const toggle = row.locator('.fold-toggle').first();
    if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
    const body = row.locator('.fold-body').first();
    await body.waitFor();
    return body;
  };

  const clean = async (page: Page, errors: string[]) => {
    expect(errors).toEqual([]);
    expect(await violations(page)).toEqual([]);
  };

  beforeAll(async () => {
    heads = [];
    for await (const entry of listSessions(corpusPlatform())) if (!('ref' in entry)) heads.push(entry);
    served = await serve(corpusEnv(), webRoot);
  }, SLOW);

  afterAll(async () => {
    await served?.server.close();
  });

  it(
    'builds the highlighter as a chunk of its own that the app loads only on demand',
    () => {
      const assets = join(webRoot, 'assets');
      const app = readFileSync(join(assets, 'app.js'), 'utf8');
      expect(app).not.toContain('registerLanguage');
      const chunks = readdirSync(assets).filter((f) => /^chunk-.*\.js$/.test(f));
      const highlighter = chunks.find((f) =>
        readFileSync(join(assets, f), 'utf8').includes('registerLanguage'),
      );
      expect(highlighter).toBeDefined();
      expect(app).toContain(`import("./${highlighter}")`);
    },
    SLOW,
  );

  it(
    'draws a first screen with no code without asking for the highlighter, and asks once code is shown',
    async () => {
      const requested = (page: Page) =>
        page.evaluate(() =>
          performance
            .getEntriesByType('resource')
            .map((e) => e.name)
            .filter((n) => /\/assets\/chunk-/.test(n)),
        );
      const highlighter = readdirSync(join(webRoot, 'assets')).find(
        (f) =>
          /^chunk-.*\.js$/.test(f) &&
          readFileSync(join(webRoot, 'assets', f), 'utf8').includes('registerLanguage'),
      )!;
      const { page, context, errors } = await openPage(browser, served);
      const short = session('short');
      await go(page, `#/s/claude-code/${short.id}`);
      await page.waitForSelector('.status-line[data-loaded=yes]', { timeout: 60_000 });
      await page.waitForTimeout(1000);
      expect((await requested(page)).some((n) => n.endsWith(highlighter))).toBe(false);
      const head = session('36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2');
      const read = (await items(head)).find((i) => i.type === 'tool:Read' && i.role === 'use')!;
      const body = await open(await rowOf(page, head, read));
      await body.locator('code.hljs').waitFor();
      expect((await requested(page)).some((n) => n.endsWith(highlighter))).toBe(true);
      await clean(page, errors);
      await context.close();
    },
    SLOW,
  );

  it(
    "shows a Read's file as highlighted code numbered from its first line",
    async () => {
      const head = session('36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2');
      const call = (await items(head)).find((i) => i.type === 'tool:Read' && i.role === 'use')!;
      const { page, context, errors } = await openPage(browser, served);
      const row = await rowOf(page, head, call);
      expect(await shownText(row.locator('.fold-toggle'))).toMatch(/styles\.css\s*·\s*167 lines/);
      const body = await open(row);
      const code = body.locator('.code-block code');
      await code.waitFor();
      expect(await code.textContent()).toMatch(/^\* \{\n {4}margin: 0;/);
      // Highlighted once the chunk is in: CSS selectors and properties are coloured spans.
      await body.locator('code.hljs span[class^="hljs-"]').first().waitFor();
      expect(await body.locator('code.hljs span.hljs-attribute').count()).toBeGreaterThan(10);
      expect((await body.locator('.line-numbers').textContent())?.split('\n').slice(0, 3)).toEqual([
        '1',
        '2',
        '3',
      ]);
      expect(await shownText(body)).not.toContain('show the record as written\n{');
      await screenshot(page, 'items-read-result');
      await clean(page, errors);
      await context.close();
    },
    SLOW,
  );

  it(
    "shows a Grep's matching lines with their count, and a Glob's files as a list",
    async () => {
      const dov = session('4d5611e5-241a-462a-8d15-5122611a9569');
      const grep = (await items(dov)).find((i) => i.type === 'tool:Grep' && i.pattern === '@show_debug')!;
      const { page, context, errors } = await openPage(browser, served);
      const grepRow = await rowOf(page, dov, grep);
      expect(await shownText(grepRow.locator('.fold-toggle'))).toContain('@show_debug in');
      expect(await shownText(grepRow.locator('.result-summary'))).toContain('2 matches');
      const grepBody = await open(grepRow);
      await expect.poll(() => shownText(grepBody.locator('.output'))).toContain('524:');
      await screenshot(page, 'items-grep-result');

      const heavy = session('tool_heavy');
      const glob = (await items(heavy)).find((i) => i.type === 'tool:Glob' && i.role === 'use')!;
      const globRow = await rowOf(page, heavy, glob);
      expect(await shownText(globRow.locator('.result-summary'))).toContain('1 match');
      const globBody = await open(globRow);
      await globBody.locator('.file-list li').first().waitFor();
      expect(await globBody.locator('.file-list li').allTextContents()).toEqual([
        '/home/marco/projects/spotter/assets/js/app.js',
      ]);
      await screenshot(page, 'items-glob-result');
      await clean(page, errors);
      await context.close();
    },
    SLOW,
  );

  it(
    'shows web searches: Claude Code’s found pages as links, Codex’s query and that it searched',
    async () => {
      const heavy = session('tool_heavy');
      const search = (await items(heavy)).find((i) => i.type === 'tool:WebSearch' && i.role === 'use')!;
      const { page, context, errors } = await openPage(browser, served);
      const row = await rowOf(page, heavy, search);
      const body = await open(row);
      const link = body.locator('.link-list a').first();
      await link.waitFor();
      expect(await link.getAttribute('href')).toMatch(/^https:\/\//);
      expect(await link.getAttribute('rel')).toBe('noopener noreferrer');
      await screenshot(page, 'items-websearch-claude');

      // A fetched page is Markdown, and drawn as such.
      const sub = session('subagent');
      const fetch = (await items(sub)).find((i) => i.type === 'tool:WebFetch' && i.role === 'use')!;
      const fetchBody = await open(await rowOf(page, sub, fetch));
      const page1 = fetchBody.locator('.markdown.fetched');
      await page1.waitFor();
      expect(await page1.locator('h1').first().textContent()).toBe(
        'Claude Marketplace for Elixir - Supported Tools',
      );
      expect(await shownText(page1)).not.toContain('## ');

      const codex = heads.find((h) => h.agent === 'codex' && h.path.includes('12-54-34'))!;
      const codexSearch = (await items(codex)).find((i) => i.type === 'tool:web_search')!;
      const codexRow = await rowOf(page, codex, codexSearch);
      const line = await shownText(codexRow.locator('.fold-toggle'));
      expect(line).not.toContain('no result yet');
      expect(line).toContain('searched');
      expect(line).toContain('[REDACTED_QUERY');
      expect(line).not.toContain('{"type"');
      const codexBody = await open(codexRow);
      expect(await shownText(codexBody)).toContain('searched for');
      await screenshot(page, 'items-websearch-codex');
      await clean(page, errors);
      await context.close();
    },
    SLOW,
  );

  it(
    "shows a Gemini write_file's content as code, its line breaks as line breaks",
    async () => {
      const gemini = heads.find((h) => h.agent === 'gemini-cli')!;
      const write = (await items(gemini)).find((i) => i.type === 'tool:write_file' && i.role === 'use')!;
      const content = (write.input as Fields).content as string;
      const { page, context, errors } = await openPage(browser, served);
      const row = await rowOf(page, gemini, write);
      expect(await shownText(row.locator('.fold-toggle'))).toContain('index.html');
      const body = await open(row);
      const code = body.locator('.code-block code');
      await code.waitFor();
      expect(await code.textContent()).toBe(content);
      expect(await shownText(body)).not.toContain('\\n');
      await body.locator('code.hljs span.hljs-tag').first().waitFor();
      // Its result is the sentence the tool answered.
      expect(await shownText(body)).toContain('Successfully created and wrote to new file');
      await screenshot(page, 'items-gemini-write');
      await clean(page, errors);
      await context.close();
    },
    SLOW,
  );

  it(
    'puts a failed call’s reason on its collapsed row: the error message, or a command’s exit code and first error line',
    async () => {
      const short = session('short');
      const glob = (await items(short)).find((i) => i.type === 'tool:Glob' && i.role === 'use')!;
      const { page, context, errors } = await openPage(browser, served);
      const globRow = await rowOf(page, short, glob);
      expect(await globRow.getAttribute('class')).toContain('failed');
      const reason = globRow.locator('.fold-toggle .fail-reason');
      expect(await shownText(reason)).toContain(
        "failed: The user doesn't want to proceed with this tool use.",
      );
      expect(await reason.isVisible()).toBe(true);
      await screenshot(page, 'items-failed-glob');

      const dov = session('4d5611e5-241a-462a-8d15-5122611a9569');
      const all = await items(dov);
      const failed = all.find(
        (i) => i.type === 'tool:Bash' && i.role === 'result' && String(i.stderr).startsWith('Exit code 1\n'),
      )!;
      const call = all.find((i) => i.role === 'use' && i.tool_use_id === failed.tool_use_id)!;
      const bashRow = await rowOf(page, dov, call);
      const bashReason = await shownText(bashRow.locator('.fold-toggle .fail-reason'));
      expect(bashReason).toBe(`failed: exit 1 · ${String(failed.stderr).split('\n')[1]}`);
      // Opened, the whole error comes first, before the command.
      const body = await open(bashRow);
      const blocks = await body.locator('.text-block').allTextContents();
      expect(blocks[0]).toContain('The following paths are ignored');
      expect(blocks[1]).toContain('$ ');
      await screenshot(page, 'items-failed-bash');

      // A failed Read in a subagent's lane says why, not the raw flag.
      const loaded = await loadTranscript(corpusPlatform(), { path: dov.path, agent: dov.agent });
      if (!loaded.ok) throw new Error(loaded.error.message);
      const lane = classifyTranscript(loaded.value, { agentId: 'a2898e3' });
      if (!lane.ok) throw new Error(lane.error.message);
      const laneItems = lane.value.items as Fields[];
      const failedRead = laneItems.find((i) => i.type === 'tool:Read' && i.is_error === true)!;
      const readCall = laneItems.find((i) => i.role === 'use' && i.tool_use_id === failedRead.tool_use_id)!;
      await go(
        page,
        `#/s/claude-code/${dov.id}?item=${encodeURIComponent(String(readCall.uuid))}&type=tool%3ARead&lane=a2898e3`,
      );
      const readRow = page.locator(
        `.row.target[data-uuid="${String(readCall.uuid)}"][data-type="tool:Read"]`,
      );
      await readRow.waitFor({ timeout: 60_000 });
      expect(await shownText(readRow.locator('.fold-toggle .fail-reason'))).toBe(
        'failed: File does not exist.',
      );
      const readBody = await open(readRow);
      expect(await shownText(readBody)).not.toContain('is_error');
      await screenshot(page, 'items-failed-read');
      await clean(page, errors);
      await context.close();
    },
    SLOW,
  );

  it(
    'highlights the fenced code of a reply, and counts an Edit as its diff does, with the diff highlighted',
    async () => {
      const sub = session('subagent');
      const reply = (await items(sub)).find(
        (i) => i.type === 'message:user:out' && String(i.text).includes('```elixir'),
      )!;
      const { page, context, errors } = await openPage(browser, served);
      const replyRow = await rowOf(page, sub, reply);
      await replyRow
        .locator('.markdown pre code.language-elixir.hljs span[class^="hljs-"]')
        .first()
        .waitFor();
      await screenshot(page, 'items-reply-code');

      const pomodoro = session('36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2');
      const edits = (await items(pomodoro))
        .filter((i) => i.type === 'tool:Edit' && i.role === 'use')
        .slice(0, 4);
      for (const edit of edits) {
        const row = await rowOf(page, pomodoro, edit);
        const summary = await shownText(row.locator('.result-summary'));
        const body = await open(row);
        await body.locator('.diff').first().waitFor();
        const removed = await body.locator('.dl.del').count();
        const added = await body.locator('.dl.add').count();
        expect(summary).toContain(`−${removed} +${added} lines`);
      }
      // The first edit adds one line to a rule of seven: −0 +1, not −7 +8.
      const first = await rowOf(page, pomodoro, edits[0]!);
      expect(await shownText(first.locator('.result-summary'))).toContain('−0 +1 lines');
      await first.locator('.diff .tx.hljs span[class^="hljs-"]').first().waitFor();
      await screenshot(page, 'items-edit-diff');
      await clean(page, errors);
      await context.close();
    },
    SLOW,
  );

  it(
    'draws one divider per compaction, its summary folded under it as Markdown',
    async () => {
      const dov = session('4d5611e5-241a-462a-8d15-5122611a9569');
      const all = await items(dov);
      const boundary = all.find((i) => i.type === 'system:compact')!;
      const { page, context, errors } = await openPage(browser, served);
      const row = await rowOf(page, dov, boundary);
      // Both compaction items of the one event are drawn by this row: one divider in the page.
      await expect.poll(() => page.locator('.compaction .divider').count()).toBe(1);
      expect(await shownText(row.locator('.divider'))).toMatch(
        /^Context compacted · auto, 170,251 tokens before$/,
      );
      const body = await open(row);
      const markdown = body.locator('.markdown.compaction-summary');
      await markdown.waitFor();
      expect(await markdown.locator('h1, h2, h3, ol, ul').count()).toBeGreaterThan(0);
      expect(await shownText(markdown)).not.toMatch(/^#+ /m);
      // The divider's words are readable: on the page, and on the row a link landed on.
      expect(await seriousAxeViolations(page)).toEqual([]);
      await screenshot(page, 'items-compaction');
      await clean(page, errors);
      await context.close();
    },
    SLOW,
  );

  it(
    'shows on each call a badge of the hooks that ran for it, which opens to list them',
    async () => {
      const spotter = session('fa812bfe-b295-4cca-9c2f-fdf01028cb46');
      const all = await items(spotter);
      const hooksOf = new Map<unknown, Fields[]>();
      for (const i of all)
        if (String(i.type).startsWith('hook:') && i.tool_use_id !== undefined)
          hooksOf.set(i.tool_use_id, [...(hooksOf.get(i.tool_use_id) ?? []), i]);
      const call = all.find(
        (i) => i.type === 'tool:Bash' && i.role === 'use' && (hooksOf.get(i.tool_use_id)?.length ?? 0) >= 2,
      )!;
      const hooks = hooksOf.get(call.tool_use_id)!;
      const { page, context, errors } = await openPage(browser, served);
      const row = await rowOf(page, spotter, call);
      const badge = row.locator('.hooks-badge');
      expect(await shownText(badge)).toBe(`${hooks.length} hooks`);
      expect(await badge.getAttribute('aria-expanded')).toBe('false');
      await badge.click();
      const list = row.locator('.hook-list');
      await list.waitFor();
      expect(await list.locator('.hook-run').count()).toBe(hooks.length);
      const first = await shownText(list.locator('.hook-run').first());
      expect(first).toContain(String(hooks[0]!.hook_name));
      expect(first).toContain(String(hooks[0]!.command));
      expect(first).toContain('ran');
      // The hooks are on their call's row, not rows of their own.
      expect(
        await page.locator('.row.item[data-type^="hook:Pre"], .row.item[data-type^="hook:Post"]').count(),
      ).toBe(0);
      await screenshot(page, 'items-hooks');
      await clean(page, errors);
      await context.close();
    },
    SLOW,
  );

  it(
    'has no serious accessibility violation on a session view with its items open, light and dark',
    async () => {
      const dov = session('4d5611e5-241a-462a-8d15-5122611a9569');
      const all = await items(dov);
      const failed = all.find((i) => i.type === 'tool:Bash' && i.role === 'result' && i.is_error === true)!;
      const call = all.find((i) => i.role === 'use' && i.tool_use_id === failed.tool_use_id)!;
      for (const scheme of ['light', 'dark'] as Scheme[]) {
        const { page, context, errors } = await openPage(browser, served, scheme);
        const row = await rowOf(page, dov, call);
        await open(row);
        const badge = row.locator('.hooks-badge');
        if (await badge.count()) await badge.click();
        const thinking = page.locator('.fold-toggle:has-text("Thinking")');
        if (await thinking.count()) await thinking.first().click();
        expect(await seriousAxeViolations(page)).toEqual([]);
        await screenshot(page, `items-session-${scheme}`);
        await clean(page, errors);
        await context.close();
      }
    },
    SLOW,
  );
});

describe('highlighted code from a hostile transcript', () => {
  let served: Served;
  const SID = '44444444-4444-4444-8444-444444444444';
  const FILE = '/home/dev/hostile/page.html';
  const hostileFile =
    '<img src=x onerror="alert(1)">\n<script>alert(2)</script>\n<style>body{display:none}</style>';
  const reply =
    'Look:\n\n```html\n<img src=x onerror="alert(3)"><script>alert(4)</script>\n```\n\n```js\n</code></pre><img src=x onerror=alert(5)>\n```';

  beforeAll(async () => {
    const env = homeEnv(tempDir('cairn-home-'));
    const w = claudeSession(env.CLAUDE_CONFIG_DIR!, '/home/dev/hostile', SID);
    w.append(w.prompt('read the page') + w.say(reply));
    // A Read of the file, written as Claude Code writes one: the call, then its numbered result.
    const at = '2026-03-01T10:05:00.000Z';
    const common = {
      isSidechain: false,
      userType: 'external',
      cwd: '/home/dev/hostile',
      sessionId: SID,
      version: '2.1.39',
    };
    const numbered = hostileFile
      .split('\n')
      .map((l, i) => `${String(i + 1).padStart(6)}→${l}`)
      .join('\n');
    appendFileSync(
      w.path,
      `${JSON.stringify({ ...common, uuid: `${SID.slice(0, 8)}-0000-4000-8000-900000000001`, parentUuid: null, timestamp: at, type: 'assistant', requestId: 'req_read', message: { id: 'msg_read', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: FILE } }], usage: { input_tokens: 1, output_tokens: 1 } } })}\n` +
        `${JSON.stringify({ ...common, uuid: `${SID.slice(0, 8)}-0000-4000-8000-900000000002`, parentUuid: null, timestamp: at, type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_read', content: numbered }] }, toolUseResult: { type: 'text', file: { filePath: FILE, content: hostileFile, numLines: 3, startLine: 1, totalLines: 3 } } })}\n`,
    );
    served = await serve(env, webRoot);
  }, SLOW);

  afterAll(async () => {
    await served?.server.close();
  });

  it(
    'shows the markup in a Read and in fenced blocks as highlighted text, and runs nothing',
    async () => {
      const { page, context, errors, dialogs } = await openPage(browser, served);
      await go(page, `#/s/claude-code/${SID}`);
      await page.waitForSelector('.status-line[data-loaded=yes]', { timeout: 60_000 });
      const html = page.locator('.markdown pre code.language-html');
      await html.locator('span[class^="hljs-"]').first().waitFor();
      expect(await html.textContent()).toBe('<img src=x onerror="alert(3)"><script>alert(4)</script>\n');
      expect(await page.locator('.markdown pre code.language-js').textContent()).toBe(
        '</code></pre><img src=x onerror=alert(5)>\n',
      );
      await page.locator('.row[data-type="tool:Read"] .fold-toggle').click();
      const code = page.locator('.row[data-type="tool:Read"] .code-block code');
      await code.locator('span.hljs-tag').first().waitFor();
      expect(await code.textContent()).toBe(hostileFile);
      // Nothing of it became markup: no image, no script or style of the transcript's in the page.
      expect(await page.locator('.timeline img, .timeline script, .timeline style, #app img').count()).toBe(
        0,
      );
      expect(await page.locator('.hljs *:not(span)').count()).toBe(0);
      expect(await page.locator('.hljs span[onerror], .hljs span[style]').count()).toBe(0);
      expect(dialogs).toEqual([]);
      await screenshot(page, 'items-hostile-code');
      expect(errors).toEqual([]);
      expect(await violations(page)).toEqual([]);
      await context.close();
    },
    SLOW,
  );
});
