// The agent wire's limits on a real server and the real `/agent` endpoint: past the workstations it
// takes at once the next is refused at the upgrade, told why, and backs off until there is room; a
// workstation sending events faster than its rate is closed with the limit named, nothing it sent
// beyond is stored or acked, and once it has backed off its journal fills the log in, each event
// once and in order; a flood faster than the store never queues more than the bound.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AgentFrame } from '@cairn/protocol';
import { connectToServer, Journal, type WireClient, Workstation } from '@cairn/runner';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { issueTicket, type LoggedEvent, type RunningServer, type WireLimits } from '../src/index.js';
import { homeEnv, serve, tempDir } from './helpers.js';
import { bearer, upgradeTo } from './support/upgrade.js';

const AGENT = fileURLToPath(new URL('../../runner/test/support/scripted-agent.mjs', import.meta.url));

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(test: () => boolean, what: string, ms = 30_000): Promise<void> {
  for (const start = Date.now(); !test(); await new Promise((r) => setTimeout(r, 25))) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
  }
}

async function server(wireLimits: Partial<WireLimits>): Promise<RunningServer> {
  const running = await serve(homeEnv(tempDir()), { localWorkstation: false, wireLimits });
  cleanups.push(() => running.close());
  return running;
}

/** A workstation speaking the wire by hand, to send exactly what a test needs. */
async function rawStation(running: RunningServer, name: string) {
  const ticket = issueTicket(running.home, name);
  const ws = new WebSocket(`ws://127.0.0.1:${running.port}/agent`, {
    headers: { authorization: `Bearer ${ticket}` },
  });
  cleanups.push(() => ws.terminate());
  const received: AgentFrame[] = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  ws.on('message', (data) => received.push(JSON.parse(data.toString()) as AgentFrame));
  ws.on('error', () => {});
  await new Promise((resolve) => ws.once('open', resolve));
  ws.send(JSON.stringify({ t: 'agent_hello', ticket, bridges: [] }));
  await until(() => received.some((f) => f.t === 'agent_ready'), 'agent_ready');
  // A session opened on it, as the server would for a browser.
  const opening = running.drive.wire.open({
    workstation: name,
    agentKey: 'x',
    bridge: 'x',
    cwd: running.home,
  });
  await until(() => received.some((f) => f.t === 'agent_open'), 'agent_open');
  const open = received.find((f) => f.t === 'agent_open') as { id: string };
  ws.send(JSON.stringify({ t: 'agent_opened', id: open.id, ok: true }));
  const { sessionRef } = await opening;
  const stored: LoggedEvent[] = [];
  running.drive.wire.subscribe(sessionRef, (notice) => {
    if (notice.kind === 'event') stored.push(notice.event);
  });
  const event = (seq: number, text = `chunk ${seq}`) =>
    JSON.stringify({
      t: 'agent_event',
      sessionRef,
      seq,
      eventName: 'agent_message_chunk',
      payload: { content: { type: 'text', text } },
    });
  const acked = () =>
    Math.max(
      0,
      ...received.flatMap((f) =>
        f.t === 'agent_event_ack' ? [(f as { throughSeq: number }).throughSeq] : [],
      ),
    );
  return { ws, ticket, sessionRef, received, closed, stored, event, acked };
}

/** The answer to an upgrade to `/agent` with `ticket`; a socket that opens stays open, holding its place. */
const upgrade = (running: RunningServer, ticket: string) =>
  upgradeTo(`ws://127.0.0.1:${running.port}/agent`, {
    headers: bearer(ticket),
    hold: (ws) => cleanups.push(() => ws.terminate()),
  });

/** A real workstation with the scripted agent, connected over the real client. */
function workstation(running: RunningServer, name: string) {
  const home = tempDir();
  const journal = Journal.open(join(home, 'journal.sqlite'));
  const lines: string[] = [];
  const ticket = issueTicket(running.home, name);
  const station = new Workstation({
    ticket,
    cairnHome: home,
    journal,
    env: { PATH: process.env.PATH, HOME: home },
    resolveLaunch: async (_bridge, context) => ({
      ok: true,
      launch: { command: { command: process.execPath, args: [AGENT] }, cwd: context.cwd, env: context.env },
    }),
    log: (line) => lines.push(line),
  });
  let client: WireClient | undefined;
  const connect = () => {
    client = connectToServer({
      serverUrl: `http://127.0.0.1:${running.port}`,
      ticket,
      workstation: station,
      log: (line) => lines.push(line),
    });
  };
  cleanups.push(async () => {
    client?.close();
    await station.stop();
    journal.close();
  });
  return { station, journal, lines, home, connect };
}

