// The chat benchmark's measurements, one per process (scripts/bench/chat.mjs bundles this file and
// runs it once per measurement). Each starts `cairn serve` (bin/cairn.js, so `npm run build` first)
// as a child process on a home of its own, with the scripted agent (packages/server/test/support/
// wire-agent.mjs) declared in $CAIRN_HOME/config.json, and prints one JSON line of figures.
//   deltas-ws <deltas> <pace ms>    per-delta latency from the agent (each chunk carries the time it
//                                   was sent) to `ws` clients on /chat: a turn with one tab open,
//                                   then one with ten, twice (a turn first, not counted)
//   deltas-page <deltas> <pace ms> [paragraph]  the same to Chromium tabs of the web UI: when the page's socket
//                                   receives the text_delta, and the first frame after its text is
//                                   in the page's DOM
//   ttft <turns> <agent>            time from Send to the first token: the web UI in Chromium (Enter
//                                   in the composer → the first reply text in the DOM → the next
//                                   frame), a `ws` client on /chat (user_message → text_delta), and
//                                   the same agent driven by a bare SDK client (prompt → the first
//                                   agent_message_chunk); <agent> is `wire` (the scripted agent, a
//                                   few chunks a turn) or `claude-code` (the real adapter against
//                                   the fake model)
// Every clock is `performance.timeOrigin + performance.now()` of its own process (agent, daemon,
// this process, the page), all on this machine.
import { type ChildProcess, spawn } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import WebSocket from 'ws';
import {
  agentTestEnv,
  ensureTestAgents,
  testAgentCommand,
} from '../../packages/runner/test/support/agents.js';
import { type BareClient, now, startBareClient } from '../../packages/runner/test/support/bare-client.js';
import { type FakeModel, startFakeModel } from '../../packages/runner/test/support/fake-model.js';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../chromium.mjs';

const root = resolve(process.env.CAIRN_BENCH_ROOT ?? process.cwd());
const WIRE_AGENT = join(root, 'packages/server/test/support/wire-agent.mjs');
const CLI = join(root, 'bin/cairn.js');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const percentile = (xs: readonly number[], p: number) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const figures = (xs: readonly number[]) => ({
  count: xs.length,
  p50Ms: percentile(xs, 50),
  p95Ms: percentile(xs, 95),
  maxMs: percentile(xs, 100),
});

/** A chunk's text is `t<turn>c<i>@<ms since the epoch> ` when the agent stamps it. */
function stampOf(text: string): number {
  const at = text.indexOf('@');
  return at < 0 ? Number.NaN : Number.parseFloat(text.slice(at + 1));
}

// ---------------------------------------------------------------------------------------------
// The daemon

interface Running {
  readonly pid: number;
  readonly port: number;
  readonly token: string;
  readonly base: string;
  readonly project: string;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
  api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();
const killGroup = (child: ChildProcess) => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
};
process.on('exit', () => {
  for (const c of children) killGroup(c);
});

/** The agents the daemon is told of, each the scripted agent with an environment of its own. */
function wireAgents(deltas: number, paceMs: number, paragraph = 0) {
  const agent = (env: Record<string, string>) => ({
    name: 'Bench wire',
    command: process.execPath,
    args: [WIRE_AGENT],
    env: { WIRE_AGENT_MODE: 'normal', ...env },
  });
  return {
    stream: agent({
      WIRE_AGENT_CHUNKS: String(deltas),
      WIRE_AGENT_DELAY_MS: String(paceMs),
      WIRE_AGENT_STAMP: '1',
      WIRE_AGENT_PARAGRAPH: String(paragraph),
    }),
    quick: agent({ WIRE_AGENT_CHUNKS: '3', WIRE_AGENT_DELAY_MS: '0', WIRE_AGENT_STAMP: '0' }),
  };
}

