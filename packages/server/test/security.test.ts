// The gate: a token on every request and socket that reaches data, never in a cookie; Host and Origin
// checked; a strict policy on every answer; the token kept across restarts, readable by its owner alone.
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
function upgrade(
  url: string,
  headers: Record<string, string> = {},
  protocols: string[] = [],
): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, protocols, { headers });
    ws.on('open', () => {
      if (protocols.length > 0 && ws.protocol !== 'cairn') resolve(-1);
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

  const bearer = () => ({ authorization: `Bearer ${server.token}` });

  it('refuses a request for data without the token with 401, and serves the page itself to anyone', async () => {
    expect((await get(server, '/dumps/none.json')).status).toBe(401);
    expect((await get(server, '/alive')).status).toBe(401);
    const page = await get(server, '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
  });

  it('refuses a wrong token with 401, also on the page address', async () => {
    expect((await get(server, '/?token=nope')).status).toBe(401);
    expect((await get(server, '/alive', { authorization: 'Bearer nope' })).status).toBe(401);
  });

  it('takes no token from a cookie, clears the cookie earlier versions set, and keeps serving', async () => {
    const withCookie = await get(server, '/dumps/none.json', { cookie: `cairn_token=${server.token}` });
    expect(withCookie.status).toBe(401);
    const page = await get(server, '/', { cookie: `cairn_token=${server.token}` });
    expect(String(page.headers['set-cookie'])).toMatch(/^cairn_token=; Max-Age=0; Path=\//);
    expect((await get(server, '/', { cookie: 'cairn_token=%E0%A4%A' })).status).toBe(200);
    expect((await get(server, '/alive', bearer())).status).toBe(204);
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
      ...bearer(),
    });
    expect(answer.status).toBe(404);
  });

  it('answers the printed address with the page and sets no cookie: the page keeps the token itself', async () => {
    const first = await get(server, `/?token=${server.token}`);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toContain('text/html');
    expect(first.headers['set-cookie']).toBeUndefined();
    expect(first.headers.location).toBeUndefined();
    expect(first.headers['cache-control']).toBe('no-store');
  });

  it('sends the strict Content-Security-Policy and its companions on every answer, refusals included', async () => {
    for (const answer of [
      await get(server, '/dumps/none.json'),
      await get(server, '/'),
      await get(server, '/dumps/none.json', bearer()),
    ]) {
      expect(answer.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      expect(answer.headers['x-content-type-options']).toBe('nosniff');
      expect(answer.headers['referrer-policy']).toBe('no-referrer');
    }
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'");
    expect(CONTENT_SECURITY_POLICY).toContain("frame-ancestors 'none'");
  });

  it('refuses file names that step out of their folder', async () => {
    expect((await get(server, '/assets/..%2F..%2Fpackage.json', bearer())).status).toBe(404);
    expect((await get(server, '/dumps/..%2Findex.sqlite', bearer())).status).toBe(404);
  });

  it('answers an address with broken percent-encoding 400, and goes on serving', async () => {
    const broken = await get(server, '/dumps/%E0%A4%A', bearer());
    expect(broken.status).toBe(400);
    expect(broken.body).toMatch(/percent-encoding/);
    expect((await get(server, '/alive', bearer())).status).toBe(204);
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
    expect(await upgrade(base, { cookie: `cairn_token=${server.token}` })).toBe(401);
    // A browser shows the token as a subprotocol; the server picks the plain one.
    expect(await upgrade(base, {}, ['cairn', `cairn.token.${server.token}`])).toBe(101);
    expect(await upgrade(base, {}, ['cairn', 'cairn.token.nope'])).toBe(401);
  });
});
