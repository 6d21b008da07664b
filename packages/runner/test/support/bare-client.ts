// A minimal ACP client made of the SDK alone: it spawns an agent in its own process group, and
// records every update with the time it arrived. Tests use it to drive the real adapters
// directly, and the benchmark uses it as the baseline cairn's own client is measured against.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

/** How permission requests are answered. */
export type PermissionPolicy =
  | 'allow'
  | 'allow-always'
  | 'deny'
  | 'cancel'
  /** Returns the optionId to select, or null to answer `cancelled`. */
  | ((request: acp.RequestPermissionRequest) => string | null);

export interface BareClientOptions {
  readonly command: string;
  readonly args?: readonly string[];
  /** The agent's whole environment (nothing is inherited). */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly permission?: PermissionPolicy;
  /** Keep at most this many characters of the agent's stderr (the last ones); 200,000 when absent. */
  readonly stderrLimit?: number;
}

export interface TimedUpdate {
  /** `performance.timeOrigin + performance.now()` when the notification was handled. */
  readonly at: number;
  readonly sessionId: string;
  readonly update: acp.SessionUpdate;
}

export interface PermissionRecord {
  readonly at: number;
  readonly request: acp.RequestPermissionRequest;
  readonly answer: acp.RequestPermissionResponse;
}

export interface TimedTurn {
  readonly answer: acp.PromptResponse;
  readonly sentAt: number;
  readonly firstTextAt: number | null;
  readonly answeredAt: number;
}

export interface OtherNotification {
  readonly at: number;
  readonly method: string;
  readonly params: unknown;
}

export interface BareClient {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly connection: acp.ClientConnection;
  /** Every `session/update`, in arrival order. */
  readonly updates: TimedUpdate[];
  readonly permissions: PermissionRecord[];
  /** Notifications other than `session/update` (extensions such as `_auth/status_update`). */
  readonly notifications: OtherNotification[];
  /** Lines the agent wrote to stdout that were not JSON-RPC are dropped by the SDK; stderr is kept. */
  stderr(): string;
  initialize(params?: Partial<acp.InitializeRequest>): Promise<acp.InitializeResponse>;
  authenticate(params: acp.AuthenticateRequest): Promise<acp.AuthenticateResponse | undefined>;
  newSession(params?: Partial<acp.NewSessionRequest>): Promise<acp.NewSessionResponse>;
  prompt(sessionId: string, prompt: string | acp.ContentBlock[]): Promise<acp.PromptResponse>;
  /**
   * A prompt with its timings: when it was sent, when the first `agent_message_chunk` of the
   * session arrived after that (null if none did), and when the answer came.
   */
  promptTimed(sessionId: string, prompt: string | acp.ContentBlock[]): Promise<TimedTurn>;
  cancel(sessionId: string): Promise<void>;
  /** Any request, by method name. */
  request<R = unknown>(method: string, params?: unknown): Promise<R>;
  /** The updates of one session since `from` (an index into `updates`). */
  updatesOf(sessionId: string, from?: number): TimedUpdate[];
  /** The text of the `agent_message_chunk`s of one session since `from`, joined. */
  textOf(sessionId: string, from?: number): string;
  /** Resolves when the agent process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /**
   * Closes stdin, signals the process group, waits for the exit (SIGKILL after `graceMs`), and
   * then until no process of the group is left.
   */
  close(graceMs?: number): Promise<void>;
}

export const now = (): number => performance.timeOrigin + performance.now();

/** Process groups still running, killed if the test process goes away first. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * The live processes of a process group (zombies left out: they are gone, only not yet reaped).
 * Reads /proc on Linux; elsewhere it can only tell whether the group has any process at all.
 */
export function groupMembers(pgid: number): number[] {
  if (process.platform !== 'linux') {
    try {
      process.kill(-pgid, 0);
      return [pgid];
    } catch {
      return [];
    }
  }
  const members: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') members.push(Number(name));
    } catch {
      // Exited while being read.
    }
  }
  return members;
}

function killGroup(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is gone.
  }
}

function pickOption(request: acp.RequestPermissionRequest, policy: PermissionPolicy): string | null {
  if (typeof policy === 'function') return policy(request);
  if (policy === 'cancel') return null;
  const kinds: acp.PermissionOptionKind[] =
    policy === 'allow'
      ? ['allow_once', 'allow_always']
      : policy === 'allow-always'
        ? ['allow_always', 'allow_once']
        : ['reject_once', 'reject_always'];
  for (const kind of kinds) {
    const option = request.options.find((o) => o.kind === kind);
    if (option !== undefined) return option.optionId;
  }
  return null;
}

