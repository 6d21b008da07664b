// The one-shot requests about an agent rather than a session: verify (is it there, does it accept
// a session), authenticate, list its native sessions, install its adapter. Each starts the agent,
// asks, and ends it; every answer is a frame, failures included.
import * as acp from '@agentclientprotocol/sdk';
import {
  type AgentFrameOf,
  API_KEY_QUERY,
  INSTALL_PROGRESS_KEY,
  type InstallProgress,
} from '@cairn/protocol';
import { AUTH_REQUIRED, authMethodsOf, refusalOf } from './acp-session.js';
import { storeAgentKey, storedAgentEnv, storedSignInMethod } from './agent-keys.js';
import { AgentProcess, agentEnvironment } from './agent-process.js';
import { type Env, findBridge, resolveBridgeCommand } from './bridges.js';
import type { SessionLaunch } from './driven-session.js';
import { installAdapter } from './install.js';
import type { StoreErrorReader } from './store-errors.js';

export type LaunchResolver = (
  bridge: string,
  context: { cwd: string; env: Record<string, string>; command?: string; args?: readonly string[] },
) => Promise<{ ok: true; launch: SessionLaunch } | { ok: false; error: string }>;

/** What a bridge needs beyond its command line (for example signing in to a gateway). */
export interface LaunchExtras {
  readonly env?: Readonly<Record<string, string>>;
  readonly clientCapabilities?: Record<string, unknown>;
  readonly authenticate?: { methodId: string; _meta?: Record<string, unknown> };
}

/** Bridges of the roster by key, through `resolveBridgeCommand`; `extras` per key add to them. */
export function rosterLaunchResolver(options: {
  cairnHome: string;
  extras?: Readonly<Record<string, LaunchExtras>>;
  /** Reads a turn's error back from the agent's store, for the bridges whose adapter drops it. */
  storeErrors?: StoreErrorReader;
}): LaunchResolver {
  return async (key, context) => {
    const given = options.extras?.[key] ?? {};
    // A kept key's method is named to the agent at start: some read the key only when asked to.
    const method = given.authenticate === undefined ? storedSignInMethod(options.cairnHome, key) : undefined;
    const extras: LaunchExtras =
      method === undefined ? given : { ...given, authenticate: { methodId: method } };
    // Keys the person gave cairn for this agent, read at each start so a new one takes effect.
    const env = { ...context.env, ...storedAgentEnv(options.cairnHome, key), ...extras.env };
    if (context.command) {
      return {
        ok: true,
        launch: {
          command: { command: context.command, args: context.args ?? [] },
          cwd: context.cwd,
          env,
          ...launchExtras(extras),
        },
      };
    }
    const bridge = await findBridge(options.cairnHome, key);
    if (!bridge) return { ok: false, error: `cairn knows no agent named ${key}` };
    const resolved = await resolveBridgeCommand(bridge, { cairnHome: options.cairnHome, env });
    if (!resolved.installed) return { ok: false, error: resolved.message };
    return {
      ok: true,
      launch: {
        command: {
          command: resolved.command,
          args: resolved.args,
          ...(resolved.cwd ? { cwd: resolved.cwd } : {}),
        },
        cwd: context.cwd,
        env: { ...env, ...resolved.env },
        ...launchExtras(extras),
        ...(bridge.kind === 'builtin' && bridge.errorsInStore && options.storeErrors
          ? { storeErrors: { agent: bridge.errorsInStore, read: options.storeErrors } }
          : {}),
      },
    };
  };
}

function launchExtras(extras: LaunchExtras): Pick<SessionLaunch, 'clientCapabilities' | 'authenticate'> {
  return {
    ...(extras.clientCapabilities ? { clientCapabilities: extras.clientCapabilities } : {}),
    ...(extras.authenticate ? { authenticate: extras.authenticate } : {}),
  };
}

const PROBE_DEFAULT_MS = 30_000;
const PROBE_MIN_MS = 1_000;
const PROBE_MAX_MS = 120_000;

/** A well-formed budget is clamped into what a probe may take; absent means the default. */
export function clampProbeTimeout(timeoutMs: number | null | undefined): number {
  if (timeoutMs === undefined || timeoutMs === null) return PROBE_DEFAULT_MS;
  return Math.min(PROBE_MAX_MS, Math.max(PROBE_MIN_MS, Math.round(timeoutMs)));
}

