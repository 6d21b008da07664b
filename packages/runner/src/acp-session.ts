// One driven session: an agent process, its ACP connection through the official SDK, and one ACP
// session on it. Everything the agent says comes out of `onEvent` in the order it arrived, as a
// wire event name and a JSON payload; turns, permissions, steering and config options are methods.
import * as acp from '@agentclientprotocol/sdk';
import { boundDepth, type ForkOpen, MAX_VALUE_DEPTH, type PromptResource } from '@cairn/protocol';
import { type AgentCommand, AgentProcess, type ProcessTracker } from './agent-process.js';
import { resourceBlocks } from './prompt-resources.js';
import { TerminalError, type Terminals } from './terminals.js';

export const AUTH_REQUIRED = -32000;

export interface AuthMethodInfo {
  readonly id: string;
  readonly name: string;
  readonly description?: string | null;
  readonly type?: string | null;
}

export interface ImageInput {
  readonly data: string;
  readonly mimeType: string;
  readonly uri?: string | null;
}

export interface SessionLimits {
  /** How long `initialize` and opening a session may take. */
  readonly openMs: number;
  /** How long one turn may run before it is cancelled and failed. */
  readonly turnMs: number;
  /** How long a permission request waits for an answer before it is refused. */
  readonly permissionMs: number;
}

export const DEFAULT_LIMITS: SessionLimits = {
  openMs: 60_000,
  turnMs: 30 * 60_000,
  permissionMs: 10 * 60_000,
};

export interface OpenRequest {
  readonly command: AgentCommand;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Reopen this agent-side session (`session/load`, else `session/resume`) instead of a new one. */
  readonly nativeSessionId?: string | null;
  /**
   * Open the new session as the agent's own fork of one it keeps (`session/fork`); without
   * `nativeSessionId` only. An agent that offers no fork, or none at a cut, is refused with
   * `forkUnsupported`, so the caller can hand the history off instead.
   */
  readonly fork?: ForkOpen | null;
  readonly limits?: Partial<SessionLimits>;
  /** Extra client capabilities for `initialize` (for example an agent's own `_meta` switches). */
  readonly clientCapabilities?: Record<string, unknown>;
  /** Sign in with this method right after `initialize`, before the session opens. */
  readonly authenticate?: { methodId: string; _meta?: Record<string, unknown> };
  /** Every update, permission request and settlement, in arrival order. */
  readonly onEvent: (eventName: string, payload: Record<string, unknown>) => void;
  /** The process ended (after `close()` too). */
  readonly onExit?: (reason: string) => void;
  /** Hears the agent process start and end (the workstation's ledger of running groups). */
  readonly track?: ProcessTracker;
  /** Runs the commands the agent asks for; with it, the terminal capability is advertised. */
  readonly terminals?: Terminals;
  /** Hears what the agent sent that was refused or bounded. */
  readonly log?: (line: string) => void;
}

export interface OpenedSession {
  readonly nativeSessionId: string;
  readonly reloaded: boolean;
  /** The session is the agent's fork that `OpenRequest.fork` asked for. */
  readonly forked?: boolean;
  readonly supportsSteering: boolean;
  readonly supportsImageInput: boolean;
  /** The agent takes files' contents in a prompt (ACP `promptCapabilities.embeddedContext`). */
  readonly supportsEmbeddedContext?: boolean;
  readonly agentInfo?: { name: string; title?: string | null; version?: string | null };
  readonly authMethods: AuthMethodInfo[];
  readonly configOptions: unknown[] | null;
  readonly modes: unknown;
  /** The models the agent lists outside its config options (`session/set_model`'s choices). */
  readonly models: unknown;
}

export interface Refusal {
  readonly message: string;
  /** The JSON-RPC code when the agent refused with one (-32000: sign-in needed). */
  readonly errorCode?: number;
  readonly authMethods?: AuthMethodInfo[];
  /** A fork was asked and this agent cannot make it (no `session/fork`, or none at a cut). */
  readonly forkUnsupported?: boolean;
}

