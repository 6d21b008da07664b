// The drive benchmark's measurements, one per process (scripts/bench/drive.mjs bundles this file
// and runs it once per sample). Each prints one JSON line with its figures on stdout.
//   burst-bare <chunks>   the scripted agent's burst, driven by a bare SDK client (no journal)
//   burst-cairn <chunks>  the same burst through a workstation (journal on disk), the in-process
//                         link and the server half (event log on disk), to a server subscriber
//   ttft <turns>          Claude Code against the fake model: time from the prompt to the first
//                         agent_message_chunk, turn by turn, bare client and cairn interleaved
//   ttft-scripted <turns> the same with the scripted agent (one chunk a turn, no model): what the
//                         client's own path costs, without the agent's variance
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Journal, type LaunchResolver, Workstation } from '@cairn/runner';
import { AgentWireServer, type DriveNotice, EventLog, linkInProcess } from '@cairn/server';
import {
  agentTestEnv,
  ensureTestAgents,
  testAgentCommand,
} from '../../packages/runner/test/support/agents.js';
import { now, startBareClient } from '../../packages/runner/test/support/bare-client.js';
import { startFakeModel } from '../../packages/runner/test/support/fake-model.js';

const root = resolve(process.env.CAIRN_BENCH_ROOT ?? process.cwd());
const WIRE_AGENT = join(root, 'packages/server/test/support/wire-agent.mjs');
const TICKET = 'bench-ticket';

interface Arrival {
  readonly at: number;
  readonly text: string;
}

/** A chunk's text is `t<turn>c<i>@<ms since the epoch> ` when the agent stamps it. */
function stampOf(text: string): number {
  const at = text.indexOf('@');
  return at < 0 ? Number.NaN : Number(text.slice(at + 1));
}

/** Updates per second from the prompt to the last chunk, and each chunk's latency from the agent. */
function burstFigures(sentAt: number, arrivals: readonly Arrival[], chunks: number) {
  if (arrivals.length !== chunks) throw new Error(`expected ${chunks} chunks, received ${arrivals.length}`);
  const latencies = new Float64Array(arrivals.length);
  for (let i = 0; i < arrivals.length; i++) latencies[i] = arrivals[i]!.at - stampOf(arrivals[i]!.text);
  latencies.sort();
  const rank = (p: number) => latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)]!;
  const seconds = (arrivals[arrivals.length - 1]!.at - sentAt) / 1000;
  return { chunks, seconds, perSecond: chunks / seconds, p50Ms: rank(0.5), p95Ms: rank(0.95) };
}

function wireAgentEnv(dir: string, chunks: number): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    WIRE_AGENT_MODE: 'normal',
    WIRE_AGENT_CHUNKS: String(chunks),
    WIRE_AGENT_DELAY_MS: '0',
    WIRE_AGENT_STAMP: '1',
  };
}

async function burstBare(dir: string, chunks: number) {
  const client = startBareClient({
    command: process.execPath,
    args: [WIRE_AGENT],
    env: wireAgentEnv(dir, chunks),
    cwd: dir,
  });
  try {
    await client.initialize();
    const { sessionId } = await client.newSession();
    const sentAt = now();
    const answer = await client.prompt(sessionId, 'burst');
    if (answer.stopReason !== 'end_turn') throw new Error(`the burst ended ${answer.stopReason}`);
    const arrivals: Arrival[] = [];
    for (const u of client.updates) {
      if (u.update.sessionUpdate === 'agent_message_chunk' && u.update.content.type === 'text')
        arrivals.push({ at: u.at, text: u.update.content.text });
    }
    return burstFigures(sentAt, arrivals, chunks);
  } finally {
    await client.close();
  }
}

