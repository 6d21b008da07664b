// The agent wire's server half on a shared PostgreSQL database: two servers (as two server
// processes would be, each with its own pool and event feed), a workstation with a scripted agent
// connected to the first. A subscriber of the second hears every event once, in order; when the
// first goes away mid-turn the workstation connects to the second and the log carries on with no
// gap and no double.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Journal, Workstation } from '@cairn/runner';
import { AgentWireServer, type DriveNotice, type LoggedEvent, linkInProcess } from '@cairn/server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresServerStore } from '../src/storage/postgres-store.js';
import { type PostgresCluster, startPostgresCluster } from './support/postgres-cluster.js';

const AGENT = fileURLToPath(new URL('./support/wire-agent.mjs', import.meta.url));
const TICKET = 'pg-ticket';

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

async function serverOn(url: string): Promise<{ server: AgentWireServer; store: PostgresServerStore }> {
  const store = await PostgresServerStore.open({ connectionString: url, maxConnections: 4 });
  const server = new AgentWireServer({
    log: store.drive,
    ticketOwner: (t) => (t === TICKET ? 'ws' : undefined),
  });
  cleanups.push(async () => {
    server.close();
    await store.close();
  });
  return { server, store };
}

function workstationIn(dir: string) {
  const journal = Journal.open(join(dir, 'journal.sqlite'));
  const workstation = new Workstation({
    ticket: TICKET,
    cairnHome: dir,
    journal,
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      WIRE_AGENT_MODE: 'normal',
      WIRE_AGENT_CHUNKS: '30',
      WIRE_AGENT_DELAY_MS: '15',
    },
    resolveLaunch: async (_bridge, context) => ({
      ok: true,
      launch: { command: { command: process.execPath, args: [AGENT] }, cwd: context.cwd, env: context.env },
    }),
    heartbeatMs: 200,
  });
  cleanups.push(async () => {
    await workstation.stop();
    journal.close();
  });
  return workstation;
}

/** What one server's subscriber of a session hears. */
function listen(server: AgentWireServer, sessionRef: string) {
  const events: LoggedEvent[] = [];
  const notices: DriveNotice[] = [];
  server.subscribe(sessionRef, (notice) => {
    notices.push(notice);
    if (notice.kind === 'event') events.push(notice.event);
  });
  const ends = () => events.filter((e) => e.eventName === 'agent_turn_done').length;
  return {
    events,
    notices,
    until: (test: () => boolean, what: string) =>
      expect.poll(test, { timeout: 20_000, interval: 20, message: `waiting for ${what}` }).toBe(true),
    ends,
    texts: () =>
      events
        .filter((e) => e.eventName === 'agent_message_chunk')
        .map((e) => (e.payload as { content: { text: string } }).content.text),
  };
}

const seqs = (events: readonly LoggedEvent[]) => events.map((e) => e.seq);
const oneToN = (events: readonly LoggedEvent[]) => events.map((_, i) => i + 1);

describe('two servers on one PostgreSQL database', () => {
  it('a subscriber of the other server hears every event once, in order, and the log survives the first going away mid-turn', async () => {
    const url = cluster.createDatabase('drive_two_servers');
    const a = await serverOn(url);
    const b = await serverOn(url);
    const dir = mkdtempSync(join(tmpdir(), 'cairn-drive-pg-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const workstation = workstationIn(dir);
    const toA = linkInProcess(a.server, workstation);
    cleanups.push(() => toA.drop());
    expect(await a.server.waitForWorkstation('ws')).toBe(true);

    const opened = await a.server.open({ workstation: 'ws', agentKey: 'wire', bridge: 'wire', cwd: dir });
    expect(opened.ok).toBe(true);
    const onA = listen(a.server, opened.sessionRef);
    const onB = listen(b.server, opened.sessionRef);

    // A turn driven through the first server, heard on the second.
    expect(a.server.prompt(opened.sessionRef, 'hello')).toEqual({ ok: true });
    await onB.until(() => onB.ends() === 1, 'the first turn on the second server');
    expect(seqs(onB.events)).toEqual(oneToN(onB.events));
    expect(onB.texts()).toEqual(Array.from({ length: 30 }, (_, i) => `t1c${i} `));
    await onA.until(() => onA.ends() === 1, 'the first turn on the first server');
    expect(seqs(onA.events)).toEqual(seqs(onB.events));

    // The second turn: the first server goes away in the middle of it.
    expect(a.server.prompt(opened.sessionRef, 'again')).toEqual({ ok: true });
    await onB.until(() => onB.texts().length >= 35, 'the second turn under way');
    expect(onB.ends()).toBe(1);
    toA.drop();
    a.server.close();
    const toB = linkInProcess(b.server, workstation);
    cleanups.push(() => toB.drop());
    await onB.until(() => onB.ends() === 2, 'the second turn, finished through the second server');
    expect(seqs(onB.events)).toEqual(oneToN(onB.events));
    expect(onB.texts()).toEqual([
      ...Array.from({ length: 30 }, (_, i) => `t1c${i} `),
      ...Array.from({ length: 30 }, (_, i) => `t2c${i} `),
    ]);

    // The second server drives the session from here, numbering on.
    expect(b.server.prompt(opened.sessionRef, 'third')).toEqual({ ok: true });
    await onB.until(() => onB.ends() === 3, 'a third turn through the second server');
    expect(seqs(onB.events)).toEqual(oneToN(onB.events));
    const stored = await b.store.drive.events(opened.sessionRef);
    expect(seqs(stored)).toEqual(seqs(onB.events));
    expect(await b.store.drive.heldSeq(opened.sessionRef)).toBe(onB.events.length);
    expect((await b.store.drive.get(opened.sessionRef))?.turnRunning).toBe(false);
  });
});
