// The agent wire end to end: the server half, a workstation with its journal, and a scripted ACP
// agent (built with the SDK) for turns, permissions, faults and every kind of reconnect.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentEnvironment, Journal, type SessionLimits, Workstation } from '@cairn/runner';
import { AgentWireServer, type DriveNotice, EventLog, type LoggedEvent, linkInProcess } from '@cairn/server';
import { afterEach, describe, expect, it } from 'vitest';

const AGENT = fileURLToPath(new URL('./support/wire-agent.mjs', import.meta.url));
const TICKET = 'test-ticket';

interface AgentScript {
  mode?: 'normal' | 'permission' | 'crash' | 'hang' | 'garbage' | 'auth';
  chunks?: number;
  delayMs?: number;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-drive-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function makeWorkstation(dir: string, script: AgentScript, limits?: Partial<SessionLimits>) {
  const journal = Journal.open(join(dir, 'journal.sqlite'));
  const workstation = new Workstation({
    ticket: TICKET,
    cairnHome: dir,
    journal,
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      WIRE_AGENT_MODE: script.mode ?? 'normal',
      WIRE_AGENT_CHUNKS: String(script.chunks ?? 3),
      WIRE_AGENT_DELAY_MS: String(script.delayMs ?? 0),
    },
    resolveLaunch: async (_bridge, context) => ({
      ok: true,
      launch: { command: { command: process.execPath, args: [AGENT] }, cwd: context.cwd, env: context.env },
    }),
    heartbeatMs: 200,
    ...(limits ? { limits } : {}),
  });
  const stop = async () => {
    await workstation.stop();
    journal.close();
  };
  return { workstation, journal, stop };
}

async function harness(script: AgentScript = {}, limits?: Partial<SessionLimits>) {
  const dir = scratch();
  const log = new EventLog(join(dir, 'drive.sqlite'));
  const server = new AgentWireServer({ log, ticketOwner: (t) => (t === TICKET ? 'ws' : undefined) });
  let ws = makeWorkstation(dir, script, limits);
  let link = linkInProcess(server, ws.workstation);
  cleanups.push(async () => {
    link.drop();
    await ws.stop();
    server.close();
    log.shutdown();
  });
  expect(await server.waitForWorkstation('ws')).toBe(true);
  const opened = await server.open({ workstation: 'ws', agentKey: 'wire', bridge: 'wire', cwd: dir });
  expect(opened.ok).toBe(true);
  const received = record(server, opened.sessionRef);
  return {
    dir,
    server,
    log,
    sessionRef: opened.sessionRef,
    opened,
    received,
    get workstation() {
      return ws.workstation;
    },
    link: () => link,
    /** A new connection, as after a network drop. */
    reconnect() {
      link = linkInProcess(server, ws.workstation);
    },
    /** The workstation process restarted: agents gone, the journal kept. */
    async restart(next: AgentScript = script) {
      link.drop();
      await ws.stop();
      ws = makeWorkstation(dir, next, limits);
      link = linkInProcess(server, ws.workstation);
    },
  };
}

