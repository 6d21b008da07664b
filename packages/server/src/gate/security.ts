// Who may talk to the server: the token, and the Host and Origin checks against DNS rebinding.
//
// The token never travels in a cookie: a cookie is scoped to the host, not the port, so a browser
// hands it to every other server on 127.0.0.1. The page keeps the token in its origin's storage
// (scheme, host and port) and shows it on each request: an Authorization header over HTTP, a
// subprotocol on the WebSocket. `?token=` in the address is how a browser (or a script) comes in.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  linkSync,
  lstatSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';

/** The cookie earlier versions kept the token in; an answer to a browser that still sends it clears it. */
export const TOKEN_COOKIE = 'cairn_token';

/** The subprotocol a WebSocket names (and the server picks) besides the one that carries the token. */
export const SOCKET_PROTOCOL = 'cairn';
/** A subprotocol `cairn.token.<token>` carries the token on a browser's WebSocket upgrade. */
export const TOKEN_PROTOCOL_PREFIX = 'cairn.token.';

/** The page's policy: nothing but the server's own scripts, styles and sockets. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ');

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** `CAIRN_TOKEN` when set, else 32 random bytes in hex, new for every call. */
export function makeToken(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const fixed = env.CAIRN_TOKEN?.trim();
  return fixed ? fixed : randomBytes(32).toString('hex');
}

/** Where the daemon keeps its token between starts. */
export const tokenPath = (home: string): string => join(home, 'token');

const STORED_TOKEN = /^[0-9a-f]{64}$/;

/**
 * `CAIRN_TOKEN` when set; else the token kept in `$CAIRN_HOME/token`, made once and kept across
 * restarts so an open tab finds the daemon again. The file is created whole, readable by its owner
 * alone; one that others could read, another user owns, or that holds no token is replaced.
 */
export function persistentToken(
  home: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  log: (line: string) => void = () => {},
): string {
  const fixed = env.CAIRN_TOKEN?.trim();
  if (fixed) return fixed;
  const path = tokenPath(home);
  const kept = readKeptToken(path);
  if (kept.ok) return kept.token;
  if (kept.reason !== 'missing') log(`cairn: ${path} ${kept.reason}; making a new token`);
  const token = randomBytes(32).toString('hex');
  try {
    return keepToken(path, token, kept.reason === 'missing');
  } catch (cause) {
    log(
      `cairn: cannot keep the token in ${path} (${(cause as Error).message}); it lasts until this daemon stops`,
    );
    return token;
  }
}

/** Writes `token` to a new file beside `path` and puts it in place; answers the token in force. */
function keepToken(path: string, token: string, missing: boolean): string {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${token}\n`);
  } finally {
    closeSync(fd);
  }
  try {
    if (missing) {
      try {
        // A link never replaces: of two daemons starting at once, the first token stays.
        linkSync(temp, path);
      } catch (cause) {
        const other = (cause as NodeJS.ErrnoException).code === 'EEXIST' ? readKeptToken(path) : undefined;
        if (other?.ok) return other.token;
        renameSync(temp, path);
      }
    } else renameSync(temp, path);
  } finally {
    rmSync(temp, { force: true });
  }
  return token;
}

/** The token a daemon of `home` uses, without making one: for clients such as `cairn url`. */
export function keptToken(
  home: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  const fixed = env.CAIRN_TOKEN?.trim();
  if (fixed) return fixed;
  const kept = readKeptToken(tokenPath(home));
  return kept.ok ? kept.token : undefined;
}

function readKeptToken(path: string): { ok: true; token: string } | { ok: false; reason: string } {
  let st: ReturnType<typeof lstatSync>;
  try {
    st = lstatSync(path);
  } catch {
    return { ok: false, reason: 'missing' };
  }
  if (!st.isFile()) return { ok: false, reason: 'is not a file' };
  if (typeof process.getuid === 'function' && st.uid !== process.getuid())
    return { ok: false, reason: 'belongs to another user' };
  if ((st.mode & 0o077) !== 0) {
    // Others could have read it: the token it holds may be known, so it is not used again.
    return { ok: false, reason: 'was readable by others' };
  }
  const token = readFileSync(path, 'utf8').trim();
  if (!STORED_TOKEN.test(token)) return { ok: false, reason: 'holds no token' };
  chmodSync(path, 0o600);
  return { ok: true, token };
}

const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'];

/** Whether a bind address is reachable from this machine only. */
export const isLoopback = (host: string): boolean =>
  host === '127.0.0.1' || host === 'localhost' || host === '::1' || host === '[::1]';

/** How a host is written in a Host header: IPv6 literals in brackets. */
const hostForHeader = (host: string): string =>
  host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;

export interface Gate {
  readonly token: string;
  /** Host header values accepted, `name:port`, lowercased. */
  readonly hosts: ReadonlySet<string>;
}

/** The names the server answers to on `port`: the loopback names, and the bind host when it is another. */
export function makeGate(token: string, port: number, bindHost: string): Gate {
  const names = new Set(LOOPBACK_NAMES);
  if (!isLoopback(bindHost) && bindHost !== '0.0.0.0' && bindHost !== '::')
    names.add(hostForHeader(bindHost));
  return { token, hosts: new Set([...names].map((n) => `${n}:${port}`.toLowerCase())) };
}

export type Refusal = { status: 401 | 403; reason: string };

/** The token from `?token=`, an `Authorization: Bearer` header or a `cairn.token.` subprotocol. */
export function presentedToken(url: URL, headers: IncomingHttpHeaders): string | undefined {
  const fromQuery = url.searchParams.get('token');
  if (fromQuery) return fromQuery;
  const bearer = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '');
  if (bearer) return bearer[1];
  for (const p of (headers['sec-websocket-protocol'] ?? '').split(',')) {
    const name = p.trim();
    if (name.startsWith(TOKEN_PROTOCOL_PREFIX)) return name.slice(TOKEN_PROTOCOL_PREFIX.length);
  }
  return undefined;
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    try {
      return decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      return undefined; // a malformed escape is no token, not a crash
    }
  }
  return undefined;
}

export function tokenMatches(gate: Gate, presented: string | undefined): boolean {
  if (presented === undefined) return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(gate.token);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Host first (a rebound DNS name reaches the socket with a foreign Host), then Origin when the
 * browser sent one, then the token. Undefined means the request may proceed.
 */
export function checkRequest(gate: Gate, url: URL, headers: IncomingHttpHeaders): Refusal | undefined {
  return checkOrigin(gate, headers) ?? checkToken(gate, url, headers);
}

/** The Host and Origin checks alone: for the page and its scripts, which hold no data. */
export function checkOrigin(gate: Gate, headers: IncomingHttpHeaders): Refusal | undefined {
  const host = headers.host?.toLowerCase();
  if (!host || !gate.hosts.has(host)) return { status: 403, reason: 'unexpected Host header' };
  const origin = headers.origin;
  if (origin !== undefined && !originAllowed(gate, origin))
    return { status: 403, reason: 'unexpected Origin' };
  return undefined;
}

function checkToken(gate: Gate, url: URL, headers: IncomingHttpHeaders): Refusal | undefined {
  if (!tokenMatches(gate, presentedToken(url, headers)))
    return { status: 401, reason: 'missing or wrong token' };
  return undefined;
}

function originAllowed(gate: Gate, origin: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  return parsed.protocol === 'http:' && parsed.pathname === '/' && gate.hosts.has(parsed.host.toLowerCase());
}

/** Clears the cookie earlier versions set, which the browser would otherwise keep handing to every
 * server on the host. */
export const expiredTokenCookie = `${TOKEN_COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict`;
