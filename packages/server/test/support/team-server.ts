// What the team server's tests share: a workstation in this process that connects to a server over
// the real `/agent` endpoint with its ticket, and a call of the server's JSON API with a person's token.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { connectToServer, Journal, rosterLaunchResolver, Workstation } from '@cairn/runner';
import { markTurnErrorsOnNode } from '@cairn/transcript';
import { expect } from 'vitest';
import type { RunningServer } from '../../src/index.js';
import { tempDir } from '../helpers.js';
import { WIRE_AGENT } from './chat.js';

/** The scripted agent's roster entries: its display name under each key. */
const wireAgents = (names: Readonly<Record<string, string>>) =>
  Object.fromEntries(
    Object.entries(names).map(([key, name]) => [
      key,
      { name, command: process.execPath, args: [WIRE_AGENT] },
    ]),
  );

/**
 * Connects workstation `name` with `ticket` and waits until the server sees it and its `wire` agent.
 * `agents` names the roster keys the scripted agent answers under. Answers what stops it.
 */
export async function connectWorkstation(
  server: RunningServer,
  name: string,
  ticket: string,
  options: { agents?: Readonly<Record<string, string>>; env?: Record<string, string> } = {},
): Promise<() => Promise<void>> {
  const cairnHome = join(tempDir('cairn-team-ws-'), name);
  mkdirSync(cairnHome, { recursive: true });
  writeFileSync(
    join(cairnHome, 'config.json'),
    JSON.stringify({ agents: wireAgents(options.agents ?? { wire: 'Wire' }) }),
  );
  const journal = Journal.open(join(cairnHome, 'journal.sqlite'));
  const workstation = new Workstation({
    ticket,
    cairnHome,
    journal,
    env: { PATH: process.env.PATH ?? '', HOME: cairnHome, ...options.env },
    resolveLaunch: rosterLaunchResolver({ cairnHome, storeErrors: markTurnErrorsOnNode }),
    heartbeatMs: 200,
  });
  const client = connectToServer({ serverUrl: `http://127.0.0.1:${server.port}`, ticket, workstation });
  expect(await server.drive.wire.waitForWorkstation(name, 20_000)).toBe(true);
  for (let i = 0; i < 100 && !server.drive.wire.roster(name).some((b) => b.key === 'wire'); i++)
    await new Promise((r) => setTimeout(r, 50));
  return async () => {
    client.close();
    await workstation.stop();
    journal.close();
  };
}

/**
 * A call of the server's JSON API as the person whose token it carries: its status and its answer.
 * The server is one of this process's or the address of one in another (`http://127.0.0.1:PORT`).
 */
export async function apiCall(
  server: RunningServer | string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
  // biome-ignore lint/suspicious/noExplicitAny: answers are asserted on field by field
): Promise<{ status: number; body: any }> {
  const base = typeof server === 'string' ? server : `http://127.0.0.1:${server.port}`;
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed };
}

/** Whether the server lists workstation `name` as connected; false while it does not answer. */
export async function onlineAt(
  server: RunningServer | string,
  token: string,
  name: string,
): Promise<boolean> {
  const listed = await apiCall(server, token, 'GET', '/api/workstations').catch(() => undefined);
  const workstations: { name: string; online: boolean }[] | undefined = listed?.body?.workstations;
  return workstations?.some((w) => w.name === name && w.online) ?? false;
}