export type TurnOutcome =
  | { status: 'completed'; stopReason: string; usage?: Record<string, unknown> }
  | { status: 'cancelled'; stopReason: string; usage?: Record<string, unknown> }
  | ({ status: 'failed' } & Refusal);

export type SteerOutcome = 'injected' | 'promptRequired';

interface PendingPermission {
  readonly options: { optionId: string; kind: string }[];
  readonly resolve: (outcome: acp.RequestPermissionResponse) => void;
  readonly timer: NodeJS.Timeout;
}

export class AcpSession {
  private readonly pending = new Map<string, PendingPermission>();
  private nextPermission = 1;
  private turn: Promise<TurnOutcome> | undefined;
  private closed = false;
  private exitReason: string | undefined;

  private constructor(
    private readonly process: AgentProcess,
    private readonly connection: acp.ClientConnection,
    private readonly limits: SessionLimits,
    private readonly request: OpenRequest,
    private sessionId: string,
    readonly info: OpenedSession,
  ) {}

  get nativeSessionId(): string {
    return this.sessionId;
  }

  get pid(): number | undefined {
    return this.process.pid;
  }

  get alive(): boolean {
    return this.process.alive && !this.closed;
  }

  get busy(): boolean {
    return this.turn !== undefined;
  }

  /** Starts the agent, initializes, signs in when asked, and opens or reopens the session. */
  static async open(
    request: OpenRequest,
  ): Promise<{ ok: true; session: AcpSession } | { ok: false; refusal: Refusal }> {
    const limits = { ...DEFAULT_LIMITS, ...request.limits };
    const child = new AgentProcess(request.command, {
      cwd: request.cwd,
      env: request.env,
      ...(request.track ? { track: request.track } : {}),
    });
    const log = request.log ?? (() => {});
    let session: AcpSession | undefined;
    // Only updates and questions for the session this connection opened are the session's. Until
    // `session/new` answers, its id is unknown: updates arriving meanwhile wait and are sorted then.
    let ownId: string | undefined = request.nativeSessionId ?? undefined;
    const permission = (ctx: { params: acp.RequestPermissionRequest }) => {
      const foreign = ctx.params.sessionId !== ownId;
      if (foreign) log(`workstation: refused a permission request ${notOurs(ctx.params.sessionId, ownId)}`);
      if (!session || foreign) return Promise.resolve({ outcome: { outcome: 'cancelled' as const } });
      return session.askPermission(ctx.params);
    };
    let early: acp.SessionNotification[] | undefined = ownId === undefined ? [] : undefined;
    const hear = (params: acp.SessionNotification) => {
      const { update } = params;
      if (params.sessionId !== ownId) {
        log(
          `workstation: refused an update (${String(update?.sessionUpdate)}) ${notOurs(params.sessionId, ownId)}`,
        );
        return;
      }
      request.onEvent(update.sessionUpdate, update as unknown as Record<string, unknown>);
    };
    const app = acp
      .client({ name: 'cairn' })
      .onRequest('session/request_permission', permission)
      .onNotification('session/update', (ctx) => {
        if (early) early.push(ctx.params);
        else hear(ctx.params);
      })
      .onNotification('*', (ctx) => {
        const method = (ctx as unknown as { method?: string }).method ?? 'extension';
        request.onEvent('extension_notification', { method, params: ctx.params as unknown });
      });
    if (request.terminals) serveTerminals(app, request.terminals);
    const { output, input } = child.streams();
    const connection = app.connect(boundedStream(acp.ndJsonStream(output, input), log));
    const failOpen = async (refusal: Refusal) => {
      connection.close();
      await child.kill(500);
      return { ok: false as const, refusal };
    };
    // A connection the SDK gave up on (a line over its size limit) cannot be talked to again; the
    // agent goes, and the reason it is gone is that, not how it exited.
    void connection.closed.then(() => {
      if (connectionFault(connection) !== undefined && child.alive) void child.kill(500);
    });

    const exited = child.exited.then(
      ({ code, signal }) =>
        connectionFault(connection) ??
        `the agent exited (${signal ?? `code ${code}`})${tail(child.stderr())}`,
    );
    const deadline = <T>(work: Promise<T>, what: string): Promise<T> =>
      race(work, exited, limits.openMs, what);

    let init: acp.InitializeResponse;
    try {
      init = await deadline(
        connection.agent.request('initialize', {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: {
            fs: { readTextFile: false, writeTextFile: false },
            terminal: request.terminals !== undefined,
            ...request.clientCapabilities,
          },
          clientInfo: { name: 'cairn', version: '0.1.0' },
        }),
        'initialize',
      );
    } catch (error) {
      return failOpen(refusalOf(error, []));
    }
    const authMethods = authMethodsOf(init.authMethods);
    if (request.authenticate) {
      try {
        await deadline(
          connection.agent.request('authenticate', request.authenticate as acp.AuthenticateRequest),
          'authenticate',
        );
      } catch (error) {
        return failOpen(refusalOf(error, authMethods));
      }
    }

    const caps = init.agentCapabilities ?? {};
    const nativeId = request.nativeSessionId ?? undefined;
    let opened: { sessionId: string; configOptions?: unknown; modes?: unknown; models?: unknown };
    let reloaded = true;
    let forked = false;
    const settleEarly = () => {
      const held = early ?? [];
      early = undefined;
      for (const params of held) hear(params);
    };
    const fork = nativeId === undefined ? (request.fork ?? undefined) : undefined;
    if (fork) {
      const unable = forkRefusal(caps, init.agentInfo?.name, fork);
      if (unable) return failOpen({ message: unable, forkUnsupported: true });
    }
    try {
      if (fork) {
        opened = await deadline(
          connection.agent.request<{
            sessionId: string;
            configOptions?: unknown;
            modes?: unknown;
            models?: unknown;
          }>('session/fork', {
            sessionId: fork.nativeSessionId,
            cwd: request.cwd,
            mcpServers: [],
            ...(fork.messageId === undefined ? {} : { _meta: cutMeta(fork.messageId) }),
          }),
          'session/fork',
        );
        ownId = opened.sessionId;
        forked = true;
        settleEarly();
      } else if (nativeId === undefined) {
        opened = await deadline(
          connection.agent.request('session/new', { cwd: request.cwd, mcpServers: [] }),
          'session/new',
        );
        ownId = opened.sessionId;
        settleEarly();
      } else if (caps.loadSession) {
        const loaded = await deadline(
          connection.agent.request('session/load', { sessionId: nativeId, cwd: request.cwd, mcpServers: [] }),
          'session/load',
        );
        opened = { ...(loaded ?? {}), sessionId: nativeId };
      } else if (caps.sessionCapabilities?.resume) {
        const resumed = await deadline(
          connection.agent.request('session/resume', {
            sessionId: nativeId,
            cwd: request.cwd,
            mcpServers: [],
          }),
          'session/resume',
        );
        opened = { ...(resumed ?? {}), sessionId: nativeId };
        reloaded = false;
      } else {
        return failOpen({ message: 'this agent cannot reopen a session (no session/load or resume)' });
      }
    } catch (error) {
      settleEarly();
      // A fork the agent could not make (the session or the cut not found in its store) is one
      // it cannot make: the caller can still hand the history off.
      const refusal = refusalOf(error, authMethods);
      return failOpen(fork ? { ...refusal, forkUnsupported: true } : refusal);
    }

    const meta = (init._meta ?? {}) as { steering?: { supported?: unknown } };
    const info: OpenedSession = {
      nativeSessionId: opened.sessionId,
      reloaded,
      ...(forked ? { forked: true } : {}),
      supportsSteering: meta.steering?.supported === true,
      supportsImageInput: caps.promptCapabilities?.image === true,
      supportsEmbeddedContext: caps.promptCapabilities?.embeddedContext === true,
      ...(init.agentInfo ? { agentInfo: init.agentInfo } : {}),
      authMethods,
      configOptions: Array.isArray(opened.configOptions) ? opened.configOptions : null,
      modes: opened.modes ?? null,
      models: opened.models ?? null,
    };
    session = new AcpSession(child, connection, limits, request, opened.sessionId, info);
    const live = session;
    void exited.then((reason) => live.onProcessExit(reason));
    return { ok: true, session };
  }