async function startDaemon(
  dir: string,
  agents: Record<string, unknown>,
  extra: { env?: Record<string, string>; agentsFolder?: string; nodeArgs?: string[] } = {},
): Promise<Running> {
  const home = join(dir, 'home');
  const cairnHome = join(dir, 'cairn');
  const project = join(dir, 'project');
  for (const d of [join(home, '.claude', 'projects'), cairnHome, project]) mkdirSync(d, { recursive: true });
  if (extra.agentsFolder) symlinkSync(extra.agentsFolder, join(cairnHome, 'agents'));
  writeFileSync(join(cairnHome, 'config.json'), JSON.stringify({ agents }));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    CODEX_HOME: join(home, '.codex'),
    GEMINI_CLI_HOME: home,
    ...extra.env,
    CAIRN_HOME: cairnHome,
  };
  const child = spawn(
    process.execPath,
    [...(extra.nodeArgs ?? []), CLI, 'serve', '--port', '0', '--no-demo'],
    {
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.add(child);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const tail: string[] = [];
  createInterface({ input: child.stderr! }).on('line', (l) => {
    tail.push(l);
    if (tail.length > 20) tail.shift();
  });
  const url = await new Promise<URL>((resolveUrl, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the daemon did not start\n${tail.join('\n')}`)),
      120_000,
    );
    createInterface({ input: child.stdout! }).on('line', (l) => {
      const m = /cairn: serving at (\S+)/.exec(l);
      if (m) {
        clearTimeout(timer);
        resolveUrl(new URL(m[1]!));
      }
    });
    void exited.then(() => reject(new Error(`the daemon exited\n${tail.join('\n')}`)));
  });
  const token = url.searchParams.get('token') ?? '';
  const port = Number(url.port);
  const base = `http://127.0.0.1:${port}`;
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    // biome-ignore lint/suspicious/noExplicitAny: answers are read field by field
    return { status: res.status, body: (await res.json()) as any };
  };
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      try {
        process.kill(child.pid!, 'SIGTERM');
      } catch {
        // Gone already.
      }
      await Promise.race([exited, sleep(15_000)]);
      // Whatever is left of its group (agents it started) goes too.
      killGroup(child);
      children.delete(child);
    })();
    return stopping;
  };
  return { pid: child.pid!, port, token, base, project, api, stop };
}

/** A new chat with `agent` in the daemon's project, once the local workstation offers the agent. */
async function newChat(d: Running, agent: string): Promise<string> {
  const p = await d.api('POST', '/api/projects', { path: d.project });
  if (p.status !== 200) throw new Error(`project refused: ${JSON.stringify(p.body)}`);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const s = await d.api('POST', '/api/sessions', { projectId: p.body.project.id, agent });
    if (s.status === 200) return s.body.session.id as string;
    if (Date.now() > deadline) throw new Error(`chat refused: ${JSON.stringify(s.body)}`);
    await sleep(100);
  }
}

// ---------------------------------------------------------------------------------------------
// `ws` clients on /chat

// biome-ignore lint/suspicious/noExplicitAny: events are read field by field
type Ev = { type: string } & Record<string, any>;

interface Tab {
  /** Arrival time and delta text of every text_delta of the turns being recorded. */
  readonly deltas: { at: number; text: string }[];
  recording: boolean;
  ends: number;
  firstDeltaAt: number;
  send(message: unknown): void;
  until(test: () => boolean, what: string, ms?: number): Promise<void>;
  close(): void;
}

async function openTab(d: Running, session: string): Promise<Tab> {
  const ws = new WebSocket(
    `ws://127.0.0.1:${d.port}/chat?session=${encodeURIComponent(session)}&token=${d.token}`,
  );
  let ready = false;
  const waiters: (() => void)[] = [];
  const tab: Tab = {
    deltas: [],
    recording: false,
    ends: 0,
    firstDeltaAt: Number.NaN,
    send: (m) => ws.send(JSON.stringify(m)),
    async until(test, what, ms = 120_000) {
      const deadline = Date.now() + ms;
      while (!test()) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 100);
        });
      }
    },
    close: () => ws.close(),
  };
  ws.on('message', (data) => {
    const at = now();
    const e = JSON.parse(data.toString()) as Ev;
    if (e.type === 'text_delta') {
      if (Number.isNaN(tab.firstDeltaAt)) tab.firstDeltaAt = at;
      if (tab.recording) tab.deltas.push({ at, text: e.delta as string });
    } else if (e.type === 'agent_end') tab.ends += 1;
    else if (e.type === 'session_ready' || e.type === 'session_ready_end') ready = true;
    else if (e.type === 'error') process.stderr.write(`chat error: ${e.message}\n`);
    for (const w of waiters.splice(0)) w();
  });
  await new Promise<void>((r, reject) => {
    ws.once('open', () => r());
    ws.once('error', reject);
  });
  await tab.until(() => ready, 'session_ready');
  return tab;
}

