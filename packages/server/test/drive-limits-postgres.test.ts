// The bound on what waits to be stored, with the event log in PostgreSQL: a store a network away is
// far slower than a flood, and still no more than the bound waits; what was stored is a prefix of
// what was sent, once each and in order, and nothing past it is acked.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AgentFrame } from '@cairn/protocol';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { AgentEndpoint } from '../src/drive/agent-endpoint.js';
import { AgentWireServer, type LoggedEvent } from '../src/index.js';
import { PostgresServerStore } from '../src/storage/postgres-store.js';
import { type PostgresCluster, startPostgresCluster } from './support/postgres-cluster.js';

const TICKET = 'pg-limits-ticket';

let cluster: PostgresCluster;
beforeAll(() => {
  cluster = startPostgresCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function until(test: () => boolean, what: string, ms = 30_000): Promise<void> {
  for (const start = Date.now(); !test(); await new Promise((r) => setTimeout(r, 25))) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
  }
}

describe('the agent wire at its limits, on PostgreSQL', () => {
  it('queues no more than the bound of a flood faster than the store, and refuses the rest', async () => {
    const store = await PostgresServerStore.open({
      connectionString: cluster.createDatabase('wire_limits'),
      maxConnections: 4,
    });
    const ticketOwner = (t: string) => (t === TICKET ? 'flood' : undefined);
    const wire = new AgentWireServer({ log: store.drive, ticketOwner, limits: { maxUnstoredEvents: 100 } });
    const endpoint = new AgentEndpoint(wire, ticketOwner);
    const http = createServer((_req, res) => res.end());
    http.on('upgrade', (req, socket, head) => endpoint.handleUpgrade(req, socket, head));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      endpoint.close();
      wire.close();
      await new Promise((r) => http.close(r));
      await store.close();
    });

    const ws = new WebSocket(`ws://127.0.0.1:${(http.address() as AddressInfo).port}/agent`, {
      headers: { authorization: `Bearer ${TICKET}` },
    });
    cleanups.push(() => ws.terminate());
    const received: AgentFrame[] = [];
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    ws.on('message', (data) => received.push(JSON.parse(data.toString()) as AgentFrame));
    await new Promise((resolve) => ws.once('open', resolve));
    ws.send(JSON.stringify({ t: 'agent_hello', ticket: TICKET, bridges: [] }));
    await until(() => received.some((f) => f.t === 'agent_ready'), 'agent_ready');
    const opening = wire.open({ workstation: 'flood', agentKey: 'x', bridge: 'x', cwd: '/' });
    await until(() => received.some((f) => f.t === 'agent_open'), 'agent_open');
    ws.send(
      JSON.stringify({
        t: 'agent_opened',
        id: (received.find((f) => f.t === 'agent_open') as { id: string }).id,
        ok: true,
      }),
    );
    const { sessionRef } = await opening;
    const stored: LoggedEvent[] = [];
    wire.subscribe(sessionRef, (notice) => {
      if (notice.kind === 'event') stored.push(notice.event);
    });

    for (let seq = 1; seq <= 20_000; seq++)
      ws.send(
        JSON.stringify({
          t: 'agent_event',
          sessionRef,
          seq,
          eventName: 'agent_message_chunk',
          payload: { content: { type: 'text', text: `chunk ${seq} ${'x'.repeat(200)}` } },
        }),
      );
    expect(await closed).toEqual({
      code: 1013,
      reason: 'over 100 events or 64 MiB waiting to be stored; back off and send again',
    });
    expect(wire.peakWaiting).toBeLessThanOrEqual(100);
    // What was taken in before the refusal is still stored: let it land.
    await until(() => stored.length > 0, 'the first stored events');
    await new Promise((r) => setTimeout(r, 500));
    const held = await store.drive.heldSeq(sessionRef);
    await until(() => stored.length === held, 'every stored event heard');
    expect(held).toBeLessThanOrEqual(100);
    expect(stored.map((e) => e.seq)).toEqual(Array.from({ length: held }, (_, i) => i + 1));
    const acks = received.flatMap((f) =>
      f.t === 'agent_event_ack' ? [(f as { throughSeq: number }).throughSeq] : [],
    );
    expect(Math.max(0, ...acks)).toBeLessThanOrEqual(held);
  }, 60_000);
});