  /** One turn: resolves when the agent ends it, the time limit passes or the agent dies. */
  prompt(
    text: string,
    images: readonly ImageInput[] = [],
    resources: readonly PromptResource[] = [],
  ): Promise<TurnOutcome> {
    if (this.turn) return Promise.resolve({ status: 'failed', message: 'a turn is already running' });
    if (!this.alive)
      return Promise.resolve({ status: 'failed', message: this.exitReason ?? 'session closed' });
    const blocks: acp.ContentBlock[] = [{ type: 'text', text }];
    for (const image of images) {
      blocks.push({ type: 'image', data: image.data, mimeType: image.mimeType, uri: image.uri ?? null });
    }
    const withFiles =
      resources.length === 0
        ? Promise.resolve(blocks)
        : resourceBlocks(resources, this.request.cwd, this.info.supportsEmbeddedContext === true, (line) =>
            this.request.log?.(line),
          ).then((files) => [...blocks, ...files]);
    const turn = withFiles
      .then((prompt) => this.runTurn(prompt))
      .finally(() => {
        this.turn = undefined;
      });
    this.turn = turn;
    return turn;
  }

  private async runTurn(prompt: acp.ContentBlock[]): Promise<TurnOutcome> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.limits.turnMs);
    });
    const died = this.process.exited.then(() => 'died' as const);
    const request = this.connection.agent.request('session/prompt', { sessionId: this.sessionId, prompt });
    try {
      const first = await Promise.race([request.then((r) => ({ r })), timedOut, died]);
      if (first === 'died')
        return { status: 'failed', message: this.exitReason ?? (await this.exitMessage()) };
      if (first === 'timeout') {
        this.cancel();
        const seconds = Math.round(this.limits.turnMs / 1000);
        return {
          status: 'failed',
          message: `the turn ran past its time limit of ${seconds} s and was cancelled`,
        };
      }
      const stopReason = first.r.stopReason;
      // Token counts some agents put in the prompt's answer (`usage`, not yet in the stable schema).
      const usage = (first.r as { usage?: unknown }).usage;
      const counted =
        typeof usage === 'object' && usage !== null ? { usage: usage as Record<string, unknown> } : {};
      return stopReason === 'cancelled'
        ? { status: 'cancelled', stopReason, ...counted }
        : { status: 'completed', stopReason, ...counted };
    } catch (error) {
      const fault = connectionFault(this.connection);
      if (fault !== undefined) return { status: 'failed', message: fault };
      // A closed connection is usually the agent dying: wait a moment for its exit to say how.
      const exited = await Promise.race([
        this.process.exited.then(() => true),
        new Promise<false>((resolve) => setTimeout(() => resolve(false), 500)),
      ]);
      if (exited) return { status: 'failed', message: this.exitReason ?? (await this.exitMessage()) };
      return { status: 'failed', ...refusalOf(error, this.info.authMethods) };
    } finally {
      clearTimeout(timer);
      request.catch(() => {});
    }
  }

  /** `session/cancel`; every pending permission request is answered `cancelled`, as ACP asks. */
  cancel(): void {
    for (const requestId of [...this.pending.keys()]) this.settle(requestId, 'cancelled', 'cancel');
    if (this.alive) {
      void this.connection.agent.notify('session/cancel', { sessionId: this.sessionId }).catch(() => {});
    }
  }

  /** Answers a permission request by option id (or `cancelled`); false when none is pending. */
  answer(requestId: string, outcome: string): boolean {
    return this.settle(requestId, outcome, 'answer');
  }

  /** The agent's steering extension: adds text to the running turn. */
  async steer(
    text: string,
    images: readonly ImageInput[] = [],
    priority?: string,
  ): Promise<{ ok: true; outcome: SteerOutcome } | { ok: false; error: string }> {
    if (!this.info.supportsSteering) return { ok: false, error: 'this agent does not support steering' };
    const prompt: acp.ContentBlock[] = [{ type: 'text', text }];
    for (const image of images) prompt.push({ type: 'image', data: image.data, mimeType: image.mimeType });
    try {
      const reply = await this.connection.agent.request<{ outcome?: string }>('_session/steering', {
        sessionId: this.sessionId,
        prompt,
        ...(priority === undefined ? {} : { priority }),
      });
      // A steer that began a new turn still delivered the message; it reads as injected.
      const outcome: SteerOutcome = reply?.outcome === 'promptRequired' ? 'promptRequired' : 'injected';
      return { ok: true, outcome };
    } catch (error) {
      return { ok: false, error: refusalOf(error, []).message };
    }
  }

  async setConfigOption(
    configId: string,
    value: string | boolean,
  ): Promise<{ ok: true; configOptions: unknown[] } | { ok: false; error: string }> {
    const declared = (this.info.configOptions ?? []) as { id?: unknown }[];
    if (configId === 'mode' && typeof value === 'string' && !declared.some((o) => o.id === 'mode')) {
      // Agents that offer modes instead of a mode config option: the same request, as session/set_mode.
      const modes = (this.info.modes as { availableModes?: { id: string }[] } | null)?.availableModes ?? [];
      if (!modes.some((m) => m.id === value)) {
        const offered = modes.map((m) => m.id).join(', ');
        return {
          ok: false,
          error: offered ? `no mode '${value}' (the agent offers ${offered})` : 'this agent offers no modes',
        };
      }
      const set = await this.setMode(value);
      return set.ok ? { ok: true, configOptions: declared } : set;
    }
    if (configId === 'model' && typeof value === 'string' && !declared.some((o) => o.id === 'model')) {
      // Agents that list models instead of a model config option: the same request, as session/set_model.
      const models =
        (this.info.models as { availableModels?: { modelId: string }[] } | null)?.availableModels ?? [];
      if (!models.some((m) => m.modelId === value)) {
        const offered = models.map((m) => m.modelId).join(', ');
        return {
          ok: false,
          error: offered
            ? `no model '${value}' (the agent offers ${offered})`
            : 'this agent offers no models',
        };
      }
      const set = await this.setModel(value);
      return set.ok ? { ok: true, configOptions: declared } : set;
    }
    try {
      const reply = await this.connection.agent.request('session/set_config_option', {
        sessionId: this.sessionId,
        configId,
        value,
      } as acp.SetSessionConfigOptionRequest);
      return { ok: true, configOptions: (reply as { configOptions?: unknown[] }).configOptions ?? [] };
    } catch (error) {
      return { ok: false, error: refusalOf(error, []).message };
    }
  }

  /** `session/set_mode`, for agents that offer modes rather than a mode config option. */
  async setMode(modeId: string): Promise<{ ok: true } | { ok: false; error: string }> {
    try {
      await this.connection.agent.request('session/set_mode', { sessionId: this.sessionId, modeId });
      return { ok: true };
    } catch (error) {
      return { ok: false, error: refusalOf(error, []).message };
    }
  }

  /** `session/set_model`, for agents that list models rather than a model config option. */
  async setModel(modelId: string): Promise<{ ok: true } | { ok: false; error: string }> {
    try {
      await this.connection.agent.request('session/set_model', { sessionId: this.sessionId, modelId });
      return { ok: true };
    } catch (error) {
      return { ok: false, error: refusalOf(error, []).message };
    }
  }

  /** Ends the session and its whole process group. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const requestId of [...this.pending.keys()]) this.settle(requestId, 'cancelled', 'close');
    this.connection.close();
    await this.process.kill();
  }

  private askPermission(params: acp.RequestPermissionRequest): Promise<acp.RequestPermissionResponse> {
    const requestId = `perm-${this.nextPermission++}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(requestId, 'refused', 'timeout'), this.limits.permissionMs);
      this.pending.set(requestId, {
        options: params.options.map((o) => ({ optionId: o.optionId, kind: o.kind })),
        resolve,
        timer,
      });
      this.request.onEvent('permission_request', {
        requestId,
        toolCall: params.toolCall as unknown,
        options: params.options as unknown,
      });
    });
  }

  /**
   * `refused` picks the agent's own reject option (a time limit is a refusal, not a cancel);
   * `cancelled` is ACP's cancelled outcome; anything else must be one of the offered option ids.
   */
  private settle(requestId: string, outcome: string, by: 'answer' | 'timeout' | 'cancel' | 'close'): boolean {
    const pending = this.pending.get(requestId);
    if (!pending) return false;
    let optionId: string | undefined;
    if (outcome === 'refused') {
      optionId = (
        pending.options.find((o) => o.kind === 'reject_once') ??
        pending.options.find((o) => o.kind.startsWith('reject'))
      )?.optionId;
    } else if (outcome !== 'cancelled') {
      if (!pending.options.some((o) => o.optionId === outcome)) return false;
      optionId = outcome;
    }
    this.pending.delete(requestId);
    clearTimeout(pending.timer);
    pending.resolve(
      optionId === undefined
        ? { outcome: { outcome: 'cancelled' } }
        : { outcome: { outcome: 'selected', optionId } },
    );
    this.request.onEvent('permission_settled', { requestId, outcome: optionId ?? 'cancelled', by });
    return true;
  }

  private async exitMessage(): Promise<string> {
    const { code, signal } = await this.process.exited;
    const fault = connectionFault(this.connection);
    if (fault !== undefined) return fault;
    return `the agent exited (${signal ?? `code ${code}`})${tail(this.process.stderr())}`;
  }

  private onProcessExit(reason: string): void {
    this.exitReason = reason;
    for (const requestId of [...this.pending.keys()]) this.settle(requestId, 'cancelled', 'close');
    this.connection.close();
    // The leader is gone; anything it left in its group goes too.
    void this.process.kill(0);
    this.request.onExit?.(this.closed ? 'closed' : reason);
  }
}

