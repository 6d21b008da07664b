// What the browser tests stand on: the UI built into a folder of its own, the real server serving it
// over agent homes a test chooses, and Debian's Chromium driven by playwright-core.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type RunningServer, startServer } from '@cairn/server';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Locator,
  type Page,
} from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../../scripts/chromium.mjs';
import { homeEnv as agentHomes } from '../../transcript/test/homes.js';
import { buildWeb } from '../build-web.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const SCREENSHOTS = join(repoRoot, 'artifacts', 'screenshots');

export const tempDir = (prefix: string): string => mkdtempSync(join(tmpdir(), prefix));

/**
 * The web UI as the tests serve it, built from the sources once per run and shared by the test
 * files, which only read it (a build takes over a second, and thirty files serve it); outside a
 * run's folder, a build of its own each time.
 */
export async function buildUi(): Promise<string> {
  const run = process.env.CAIRN_TEST_RUN;
  if (run === undefined || run === '') return await buildWeb({ outDir: join(tempDir('cairn-web-'), 'dist') });
  const shared = join(run, 'web-ui');
  if (existsSync(shared)) return shared;
  const built = await buildWeb({ outDir: join(tempDir('cairn-web-'), 'dist') });
  // Moved into place whole, so a file never sees half a build: when files running side by side
  // both built it, the first move wins and the others serve that one.
  try {
    renameSync(built, shared);
  } catch (error) {
    if (!existsSync(shared)) throw error;
  }
  return shared;
}

export { corpusEnv } from '../../transcript/test/homes.js';

/** Agents' homes inside `home`, with Claude Code's projects folder ready for the test's sessions. */
export function homeEnv(home: string): Record<string, string> {
  mkdirSync(join(home, '.claude', 'projects'), { recursive: true });
  return agentHomes(home);
}

export interface Served {
  readonly server: RunningServer;
  readonly cairnHome: string;
  /** The address that logs a browser in (it carries the token). */
  readonly entry: string;
  readonly base: string;
}

export async function serve(
  env: Record<string, string>,
  webRoot: string,
  options: { cairnHome?: string } = {},
): Promise<Served> {
  const cairnHome = options.cairnHome ?? tempDir('cairn-state-');
  const server = await startServer({
    env,
    homeDir: env.HOME,
    cairnHome,
    webRoot,
    port: 0,
    waitForIndex: true,
    demo: false,
    checkReplies: true,
    rescanMs: 500,
  });
  const base = `http://127.0.0.1:${server.port}/`;
  return { server, cairnHome, entry: `${base}?token=${server.token}`, base };
}

export const launch = (): Promise<Browser> =>
  chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });

export type Scheme = 'light' | 'dark';

export interface Watched {
  readonly page: Page;
  readonly context: BrowserContext;
  /** Dialogs the page opened (alert, confirm, prompt): none should. */
  readonly dialogs: string[];
  /** Errors thrown in the page. */
  readonly errors: string[];
}

/**
 * A logged-in page that records every Content-Security-Policy violation in `window.__violations`:
 * the UI never creates inline script, inline handlers or inline styles, so any violation is a defect.
 * `options` change the browser context (a phone's viewport and touch, a time zone).
 */