/** One turn of the stream agent, recorded by every tab; the latencies of all tabs' deltas. */
async function streamTurn(tabs: Tab[], deltas: number, text: string) {
  for (const t of tabs) {
    t.deltas.length = 0;
    t.recording = true;
  }
  const ends = tabs.map((t) => t.ends);
  // How late this process's own event loop ran, so a slow client is not taken for a slow server.
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  tabs[0]!.send({ type: 'user_message', content: text });
  for (const [i, t] of tabs.entries()) await t.until(() => t.ends > ends[i]!, 'the end of the turn', 300_000);
  loop.disable();
  const latencies: number[] = [];
  for (const t of tabs) {
    t.recording = false;
    if (t.deltas.length !== deltas) throw new Error(`a tab received ${t.deltas.length} of ${deltas} deltas`);
    for (const x of t.deltas) latencies.push(x.at - stampOf(x.text));
  }
  return { latencies, clientLoopP99Ms: loop.percentile(99) / 1e6 };
}

async function deltasWs(dir: string, deltas: number, paceMs: number) {
  const d = await startDaemon(dir, wireAgents(deltas, paceMs));
  const tabs: Tab[] = [];
  try {
    const session = await newChat(d, 'stream');
    tabs.push(await openTab(d, session));
    await streamTurn(tabs, deltas, 'warm up');
    // Two rounds of one tab then ten, pooled, so neither count always runs first after the start.
    const one: number[] = [];
    const ten: number[] = [];
    let oneLoop = 0;
    let tenLoop = 0;
    for (let round = 0; round < 2; round++) {
      for (const t of tabs.splice(1)) t.close();
      const a = await streamTurn(tabs, deltas, `one tab ${round}`);
      while (tabs.length < 10) tabs.push(await openTab(d, session));
      const b = await streamTurn(tabs, deltas, `ten tabs ${round}`);
      one.push(...a.latencies);
      ten.push(...b.latencies);
      oneLoop = Math.max(oneLoop, a.clientLoopP99Ms);
      tenLoop = Math.max(tenLoop, b.clientLoopP99Ms);
    }
    return {
      deltas,
      paceMs,
      one: { ...figures(one), clientLoopP99Ms: oneLoop },
      ten: { ...figures(ten), clientLoopP99Ms: tenLoop },
    };
  } finally {
    for (const t of tabs) t.close();
    await d.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Many sessions at once

/** Ticks a second of /proc's CPU times. */
const CLOCK_TICKS = 100;

/** Every process's parent and CPU seconds so far, from /proc (empty where there is none). */
function processTable(): Map<number, { ppid: number; cpu: number }> {
  const table = new Map<number, { ppid: number; cpu: number }>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return table;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // The command name may hold spaces and parentheses; the fields after its last ')' do not.
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(name), { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / CLOCK_TICKS });
    } catch {
      // Gone meanwhile.
    }
  }
  return table;
}

/** Seconds the main thread of a process has run, and waited runnable for a core (Linux schedstat). */
function schedstat(pid: number): { ran: number; waited: number } {
  try {
    const [ran, waited] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    return { ran: ran! / 1e9, waited: waited! / 1e9 };
  } catch {
    return { ran: Number.NaN, waited: Number.NaN };
  }
}

/** CPU seconds of the daemon itself and of everything it started (its agents). */
function daemonCpu(pid: number): { daemon: number; agents: number } {
  const table = processTable();
  const children = new Map<number, number[]>();
  for (const [p, { ppid }] of table) children.set(ppid, [...(children.get(ppid) ?? []), p]);
  let agents = 0;
  const stack = [...(children.get(pid) ?? [])];
  while (stack.length > 0) {
    const p = stack.pop()!;
    agents += table.get(p)?.cpu ?? 0;
    stack.push(...(children.get(p) ?? []));
  }
  return { daemon: table.get(pid)?.cpu ?? Number.NaN, agents };
}

