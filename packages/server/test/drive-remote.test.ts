// A workstation on "another machine": `cairn workstation` as its own process with its own
// $CAIRN_HOME, connected to `cairn serve`'s /agent endpoint over a real WebSocket.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Journal } from '@cairn/runner';
import type { LoggedEvent } from '@cairn/server';
import { afterEach, describe, expect, it } from 'vitest';
import { issueTicket } from '../src/index.js';
import { homeEnv, serve, tempDir } from './helpers.js';
import { upgradeTo } from './support/upgrade.js';

const here = dirname(fileURLToPath(import.meta.url));
const bin = resolve(here, '../../../bin/cairn.js');
const AGENT = join(here, 'support/wire-agent.mjs');

const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

/** A workstation process whose config declares the scripted agent as `wire`. */
function startWorkstation(
  url: string,
  ticket: string,
  cairnHome: string,
  chunks: number,
  extraEnv: Record<string, string> = {},
): ChildProcess {
  mkdirSync(cairnHome, { recursive: true });
  writeFileSync(
    join(cairnHome, 'config.json'),
    JSON.stringify({ agents: { wire: { command: process.execPath, args: [AGENT] } } }),
  );
  // The ticket goes in the environment: a command line is visible to every user of the machine.
  const child = spawn(process.execPath, [bin, 'workstation', '--server', url], {
    env: {
      PATH: process.env.PATH,
      CAIRN_TICKET: ticket,
      HOME: cairnHome,
      CAIRN_HOME: cairnHome,
      WIRE_AGENT_CHUNKS: String(chunks),
      WIRE_AGENT_DELAY_MS: '5',
      ...extraEnv,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  stops.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  });
  return child;
}

async function started(env: Record<string, string>) {
  const server = await serve(env, { localWorkstation: false });
  stops.push(() => server.close());
  const base = `http://127.0.0.1:${server.port}`;
  return { server, base };
}

describe('a workstation in another process', () => {
  it('connects with its ticket, lists its agents, and completes a turn; a restart mid-turn loses nothing', async () => {
    const { server, base } = await started(homeEnv(tempDir()));
    const ticket = issueTicket(server.home, 'remote');
    const stationHome = join(tempDir(), 'station');
    let station = startWorkstation(base, ticket, stationHome, 40);
    const wire = server.drive.wire;
    expect(await wire.waitForWorkstation('remote', 20_000)).toBe(true);
    expect(wire.roster('remote').map((b) => b.key)).toContain('wire');

    const opened = await wire.open({
      workstation: 'remote',
      agentKey: 'wire',
      bridge: 'wire',
      cwd: stationHome,
    });
    expect(opened.ok).toBe(true);
    const events: LoggedEvent[] = [];
    wire.subscribe(opened.sessionRef, (n) => {
      if (n.kind === 'event') events.push(n.event);
    });
    const until = async (test: () => boolean, what: string) => {
      for (let i = 0; i < 400 && !test(); i++) await new Promise((r) => setTimeout(r, 50));
      if (!test()) throw new Error(`timed out waiting for ${what}`);
    };
    const ends = () => events.filter((e) => e.eventName === 'agent_turn_done');

    wire.prompt(opened.sessionRef, 'one');
    await until(() => events.length >= 8, 'the first events');
    // The workstation stops mid-turn (its agents end with it) and starts again with the same home.
    const gone = new Promise((r) => station.once('exit', r));
    station.kill('SIGTERM');
    await gone;
    station = startWorkstation(base, ticket, stationHome, 3);
    await until(() => ends().length >= 1, 'the first turn end');
    expect(ends()[0]!.payload.status).toBe('failed');

    await until(() => wire.workstations().includes('remote'), 'the reconnect');
    wire.prompt(opened.sessionRef, 'two');
    await until(() => ends().length >= 2, 'the second turn end');
    expect(ends()[1]!.payload).toMatchObject({ status: 'completed', stopReason: 'end_turn' });
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
  }, 90_000);

  it('refuses a browser, a missing ticket and an unknown one at the upgrade', async () => {
    const { server } = await started(homeEnv(tempDir()));
    const ticket = issueTicket(server.home, 'remote');
    const status = async (headers: Record<string, string>) =>
      (await upgradeTo(`ws://127.0.0.1:${server.port}/agent`, { headers })).status;
    expect(await status({})).toBe(401);
    expect(await status({ authorization: 'Bearer nope' })).toBe(401);
    expect(
      await status({ authorization: `Bearer ${ticket}`, origin: `http://127.0.0.1:${server.port}` }),
    ).toBe(403);
    expect(await status({ authorization: `Bearer ${ticket}` })).toBe(101);
  });

  it('an agent left running by a workstation killed without warning is ended when the workstation starts again', async () => {
    const { server, base } = await started(homeEnv(tempDir()));
    const ticket = issueTicket(server.home, 'remote');
    const stationHome = join(tempDir(), 'station');
    const station = startWorkstation(base, ticket, stationHome, 3, { WIRE_AGENT_STUBBORN: '1' });
    const wire = server.drive.wire;
    expect(await wire.waitForWorkstation('remote', 20_000)).toBe(true);
    const opened = await wire.open({
      workstation: 'remote',
      agentKey: 'wire',
      bridge: 'wire',
      cwd: stationHome,
    });
    expect(opened.ok).toBe(true);
    const journal = Journal.open(join(stationHome, 'journal.sqlite'));
    const [agent] = journal.processes();
    journal.close();
    expect(agent).toBeDefined();
    const alive = (pid: number) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    };
    const killed = new Promise((r) => station.once('exit', r));
    station.kill('SIGKILL');
    await killed;
    await new Promise((r) => setTimeout(r, 300));
    expect(alive(agent!.pid)).toBe(true);
    startWorkstation(base, ticket, stationHome, 3);
    for (let i = 0; i < 200 && alive(agent!.pid); i++) await new Promise((r) => setTimeout(r, 50));
    expect(alive(agent!.pid)).toBe(false);
  }, 60_000);
});