interface ProbeQuery {
  cwd?: unknown;
  probeSession?: unknown;
  _meta?: unknown;
}

export class Probes {
  constructor(
    private readonly options: {
      cairnHome: string;
      env: Env;
      resolveLaunch: LaunchResolver;
      /** A key was kept for `bridge`: its sessions must start again to read it. */
      keyStored?: (bridge: string) => void;
      /** Frames a sign-in sends before its answer: the address to open, and its end. */
      emit?: (
        frame:
          | AgentFrameOf<'agent_auth_url'>
          | AgentFrameOf<'agent_auth_url_done'>
          | AgentFrameOf<'agent_authenticated'>
          | AgentFrameOf<'agent_installed'>,
      ) => void;
      /** Whether the server asked to hear an install's progress. */
      installProgress?: () => boolean;
      /** An install ended well: the roster changed, and must be said before the answer. */
      installed?: () => Promise<void>;
    },
  ) {}

  async verify(frame: AgentFrameOf<'agent_verify'>): Promise<AgentFrameOf<'agent_verified'>> {
    const query = asQuery(frame.query);
    const budget = clampProbeTimeout(frame.timeoutMs);
    return this.withAgent(frame.bridge, query, budget, async (agent, init) => {
      const reply: AgentFrameOf<'agent_verified'> = {
        t: 'agent_verified',
        id: frame.id,
        ok: true,
        authMethods: authMethodsOf(init.authMethods),
      };
      if (query.probeSession === true) {
        const commands: unknown[] = [];
        agent.onUpdate = (update) => {
          if (update.sessionUpdate === 'available_commands_update') {
            commands.splice(0, commands.length, ...(update.availableCommands as unknown[]));
          }
        };
        try {
          const opened = await agent.within(
            agent.connection.agent.request('session/new', { cwd: cwdOf(query), mcpServers: [] }),
          );
          // A session the agent accepted is the only positive evidence of a sign-in, unless the
          // agent takes sessions signed out: then nothing it offers tells, and verify says so.
          const bridge = await findBridge(this.options.cairnHome, frame.bridge);
          if (bridge?.kind === 'builtin' && bridge.asksSignInAtPrompt)
            reply.sessionError = `${bridge.name} opens sessions without a sign-in and asks for one only at the first prompt, so cairn cannot tell whether it is signed in`;
          else reply.authenticated = true;
          if (Array.isArray(opened.configOptions)) {
            reply.configOptions = opened.configOptions as AgentFrameOf<'agent_verified'>['configOptions'];
          }
          reply.availableCommands = commands.map((c) => {
            const cmd = c as { name: string; description: string; input?: { hint?: string } | null };
            return { name: cmd.name, description: cmd.description, inputHint: cmd.input?.hint ?? null };
          });
        } catch (error) {
          reply.sessionError = refusalOf(error, []).message;
        }
      }
      return reply;
    }).then((r) => ('t' in r ? r : { t: 'agent_verified', id: frame.id, ok: false, error: r.error }));
  }