type ClientApp = ReturnType<typeof acp.client>;

/**
 * Adapters known to read a fork's cut from `_meta.jetbrains.air.fork` (the message the fork keeps
 * last). Another agent would ignore the key and copy the whole session, which is not the fork
 * asked for, so a cut is only sent to these.
 */
const CUT_READERS = new Set(['@agentclientprotocol/claude-agent-acp']);

/** Why this agent cannot make the fork asked for, or undefined when it can. */
function forkRefusal(
  caps: acp.AgentCapabilities,
  agentName: string | undefined,
  fork: ForkOpen,
): string | undefined {
  const offered = (caps.sessionCapabilities as { fork?: unknown } | null | undefined)?.fork;
  if (offered === undefined || offered === null) return 'this agent cannot fork a session (no session/fork)';
  if (fork.messageId !== undefined && (agentName === undefined || !CUT_READERS.has(agentName)))
    return `this agent (${agentName ?? 'unnamed'}) cannot fork a session at a message`;
  return undefined;
}

/** Claude Code's fork point: the fork keeps the source's history through this message. */
function cutMeta(messageId: string): Record<string, unknown> {
  return { jetbrains: { air: { fork: { version: 1, messageId } } } };
}

/** The agent's `terminal/*` requests, answered from the session's terminals. */
function serveTerminals(app: ClientApp, terminals: Terminals): void {
  const answer = async <T>(work: () => T | Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (error instanceof TerminalError) throw acp.RequestError.invalidParams(undefined, error.message);
      throw error;
    }
  };
  app
    .onRequest('terminal/create', (ctx) => answer(() => ({ terminalId: terminals.create(ctx.params) })))
    .onRequest('terminal/output', (ctx) => answer(() => terminals.output(ctx.params.terminalId)))
    .onRequest('terminal/wait_for_exit', (ctx) => answer(() => terminals.waitForExit(ctx.params.terminalId)))
    .onRequest('terminal/kill', (ctx) =>
      answer(async () => {
        await terminals.kill(ctx.params.terminalId);
        return {};
      }),
    )
    .onRequest('terminal/release', (ctx) =>
      answer(async () => {
        await terminals.release(ctx.params.terminalId);
        return {};
      }),
    );
}

