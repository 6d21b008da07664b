// The gate: a token on every request and socket, Host and Origin checked, a strict policy on every answer.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { CONTENT_SECURITY_POLICY, type RunningServer } from '../src/index.js';
import { homeEnv, serve, tempDir } from './helpers.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(server: RunningServer, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: server.port,
        path,
        headers: { host: `127.0.0.1:${server.port}`, ...headers },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The HTTP status a WebSocket upgrade is answered with (101 when it opened). */
function upgrade(url: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => {});
  });
}

describe('the gate of a running server', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve(homeEnv(tempDir()));
  });
  afterAll(() => server.close());

  it('refuses a request without the token with 401', async () => {
    const answer = await get(server, '/');
    expect(answer.status).toBe(401);
  });

  it('refuses a wrong token with 401', async () => {
    expect((await get(server, '/?token=nope')).status).toBe(401);
  });

  it('refuses a malformed token cookie with 401 and keeps serving', async () => {
    expect((await get(server, '/', { cookie: 'cairn_token=%E0%A4%A' })).status).toBe(401);
    expect((await get(server, '/')).status).toBe(401);
  });

  it('refuses a foreign Origin with 403, even with the token', async () => {
    const answer = await get(server, `/assets/app.js?token=${server.token}`, {
      origin: 'http://evil.example',
    });
    expect(answer.status).toBe(403);
  });

  it('refuses a foreign Host (a rebound DNS name) with 403, even with the token', async () => {
    const answer = await get(server, `/?token=${server.token}`, { host: `attacker.example:${server.port}` });
    expect(answer.status).toBe(403);
  });

  it('accepts its own origin and localhost', async () => {
    const answer = await get(server, '/dumps/none.json', {
      host: `localhost:${server.port}`,
      origin: `http://localhost:${server.port}`,
      cookie: `cairn_token=${server.token}`,
    });
    expect(answer.status).toBe(404);
  });

  it('moves the token from the address into an HttpOnly cookie, and the cookie alone lets the page in', async () => {
    const first = await get(server, `/?token=${server.token}`);
    expect(first.status).toBe(302);
    expect(first.headers.location).toBe('/');
    const cookie = String(first.headers['set-cookie']);
    expect(cookie).toContain(`cairn_token=${server.token}`);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Strict');
    const page = await get(server, '/', { cookie: `cairn_token=${server.token}` });
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
  });

  it('sends the strict Content-Security-Policy and its companions on every answer, refusals included', async () => {
    for (const answer of [
      await get(server, '/'),
      await get(server, '/', { cookie: `cairn_token=${server.token}` }),
    ]) {
      expect(answer.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['referrer-policy']).toBe('no-referrer');
    }
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
  });

  it('refuses file names that step out of their folder', async () => {
    const cookie = `cairn_token=${server.token}`;
    expect((await get(server, '/assets/..%2F..%2Fpackage.json', { cookie })).status).toBe(404);
    expect((await get(server, '/dumps/..%2Findex.sqlite', { cookie })).status).toBe(404);
  });

  it('gates the WebSocket upgrade the same way', async () => {
    const base = `ws://127.0.0.1:${server.port}/ws`;
    expect(await upgrade(base)).toBe(401);
    expect(await upgrade(`${base}?token=${server.token}`, { origin: 'http://evil.example' })).toBe(403);
    expect(await upgrade(`${base}?token=${server.token}`, { host: `rebound.example:${server.port}` })).toBe(
      403,
    );
    expect(
      await upgrade(`${base}?token=${server.token}`, { origin: `http://127.0.0.1:${server.port}` }),
    ).toBe(101);
    expect(await upgrade(base, { cookie: `cairn_token=${server.token}` })).toBe(101);
  });
});