/** One turn in every session at once, each recorded by its own tab. */
async function loadTurn(d: Running, tabs: Tab[], deltas: number, text: string) {
  for (const t of tabs) {
    t.deltas.length = 0;
    t.recording = true;
  }
  const ends = tabs.map((t) => t.ends);
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const cpuBefore = daemonCpu(d.pid);
  const schedBefore = schedstat(d.pid);
  const clientBefore = process.cpuUsage();
  // The monotonic clock is the one a CPU profile's timestamps use, so a profile can be cut to the turn.
  const monoStart = process.hrtime.bigint();
  const start = now();
  for (const t of tabs) t.send({ type: 'user_message', content: text });
  await Promise.all(tabs.map((t, i) => t.until(() => t.ends > ends[i]!, 'the end of the turn', 300_000)));
  const wallMs = now() - start;
  const monoEnd = process.hrtime.bigint();
  const cpuAfter = daemonCpu(d.pid);
  const schedAfter = schedstat(d.pid);
  const client = process.cpuUsage(clientBefore);
  loop.disable();
  const latencies: number[] = [];
  const worst: number[] = [];
  for (const t of tabs) {
    t.recording = false;
    if (t.deltas.length !== deltas) throw new Error(`a tab received ${t.deltas.length} of ${deltas} deltas`);
    const own = t.deltas.map((x) => x.at - stampOf(x.text));
    latencies.push(...own);
    worst.push(percentile(own, 95));
  }
  const share = (seconds: number) => seconds / (wallMs / 1000);
  return {
    ...figures(latencies),
    wallMs,
    /** Deltas a second the clients received, all sessions together. */
    rate: (deltas * tabs.length) / (wallMs / 1000),
    /** The worst session's own p95. */
    worstSessionP95Ms: Math.max(...worst),
    clientLoopP99Ms: loop.percentile(99) / 1e6,
    /** Shares of one core over the turn. */
    daemonCpu: share(cpuAfter.daemon - cpuBefore.daemon),
    agentsCpu: share(cpuAfter.agents - cpuBefore.agents),
    /**
     * The daemon's main thread: running, and ready to run but waiting for a core (the machine's
     * other work); when the second is large the daemon was starved, not slow.
     */
    daemonRan: share(schedAfter.ran - schedBefore.ran),
    daemonWaitedForCore: share(schedAfter.waited - schedBefore.waited),
    clientCpu: share((client.user + client.system) / 1e6),
    /** The turn on the monotonic clock, in µs. */
    window: [Number(monoStart / 1000n), Number(monoEnd / 1000n)],
  };
}