describe('the agent wire at its limits', () => {
  it('refuses the workstation past the limit at the upgrade, saying why; the workstation waits longer each time and gets in once there is room', async () => {
    const running = await server({ maxWorkstations: 2 });
    let firstSocket: WebSocket | undefined;
    const first = await upgradeTo(`ws://127.0.0.1:${running.port}/agent`, {
      headers: bearer(issueTicket(running.home, 'one')),
      hold: (ws) => {
        firstSocket = ws;
        cleanups.push(() => ws.terminate());
      },
    });
    const second = await upgrade(running, issueTicket(running.home, 'two'));
    expect([first.status, second.status]).toEqual([101, 101]);
    const third = await upgrade(running, issueTicket(running.home, 'three'));
    expect(third).toEqual({
      status: 503,
      body: 'workstation limit reached: this server takes 2 at once; try again later\n',
    });

    const late = workstation(running, 'late');
    late.connect();
    await until(() => late.lines.includes('workstation: trying again in 2 s'), 'the second refusal');
    expect(
      late.lines.filter((l) => l === 'workstation: the server refused the connection (503)'),
    ).toHaveLength(2);
    expect(late.lines).toContain(
      'workstation: the server says: workstation limit reached: this server takes 2 at once; try again later',
    );
    // Refused again, it waits twice as long: not a reconnect every quarter second.
    expect(late.lines.filter((l) => l.startsWith('workstation: trying again in'))).toEqual([
      'workstation: trying again in 1 s',
      'workstation: trying again in 2 s',
    ]);
    expect(running.drive.wire.workstations()).toEqual([]);
    firstSocket!.close();
    expect(await running.drive.wire.waitForWorkstation('late', 20_000)).toBe(true);
  });

  it('closes a workstation sending past its rate with the limit named; what it sent beyond is neither stored nor acked', async () => {
    // One event a second after a burst of 100: a flood of 300 meets it at once.
    const running = await server({ eventsPerSecond: 1, eventBurst: 100 });
    const station = await rawStation(running, 'flood');
    for (let seq = 1; seq <= 300; seq++) station.ws.send(station.event(seq));
    expect(await station.closed).toEqual({
      code: 1013,
      reason: 'event rate over 1/s (burst 100); back off and send again',
    });
    await until(() => station.stored.length >= 100, 'the events within the burst');
    await new Promise((r) => setTimeout(r, 200));
    // The burst's events, once each and in order; none past them, and no ack beyond what is stored.
    expect(station.stored.map((e) => e.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(station.acked()).toBeLessThanOrEqual(100);
    expect(running.drive.wire.workstations()).toEqual([]);
  });

  it('queues no more than the bound of a flood faster than the store, and refuses the rest', async () => {
    const running = await server({ maxUnstoredEvents: 100 });
    const station = await rawStation(running, 'fast');
    // 20,000 frames sent in one go: they arrive far faster than one append a turn stores them.
    for (let seq = 1; seq <= 20_000; seq++)
      station.ws.send(station.event(seq, `chunk ${seq} ${'x'.repeat(200)}`));
    expect(await station.closed).toEqual({
      code: 1013,
      reason: 'over 100 events or 64 MiB waiting to be stored; back off and send again',
    });
    // Never more waited than the bound, however many frames came.
    expect(running.drive.wire.peakWaiting).toBeLessThanOrEqual(100);
    expect(running.drive.wire.peakWaiting).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 300));
    const seqs = station.stored.map((e) => e.seq);
    expect(seqs.length).toBeGreaterThan(0);
    expect(seqs.length).toBeLessThanOrEqual(100);
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
    expect(station.acked()).toBeLessThanOrEqual(seqs.length);
  });

  it('a real workstation met by the rate backs off and sends again from its journal: every event stored once, in order', async () => {
    const running = await server({ eventsPerSecond: 50, eventBurst: 100 });
    const late = workstation(running, 'busy');
    late.connect();
    expect(await running.drive.wire.waitForWorkstation('busy', 20_000)).toBe(true);
    const wire = running.drive.wire;
    const opened = await wire.open({
      workstation: 'busy',
      agentKey: 'scripted',
      bridge: 'scripted',
      cwd: late.home,
    });
    expect(opened.ok).toBe(true);
    const events: LoggedEvent[] = [];
    wire.subscribe(opened.sessionRef, (n) => {
      if (n.kind === 'event') events.push(n.event);
    });
    expect(wire.prompt(opened.sessionRef, '[[burst:300]]')).toEqual({ ok: true });
    await until(() => events.some((e) => e.eventName === 'agent_turn_done'), 'the end of the turn', 60_000);
    expect(
      late.lines.some((l) =>
        l.startsWith('workstation: the connection closed (1013: event rate over 50/s (burst 100)'),
      ),
    ).toBe(true);
    expect(late.lines).toContain('workstation: trying again in 1 s');
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    const texts = events
      .filter((e) => e.eventName === 'agent_message_chunk')
      .map((e) => (e.payload.content as { text: string }).text);
    expect(texts).toEqual(Array.from({ length: 300 }, (_, i) => expect.stringContaining(`[${i}]`)));
  });
});
