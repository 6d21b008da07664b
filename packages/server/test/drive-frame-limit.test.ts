// The /agent endpoint takes frames up to AGENT_FRAME_MAX_BYTES and closes the connection past it.
// A workstation keeps under that: an event too large to carry is cut (and journaled cut) with a
// marker saying so, and a backfill goes in batches sized by bytes. So a huge update and a large
// backfill both arrive over one real WebSocket, with no close and no reconnect loop.

import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT_EVENT_MAX_BYTES, AGENT_FRAME_MAX_BYTES, EVENT_CUT_MARKER } from '@cairn/protocol';
import { connectToServer, Journal, type WireClient, Workstation } from '@cairn/runner';
import { AgentWireServer, EventLog, type LoggedEvent } from '@cairn/server';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentEndpoint } from '../src/drive/agent-endpoint.js';

const AGENT = fileURLToPath(new URL('../../runner/test/support/scripted-agent.mjs', import.meta.url));
const TICKET = 'frame-limit-ticket';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(test: () => boolean, what: string, ms = 30_000): Promise<void> {
  for (const start = Date.now(); !test(); await new Promise((r) => setTimeout(r, 25))) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
  }
}

/** `cairn serve`'s drive side on a real socket, and a workstation connected to it. */
async function setup(delayMs: number) {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-frame-limit-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const log = new EventLog(join(dir, 'drive.sqlite'));
  const ticketOwner = (t: string) => (t === TICKET ? 'ws' : undefined);
  const wire = new AgentWireServer({ log, ticketOwner });
  const endpoint = new AgentEndpoint(wire, ticketOwner);
  const http = createServer((_req, res) => res.end());
  let upgrades = 0;
  http.on('upgrade', (req, socket, head) => {
    upgrades += 1;
    endpoint.handleUpgrade(req, socket, head);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  const journal = Journal.open(join(dir, 'journal.sqlite'));
  const lines: string[] = [];
  const workstation = new Workstation({
    ticket: TICKET,
    cairnHome: dir,
    journal,
    env: { PATH: process.env.PATH, HOME: dir, SCRIPTED_AGENT_DELAY_MS: String(delayMs) },
    resolveLaunch: async (_bridge, context) => ({
      ok: true,
      launch: { command: { command: process.execPath, args: [AGENT] }, cwd: context.cwd, env: context.env },
    }),
    log: (line) => lines.push(line),
  });
  let client: WireClient | undefined;
  const connect = () => {
    client = connectToServer({
      serverUrl: url,
      ticket: TICKET,
      workstation,
      log: (line) => lines.push(line),
    });
  };
  connect();
  cleanups.push(async () => {
    client?.close();
    await workstation.stop();
    journal.close();
    endpoint.close();
    wire.close();
    log.shutdown();
    await new Promise((r) => http.close(r));
  });
  expect(await wire.waitForWorkstation('ws', 20_000)).toBe(true);
  const opened = await wire.open({ workstation: 'ws', agentKey: 'scripted', bridge: 'scripted', cwd: dir });
  expect(opened.ok).toBe(true);
  const events: LoggedEvent[] = [];
  wire.subscribe(opened.sessionRef, (n) => {
    if (n.kind === 'event') events.push(n.event);
  });
  return {
    wire,
    journal,
    workstation,
    sessionRef: opened.sessionRef,
    events,
    lines,
    upgrades: () => upgrades,
    turnDone: () => until(() => events.some((e) => e.eventName === 'agent_turn_done'), 'the turn end'),
    drop: () => client?.close(),
    connect,
  };
}

describe('frames over the /agent limit', () => {
  it('a 20 MB update arrives cut to the event limit, with a marker, on the same connection', async () => {
    const s = await setup(0);
    s.wire.prompt(s.sessionRef, '[[huge:20000000]]');
    await s.turnDone();
    const chunk = s.events.find((e) => e.eventName === 'agent_message_chunk')!;
    expect(chunk.payload[EVENT_CUT_MARKER]).toEqual({
      originalBytes: expect.any(Number),
      limitBytes: AGENT_EVENT_MAX_BYTES,
    });
    expect((chunk.payload[EVENT_CUT_MARKER] as { originalBytes: number }).originalBytes).toBeGreaterThan(
      20_000_000,
    );
    expect(Buffer.byteLength(JSON.stringify(chunk.payload))).toBeLessThanOrEqual(AGENT_EVENT_MAX_BYTES);
    expect((chunk.payload.content as { text: string }).text).toMatch(/^x{1000000}/);
    // The journal keeps the cut form, so a backfill would resend exactly this.
    const stored = s.journal.read(s.sessionRef, 0).find((e) => e.seq === chunk.seq)!;
    expect((stored.frame as { payload: unknown }).payload).toEqual(chunk.payload);
    expect(s.lines.some((l) => l.includes('agent_message_chunk event of') && l.includes('was cut'))).toBe(
      true,
    );
    expect(s.upgrades()).toBe(1);
    expect(s.events.at(-1)!.payload).toMatchObject({ status: 'completed' });
  });

  it('a backfill of 300 events of 100 KB arrives complete, in batches under the frame limit', async () => {
    const s = await setup(5);
    s.wire.prompt(s.sessionRef, '[[bulk:300]]');
    await until(() => s.events.length >= 3, 'the first events');
    s.drop();
    // The rest of the turn is journaled while no server listens.
    await until(() => (s.workstation.inventory()[0]?.journalMaxSeq ?? 0) >= 301, 'the turn in the journal');
    const held = s.events.length;
    s.connect();
    await s.turnDone();
    const chunks = s.events.filter((e) => e.eventName === 'agent_message_chunk');
    expect(chunks.map((e) => (e.payload.content as { text: string }).text.slice(0, 8))).toEqual(
      Array.from({ length: 300 }, (_, i) => `[${i}]bbbbbbbb`.slice(0, 8)),
    );
    expect(s.events.map((e) => e.seq)).toEqual(s.events.map((_, i) => i + 1));
    // More than one frame could carry: it can only have come in several batches.
    const backfilled = s.journal.read(s.sessionRef, held).reduce((sum, e) => sum + e.bytes, 0);
    expect(backfilled).toBeGreaterThan(AGENT_FRAME_MAX_BYTES);
    expect(s.upgrades()).toBe(2);
    expect(s.lines.filter((l) => l.includes('1009'))).toEqual([]);
  });
});
