// The token stays with cairn's own origin (scheme, host and port) in a real browser: another server
// on 127.0.0.1 that the same browser visits receives nothing of it, and a tab outlives a restart of
// the daemon, reconnecting by itself and reloading without the token in its address.
import { rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RunningServer, startServer } from '@cairn/server';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildUi, homeEnv, launch, openPage, serve, shownText, tempDir } from './harness.js';

const SLOW = 120_000;

let webRoot: string;
let browser: Browser;

beforeAll(async () => {
  [webRoot, browser] = await Promise.all([buildUi(), launch()]);
}, SLOW);

afterAll(async () => {
  await browser?.close();
});

interface Seen {
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

/** Another local server, on a port of its own: it records every request and serves a page that reports
 * what its scripts can read (cookies, storage) back to it. */
async function otherServer(): Promise<{ server: Server; port: number; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    if (req.url === '/') {
      res.setHeader('Content-Type', 'text/html');
      res.end(`<!doctype html><title>other</title><script>
        fetch('/report?cookie=' + encodeURIComponent(document.cookie) +
          '&storage=' + encodeURIComponent(localStorage.getItem('cairn.token') ?? '') +
          '&session=' + encodeURIComponent(sessionStorage.getItem('cairn.token') ?? ''));
      </script>`);
      return;
    }
    res.end('ok');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return { server, port: (server.address() as AddressInfo).port, seen };
}

const connected = (page: Page) => page.waitForSelector('.conn.conn-open', { timeout: 20_000 });

describe('the token in the browser', () => {
  it(
    'reaches no other server on the host, by cookie, header or script',
    async () => {
      const served = await serve(homeEnv(tempDir('cairn-home-')), webRoot);
      const other = await otherServer();
      const { page, context, errors } = await openPage(browser, served);
      await connected(page);
      // The address bar and the history entry lost the token; no cookie holds it.
      expect(page.url()).toBe(served.base);
      expect(await page.evaluate(() => document.cookie)).toBe('');
      expect((await context.cookies()).map((c) => c.value)).not.toContain(served.server.token);

      const visit = await context.newPage();
      await visit.goto(`http://127.0.0.1:${other.port}/`);
      await expect
        .poll(() => other.seen.some((s) => s.url.startsWith('/report')), { timeout: 10_000 })
        .toBe(true);
      const everything = JSON.stringify(other.seen);
      expect(everything).not.toContain(served.server.token);
      expect(everything).not.toContain('cairn_token');
      const report = new URL(other.seen.find((s) => s.url.startsWith('/report'))!.url, 'http://x');
      expect(report.searchParams.get('storage')).toBe('');
      expect(report.searchParams.get('cookie')).toBe('');

      // cairn's own page still reaches its data: a request from inside it with the token it keeps.
      const status = await page.evaluate(async () => {
        const token = localStorage.getItem('cairn.token');
        return (await fetch('alive', { headers: { authorization: `Bearer ${token}` } })).status;
      });
      expect(status).toBe(204);
      expect(errors).toEqual([]);
      await context.close();
      await new Promise<void>((r) => other.server.close(() => r()));
      await served.server.close();
    },
    SLOW,
  );

  it(
    'keeps a tab working across a restart of the daemon: it reconnects, and a reload needs no token',
    async () => {
      const env = homeEnv(tempDir('cairn-home-'));
      const cairnHome = tempDir('cairn-state-');
      const start = (): Promise<RunningServer> =>
        startServer({
          env,
          homeDir: env.HOME,
          cairnHome,
          webRoot,
          waitForIndex: true,
          demo: false,
          rescanMs: 60_000,
        });
      let server = await start();
      const base = `http://127.0.0.1:${server.port}/`;
      const { page, context, errors } = await openPage(browser, {
        server,
        cairnHome,
        base,
        entry: `${base}?token=${server.token}`,
      });
      await connected(page);
      const port = server.port;
      await server.close();
      await page.waitForSelector('.conn:not(.conn-open)', { timeout: 10_000 });
      server = await start();
      expect(server.port).toBe(port);
      await connected(page);
      await page.reload();
      await connected(page);
      expect(page.url()).toBe(base);
      expect(await page.locator('body').textContent()).not.toContain('missing or wrong token');
      expect(errors).toEqual([]);
      await context.close();
      await server.close();
    },
    SLOW,
  );

  it(
    'says when a restarted daemon refuses the kept token, and takes the new one another tab stored',
    async () => {
      const env = homeEnv(tempDir('cairn-home-'));
      const cairnHome = tempDir('cairn-state-');
      const start = (): Promise<RunningServer> =>
        startServer({
          env,
          homeDir: env.HOME,
          cairnHome,
          webRoot,
          waitForIndex: true,
          demo: false,
          rescanMs: 60_000,
        });
      let server = await start();
      const base = `http://127.0.0.1:${server.port}/`;
      const served = { server, cairnHome, base, entry: `${base}?token=${server.token}` };
      const { page, context, errors } = await openPage(browser, served);
      await connected(page);
      await server.close();
      // A new token: the kept one was removed while the daemon was down.
      rmSync(`${cairnHome}/token`);
      server = await start();
      expect(server.port).toBe(served.server.port);
      await page.waitForSelector('.conn.conn-refused', { timeout: 20_000 });
      expect(await shownText(page.locator('.conn'))).toContain('cairn url');
      const second = await context.newPage();
      await second.goto(`${base}?token=${server.token}`);
      await connected(second);
      // The first tab finds the token the second one stored, on its next try.
      await connected(page);
      expect(errors).toEqual([]);
      await context.close();
      await server.close();
    },
    SLOW,
  );
});