  async authenticate(
    frame: AgentFrameOf<'agent_authenticate'>,
  ): Promise<AgentFrameOf<'agent_authenticated'>> {
    const query = asQuery(frame.query);
    const key = (frame.query as Record<string, unknown> | null | undefined)?.[API_KEY_QUERY];
    if (typeof key === 'string') {
      // An API key is kept for the agent's next starts; the agent is not asked anything now.
      const stored = storeAgentKey(this.options.cairnHome, frame.bridge, frame.methodId, key);
      if (!stored.ok) return { t: 'agent_authenticated', id: frame.id, ok: false, error: stored.error };
      this.options.keyStored?.(frame.bridge);
      return { t: 'agent_authenticated', id: frame.id, ok: true };
    }
    return this.withAgent(frame.bridge, query, PROBE_MAX_MS, async (agent) => {
      const meta = isObject(query._meta) ? { _meta: query._meta } : {};
      // A sign-in in the browser: the agent names an address; the server hears it at once, and
      // that its answer is pending, then the end of the sign-in and the final answer.
      let acknowledged = false;
      agent.onElicitation = (request) => {
        if (
          request.mode !== 'url' ||
          typeof request.url !== 'string' ||
          typeof request.elicitationId !== 'string'
        ) {
          return { action: 'decline' };
        }
        this.options.emit?.({
          t: 'agent_auth_url',
          id: frame.id,
          elicitationId: request.elicitationId,
          url: request.url,
        });
        if (!acknowledged) {
          acknowledged = true;
          this.options.emit?.({ t: 'agent_authenticated', id: frame.id, ok: true, pending: true });
        }
        return { action: 'accept' };
      };
      agent.onElicitationDone = (elicitationId) => {
        this.options.emit?.({ t: 'agent_auth_url_done', id: frame.id, elicitationId });
      };
      try {
        await agent.within(
          agent.connection.agent.request('authenticate', {
            methodId: frame.methodId,
            ...meta,
          } as acp.AuthenticateRequest),
        );
        return { t: 'agent_authenticated' as const, id: frame.id, ok: true };
      } catch (error) {
        return {
          t: 'agent_authenticated' as const,
          id: frame.id,
          ok: false,
          error: refusalOf(error, []).message,
        };
      }
    }).then((r) => ('t' in r ? r : { t: 'agent_authenticated', id: frame.id, ok: false, error: r.error }));
  }

  async listNative(frame: AgentFrameOf<'agent_list_native'>): Promise<AgentFrameOf<'agent_native_sessions'>> {
    const query = asQuery(frame.query);
    const fail = (error: string): AgentFrameOf<'agent_native_sessions'> => ({
      t: 'agent_native_sessions',
      id: frame.id,
      ok: false,
      error,
    });
    if (frame.query === null || typeof frame.query !== 'object') return fail('query must be an object');
    return this.withAgent(frame.bridge, query, PROBE_DEFAULT_MS, async (agent, init) => {
      if (!init.agentCapabilities?.sessionCapabilities?.list)
        return fail('this agent cannot list its sessions');
      try {
        const listed = await agent.within(
          agent.connection.agent.request(
            'session/list',
            typeof query.cwd === 'string' ? { cwd: query.cwd } : {},
          ),
        );
        return {
          t: 'agent_native_sessions' as const,
          id: frame.id,
          ok: true,
          sessions: listed.sessions.map((s) => ({
            nativeSessionId: s.sessionId,
            title: s.title ?? '',
            updatedAtEpochMs: epochMs(s.updatedAt),
            cwd: s.cwd,
          })),
        };
      } catch (error) {
        return fail(refusalOf(error, []).message);
      }
    }).then((r) => ('t' in r ? r : fail(r.error)));
  }

  async install(frame: AgentFrameOf<'agent_install'>): Promise<AgentFrameOf<'agent_installed'>> {
    const progress = this.options.installProgress?.() === true;
    let lastSent = 0;
    const result = await installAdapter(frame.bridge, {
      cairnHome: this.options.cairnHome,
      env: this.options.env,
      ...(progress
        ? {
            onProgress: (step: InstallProgress) => {
              // npm may print hundreds of lines a second: a phase always goes out, lines at most
              // every 100 ms.
              const now = Date.now();
              if (step.line !== undefined && now - lastSent < 100) return;
              lastSent = now;
              this.options.emit?.({
                t: 'agent_installed',
                id: frame.id,
                ok: true,
                [INSTALL_PROGRESS_KEY]: step,
              } as AgentFrameOf<'agent_installed'>);
            },
          }
        : {}),
    });
    if (result.ok) {
      // Said even when it was there already: another process may have installed it meanwhile.
      await this.options.installed?.();
      return {
        t: 'agent_installed',
        id: frame.id,
        ok: true,
        adapterInstalled: true,
        alreadyInstalled: result.alreadyInstalled,
        ...(result.pinnedVersionUnavailable
          ? { pinnedVersionUnavailable: result.pinnedVersionUnavailable }
          : {}),
      };
    }
    return {
      t: 'agent_installed',
      id: frame.id,
      ok: false,
      error: result.error,
      ...(result.reason === 'unsupported' ? { unsupported: true } : {}),
    };
  }

