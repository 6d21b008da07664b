// `session_kill`, `session_env_read`, `session_fork_origin` and `session_last_live_remove` over the real
// daemon, for a session it drives: a workstation in this process runs a scripted ACP agent.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateResponse } from '@cairn/protocol';
import { Journal, Workstation } from '@cairn/runner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linkInProcess, type RunningServer } from '../src/index.js';
import { Client, homeEnv, serve, tempDir } from './helpers.js';

const AGENT = fileURLToPath(new URL('./support/wire-agent.mjs', import.meta.url));
const WORKSTATION = 'bench';

describe('session ops for a driven session', () => {
  let dir: string;
  let server: RunningServer;
  let client: Client;
  let journal: Journal;
  let workstation: Workstation;
  let link: { drop(): void };

  beforeAll(async () => {
    dir = tempDir('cairn-control-');
    server = await serve(homeEnv(dir), { localWorkstation: false, cairnHome: join(dir, 'state') });
    journal = Journal.open(join(dir, 'journal.sqlite'));
    workstation = new Workstation({
      cairnHome: join(dir, 'ws'),
      journal,
      env: { PATH: process.env.PATH, HOME: dir, WIRE_AGENT_MODE: 'normal' },
      resolveLaunch: async (_bridge, context) => ({
        ok: true,
        launch: { command: { command: process.execPath, args: [AGENT] }, cwd: context.cwd, env: context.env },
      }),
      heartbeatMs: 200,
    });
    link = linkInProcess(server.drive.wire, workstation, { as: WORKSTATION });
    expect(await server.drive.wire.waitForWorkstation(WORKSTATION)).toBe(true);
    client = await Client.open(server);
  });

  afterAll(async () => {
    await client?.close();
    link?.drop();
    await workstation?.stop();
    journal?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function open(): Promise<{ sessionRef: string; sid: string }> {
    const opened = await server.drive.wire.open({
      workstation: WORKSTATION,
      agentKey: 'wire',
      bridge: 'wire',
      cwd: dir,
    });
    expect(opened.ok, JSON.stringify(opened)).toBe(true);
    return { sessionRef: opened.sessionRef, sid: (opened.ok && opened.nativeSessionId) || opened.sessionRef };
  }

  it('reads where a driven session runs, and never its variables', async () => {
    const { sessionRef, sid } = await open();
    const env = await client.request('session_env_read', { sid });
    expect(env).toMatchObject({
      ok: true,
      sid,
      agent: 'wire',
      driven: true,
      cwd: dir,
      workstation: WORKSTATION,
      bridge: 'wire',
      session_ref: sessionRef,
    });
    expect(env).not.toHaveProperty('env');
    expect(validateResponse('session_env_read', env).ok).toBe(true);
    // By the drive's reference too, and refused for another agent's session of that id.
    expect(await client.request('session_env_read', { sid: sessionRef })).toMatchObject({
      ok: true,
      driven: true,
    });
    expect(await client.request('session_env_read', { sid, agent: 'codex' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
  });

  it('ends a driven session on its workstation, which then is no longer driven', async () => {
    const { sid } = await open();
    const killed = await client.request('session_kill', { sid });
    expect(killed).toMatchObject({ ok: true, terminated: true });
    expect(validateResponse('session_kill', killed).ok).toBe(true);
    expect(await client.request('session_env_read', { sid })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
    expect(await client.request('session_kill', { sid })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    });
  });

  it('answers the fork origin and last-live ops instead of unknown_op', async () => {
    const { sid } = await open();
    // A driven session the catalog has not listed (this agent writes no files) is unknown to the
    // fork lookup; either way the reply is a refusal of the table, never unknown_op.
    const fork = await client.request('session_fork_origin', { sid });
    expect(fork.ok).toBe(false);
    expect(['not_found', 'unsupported']).toContain((fork.error as { code: string }).code);
    expect(await client.request('session_last_live_remove', { sid })).toMatchObject({
      ok: true,
      removed: false,
    });
    await client.request('session_kill', { sid });
  });

  it('keeps the session ops from a session connection', async () => {
    const { sid } = await open();
    const own = await Client.open(server, { hello: false });
    await own.request('hello', { role: 'session', sid, protocol_version: 1 });
    for (const op of [
      'session_kill',
      'session_env_read',
      'session_fork_origin',
      'session_last_live_remove',
    ]) {
      expect(await own.request(op, { sid }), op).toMatchObject({ ok: false, error: { code: 'forbidden' } });
    }
    await own.close();
    await client.request('session_kill', { sid });
  });
});
