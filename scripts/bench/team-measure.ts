// One run of the team bench, in a process of its own (scripts/bench/team.mjs bundles and starts it).
// Three `cairn workstation` processes, each with a home of its own, drive the scripted agent through
// one turn of stamped chunks, all three at once, into `cairn serve`: two processes on one PostgreSQL
// database (durable, as a real server's), or one process on its SQLite files. A browser follows each
// session's event log over /drive/events on a process its workstation is not connected to (the only
// one, with one process). Prints one line of JSON: updates per second from the agents' first chunk to
// the browsers' last, the agents' own rate, agent → browser latency (after each agent's first three
// seconds, and the p95 of those seconds apart), and the event log's bytes per million events.
// usage: team-measure <postgres|sqlite> <chunks per workstation> [chunks a second per workstation; 0:
// as fast as the agent sends]
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import WebSocket from 'ws';
import { issueTicket } from '../../packages/server/src/drive/tickets.js';
import { PostgresServerStore } from '../../packages/server/src/storage/postgres-store.js';
import {
  type EventsBrowser,
  followDriveEvents,
} from '../../packages/server/test/support/drive-events-browser.js';
import { startPostgresCluster } from '../../packages/server/test/support/postgres-cluster.js';

const root = resolve(process.env.CAIRN_BENCH_ROOT ?? process.cwd());
const bin = join(root, 'bin/cairn.js');
const wireAgent = join(root, 'packages/server/test/support/wire-agent.mjs');
const STATIONS = ['w1', 'w2', 'w3'] as const;
/** An agent's first seconds of chunks, whose latency is counted apart. */
const START_MS = 3000;

const [mode, chunksArg, rateArg] = process.argv.slice(2);
if (mode !== 'postgres' && mode !== 'sqlite')
  throw new Error('usage: team-measure <postgres|sqlite> <chunks> [rate]');
const chunks = Number(chunksArg ?? 30_000);
const rate = Number(rateArg ?? 0);

const now = () => performance.timeOrigin + performance.now();
/** Nearest-rank percentile. */
const percentile = (xs: readonly number[], p: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
};
const children: ChildProcess[] = [];
const cleanups: (() => Promise<void> | void)[] = [];

async function until(test: () => boolean | Promise<boolean>, what: string, ms = 600_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`team bench: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** `cairn serve` on any free port, its home under `home`; answers its address once it serves. */
async function serve(
  home: string,
  args: string[],
): Promise<{ base: string; cairnHome: string; child: ChildProcess }> {
  mkdirSync(home, { recursive: true });
  const cairnHome = join(home, '.cairn');
  const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--no-demo', ...args], {
    env: { PATH: process.env.PATH, HOME: home, CAIRN_HOME: cairnHome },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => {
    out += d;
  });
  child.stderr!.on('data', (d) => {
    err += d;
  });
  await until(
    () => {
      if (child.exitCode !== null) throw new Error(`cairn serve exited: ${err}`);
      return /cairn: serving at http:\/\/[^/\s]+\//.test(out);
    },
    'cairn serve to start',
    60_000,
  );
  const base = /cairn: serving at (http:\/\/[^/\s]+)\//.exec(out)![1]!;
  return { base, cairnHome, child };
}

/** `cairn workstation` with the scripted agent as `wire`, streaming `chunks` stamped chunks a turn. */
function workstation(cairnHome: string, server: string, ticket: string): void {
  mkdirSync(cairnHome, { recursive: true });
  writeFileSync(
    join(cairnHome, 'config.json'),
    JSON.stringify({ agents: { wire: { name: 'Wire', command: process.execPath, args: [wireAgent] } } }),
  );
  const child = spawn(process.execPath, [bin, 'workstation', '--server', server], {
    env: {
      PATH: process.env.PATH,
      HOME: cairnHome,
      CAIRN_HOME: cairnHome,
      CAIRN_TICKET: ticket,
      WIRE_AGENT_CHUNKS: String(chunks),
      WIRE_AGENT_DELAY_MS: '0',
      WIRE_AGENT_STAMP: '1',
      WIRE_AGENT_RATE: String(rate),
    },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  children.push(child);
}

async function api(base: string, token: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the answers' fields are read one by one
  const answer = (await res.json().catch(() => undefined)) as any;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(answer)}`);
  return answer;
}

async function online(base: string, token: string, name: string): Promise<boolean> {
  const listed = await api(base, token, 'GET', '/api/workstations').catch(() => undefined);
  return (
    listed?.workstations?.some((w: { name: string; online: boolean }) => w.name === name && w.online) ?? false
  );
}

