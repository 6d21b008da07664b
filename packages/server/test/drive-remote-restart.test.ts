// A workstation on another machine killed without warning mid-turn and started again: the turn
// its agent can no longer finish is ended with a reason, before the reopened agent's replay, and
// the session goes on.
import { join } from 'node:path';
import type { DriveNotice } from '@cairn/server';
import { afterEach, expect, it } from 'vitest';
import { issueTicket } from '../src/index.js';
import { homeEnv, serve, tempDir } from './helpers.js';
import { startWorkstationProcess } from './support/workstation-process.js';

const stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
});

const startWorkstation = (serverUrl: string, ticket: string, cairnHome: string, chunks: number) =>
  startWorkstationProcess({
    serverUrl,
    ticket,
    cairnHome,
    env: { WIRE_AGENT_CHUNKS: String(chunks), WIRE_AGENT_DELAY_MS: '20' },
    onCleanup: (stop) => stops.push(stop),
  });

it('ends the open turn of a workstation killed mid-turn when it comes back, keeps the replay out of it, and runs the next', async () => {
  const server = await serve(homeEnv(tempDir()), { localWorkstation: false });
  stops.push(() => server.close());
  const base = `http://127.0.0.1:${server.port}`;
  const ticket = issueTicket(server.home, 'remote');
  const stationHome = join(tempDir(), 'station');
  let station = startWorkstation(base, ticket, stationHome, 200);
  const wire = server.drive.wire;
  expect(await wire.waitForWorkstation('remote', 20_000)).toBe(true);
  const opened = await wire.open({
    workstation: 'remote',
    agentKey: 'wire',
    bridge: 'wire',
    cwd: stationHome,
  });
  expect(opened.ok).toBe(true);
  const notices: DriveNotice[] = [];
  wire.subscribe(opened.sessionRef, (n) => notices.push(n));
  const until = async (test: () => boolean, what: string) => {
    for (let i = 0; i < 400 && !test(); i++) await new Promise((r) => setTimeout(r, 50));
    if (!test()) throw new Error(`timed out waiting for ${what}`);
  };
  const texts = () =>
    notices.flatMap((n) =>
      n.kind === 'event' && n.event.eventName === 'agent_message_chunk'
        ? [String((n.event.payload as { content?: { text?: string } }).content?.text)]
        : [],
    );

  wire.prompt(opened.sessionRef, 'one');
  await until(() => texts().length >= 10, 'the first chunks');
  const killed = new Promise((r) => station.once('exit', r));
  station.kill('SIGKILL');
  await killed;
  await until(() => wire.workstations().length === 0, 'the server to see the connection gone');
  station = startWorkstation(base, ticket, stationHome, 3);

  await until(() => notices.some((n) => n.kind === 'lost'), 'the lost turn');
  const lostAt = notices.findIndex((n) => n.kind === 'lost');
  expect(notices[lostAt]).toMatchObject({ kind: 'lost', action: 'agent_gone' });
  expect((notices[lostAt] as { error: string }).error).toMatch(/restarted/);
  // Nothing of the reopened agent's history replay came before the turn's end.
  expect(texts().slice(0, notices.slice(0, lostAt).filter((n) => n.kind === 'event').length)).not.toContain(
    '[history]',
  );
  expect(server.drive.wire.workstations()).toEqual(['remote']);

  const ends = () => notices.filter((n) => n.kind === 'event' && n.event.eventName === 'agent_turn_done');
  wire.prompt(opened.sessionRef, 'two');
  await until(() => ends().length >= 1, 'the second turn');
  expect(ends()[0]).toMatchObject({ event: { payload: { status: 'completed' } } });
  const seqs = notices.flatMap((n) => (n.kind === 'event' ? [n.event.seq] : []));
  expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
}, 90_000);