/** The server half and a workstation joined in this process, as `cairn serve` runs its own. */
async function drive(dir: string, env: Record<string, string>, resolveLaunch: LaunchResolver) {
  const journalPath = join(dir, 'journal.sqlite');
  const log = new EventLog(join(dir, 'drive.sqlite'));
  const server = new AgentWireServer({ log, ticketOwner: (t) => (t === TICKET ? 'ws' : undefined) });
  const journal = Journal.open(journalPath);
  const workstation = new Workstation({ ticket: TICKET, cairnHome: dir, journal, env, resolveLaunch });
  const link = linkInProcess(server, workstation);
  if (!(await server.waitForWorkstation('ws'))) throw new Error('the workstation did not connect');
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    link.drop();
    await workstation.stop();
    server.close();
    journal.close();
    log.shutdown();
  };
  return { server, journal, journalPath, stop };
}

async function burstCairn(dir: string, chunks: number) {
  const d = await drive(dir, wireAgentEnv(dir, chunks), async (_bridge, context) => ({
    ok: true,
    launch: {
      command: { command: process.execPath, args: [WIRE_AGENT] },
      cwd: context.cwd,
      env: context.env,
    },
  }));
  try {
    const opened = await d.server.open({ workstation: 'ws', agentKey: 'wire', bridge: 'wire', cwd: dir });
    if (!opened.ok) throw new Error(`open failed: ${opened.error}`);
    const arrivals: Arrival[] = [];
    let events = 0;
    const done = new Promise<Record<string, unknown>>((resolveDone) => {
      d.server.subscribe(opened.sessionRef, (notice: DriveNotice) => {
        if (notice.kind !== 'event') return;
        events += 1;
        const { eventName, payload } = notice.event;
        if (eventName === 'agent_message_chunk') {
          arrivals.push({ at: now(), text: (payload as { content: { text: string } }).content.text });
        } else if (eventName === 'agent_turn_done') resolveDone(payload);
      });
    });
    const sentAt = now();
    const sent = d.server.prompt(opened.sessionRef, 'burst');
    if (!sent.ok) throw new Error(sent.error);
    const end = await done;
    if (end.stopReason !== 'end_turn') throw new Error(`the burst ended ${JSON.stringify(end)}`);
    const figures = burstFigures(sentAt, arrivals, chunks);
    const journalEvents = d.journal.maxSeq(opened.sessionRef);
    const entryBytes = d.journal.entryBytes(opened.sessionRef);
    await d.stop();
    // Closed, so the write-ahead log is folded into the file.
    const fileBytes = statSync(d.journalPath).size;
    return {
      ...figures,
      events,
      journalEvents,
      entryBytesPerEvent: entryBytes / journalEvents,
      fileBytesPerEvent: fileBytes / journalEvents,
    };
  } finally {
    await d.stop();
  }
}

const percentile = (xs: readonly number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};

interface TtftAgent {
  readonly key: string;
  readonly command: { command: string; args: string[] };
  readonly bareEnv: Record<string, string>;
  readonly cairnEnv: Record<string, string>;
  /** The pause before each sample, so what the agent does after a turn has settled. */
  readonly settleMs: number;
  readonly close: () => Promise<void>;
}

/** Claude Code, installed as the tests install it, against the fake model on 127.0.0.1. */
async function claudeCode(bareDir: string, cairnDir: string): Promise<TtftAgent> {
  const agentsHome = await ensureTestAgents();
  const model = await startFakeModel();
  return {
    key: 'claude-code',
    command: testAgentCommand('claude-code', agentsHome),
    bareEnv: (await agentTestEnv('claude-code', model.url, bareDir)).env,
    cairnEnv: (await agentTestEnv('claude-code', model.url, cairnDir)).env,
    settleMs: 250,
    close: () => model.close(),
  };
}

/** The scripted agent, one chunk a turn: the client's path alone, with no model behind it. */
async function scripted(bareDir: string, cairnDir: string): Promise<TtftAgent> {
  return {
    key: 'wire',
    command: { command: process.execPath, args: [WIRE_AGENT] },
    bareEnv: { ...wireAgentEnv(bareDir, 1), WIRE_AGENT_STAMP: '0' },
    cairnEnv: { ...wireAgentEnv(cairnDir, 1), WIRE_AGENT_STAMP: '0' },
    settleMs: 20,
    close: async () => {},
  };
}