async function loadWs(dir: string, sessions: number, deltas: number, paceMs: number) {
  const profile = process.env.CAIRN_BENCH_DAEMON_PROFILE;
  const d = await startDaemon(
    dir,
    wireAgents(deltas, paceMs),
    profile ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profile}`] } : {},
  );
  const tabs: Tab[] = [];
  try {
    // One chat each, each opened (its agent started) before any turn.
    const chats: string[] = [];
    for (let i = 0; i < sessions; i++) chats.push(await newChat(d, 'stream'));
    for (const chat of chats) tabs.push(await openTab(d, chat));
    await loadTurn(d, tabs, deltas, 'warm up');
    const turn = await loadTurn(d, tabs, deltas, 'measured');
    return { sessions, deltas, paceMs, ...turn };
  } finally {
    for (const t of tabs) t.close();
    await d.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Chromium tabs of the web UI

/** What the page records, in `window.__bench` (ms since the epoch on the page's clock). */
interface PageBench {
  /** [stamp, received] of each text_delta while recording. */
  received: [number, number][];
  /** [stamp, painted] of each delta's text once in the DOM, at the next frame. */
  painted: [number, number][];
  /** The stamps received while recording and not yet seen in the DOM (history holds older ones). */
  unpainted: Set<string>;
  recording: boolean;
  ends: number;
  /** Set by the driver before a timed turn: the assistant messages shown before it. */
  armed: boolean;
  before: number;
  sendAt: number;
  receivedAt: number;
  shownAt: number;
  paintedAt: number;
  visibility: string;
}

/** Runs in each page before its code: hooks the chat socket, the composer and the DOM. */
function pageHooks() {
  const clock = () => performance.timeOrigin + performance.now();
  const b: PageBench = {
    received: [],
    painted: [],
    unpainted: new Set(),
    recording: false,
    ends: 0,
    armed: false,
    before: 0,
    sendAt: Number.NaN,
    receivedAt: Number.NaN,
    shownAt: Number.NaN,
    paintedAt: Number.NaN,
    visibility: '',
  };
  (window as unknown as { __bench: PageBench }).__bench = b;
  const Native = window.WebSocket;
  // The listener is added before the app's own handler, so it sees each frame first.
  window.WebSocket = class extends Native {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      if (!String(url).includes('/chat')) return;
      this.addEventListener('message', (e: MessageEvent) => {
        const at = clock();
        if (typeof e.data !== 'string') return;
        if (e.data.includes('"text_delta"')) {
          const f = JSON.parse(e.data) as { type: string; delta: string };
          if (f.type !== 'text_delta') return;
          if (b.armed && Number.isNaN(b.receivedAt)) b.receivedAt = at;
          const m = /@(\d+(?:\.\d+)?)/.exec(f.delta);
          if (b.recording && m) {
            b.received.push([Number(m[1]), at]);
            b.unpainted.add(m[1]!);
          }
        } else if (e.data.includes('"agent_end"')) {
          if ((JSON.parse(e.data) as { type: string }).type === 'agent_end') b.ends += 1;
        }
      });
    }
  };
  document.addEventListener(
    'keydown',
    (e) => {
      const t = e.target;
      if (
        e.key === 'Enter' &&
        !e.shiftKey &&
        t instanceof HTMLElement &&
        t.getAttribute('aria-label') === 'Message' &&
        b.armed &&
        Number.isNaN(b.sendAt)
      )
        b.sendAt = clock();
    },
    true,
  );
  // How far the streamed message's text was read, and the stamps waiting for a frame.
  let message: Element | null = null;
  let scanned = 0;
  let pending: number[] = [];
  let frame = false;
  const painted = () => {
    frame = false;
    const at = clock();
    if (b.armed && !Number.isNaN(b.shownAt) && Number.isNaN(b.paintedAt)) b.paintedAt = at;
    for (const s of pending) b.painted.push([s, at]);
    pending = [];
  };
  const observer = new MutationObserver(() => {
    const all = document.querySelectorAll('.chat-assistant');
    const last = all[all.length - 1];
    if (!last) return;
    let paint = false;
    if (b.armed && Number.isNaN(b.shownAt) && all.length > b.before) {
      const text = last.querySelector('.markdown')?.textContent ?? '';
      if (text.trim() !== '') {
        b.shownAt = clock();
        paint = true;
      }
    }
    if (b.recording) {
      if (last !== message) {
        message = last;
        scanned = 0;
      }
      const text = last.textContent ?? '';
      const re = /@(\d+(?:\.\d+)?)/g;
      re.lastIndex = Math.max(0, scanned - 40);
      for (let m = re.exec(text); m !== null; m = re.exec(text)) {
        if (!b.unpainted.delete(m[1]!)) continue;
        pending.push(Number(m[1]));
        paint = true;
      }
      scanned = text.length;
    }
    if (paint && !frame) {
      frame = true;
      requestAnimationFrame(painted);
    }
  });
  document.addEventListener('DOMContentLoaded', () => {
    b.visibility = document.visibilityState;
    observer.observe(document.body, { childList: true, subtree: true, characterData: true });
  });
}

interface BrowserTab {
  readonly page: Page;
  readonly context: BrowserContext;
  readonly errors: string[];
}

async function openBrowserTab(browser: Browser, d: Running, session: string): Promise<BrowserTab> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.addInitScript(pageHooks);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${d.base}/?token=${d.token}`);
  await page.evaluate(
    (h) => {
      window.location.hash = h;
    },
    `#/chat/${encodeURIComponent(session)}`,
  );
  await page.waitForSelector('.chat-log[data-ready=yes]', { timeout: 60_000 });
  return { page, context, errors };
}

const record = (page: Page): Promise<{ ends: number; visibility: string }> =>
  page.evaluate(() => {
    const b = (window as unknown as { __bench: PageBench }).__bench;
    return { ends: b.ends, visibility: b.visibility };
  });