function record(server: AgentWireServer, sessionRef: string) {
  const events: LoggedEvent[] = [];
  const notices: DriveNotice[] = [];
  const waiters: { test: () => boolean; resolve: () => void }[] = [];
  const ends: LoggedEvent[] = [];
  server.subscribe(sessionRef, (notice) => {
    notices.push(notice);
    if (notice.kind === 'event') events.push(notice.event);
    if (notice.kind === 'event' && notice.event.eventName === 'agent_turn_done') ends.push(notice.event);
    for (const w of waiters.splice(0)) {
      if (w.test()) w.resolve();
      else waiters.push(w);
    }
  });
  const until = (test: () => boolean, what: string, ms = 20_000) =>
    new Promise<void>((resolve, reject) => {
      if (test()) return resolve();
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
      waiters.push({
        test,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  return {
    events,
    notices,
    until,
    turnDone: (n = 1, ms = 20_000) =>
      until(() => ends.length >= n, `${n} turn end(s)`, ms).then(() => ends[n - 1]!),
    texts: () =>
      events
        .filter((e) => e.eventName === 'agent_message_chunk')
        .map((e) => (e.payload as { content: { text: string } }).content.text),
  };
}

function expectExactlyOnceInOrder(events: LoggedEvent[]): void {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function gone(pids: number[]): Promise<boolean> {
  for (let i = 0; i < 100 && pids.some(isRunning); i++) await new Promise((r) => setTimeout(r, 50));
  return !pids.some(isRunning);
}

describe('a driven turn', () => {
  it('streams text in order, numbered from 1 without a gap, and ends end_turn', async () => {
    const h = await harness({ chunks: 5 });
    expect(h.opened.supportsSteering).toBe(true);
    expect(h.opened.agentInfo?.name).toBe('wire-agent');
    expect(h.server.prompt(h.sessionRef, 'hello')).toEqual({ ok: true });
    const done = await h.received.turnDone();
    expect(done.payload).toMatchObject({ status: 'completed', stopReason: 'end_turn' });
    expect(h.received.texts()).toEqual(['t1c0 ', 't1c1 ', 't1c2 ', 't1c3 ', 't1c4 ']);
    expect(h.received.events.some((e) => e.eventName === 'usage_update')).toBe(true);
    expectExactlyOnceInOrder(h.received.events);
    expect(h.log.heldSeq(h.sessionRef)).toBe(h.received.events.length);
  });

  it('asks for permission and carries the answer back; a second turn continues the numbering', async () => {
    const h = await harness({ mode: 'permission', chunks: 1 });
    h.server.prompt(h.sessionRef, 'write it');
    await h.received.until(
      () => h.received.events.some((e) => e.eventName === 'permission_request'),
      'a permission',
    );
    const asked = h.received.events.find((e) => e.eventName === 'permission_request')!;
    expect((asked.payload.options as { optionId: string }[]).map((o) => o.optionId)).toEqual([
      'allow',
      'reject',
    ]);
    h.server.answer(h.sessionRef, String(asked.payload.requestId), 'allow');
    await h.received.turnDone();
    expect(h.received.texts()).toContain('permission:allow');

    h.server.prompt(h.sessionRef, 'again');
    await h.received.until(
      () => h.received.events.filter((e) => e.eventName === 'permission_request').length === 2,
      'a second permission',
    );
    const second = h.received.events.filter((e) => e.eventName === 'permission_request')[1]!;
    h.server.answer(h.sessionRef, String(second.payload.requestId), 'reject');
    await h.received.turnDone(2);
    expect(h.received.texts()).toContain('permission:reject');
    expectExactlyOnceInOrder(h.received.events);
  });

  it('refuses a permission left unanswered past its time limit', async () => {
    const h = await harness({ mode: 'permission', chunks: 1 }, { permissionMs: 300 });
    h.server.prompt(h.sessionRef, 'write it');
    await h.received.turnDone();
    const settled = h.received.events.find((e) => e.eventName === 'permission_settled')!;
    expect(settled.payload).toMatchObject({ outcome: 'reject', by: 'timeout' });
    expect(h.received.texts()).toContain('permission:reject');
  });

  it('interrupt answers a pending permission cancelled and ends the turn cancelled', async () => {
    const h = await harness({ mode: 'hang' });
    h.server.prompt(h.sessionRef, 'wait');
    await new Promise((r) => setTimeout(r, 300));
    h.server.interrupt(h.sessionRef);
    const done = await h.received.turnDone();
    expect(done.payload).toMatchObject({ status: 'cancelled', stopReason: 'cancelled' });
  });

  it('steers a running turn through the agent extension', async () => {
    const h = await harness({ chunks: 20, delayMs: 20 });
    h.server.prompt(h.sessionRef, 'long');
    const steered = await h.server.steer(h.sessionRef, 'also this');
    expect(steered).toMatchObject({ ok: true, outcome: 'injected' });
    await h.received.turnDone();
  });

  it('says sign-in needed with the JSON-RPC code and the agent’s methods', async () => {
    const h = await harness({ mode: 'auth' });
    h.server.prompt(h.sessionRef, 'hi');
    const done = await h.received.turnDone();
    expect(done.payload).toMatchObject({
      status: 'failed',
      errorCode: -32000,
      authMethods: [{ id: 'wire-login', name: 'Wire login' }],
    });
  });
});

describe('faults', () => {
  it('an agent that crashes mid-turn fails the turn, loses the session, and leaves no process', async () => {
    const h = await harness({ mode: 'crash', chunks: 6 });
    const pids = h.workstation.agentPids();
    h.server.prompt(h.sessionRef, 'go');
    const done = await h.received.turnDone();
    expect(done.payload.status).toBe('failed');
    expect(String(done.payload.error)).toMatch(/exited \(code 3\)/);
    await h.received.until(() => h.received.notices.some((n) => n.kind === 'lost'), 'session lost');
    expect(await gone(pids)).toBe(true);
    expectExactlyOnceInOrder(h.received.events);
  });

  it('journals and delivers a burst of 100,000 updates once each, in order', async () => {
    const h = await harness({ chunks: 100_000 });
    h.server.prompt(h.sessionRef, 'burst');
    await h.received.turnDone(1, 110_000);
    const texts = h.received.texts();
    expect(texts.length).toBe(100_000);
    expect(texts[0]).toBe('t1c0 ');
    expect(texts[99_999]).toBe('t1c99999 ');
    expectExactlyOnceInOrder(h.received.events);
  }, 120_000);

  it('a turn that hangs ends at its time limit with a clear error', async () => {
    const h = await harness({ mode: 'hang' }, { turnMs: 500 });
    h.server.prompt(h.sessionRef, 'hang');
    const done = await h.received.turnDone();
    expect(done.payload.status).toBe('failed');
    expect(String(done.payload.error)).toMatch(/time limit of 1 s/);
  });

  it('garbage lines on the agent’s stdout do not stop the turn', async () => {
    const h = await harness({ mode: 'garbage', chunks: 6 });
    h.server.prompt(h.sessionRef, 'go');
    const done = await h.received.turnDone();
    expect(done.payload.status).toBe('completed');
    expect(h.received.texts()).toHaveLength(6);
  });
});

describe('recovery', () => {
  it('a connection dropped mid-turn: after reconnecting, the server has every event exactly once', async () => {
    const h = await harness({ chunks: 60, delayMs: 10 });
    h.server.prompt(h.sessionRef, 'go');
    await h.received.until(() => h.received.events.length >= 10, 'some events');
    h.link().drop();
    await new Promise((r) => setTimeout(r, 150));
    h.reconnect();
    await h.received.turnDone();
    expect(h.received.texts()).toEqual(Array.from({ length: 60 }, (_, i) => `t1c${i} `));
    expectExactlyOnceInOrder(h.received.events);
  });

  it('a workstation restarted mid-turn: its journal backfills, the agent is reopened by session/load, and the next turn runs', async () => {
    const h = await harness({ chunks: 200, delayMs: 5 });
    const firstPids = h.workstation.agentPids();
    h.server.prompt(h.sessionRef, 'go');
    await h.received.until(() => h.received.events.length >= 20, 'some events');
    await h.restart({ chunks: 3 });
    expect(await gone(firstPids)).toBe(true);
    const first = await h.received.turnDone();
    expect(first.payload.status).toBe('failed');
    // The reopened agent replays its history through session/load.
    await h.received.until(() => h.received.texts().includes('[history]'), 'the reload');
    h.server.prompt(h.sessionRef, 'continue');
    const second = await h.received.turnDone(2);
    expect(second.payload.status).toBe('completed');
    expectExactlyOnceInOrder(h.received.events);
  });

  it('an agent killed with SIGKILL: the turn fails, and the next prompt starts it again from its native id', async () => {
    const h = await harness({ chunks: 100, delayMs: 10 });
    h.server.prompt(h.sessionRef, 'go');
    await h.received.until(() => h.received.events.length >= 5, 'some events');
    const [pid] = h.workstation.agentPids();
    process.kill(pid!, 'SIGKILL');
    const first = await h.received.turnDone();
    expect(first.payload.status).toBe('failed');
    expect(String(first.payload.error)).toMatch(/SIGKILL/);
    h.server.prompt(h.sessionRef, 'again');
    const second = await h.received.turnDone(2);
    expect(second.payload.status).toBe('completed');
    expect(h.received.texts()).toContain('[history]');
    expectExactlyOnceInOrder(h.received.events);
    expect(await gone([pid!])).toBe(true);
  });

  it('eight undecodable frames in a row close the channel', async () => {
    const h = await harness();
    const closed: string[] = [];
    const side = h.server.attach({ send: () => {}, close: (_c, reason) => closed.push(String(reason)) });
    for (let i = 0; i < 7; i++) side.receive('{"t":"nope"}');
    expect(closed).toEqual([]);
    side.receive('not json');
    expect(closed).toEqual(['8 undecodable frames in a row']);
  });
});

describe('signing in', () => {
  it('a sign-in that sends the person to an address passes it on, then gives the final answer', async () => {
    const h = await harness();
    const steps: { url?: string; elicitationId: string; done: boolean }[] = [];
    const reply = await h.server.authenticate('ws', 'wire', 'wire-url', { cwd: h.dir }, (step) =>
      steps.push(step),
    );
    expect(reply).toMatchObject({ t: 'agent_authenticated', ok: true });
    expect(reply.pending).toBeUndefined();
    expect(steps).toEqual([
      { url: 'http://127.0.0.1:9/wire-login', elicitationId: 'login-1', done: false },
      { elicitationId: 'login-1', done: true },
    ]);
  });
});

describe('the rest of the wire', () => {
  it('lists the agent’s own sessions with whole-millisecond times', async () => {
    const h = await harness();
    const reply = await h.server.listNative('ws', 'wire', { cwd: h.dir });
    expect(reply).toMatchObject({
      ok: true,
      sessions: [
        {
          nativeSessionId: 'wire-old-1',
          title: 'An older session',
          cwd: h.dir,
          updatedAtEpochMs: Date.parse('2026-11-30T12:00:00.250Z'),
        },
      ],
    });
  });

  it('ends a running turn whose session a reconnecting workstation no longer offers', async () => {
    const h = await harness({ mode: 'hang' });
    h.server.prompt(h.sessionRef, 'wait');
    await new Promise((r) => setTimeout(r, 300));
    // A workstation with an empty journal stands in for one that lost the session.
    h.link().drop();
    const other = makeWorkstation(scratch(), {});
    cleanups.push(other.stop);
    linkInProcess(h.server, other.workstation);
    await h.received.until(() => h.received.notices.some((n) => n.kind === 'lost'), 'the lost turn');
    const lost = h.received.notices.find((n) => n.kind === 'lost');
    expect(lost).toMatchObject({ action: 'missing_from_offer' });
    expect(h.log.get(h.sessionRef)?.turnRunning).toBe(false);
  });

  it('answers heartbeats, and an agent never sees cairn’s own secrets', async () => {
    const frames: string[] = [];
    const h = await harness();
    const side = h.server.attach({ send: (t) => frames.push(t), close: () => {} });
    side.receive(JSON.stringify({ t: 'agent_hello', ticket: TICKET }));
    side.receive(JSON.stringify({ t: 'heartbeat', seq: 7, sentAtEpochMs: Date.now() }));
    expect(frames.map((f) => JSON.parse(f).t)).toEqual(['agent_ready', 'heartbeat_ack']);
    expect(JSON.parse(frames[1]!)).toMatchObject({ seq: 7 });
    const env = agentEnvironment(
      { PATH: '/usr/bin', CAIRN_TOKEN: 'secret', HOME: '/home/u' },
      { env: { CAIRN_TOKEN: 'sneaked', KEY: 'v' }, pathPrepend: ['/opt/tools/bin'] },
    );
    expect(env).toEqual({ PATH: '/opt/tools/bin:/usr/bin', HOME: '/home/u', KEY: 'v' });
  });
});
