// Who may speak for a session on the agent wire: a workstation holding a valid ticket is trusted
// with the sessions opened on it and nothing else. Every frame type that names a session has a row
// here, and the coverage check fails when a frame type that names one is added without a row.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_FRAME_SHAPES, type AgentFrame } from '@cairn/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentWireServer, type DriveNotice, SESSION_FRAME_RULES } from '../src/drive/agent-wire-server.js';
import { EventLog } from '../src/drive/event-log.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

/** A workstation as raw frames: what it was sent, and a way to send as it. */
function station(server: AgentWireServer, ticket: string) {
  const received: AgentFrame[] = [];
  const closes: string[] = [];
  const side = server.attach({
    send: (text) => received.push(JSON.parse(text) as AgentFrame),
    close: (_code, reason) => closes.push(String(reason)),
  });
  const send = (frame: Record<string, unknown>) => side.receive(JSON.stringify(frame));
  send({ t: 'agent_hello', ticket });
  return { received, closes, send, side };
}

async function setUp() {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-authority-'));
  const log = new EventLog(join(dir, 'drive.sqlite'));
  const lines: string[] = [];
  const server = new AgentWireServer({
    log,
    ticketOwner: (t) => ({ 'ticket-a': 'A', 'ticket-b': 'B' })[t],
    logLine: (line) => lines.push(line),
  });
  cleanups.push(() => {
    server.close();
    log.shutdown();
    rmSync(dir, { recursive: true, force: true });
  });
  const a = station(server, 'ticket-a');
  const b = station(server, 'ticket-b');
  // A session opened on A, with one event and a running turn.
  const opening = server.open({
    workstation: 'A',
    agentKey: 'wire',
    bridge: 'wire',
    cwd: '/secret/project-a',
  });
  const open = a.received.find((f) => f.t === 'agent_open') as { id: string; sessionRef: string };
  a.send({ t: 'agent_opened', id: open.id, ok: true, nativeSessionId: 'native-a' });
  const { sessionRef } = await opening;
  const notices: DriveNotice[] = [];
  server.subscribe(sessionRef, (n) => notices.push(n));
  server.prompt(sessionRef, 'hello');
  a.send({
    t: 'agent_event',
    sessionRef,
    seq: 1,
    eventName: 'agent_message_chunk',
    payload: { text: 'real' },
  });
  await new Promise((r) => setImmediate(r));
  notices.length = 0;
  return { server, log, lines, a, b, sessionRef, notices };
}

type Setup = Awaited<ReturnType<typeof setUp>>;

/** What B sends to try each frame type against A's session; `request` rows first make A owe a backfill. */
const FORGERIES: Record<keyof typeof SESSION_FRAME_RULES, (s: Setup) => Record<string, unknown>> = {
  agent_event: ({ sessionRef }) => ({
    t: 'agent_event',
    sessionRef,
    seq: 2,
    eventName: 'permission_request',
    payload: { requestId: 'x', toolCall: { title: 'Allow rm -rf ~ ?' } },
  }),
  agent_turn_done: ({ sessionRef }) => ({ t: 'agent_turn_done', sessionRef, seq: 2, status: 'completed' }),
  agent_session_lost: ({ sessionRef }) => ({ t: 'agent_session_lost', sessionRef, action: 'agent_exited' }),
  agent_backfill_events: (s) => ({
    t: 'agent_backfill_events',
    id: backfillId(s),
    events: [{ seq: 2, eventName: 'agent_message_chunk', payload: { text: 'forged' } }],
  }),
  agent_backfill_done: (s) => ({ t: 'agent_backfill_done', id: backfillId(s), ok: true, count: 0 }),
  agent_resume_offer: ({ sessionRef }) => ({
    t: 'agent_resume_offer',
    sessions: [{ sessionRef, journalMaxSeq: 9, agentAlive: false }],
  }),
  heartbeat: ({ sessionRef }) => ({
    t: 'heartbeat',
    seq: 1,
    sentAtEpochMs: Date.now(),
    sessions: [{ sessionRef, journalMaxSeq: 9, agentAlive: true }],
  }),
  agent_open: ({ sessionRef }) => ({
    t: 'agent_open',
    id: 'o',
    sessionRef,
    agentKey: 'wire',
    bridge: 'wire',
    cwd: '/',
    shell: '/bin/sh',
  }),
  agent_prompt: ({ sessionRef }) => ({ t: 'agent_prompt', sessionRef, text: 'hi' }),
  agent_answer: ({ sessionRef }) => ({ t: 'agent_answer', sessionRef, requestId: 'r', outcome: 'allow' }),
  agent_interrupt: ({ sessionRef }) => ({ t: 'agent_interrupt', sessionRef }),
  agent_close: ({ sessionRef }) => ({ t: 'agent_close', sessionRef }),
  agent_event_ack: ({ sessionRef }) => ({ t: 'agent_event_ack', sessionRef, throughSeq: 5 }),
  agent_steer: ({ sessionRef }) => ({ t: 'agent_steer', id: 's', sessionRef, text: 'hi' }),
  agent_set_config_option: ({ sessionRef }) => ({
    t: 'agent_set_config_option',
    id: 'c',
    sessionRef,
    configId: 'mode',
    value: 'yolo',
  }),
};