async function pageStreamTurn(tabs: BrowserTab[], deltas: number, text: string) {
  for (const t of tabs)
    await t.page.evaluate(() => {
      const b = (window as unknown as { __bench: PageBench }).__bench;
      b.received = [];
      b.painted = [];
      b.unpainted = new Set();
      b.recording = true;
    });
  const ends = await Promise.all(tabs.map(async (t) => (await record(t.page)).ends));
  const composer = tabs[0]!.page.getByRole('textbox', { name: 'Message' });
  await composer.fill(text);
  await composer.press('Enter');
  const received: number[] = [];
  const painted: number[] = [];
  for (const [i, t] of tabs.entries()) {
    await t.page.waitForFunction(
      ([n, count]) => {
        const b = (window as unknown as { __bench: PageBench }).__bench;
        return b.ends > n! && b.painted.length >= count!;
      },
      [ends[i]!, deltas],
      { timeout: 600_000, polling: 200 },
    );
    const r = await t.page.evaluate(() => {
      const b = (window as unknown as { __bench: PageBench }).__bench;
      b.recording = false;
      return { received: b.received, painted: b.painted };
    });
    if (r.received.length !== deltas)
      throw new Error(`a page received ${r.received.length} of ${deltas} deltas`);
    for (const [s, at] of r.received) received.push(at - s);
    for (const [s, at] of r.painted) painted.push(at - s);
  }
  return { received, painted };
}

async function withBrowser<T>(fn: (browser: Browser) => Promise<T>): Promise<T> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    return await fn(browser);
  } finally {
    await browser.close();
  }
}

