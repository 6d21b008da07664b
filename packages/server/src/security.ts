// Who may talk to the server: the token, and the Host and Origin checks against DNS rebinding.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export const TOKEN_COOKIE = 'cairn_token';

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

/** `CAIRN_TOKEN` when set, else 32 random bytes in hex, new for every start. */
export function makeToken(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const fixed = env.CAIRN_TOKEN?.trim();
  return fixed ? fixed : randomBytes(32).toString('hex');
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

/** The token from `?token=` or the cookie, if any. */
export function presentedToken(url: URL, headers: IncomingHttpHeaders): string | undefined {
  const fromQuery = url.searchParams.get('token');
  if (fromQuery) return fromQuery;
  const bearer = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '');
  if (bearer) return bearer[1];
  return cookieValue(headers.cookie, TOKEN_COOKIE);
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
  const host = headers.host?.toLowerCase();
  if (!host || !gate.hosts.has(host)) return { status: 403, reason: 'unexpected Host header' };
  const origin = headers.origin;
  if (origin !== undefined && !originAllowed(gate, origin))
    return { status: 403, reason: 'unexpected Origin' };
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

/** The cookie that lets the page's later requests and its WebSocket through without the query token. */
export const tokenCookie = (token: string): string =>
  `${TOKEN_COOKIE}=${encodeURIComponent(token)}; HttpOnly; SameSite=Strict; Path=/`;