export async function openPage(
  browser: Browser,
  served: Served,
  scheme: Scheme = 'light',
  options: BrowserContextOptions = {},
): Promise<Watched> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 860 },
    colorScheme: scheme,
    ...options,
  });
  await context.addInitScript(() => {
    const w = window as unknown as { __violations: string[]; __sockets: WebSocket[] };
    w.__violations = [];
    // Every socket the page opens, so a test can cut the connection the way a network would.
    w.__sockets = [];
    const Native = window.WebSocket;
    window.WebSocket = class extends Native {
      constructor(url: string | URL, protocols?: string | string[]) {
        super(url, protocols);
        w.__sockets.push(this);
      }
    };
    document.addEventListener('securitypolicyviolation', (e) => {
      w.__violations.push(`${e.violatedDirective} ${e.blockedURI} ${e.sample}`);
    });
  });
  const page = await context.newPage();
  const dialogs: string[] = [];
  const errors: string[] = [];
  page.on('dialog', (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(served.entry);
  return { page, context, dialogs, errors };
}

export const violations = (page: Page): Promise<string[]> =>
  page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`) });
}

/** Opens a route of the UI by its hash, as a link would. */
export async function go(page: Page, hash: string): Promise<void> {
  await page.evaluate((h) => {
    window.location.hash = h;
  }, hash);
}

/** A phone's page: 390 px wide, touch, no hover. */
export const PHONE = {
  viewport: { width: 390, height: 844 },
  isMobile: true,
  hasTouch: true,
  deviceScaleFactor: 2,
};

/** Resolves when the session's whole history is in the timeline. */
export const timelineLoaded = (page: Page) =>
  page.waitForSelector('.status-line[data-loaded=yes]', { timeout: 60_000 });

/** Whether the row is on screen, inside the timeline's scroller. */
export const inView = (page: Page, selector: string): Promise<boolean> =>
  page.evaluate((sel) => {
    const row = document.querySelector(sel);
    const scroller = document.querySelector('.timeline-scroll');
    if (!row || !scroller) return false;
    const r = row.getBoundingClientRect();
    const s = scroller.getBoundingClientRect();
    return r.top >= s.top - 1 && r.top < s.bottom;
  }, selector);

/** The text an element shows, as a reader sees it: rendered line breaks, hidden parts left out. */
export const shownText = (locator: Locator): Promise<string> =>
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what these tests check
  locator.innerText();

/**
 * Opens a toggle (a fold, a subagent lane) by clicking it until it says it is open. On a loaded
 * machine a row can be measured again, and move, between the check that the pointer is over the
 * toggle and the press itself, and the page then never sees the click; that click is made again
 * (and said on the test's output), never one the page took: the toggle is clicked only while it
 * says it is closed, and given time to answer each click.
 */
export async function openToggle(toggle: Locator): Promise<void> {
  for (let attempt = 1; attempt <= 4; attempt++) {
    if ((await toggle.getAttribute('aria-expanded')) === 'true') return;
    if (attempt > 1) console.warn(`clicking ${toggle} again: the page did not take the click before`);
    await toggle.click();
    const opened = await toggle
      .page()
      .waitForFunction((el) => el?.getAttribute('aria-expanded') === 'true', await toggle.elementHandle(), {
        timeout: 5_000,
      })
      .then(
        () => true,
        () => false,
      );
    if (opened) return;
  }
  throw new Error(`${toggle} did not open after four clicks`);
}

/** Closes the page's sockets, as a dropped connection would; the page is expected to reconnect. */
export const dropConnection = (page: Page): Promise<void> =>
  page.evaluate(() => {
    for (const ws of (window as unknown as { __sockets: WebSocket[] }).__sockets) ws.close();
  });

/** Records a measured figure in artifacts/web-timings.json, beside the others. */
export function recordTiming(name: string, value: unknown): void {
  const file = join(SCREENSHOTS, '..', 'web-timings.json');
  mkdirSync(dirname(file), { recursive: true });
  let all: Record<string, unknown> = {};
  try {
    all = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch {
    // First figure of the run.
  }
  all[name] = value;
  writeFileSync(file, `${JSON.stringify(all, null, 2)}\n`);
}

export interface AxeViolation {
  readonly id: string;
  readonly impact: string;
  readonly help: string;
  readonly targets: string[];
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core inside the page and returns its serious and critical violations. The engine is
 * evaluated through the debugging protocol, which the page's Content-Security-Policy does not govern,
 * so the check neither weakens the policy nor shows up as a violation of it.
 */
export async function seriousAxeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  return await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<AxeResults> } })
      .axe;
    interface AxeResults {
      violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[];
    }
    const results = await axe.run(document, { resultTypes: ['violations'] });
    return results.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({
        id: v.id,
        impact: v.impact ?? '',
        help: v.help,
        targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')),
      }));
  });
}