export function startBareClient(options: BareClientOptions): BareClient {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', () => {
      for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
    });
  }
  const child = spawn(options.command, [...(options.args ?? [])], {
    cwd: options.cwd,
    env: { ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  if (child.pid === undefined) throw new Error(`cannot start ${options.command}`);
  const pid = child.pid;
  liveGroups.add(pid);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      resolve({ code, signal });
    });
    child.on('error', () => resolve({ code: null, signal: null }));
  });

  const limit = options.stderrLimit ?? 200_000;
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
    if (stderr.length > limit * 2) stderr = stderr.slice(-limit);
  });
  // An EPIPE after the agent died must not bring the test process down.
  child.stdin!.on('error', () => {});

  const updates: TimedUpdate[] = [];
  const permissions: PermissionRecord[] = [];
  const notifications: OtherNotification[] = [];
  const policy = options.permission ?? 'allow';

  const app = acp
    .client({ name: 'cairn-bare-client' })
    .onNotification('session/update', ({ params }) => {
      updates.push({ at: now(), sessionId: params.sessionId, update: params.update });
    })
    .onNotification('*', ({ method, params }) => {
      notifications.push({ at: now(), method, params });
    })
    .onRequest('session/request_permission', ({ params }) => {
      const optionId = pickOption(params, policy);
      const answer: acp.RequestPermissionResponse =
        optionId === null
          ? { outcome: { outcome: 'cancelled' } }
          : { outcome: { outcome: 'selected', optionId } };
      permissions.push({ at: now(), request: params, answer });
      return answer;
    })
    .onRequest('*', ({ method }) => {
      throw acp.RequestError.methodNotFound(method);
    });

  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
  );
  const connection = app.connect(stream);
  const agent = connection.agent;

  let closing: Promise<void> | undefined;
  const close = (graceMs = 1500): Promise<void> => {
    closing ??= (async () => {
      connection.close();
      child.stdin!.end();
      killGroup(pid, 'SIGTERM');
      const timer = new Promise<'late'>((r) => setTimeout(() => r('late'), graceMs).unref());
      if ((await Promise.race([exited.then(() => 'done' as const), timer])) === 'late')
        killGroup(pid, 'SIGKILL');
      await exited;
      // Whatever the agent started in its group goes with it.
      killGroup(pid, 'SIGKILL');
      const deadline = Date.now() + 5000;
      while (groupMembers(pid).length > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 20));
        killGroup(pid, 'SIGKILL');
      }
      liveGroups.delete(pid);
    })();
    return closing;
  };

  return {
    child,
    pid,
    connection,
    updates,
    permissions,
    notifications,
    stderr: () => stderr,
    initialize: (params = {}) =>
      agent.request('initialize', {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'cairn-bare-client', version: '0.0.0' },
        ...params,
      }),
    authenticate: async (params) => (await agent.request('authenticate', params)) ?? undefined,
    newSession: (params = {}) =>
      agent.request('session/new', { cwd: options.cwd, mcpServers: [], ...params }),
    prompt: (sessionId, prompt) =>
      agent.request('session/prompt', {
        sessionId,
        prompt: typeof prompt === 'string' ? [{ type: 'text', text: prompt }] : prompt,
      }),
    promptTimed: async (sessionId, prompt) => {
      const from = updates.length;
      const sentAt = now();
      const answer = await agent.request('session/prompt', {
        sessionId,
        prompt: typeof prompt === 'string' ? [{ type: 'text', text: prompt }] : prompt,
      });
      const answeredAt = now();
      const first = updates
        .slice(from)
        .find((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'agent_message_chunk');
      return { answer, sentAt, firstTextAt: first?.at ?? null, answeredAt };
    },
    cancel: (sessionId) => agent.notify('session/cancel', { sessionId }),
    request: <R>(method: string, params?: unknown) => agent.request<R>(method, params),
    updatesOf: (sessionId, from = 0) => updates.slice(from).filter((u) => u.sessionId === sessionId),
    textOf: (sessionId, from = 0) =>
      updates
        .slice(from)
        .filter((u) => u.sessionId === sessionId)
        .map((u) =>
          u.update.sessionUpdate === 'agent_message_chunk' && u.update.content.type === 'text'
            ? u.update.content.text
            : '',
        )
        .join(''),
    exited,
    close,
  };
}

export interface BareTurnTimings {
  /** All on the `now()` clock, in ms. */
  readonly spawnedAt: number;
  readonly initializedAt: number;
  readonly sessionAt: number;
  readonly sentAt: number;
  readonly firstTextAt: number | null;
  readonly answeredAt: number;
  readonly answer: acp.PromptResponse;
  readonly text: string;
}

/**
 * One whole turn with nothing but the SDK: spawn, `initialize` (and `authenticate` when given),
 * `session/new`, one prompt, close. The baseline a benchmark holds cairn's own path against.
 */
export async function runBareTurn(
  options: BareClientOptions & {
    readonly prompt: string;
    readonly initialize?: Partial<acp.InitializeRequest>;
    readonly authenticate?: acp.AuthenticateRequest;
  },
): Promise<BareTurnTimings> {
  const spawnedAt = now();
  const client = startBareClient(options);
  try {
    await client.initialize(options.initialize ?? {});
    if (options.authenticate !== undefined) await client.authenticate(options.authenticate);
    const initializedAt = now();
    const { sessionId } = await client.newSession({ cwd: options.cwd });
    const sessionAt = now();
    const turn = await client.promptTimed(sessionId, options.prompt);
    return { spawnedAt, initializedAt, sessionAt, ...turn, text: client.textOf(sessionId) };
  } finally {
    await client.close();
  }
}