/** Prompts a session as the chat page does, over `/chat`. */
async function prompt(base: string, token: string, ref: string): Promise<void> {
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/chat?session=${ref}&token=${token}`);
  cleanups.push(() => ws.terminate());
  let ready = false;
  ws.on('message', (data) => {
    const type = (JSON.parse(data.toString()) as { type: string }).type;
    if (type === 'session_ready' || type === 'session_ready_end') ready = true;
  });
  await until(() => ready, 'the chat to be ready', 60_000);
  ws.send(JSON.stringify({ type: 'user_message', content: 'go' }));
}

/** The bytes of the SQLite files whose names start with `prefix` in `dir`. */
const filesBytes = (dir: string, prefix: string) =>
  readdirSync(dir)
    .filter((f) => f.startsWith(prefix))
    .reduce((sum, f) => sum + statSync(join(dir, f)).size, 0);

async function main() {
  const scratch = mkdtempSync(join(tmpdir(), 'cairn-team-bench-'));
  cleanups.push(() => rmSync(scratch, { recursive: true, force: true }));
  let token: string;
  const tickets: Record<string, string> = {};
  let servers: { base: string; cairnHome: string; child: ChildProcess }[];
  let logBytes: () => Promise<number>;

  if (mode === 'postgres') {
    const cluster = startPostgresCluster({ durable: true });
    cleanups.push(() => cluster.stop());
    const database = cluster.createDatabase('team_bench');
    const store = await PostgresServerStore.open({ connectionString: database, maxConnections: 2 });
    token = (await store.users.add('ada', 'admin')).token;
    for (const name of STATIONS) {
      await store.workstations.add(name, 'ada', 'shared');
      const issued = await store.tickets.issue(name);
      if (!issued.ok) throw new Error(issued.error.message);
      tickets[name] = issued.ticket;
    }
    await store.close();
    servers = await Promise.all(['a', 'b'].map((p) => serve(join(scratch, p), ['--database', database])));
    logBytes = async () => {
      const client = new pg.Client({ connectionString: database });
      await client.connect();
      const size = await client.query("SELECT pg_total_relation_size('driven_events') AS bytes");
      await client.end();
      return Number(size.rows[0].bytes);
    };
  } else {
    const one = await serve(join(scratch, 'a'), []);
    servers = [one];
    token = readFileSync(join(one.cairnHome, 'token'), 'utf8').trim();
    for (const name of STATIONS) tickets[name] = issueTicket(one.cairnHome, name);
    logBytes = async () => filesBytes(one.cairnHome, 'drive.sqlite');
  }

  // w1 and w3 on the first process, w2 on the second; each followed on another process.
  const homeOf = (name: string) => join(scratch, name);
  const serverOf = (i: number) => servers[i % 2 === 1 ? 1 % servers.length : 0]!;
  const watcherOf = (i: number) => servers[(servers.indexOf(serverOf(i)) + 1) % servers.length]!;
  for (const [i, name] of STATIONS.entries()) workstation(homeOf(name), serverOf(i).base, tickets[name]!);
  for (const [i, name] of STATIONS.entries())
    await until(() => online(serverOf(i).base, token, name), `${name} to connect`, 60_000);

  const refs: string[] = [];
  for (const [i, name] of STATIONS.entries()) {
    const base = serverOf(i).base;
    const project = await api(base, token, 'POST', '/api/projects', {
      path: homeOf(name),
      workstation: name,
    });
    const created = await api(base, token, 'POST', '/api/sessions', {
      projectId: project.project.id,
      agent: 'wire',
      workstation: name,
    });
    refs.push(created.session.id as string);
  }

  // Each chunk's send time (its stamp) and arrival in the browser.
  const sent: number[][] = STATIONS.map(() => []);
  // Each chunk's latency, apart for those sent in an agent's first seconds: in a fresh server's first
  // turn a backlog of about a second builds and drains then (most likely code still being compiled).
  const latencies: number[] = [];
  const startLatencies: number[] = [];
  let lastArrival = 0;
  const browsers: EventsBrowser[] = STATIONS.map((_, i) =>
    followDriveEvents({
      addresses: [watcherOf(i).base],
      session: refs[i]!,
      token,
      onEvent: (event) => {
        if (event.eventName !== 'agent_message_chunk') return;
        const at = now();
        const text = String((event.payload as { content?: { text?: unknown } }).content?.text);
        const stamp = Number(/@([0-9.]+)/.exec(text)?.[1]);
        if (!Number.isFinite(stamp)) return;
        sent[i]!.push(stamp);
        (stamp - sent[i]![0]! < START_MS ? startLatencies : latencies).push(at - stamp);
        lastArrival = at;
      },
    }),
  );
  cleanups.push(() => {
    for (const b of browsers) b.close();
  });
  const before = await logBytes();

  await Promise.all(STATIONS.map((_, i) => prompt(serverOf(i).base, token, refs[i]!)));
  await until(() => browsers.every((b) => b.turnsDone() === 1), 'every turn to reach its browser');

  const events = browsers.reduce((sum, b) => sum + b.events.length, 0);
  const firstSent = Math.min(...sent.map((s) => s[0] ?? Number.POSITIVE_INFINITY));
  const seconds = (lastArrival - firstSent) / 1000;
  const agentRates = sent.map((s) => (s.length - 1) / (((s.at(-1) ?? 0) - (s[0] ?? 0)) / 1000));
  // SQLite's log is counted once its process has stopped and folded its write-ahead log in.
  if (mode === 'sqlite') {
    const child = servers[0]!.child;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  const after = await logBytes();
  return {
    mode,
    processes: servers.length,
    rate,
    workstations: STATIONS.length,
    chunks: sent.reduce((sum, s) => sum + s.length, 0),
    events,
    seconds,
    perSecond: sent.reduce((sum, s) => sum + s.length, 0) / seconds,
    agentPerSecond: percentile(agentRates, 50),
    p50Ms: percentile(latencies, 50),
    p95Ms: percentile(latencies, 95),
    startP95Ms: percentile(startLatencies, 95),
    bytesPerMillionEvents: ((after - before) / events) * 1e6,
  };
}

try {
  const result = await main();
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  for (const cleanup of cleanups.reverse()) await cleanup();
}
