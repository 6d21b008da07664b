// A team's server under faults: two `cairn serve` processes on one PostgreSQL database, three
// `cairn workstation` processes with homes of their own, and browsers following each chat's event
// log on both server processes. Turns run on every workstation; then, while the next turns are
// under way, one server process is killed (its workstation and its browsers move to the other),
// one workstation is killed with -9 and started again from its journal, and one is paused for 30 s.
// Every browser gets every event of every session once, in order, with no gap, and the log in the
// database holds the same.
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { PostgresServerStore } from '../src/storage/postgres-store.js';
import { tempDir } from './helpers.js';
import { closeAll, openTab } from './support/chat.js';
import { type EventsBrowser, followDriveEvents } from './support/drive-events-browser.js';
import { type PostgresCluster, startPostgresCluster } from './support/postgres-cluster.js';
import { type ServerProcess, startServerProcess } from './support/server-process.js';
import { apiCall, onlineAt } from './support/team-server.js';
import { startWorkstationProcess } from './support/workstation-process.js';

/** Each turn of the scripted agent: 40 chunks, 100 ms apart (about 4 s). */
const CHUNKS = 40;
const AGENT = { WIRE_AGENT_CHUNKS: String(CHUNKS), WIRE_AGENT_DELAY_MS: '100' };
const PAUSE_MS = 30_000;

let cluster: PostgresCluster | undefined;
const stops: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  await closeAll();
  for (const stop of stops.splice(0).reverse()) await stop();
  await cluster?.stop();
});
const onCleanup = (stop: () => Promise<void>) => stops.push(stop);

const turnTexts = (turn: number) => Array.from({ length: CHUNKS }, (_, i) => `t${turn}c${i} `);

const waitFor = (test: () => boolean | Promise<boolean>, what: string, timeout = 45_000) =>
  expect.poll(test, { timeout, interval: 50, message: `waiting for ${what}` }).toBe(true);