async function deltasPage(dir: string, deltas: number, paceMs: number, paragraph: number) {
  const d = await startDaemon(dir, wireAgents(deltas, paceMs, paragraph));
  try {
    return await withBrowser(async (browser) => {
      const session = await newChat(d, 'stream');
      const tabs = [await openBrowserTab(browser, d, session)];
      await pageStreamTurn(tabs, deltas, 'warm up');
      const one = await pageStreamTurn(tabs, deltas, 'one tab');
      while (tabs.length < 10) tabs.push(await openBrowserTab(browser, d, session));
      const ten = await pageStreamTurn(tabs, deltas, 'ten tabs');
      const visibility = await Promise.all(tabs.map(async (t) => (await record(t.page)).visibility));
      const errors = tabs.flatMap((t) => t.errors);
      for (const t of tabs) await t.context.close();
      return {
        deltas,
        paceMs,
        hidden: visibility.filter((v) => v !== 'visible').length,
        errors,
        one: { received: figures(one.received), painted: figures(one.painted) },
        ten: { received: figures(ten.received), painted: figures(ten.painted) },
      };
    });
  } finally {
    await d.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Time from Send to the first token

interface TtftSetup {
  readonly agent: string;
  readonly daemon: Running;
  readonly bare: BareClient;
  readonly settleMs: number;
  close(): Promise<void>;
}

async function wireSetup(dir: string): Promise<TtftSetup> {
  const agents = wireAgents(1, 0);
  const daemon = await startDaemon(join(dir, 'cairn'), agents);
  const work = join(dir, 'bare');
  mkdirSync(work, { recursive: true });
  const bare = startBareClient({
    command: process.execPath,
    args: [WIRE_AGENT],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: work, ...agents.quick.env },
    cwd: work,
  });
  return {
    agent: 'quick',
    daemon,
    bare,
    settleMs: 20,
    close: async () => {
      await bare.close();
      await daemon.stop();
    },
  };
}

async function claudeSetup(dir: string): Promise<TtftSetup> {
  const agentsHome = await ensureTestAgents();
  const model: FakeModel = await startFakeModel();
  const agentEnv = (await agentTestEnv('claude-code', model.url, join(dir, 'agent'))).env;
  const daemon = await startDaemon(
    join(dir, 'cairn'),
    {},
    { env: agentEnv, agentsFolder: join(agentsHome, 'agents') },
  );
  const work = join(dir, 'bare');
  mkdirSync(work, { recursive: true });
  const bare = startBareClient({
    ...testAgentCommand('claude-code', agentsHome),
    env: (await agentTestEnv('claude-code', model.url, join(dir, 'bare-agent'))).env,
    cwd: work,
  });
  return {
    agent: 'claude-code',
    daemon,
    bare,
    settleMs: 250,
    close: async () => {
      await bare.close();
      await daemon.stop();
      await model.close();
    },
  };
}

async function ttft(dir: string, turns: number, which: string) {
  const s = which === 'claude-code' ? await claudeSetup(dir) : await wireSetup(dir);
  try {
    return await withBrowser(async (browser) => {
      await s.bare.initialize();
      const { sessionId } = await s.bare.newSession();
      const pageChat = await newChat(s.daemon, s.agent);
      const wsChat = await newChat(s.daemon, s.agent);
      const tab = await openBrowserTab(browser, s.daemon, pageChat);
      const ws = await openTab(s.daemon, wsChat);
      const composer = tab.page.getByRole('textbox', { name: 'Message' });
      const settle = () => sleep(s.settleMs);

      const bareTurn = async (text: string) => {
        await settle();
        const t = await s.bare.promptTimed(sessionId, text);
        if (t.answer.stopReason !== 'end_turn') throw new Error(`a bare turn ended ${t.answer.stopReason}`);
        if (t.firstTextAt === null) throw new Error('a bare turn streamed no text');
        return t.firstTextAt - t.sentAt;
      };
      const wsTurn = async (text: string) => {
        await settle();
        const ends = ws.ends;
        ws.firstDeltaAt = Number.NaN;
        const sentAt = now();
        ws.send({ type: 'user_message', content: text });
        await ws.until(() => ws.ends > ends, 'the end of the turn');
        return ws.firstDeltaAt - sentAt;
      };
      const pageTurn = async (text: string) => {
        await settle();
        await composer.fill(text);
        const before = await tab.page.locator('.chat-assistant').count();
        const ends = await tab.page.evaluate((n) => {
          const b = (window as unknown as { __bench: PageBench }).__bench;
          Object.assign(b, {
            armed: true,
            before: n,
            sendAt: Number.NaN,
            receivedAt: Number.NaN,
            shownAt: Number.NaN,
            paintedAt: Number.NaN,
          });
          return b.ends;
        }, before);
        await composer.press('Enter');
        await tab.page.waitForFunction(
          (n) => {
            const b = (window as unknown as { __bench: PageBench }).__bench;
            return b.ends > n && !Number.isNaN(b.paintedAt);
          },
          ends,
          { timeout: 120_000, polling: 50 },
        );
        const r = await tab.page.evaluate(() => {
          const b = (window as unknown as { __bench: PageBench }).__bench;
          b.armed = false;
          return { sendAt: b.sendAt, receivedAt: b.receivedAt, paintedAt: b.paintedAt };
        });
        return { received: r.receivedAt - r.sendAt, painted: r.paintedAt - r.sendAt };
      };

      // One turn each first, not counted: code is still cold.
      await bareTurn('warm up');
      await wsTurn('warm up');
      await pageTurn('warm up');
      const bare: number[] = [];
      const wsSamples: number[] = [];
      const received: number[] = [];
      const painted: number[] = [];
      for (let i = 0; i < turns; i++) {
        // Rotate which goes first, so none always follows another's work.
        const order = [0, 1, 2].map((k) => (k + i) % 3);
        for (const k of order) {
          if (k === 0) bare.push(await bareTurn(`turn ${i}`));
          else if (k === 1) wsSamples.push(await wsTurn(`turn ${i}`));
          else {
            const p = await pageTurn(`turn ${i}`);
            received.push(p.received);
            painted.push(p.painted);
          }
        }
      }
      ws.close();
      const errors = tab.errors;
      await tab.context.close();
      return {
        agent: which,
        turns,
        errors,
        bare: { ...figures(bare), samples: bare },
        ws: { ...figures(wsSamples), samples: wsSamples },
        pageReceived: { ...figures(received), samples: received },
        pagePainted: { ...figures(painted), samples: painted },
      };
    });
  } finally {
    await s.close();
  }
}

const [what, a, b, c] = process.argv.slice(2);
const dir = mkdtempSync(join(tmpdir(), 'cairn-bench-chat-'));
try {
  const result =
    what === 'deltas-ws'
      ? await deltasWs(dir, Number(a), Number(b))
      : what === 'deltas-page'
        ? await deltasPage(dir, Number(a), Number(b), Number(c ?? 0))
        : what === 'ttft'
          ? await ttft(dir, Number(a), b ?? 'wire')
          : what === 'load-ws'
            ? await loadWs(dir, Number(a), Number(b), Number(c))
            : undefined;
  if (result === undefined) throw new Error(`unknown measurement ${what}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
} finally {
  for (const c of children) killGroup(c);
  rmSync(dir, { recursive: true, force: true });
}