/** Makes A owe a backfill (an event past a gap) and returns the id the server asked A with. */
function backfillId({ a, sessionRef }: Setup): string {
  a.send({
    t: 'agent_event',
    sessionRef,
    seq: 5,
    eventName: 'agent_message_chunk',
    payload: { text: 'gap' },
  });
  const asked = a.received.filter((f) => f.t === 'agent_open' && (f as { backfill?: boolean }).backfill);
  return (asked.at(-1) as { id: string }).id;
}

describe('a workstation speaks only for its own sessions', () => {
  it('every frame type that names a session has a rule', () => {
    // `agent_native_sessions` lists the agent's own sessions, which name none of the server's.
    const naming = Object.entries(AGENT_FRAME_SHAPES)
      .filter(([type]) => type !== 'agent_native_sessions')
      .filter(([, shape]) => {
        const fields = { ...shape.required, ...('optional' in shape ? shape.optional : {}) };
        return 'sessionRef' in fields || 'sessions' in fields;
      })
      .map(([type]) => type);
    const ruled = Object.keys(SESSION_FRAME_RULES);
    expect(naming.filter((type) => !ruled.includes(type))).toEqual([]);
    // Backfills name their session through the request they answer.
    expect(ruled).toEqual(expect.arrayContaining(['agent_backfill_events', 'agent_backfill_done']));
  });

  for (const [type, forge] of Object.entries(FORGERIES)) {
    it(`${type} about another workstation's session is refused, logged and counted, and changes nothing`, async () => {
      const s = await setUp();
      const frame = forge(s);
      const aSawBefore = s.a.received.length;
      const heldBefore = s.log.heldSeq(s.sessionRef);
      s.b.send(frame);
      await new Promise((r) => setTimeout(r, 20));
      expect(s.server.refusals().B).toBeGreaterThanOrEqual(1);
      expect(s.lines.some((l) => l.includes(`refused ${type}`) && l.includes('workstation B'))).toBe(true);
      expect(s.log.heldSeq(s.sessionRef)).toBe(heldBefore);
      expect(s.log.events(s.sessionRef).map((e) => e.payload.text)).toEqual(['real']);
      expect(s.log.get(s.sessionRef)?.turnRunning).toBe(true);
      expect(s.notices).toEqual([]);
      // B learns nothing of A's session (no backfill request, no reopen) and A is asked nothing new.
      expect(JSON.stringify(s.b.received)).not.toContain('/secret/project-a');
      expect(s.a.received.slice(aSawBefore).filter((f) => f.t !== 'agent_event_ack')).toEqual([]);
      expect(s.server.workstations().sort()).toEqual(['A', 'B']);
    });
  }

  it('events for a session nobody opened are refused and store nothing', async () => {
    const s = await setUp();
    for (let seq = 1; seq <= 500; seq++)
      s.b.send({
        t: 'agent_event',
        sessionRef: 'made-up',
        seq,
        eventName: 'x',
        payload: { pad: 'y'.repeat(100) },
      });
    await new Promise((r) => setImmediate(r));
    expect(s.log.get('made-up')).toBeUndefined();
    expect(s.log.events('made-up')).toEqual([]);
    expect(s.server.refusals().B).toBe(500);
    // A flood is logged now and then, not line by line.
    expect(s.lines.filter((l) => l.includes('made-up')).length).toBeLessThan(30);
  });

  it('an event whose seq is not a whole number from 1 is refused, even from the owner', async () => {
    const s = await setUp();
    for (const seq of [1.5, 0, -3, 2 ** 60])
      s.a.send({ t: 'agent_event', sessionRef: s.sessionRef, seq, eventName: 'x', payload: {} });
    s.a.send({ t: 'agent_turn_done', sessionRef: s.sessionRef, seq: 2.5, status: 'completed' });
    await new Promise((r) => setTimeout(r, 20));
    expect(s.server.refusals()).toEqual({ A: 5 });
    expect(s.lines.filter((l) => l.includes('must be a whole number from 1'))).toHaveLength(5);
    expect(s.log.events(s.sessionRef).map((e) => e.seq)).toEqual([1]);
    expect(s.notices).toEqual([]);
  });

  it('the owner’s frames still go through, a backfill it answers included', async () => {
    const s = await setUp();
    const id = backfillId(s);
    s.a.send({
      t: 'agent_backfill_events',
      id,
      events: [2, 3, 4, 5].map((seq) => ({
        seq,
        eventName: 'agent_message_chunk',
        payload: { text: `b${seq}` },
      })),
    });
    s.a.send({ t: 'agent_backfill_done', id, ok: true, count: 4 });
    s.a.send({ t: 'agent_turn_done', sessionRef: s.sessionRef, seq: 6, status: 'completed' });
    await new Promise((r) => setTimeout(r, 20));
    expect(s.log.events(s.sessionRef).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(s.log.get(s.sessionRef)?.turnRunning).toBe(false);
    expect(s.server.refusals()).toEqual({});
  });
});

describe('tickets', () => {
  it('a workstation whose ticket is revoked is cut at its next heartbeat', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-authority-'));
    const log = new EventLog(join(dir, 'drive.sqlite'));
    const valid = new Map([['ticket-a', 'A']]);
    const server = new AgentWireServer({ log, ticketOwner: (t) => valid.get(t) });
    cleanups.push(() => {
      server.close();
      log.shutdown();
      rmSync(dir, { recursive: true, force: true });
    });
    const a = station(server, 'ticket-a');
    a.send({ t: 'heartbeat', seq: 1, sentAtEpochMs: Date.now() });
    expect(a.closes).toEqual([]);
    valid.delete('ticket-a');
    a.send({ t: 'heartbeat', seq: 2, sentAtEpochMs: Date.now() });
    expect(a.closes).toEqual(['ticket revoked']);
    expect(server.workstations()).toEqual([]);
    expect(a.received.map((f) => f.t)).toEqual(['agent_ready', 'heartbeat_ack']);
  });
});

describe('names held in process', () => {
  it('a ticket whose name is the in-process workstation’s is refused, and the local one stays', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-authority-'));
    const log = new EventLog(join(dir, 'drive.sqlite'));
    const server = new AgentWireServer({
      log,
      ticketOwner: (t) => (t === 'claims-local' ? 'local' : undefined),
    });
    cleanups.push(() => {
      server.close();
      log.shutdown();
      rmSync(dir, { recursive: true, force: true });
    });
    const localFrames: AgentFrame[] = [];
    const local = server.attachTrusted(
      { send: (t) => localFrames.push(JSON.parse(t)), close: () => {} },
      'local',
    );
    // In process there is no ticket to check: whatever it says, it is `local`.
    local.receive(JSON.stringify({ t: 'agent_hello', ticket: '' }));
    expect(server.workstations()).toEqual(['local']);
    const intruder = station(server, 'claims-local');
    expect(intruder.closes).toEqual(['the name local is reserved']);
    expect(server.workstations()).toEqual(['local']);
    expect(localFrames.map((f) => f.t)).toEqual(['agent_ready']);
  });
});