  /** Starts the bridge's agent, initializes it, runs `ask`, and ends it whatever happens. */
  private async withAgent<R>(
    bridge: string,
    query: ProbeQuery,
    budgetMs: number,
    ask: (agent: ProbeAgent, init: acp.InitializeResponse) => Promise<R>,
  ): Promise<R | { error: string }> {
    const launch = await this.options.resolveLaunch(bridge, {
      cwd: cwdOf(query),
      env: agentEnvironment(this.options.env),
    });
    if (!launch.ok) return { error: launch.error };
    const agent = new ProbeAgent(launch.launch, budgetMs);
    try {
      const init = await agent.within(
        agent.connection.agent.request('initialize', {
          protocolVersion: acp.PROTOCOL_VERSION,
          clientCapabilities: {
            fs: { readTextFile: false, writeTextFile: false },
            terminal: false,
            // Sign-ins may send the person to an address; cairn passes it on (agent_auth_url).
            elicitation: { url: {} },
            ...launch.launch.clientCapabilities,
          },
          clientInfo: { name: 'cairn', version: '0.1.0' },
        }),
      );
      if (launch.launch.authenticate) {
        await agent.within(
          agent.connection.agent.request(
            'authenticate',
            launch.launch.authenticate as acp.AuthenticateRequest,
          ),
        );
      }
      return await ask(agent, init);
    } catch (error) {
      const refusal = refusalOf(error, []);
      return {
        error: refusal.errorCode === AUTH_REQUIRED ? `sign-in needed: ${refusal.message}` : refusal.message,
      };
    } finally {
      await agent.close();
    }
  }
}

class ProbeAgent {
  readonly process: AgentProcess;
  readonly connection: acp.ClientConnection;
  onUpdate: (update: acp.SessionUpdate) => void = () => {};
  onElicitation: (request: { mode?: unknown; url?: unknown; elicitationId?: unknown }) => {
    action: 'accept' | 'decline';
  } = () => ({
    action: 'decline',
  });
  onElicitationDone: (elicitationId: string) => void = () => {};
  private readonly deadline: number;

  constructor(launch: SessionLaunch, budgetMs: number) {
    this.process = new AgentProcess(launch.command, { cwd: launch.cwd, env: launch.env });
    this.deadline = Date.now() + budgetMs;
    const { output, input } = this.process.streams();
    this.connection = acp
      .client({ name: 'cairn' })
      .onRequest('session/request_permission', () => ({ outcome: { outcome: 'cancelled' as const } }))
      .onNotification('session/update', (ctx) => this.onUpdate(ctx.params.update))
      .onRequest('elicitation/create', (ctx) =>
        this.onElicitation(ctx.params as { mode?: unknown; url?: unknown; elicitationId?: unknown }),
      )
      .onNotification('elicitation/complete', (ctx) => this.onElicitationDone(ctx.params.elicitationId))
      .connect(acp.ndJsonStream(output, input));
  }

  /** The request, within what is left of the probe's budget, and failing at once if the agent dies. */
  within<T>(work: Promise<T>): Promise<T> {
    const left = Math.max(0, this.deadline - Date.now());
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      work,
      this.process.exited.then(() => {
        throw new Error(
          `the agent exited${this.process.stderr() ? `: ${this.process.stderr().slice(-300)}` : ''}`,
        );
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${Math.round(left / 1000)} s`)), left);
      }),
    ]).finally(() => {
      clearTimeout(timer);
      work.catch(() => {});
    });
  }

  async close(): Promise<void> {
    this.connection.close();
    await this.process.kill(500);
  }
}

function asQuery(query: unknown): ProbeQuery {
  return isObject(query) ? (query as ProbeQuery) : {};
}

function cwdOf(query: ProbeQuery): string {
  return typeof query.cwd === 'string' && query.cwd !== '' ? query.cwd : process.cwd();
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An agent's `updatedAt` as whole epoch milliseconds (0 when it gave none or an unreadable one). */
function epochMs(value: string | null | undefined): number {
  const ms = value ? Date.parse(value) : Number.NaN;
  return Number.isFinite(ms) ? Math.trunc(ms) : 0;
}