it('two server processes, three workstations, a server killed mid-turn, a workstation killed and one paused: every browser gets every event once, in order', async () => {
  cluster = startPostgresCluster();
  const database = cluster.createDatabase('team_failover');
  const store = await PostgresServerStore.open({ connectionString: database, maxConnections: 2 });
  stops.push(() => store.close());
  const { token } = await store.users.add('ada', 'admin');
  const tickets: Record<string, string> = {};
  for (const name of ['w1', 'w2', 'w3']) {
    await store.workstations.add(name, 'ada', 'shared');
    const issued = await store.tickets.issue(name);
    if (!issued.ok) throw new Error(issued.error.message);
    tickets[name] = issued.ticket;
  }

  const root = tempDir('cairn-team-failover-');
  const [a, b] = (await Promise.all(
    ['a', 'b'].map((name) => startServerProcess({ database, home: join(root, name), onCleanup })),
  )) as [ServerProcess, ServerProcess];

  // w1 tries the first process first; w2 and w3 the second. w3 is given its addresses as a comma
  // list, the others with --server repeated.
  const order: Record<string, ServerProcess[]> = { w1: [a, b], w2: [b, a], w3: [b, a] };
  const homeOf = (name: string) => join(root, name);
  const startStation = (name: string) =>
    startWorkstationProcess({
      serverUrl: name === 'w3' ? order[name]!.map((s) => s.base).join(',') : order[name]!.map((s) => s.base),
      ticket: tickets[name]!,
      cairnHome: homeOf(name),
      env: AGENT,
      onCleanup,
    });
  const stations = Object.fromEntries(['w1', 'w2', 'w3'].map((name) => [name, startStation(name)]));
  for (const name of ['w1', 'w2', 'w3'])
    await waitFor(() => onlineAt(order[name]![0]!.base, token, name), `${name} on its first server`);

  // A chat on each workstation, made and driven from a browser on the process it is connected to.
  const chats: Record<string, { ref: string; tab: Awaited<ReturnType<typeof openTab>> }> = {};
  for (const name of ['w1', 'w2', 'w3']) {
    const server = order[name]![0]!;
    const project = await apiCall(server.base, token, 'POST', '/api/projects', {
      path: homeOf(name),
      workstation: name,
    });
    expect(project.status, JSON.stringify(project.body)).toBe(200);
    const created = await apiCall(server.base, token, 'POST', '/api/sessions', {
      projectId: project.body.project.id,
      agent: 'wire',
      workstation: name,
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const ref = created.body.session.id as string;
    const tab = await openTab(`${server.base.replace('http', 'ws')}/chat?session=${ref}&token=${token}`);
    await tab.ready();
    chats[name] = { ref, tab };
  }

  // Browsers following each chat's log: one on each server process, each ready to move to the other.
  const browsers: Record<string, { onA: EventsBrowser; onB: EventsBrowser }> = {};
  for (const name of ['w1', 'w2', 'w3']) {
    const follow = (first: ServerProcess, then: ServerProcess) =>
      followDriveEvents({ addresses: [first.base, then.base], session: chats[name]!.ref, token });
    browsers[name] = { onA: follow(a, b), onB: follow(b, a) };
    stops.push(() => {
      browsers[name]!.onA.close();
      browsers[name]!.onB.close();
    });
  }
  const all = (name: string) => [browsers[name]!.onA, browsers[name]!.onB];
  const everyBrowser = (name: string, test: (browser: EventsBrowser) => boolean) => all(name).every(test);
  const prompt = (name: string, text: string) =>
    chats[name]!.tab.send({ type: 'user_message', content: text });

  // A first turn on every workstation.
  for (const name of ['w1', 'w2', 'w3']) prompt(name, 'first');
  for (const name of ['w1', 'w2', 'w3'])
    await waitFor(() => everyBrowser(name, (br) => br.turnsDone() === 1), `the first turn of ${name}`);

  // The second turns, and the faults in the middle of them.
  for (const name of ['w1', 'w2', 'w3']) prompt(name, 'second');
  const midTurn = async (name: string) => {
    await waitFor(
      () => everyBrowser(name, (br) => br.texts().length >= CHUNKS + 5),
      `the second turn of ${name} under way`,
    );
    expect(
      everyBrowser(name, (br) => br.turnsDone() === 1),
      `${name} still in its second turn`,
    ).toBe(true);
  };

  // w3 stopped dead for 30 s, while the other faults happen.
  await midTurn('w3');
  stations.w3!.kill('SIGSTOP');
  const paused = new Promise<void>((resolve) =>
    setTimeout(() => {
      stations.w3!.kill('SIGCONT');
      resolve();
    }, PAUSE_MS),
  );

  // w2 killed with -9, to be started again on the same home, so from its journal.
  await midTurn('w2');
  const killed = new Promise((r) => stations.w2!.once('exit', r));
  stations.w2!.kill('SIGKILL');
  await killed;

  // The first server process killed: w1 and the browsers there move to the second.
  await midTurn('w1');
  a.child.kill('SIGKILL');
  await a.exited;
  await waitFor(() => onlineAt(b.base, token, 'w1'), 'w1 on the second server');

  await waitFor(async () => !(await onlineAt(b.base, token, 'w2')), 'the second server to see w2 gone');
  stations.w2 = startStation('w2');
  await waitFor(() => onlineAt(b.base, token, 'w2'), 'w2 back');

  // w1's turn ends through the second server, though it began through the first.
  await waitFor(() => everyBrowser('w1', (br) => br.turnsDone() === 2), 'the second turn of w1');
  expect(browsers.w1!.onA.opened).toEqual([a.base, b.base]);
  // w2's agent died with it, so its turn ended unfinished; the next one runs on the new process.
  await chats.w2!.tab.until(() => chats.w2!.tab.count('agent_end') >= 2, 'the end of w2’s lost turn');
  prompt('w2', 'third');
  await waitFor(() => everyBrowser('w2', (br) => br.turnsDone() >= 2), 'a turn of w2 after its restart');

  // w3 carries on once it runs again, and takes a third turn.
  await paused;
  await waitFor(() => everyBrowser('w3', (br) => br.turnsDone() === 2), 'the second turn of w3');
  prompt('w3', 'third');
  await waitFor(() => everyBrowser('w3', (br) => br.turnsDone() === 3), 'the third turn of w3');

  // Every browser holds the whole log of every session, in order, once each: as the database does.
  for (const name of ['w1', 'w2', 'w3']) {
    const ref = chats[name]!.ref;
    const stored = await store.drive.events(ref);
    expect(stored.map((e) => e.seq)).toEqual(stored.map((_, i) => i + 1));
    expect(await store.drive.heldSeq(ref)).toBe(stored.length);
    for (const browser of all(name)) {
      await waitFor(() => browser.events.length >= stored.length, `${name}'s browsers to catch up`);
      expect(browser.outOfOrder, name).toEqual([]);
      expect(browser.events, name).toEqual(
        stored.map((e) => ({ seq: e.seq, eventName: e.eventName, payload: e.payload })),
      );
    }
  }
  // The turns that no fault cut short arrived whole and once.
  for (const browser of all('w1')) expect(browser.texts()).toEqual([...turnTexts(1), ...turnTexts(2)]);
  for (const browser of all('w3'))
    expect(browser.texts()).toEqual([...turnTexts(1), ...turnTexts(2), ...turnTexts(3)]);
  // w2's second turn stopped where its agent died, each chunk before that once; its new agent
  // (whose count of turns starts again) ran the third whole.
  const w2Texts = browsers.w2!.onB.texts();
  expect(w2Texts.slice(0, CHUNKS)).toEqual(turnTexts(1));
  const cut = w2Texts.slice(CHUNKS);
  const cutAt = cut.findIndex((text) => !text.startsWith('t2c'));
  expect(cutAt).toBeGreaterThanOrEqual(5);
  expect(cut.slice(0, cutAt)).toEqual(turnTexts(2).slice(0, cutAt));
  expect(cut.slice(-CHUNKS)).toEqual(turnTexts(1));
}, 150_000);