async function ttft(dir: string, turns: number, which: typeof claudeCode) {
  const bareDir = join(dir, 'bare');
  const cairnDir = join(dir, 'cairn');
  for (const d of [bareDir, cairnDir]) mkdirSync(join(d, 'work'), { recursive: true });
  const agent = await which(bareDir, cairnDir);
  const { command } = agent;
  const client = startBareClient({ ...command, env: agent.bareEnv, cwd: join(bareDir, 'work') });
  const d = await drive(cairnDir, agent.cairnEnv, async (_bridge, context) => ({
    ok: true,
    launch: { command, cwd: context.cwd, env: context.env },
  }));
  try {
    await client.initialize();
    const { sessionId } = await client.newSession();
    const opened = await d.server.open({
      workstation: 'ws',
      agentKey: agent.key,
      bridge: agent.key,
      cwd: join(cairnDir, 'work'),
    });
    if (!opened.ok) throw new Error(`open failed: ${opened.error}`);

    // The first chunk of the current cairn turn reaches the server's subscriber at `firstAt`.
    let armed = false;
    let firstAt = Number.NaN;
    let turnDone: ((payload: Record<string, unknown>) => void) | undefined;
    d.server.subscribe(opened.sessionRef, (notice) => {
      if (notice.kind !== 'event') return;
      if (notice.event.eventName === 'agent_message_chunk' && armed) {
        firstAt = now();
        armed = false;
      } else if (notice.event.eventName === 'agent_turn_done') turnDone?.(notice.event.payload);
    });

    const settle = () => new Promise((r) => setTimeout(r, agent.settleMs));
    const bareTurn = async (text: string) => {
      await settle();
      const from = client.updates.length;
      const sentAt = now();
      const answer = await client.prompt(sessionId, text);
      if (answer.stopReason !== 'end_turn') throw new Error(`a bare turn ended ${answer.stopReason}`);
      const first = client.updates
        .slice(from)
        .find((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'agent_message_chunk');
      if (!first) throw new Error('a bare turn streamed no text');
      return first.at - sentAt;
    };
    const cairnTurn = async (text: string) => {
      await settle();
      const end = new Promise<Record<string, unknown>>((r) => {
        turnDone = r;
      });
      armed = true;
      firstAt = Number.NaN;
      const sentAt = now();
      const sent = d.server.prompt(opened.sessionRef, text);
      if (!sent.ok) throw new Error(sent.error);
      const payload = await end;
      if (payload.stopReason !== 'end_turn') throw new Error(`a cairn turn ended ${JSON.stringify(payload)}`);
      if (!Number.isFinite(firstAt)) throw new Error('a cairn turn streamed no text');
      return firstAt - sentAt;
    };

    // One turn each first, not counted: code is still cold, and the first turn of a Claude Code
    // session also asks the model for a title.
    await bareTurn('warm up');
    await cairnTurn('warm up');
    const bare: number[] = [];
    const cairn: number[] = [];
    for (let i = 0; i < turns; i++) {
      // Alternate which goes first, so neither always follows the other's model requests.
      if (i % 2 === 0) {
        bare.push(await bareTurn(`turn ${i}`));
        cairn.push(await cairnTurn(`turn ${i}`));
      } else {
        cairn.push(await cairnTurn(`turn ${i}`));
        bare.push(await bareTurn(`turn ${i}`));
      }
    }
    return {
      turns,
      bare: { samples: bare, p50Ms: percentile(bare, 50), p95Ms: percentile(bare, 95) },
      cairn: { samples: cairn, p50Ms: percentile(cairn, 50), p95Ms: percentile(cairn, 95) },
    };
  } finally {
    await client.close();
    await d.stop();
    await agent.close();
  }
}

const [what, count] = process.argv.slice(2);
const n = Number(count);
const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-drive-'));
try {
  const result =
    what === 'burst-bare'
      ? await burstBare(dir, n)
      : what === 'burst-cairn'
        ? await burstCairn(dir, n)
        : what === 'ttft'
          ? await ttft(dir, n, claudeCode)
          : what === 'ttft-scripted'
            ? await ttft(dir, n, scripted)
            : undefined;
  if (result === undefined) throw new Error(`unknown measurement ${what}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
