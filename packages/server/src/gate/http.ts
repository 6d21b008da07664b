// Plain HTTP: the web UI's files, dump downloads, and the headers every answer carries.
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { CATALOG_REFUSAL, mayReadCatalog } from './op-access.js';
import { admit, type FindUser, personWithToken, rememberPerson } from './people.js';
import {
  checkOrigin,
  cookieValue,
  expiredTokenCookie,
  type Gate,
  SECURITY_HEADERS,
  TOKEN_COOKIE,
} from './security.js';

export interface HttpOptions {
  readonly gate: () => Gate;
  /** The web build: `index.html` and `assets/`. */
  readonly webRoot: string;
  readonly dumpsDir: string;
  /** The Markdown rendering of a dump file's JSON text, or a reason it cannot be rendered. */
  readonly renderDumpMarkdown: (json: string) => { ok: true; text: string } | { ok: false; message: string };
  /** Hears each request that passed the gate, so that its socket counts as trusted. */
  readonly onAuthorized?: (req: IncomingMessage) => void;
  /** Hears every other request. */
  readonly onUnauthorized?: (req: IncomingMessage) => void;
  /** Answers `/api/…` requests that passed the gate (the chat's JSON API); false passes one on. */
  readonly api?: (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<boolean>;
  /** A user's token besides the daemon's own (a server with a database). */
  readonly findUser?: FindUser;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.md': 'text/markdown; charset=utf-8',
};

/** A file name without any folder part or hidden-file dot: nothing can step out of its folder. */
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/;

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>cairn</title></head>
<body><h1>cairn</h1><p>The web UI is not built yet: run <code>npm run build</code>, then reload.</p></body></html>
`;

/** The page and its scripts: the same for everyone, so served without the token (a navigation
 * cannot carry a header). Everything that holds data needs it. */
const isShell = (path: string): boolean =>
  path === '/' || path === '/index.html' || path.startsWith('/assets/');

export function createHttpHandler(options: HttpOptions) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    const url = new URL(req.url ?? '/', 'http://localhost');
    const gate = options.gate();
    const shell = isShell(url.pathname);
    const admitted = shell ? undefined : await admit(gate, options.findUser, url, req.headers);
    const refusal = shell
      ? checkOrigin(gate, req.headers)
      : admitted?.ok === false
        ? admitted.refusal
        : undefined;
    if (refusal) return send(res, refusal.status, 'text/plain; charset=utf-8', `${refusal.reason}\n`);
    if (admitted?.ok) rememberPerson(req, admitted.person);
    // A stale address (the token of another daemon) says so rather than opening a page that cannot connect.
    const offered = url.searchParams.get('token');
    if (shell && offered !== null) {
      const offeredBy = await personWithToken(gate, options.findUser, offered);
      if (!offeredBy.ok)
        return send(
          res,
          offeredBy.refusal.status,
          'text/plain; charset=utf-8',
          `${offeredBy.refusal.reason}\n`,
        );
    }
    if (!shell || offered !== null) options.onAuthorized?.(req);
    else options.onUnauthorized?.(req);
    if (options.api && url.pathname.startsWith('/api/') && (await options.api(req, res, url))) return;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return send(res, 405, 'text/plain; charset=utf-8', 'method not allowed\n');
    }
    if (cookieValue(req.headers.cookie, TOKEN_COOKIE) !== undefined)
      res.setHeader('Set-Cookie', expiredTokenCookie);
    try {
      // With `?token=`, the page itself moves the token into its storage and out of the address bar;
      // the answer to that address is not kept in the browser's cache.
      if (url.pathname === '/' || url.pathname === '/index.html')
        return await serveIndex(res, options.webRoot, offered === null ? 'no-cache' : 'no-store');
      if (url.pathname.startsWith('/assets/')) {
        const name = url.pathname.slice('/assets/'.length);
        return await serveFile(res, join(options.webRoot, 'assets'), name);
      }
      if (url.pathname === '/alive') {
        res.setHeader('Cache-Control', 'no-store');
        return send(res, 204, 'text/plain; charset=utf-8', '');
      }
      if (url.pathname.startsWith('/dumps/')) {
        // Dumps are written from the server's own sessions: on a team's server, an admin's alone.
        if (!mayReadCatalog(admitted?.ok ? admitted.person : undefined, options.findUser !== undefined))
          return send(res, 403, 'text/plain; charset=utf-8', `${CATALOG_REFUSAL}\n`);
        return await serveDump(res, options, url);
      }
      return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
    } catch (cause) {
      return send(res, 500, 'text/plain; charset=utf-8', `internal error: ${(cause as Error).message}\n`);
    }
  };
}

function send(res: ServerResponse, status: number, type: string, body: string | Buffer): void {
  res.statusCode = status;
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

async function serveIndex(res: ServerResponse, webRoot: string, cache: string): Promise<void> {
  const path = join(webRoot, 'index.html');
  try {
    const html = await readFile(path);
    res.setHeader('Cache-Control', cache);
    return send(res, 200, TYPES['.html']!, html);
  } catch {
    return send(res, 200, TYPES['.html']!, NOT_BUILT);
  }
}

async function serveFile(res: ServerResponse, dir: string, name: string): Promise<void> {
  if (!SAFE_NAME.test(name)) return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
  const path = join(dir, name);
  try {
    const s = await stat(path);
    if (!s.isFile()) return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
  } catch {
    return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
  }
  res.setHeader('Cache-Control', 'no-cache');
  return send(res, 200, TYPES[extname(name)] ?? 'application/octet-stream', await readFile(path));
}

async function serveDump(res: ServerResponse, options: HttpOptions, url: URL): Promise<void> {
  let name: string;
  try {
    name = decodeURIComponent(url.pathname.slice('/dumps/'.length));
  } catch {
    return send(res, 400, 'text/plain; charset=utf-8', 'the address has a broken percent-encoding\n');
  }
  if (!SAFE_NAME.test(name)) return send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
  const format = url.searchParams.get('format') ?? (name.endsWith('.md') ? 'md' : 'json');
  if (format !== 'json' && format !== 'md') {
    return send(res, 400, 'text/plain; charset=utf-8', 'format is json or md\n');
  }
  let text: string;
  try {
    text = await readFile(join(options.dumpsDir, name), 'utf8');
  } catch {
    return send(res, 404, 'text/plain; charset=utf-8', 'no such dump\n');
  }
  const isMarkdownFile = name.endsWith('.md');
  let body = text;
  if (format === 'md' && !isMarkdownFile) {
    const rendered = options.renderDumpMarkdown(text);
    if (!rendered.ok) return send(res, 422, 'text/plain; charset=utf-8', `${rendered.message}\n`);
    body = rendered.text;
  } else if (format === 'json' && isMarkdownFile) {
    return send(res, 400, 'text/plain; charset=utf-8', 'this dump was written as Markdown\n');
  }
  const stem = name.replace(/\.(json|md)$/, '');
  const download = `${stem}.${format}`;
  if (url.searchParams.get('download') === '1') {
    res.setHeader('Content-Disposition', `attachment; filename="${download}"`);
  }
  res.setHeader('Cache-Control', 'no-store');
  return send(res, 200, format === 'md' ? TYPES['.md']! : TYPES['.json']!, body);
}