/**
 * The SDK's stream with every message bounded in depth before the SDK validates it: its schema
 * check overflows the stack on a value nested thousands of levels deep and the message is lost
 * without a word. Two levels more than the bound, so an update's own value keeps MAX_VALUE_DEPTH.
 */
function boundedStream(stream: acp.Stream, log: (line: string) => void): acp.Stream {
  const bound = new TransformStream<acp.AnyMessage, acp.AnyMessage>({
    transform(message, controller) {
      const { value, cut } = boundDepth(message, MAX_VALUE_DEPTH + 2);
      if (cut > 0) {
        const method = (message as { method?: unknown }).method;
        log(
          `workstation: the agent sent ${typeof method === 'string' ? `a ${method}` : 'a message'} nested ` +
            `deeper than ${MAX_VALUE_DEPTH} levels; ${cut} value(s) below that were replaced by a marker`,
        );
      }
      controller.enqueue(value as acp.AnyMessage);
    },
  });
  return { readable: stream.readable.pipeThrough(bound), writable: stream.writable };
}

/** Why the SDK closed the connection when the cause was the agent's, not its exit or ours. */
function connectionFault(connection: acp.ClientConnection): string | undefined {
  const reason: unknown = connection.signal.aborted ? connection.signal.reason : undefined;
  if (reason instanceof acp.MessageTooLargeError) {
    const mib = Math.round(reason.maxMessageBytes / (1024 * 1024));
    return `the agent sent a message longer than the ${mib} MiB one ACP message may take; the connection to it was closed`;
  }
  return undefined;
}

function notOurs(sessionId: unknown, ownId: string | undefined): string {
  return `for session ${JSON.stringify(sessionId)}, which this connection did not open (it opened ${ownId ?? 'none yet'})`;
}

function tail(stderr: string): string {
  if (stderr === '') return '';
  const last = stderr.split('\n').slice(-3).join(' | ');
  return `: ${last.slice(-400)}`;
}

async function race<T>(work: Promise<T>, exited: Promise<string>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      exited.then((reason) => {
        throw new Error(reason);
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`${what} took longer than ${Math.round(ms / 1000)} s`)),
          ms,
        );
      }),
    ]);
  } finally {
    clearTimeout(timer);
    work.catch(() => {});
  }
}

export function authMethodsOf(methods: readonly acp.AuthMethod[] | undefined): AuthMethodInfo[] {
  return (methods ?? []).map((m) => {
    const raw = m as { id: string; name: string; description?: string | null; type?: unknown };
    return {
      id: raw.id,
      name: raw.name,
      ...(raw.description == null ? {} : { description: raw.description }),
      ...(typeof raw.type === 'string' ? { type: raw.type } : {}),
    };
  });
}

/** A thrown SDK error as a refusal: the JSON-RPC code survives, so sign-in needed stays a code. */
export function refusalOf(error: unknown, authMethods: AuthMethodInfo[]): Refusal {
  if (error instanceof acp.RequestError) {
    // Agents put what went wrong in the error's data: text, or an object with a message (Qwen Code's
    // `details`, the provider's status and words) and a kind (Codex's `codexErrorInfo`, Claude
    // Code's `errorKind`) that says, say, that a usage limit hit.
    const data = error.data;
    const fields = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
    const detail =
      typeof data === 'string'
        ? data
        : [fields.message, fields.details].find((d): d is string => typeof d === 'string');
    const kind = [fields.codexErrorInfo, fields.errorKind].find((k): k is string => typeof k === 'string');
    const said = detail && !error.message.includes(detail) ? `${error.message}: ${detail}` : error.message;
    const message = kind && !said.includes(kind) ? `${said} (${kind})` : said;
    const code = Number.isInteger(error.code) ? error.code : undefined;
    return {
      message,
      ...(code === undefined ? {} : { errorCode: code }),
      ...(code === AUTH_REQUIRED ? { authMethods } : {}),
    };
  }
  return { message: error instanceof Error ? error.message : String(error) };
}
