// The server half of the agent wire. Workstations connect (over a WebSocket, or in process for
// `cairn run`), say hello with a ticket, and from then on this side opens sessions on them, sends
// prompts and answers, and receives every event exactly once: stored in the event log first, then
// acked, then handed to subscribers. After a reconnect it asks each workstation for what it missed.
//
// A workstation is trusted with its own sessions only: a frame that names a session is accepted
// from the workstation the session was opened on and refused (logged, counted, nothing stored)
// from any other, so one ticket never reaches another machine's sessions.
import { randomUUID } from 'node:crypto';
import {
  AGENT_WIRE_VERSION,
  type AgentFrame,
  type AgentFrameOf,
  type BridgeInfo,
  decodeAgentFrame,
  encodeAgentFrame,
  FORK_OPEN_KEY,
  FORK_UNSUPPORTED_KEY,
  FORKED_KEY,
  type ForkOpen,
  fitAgentFrameToPeer,
  INSTALL_PROGRESS_KEY,
  INSTALL_PROGRESS_READY_KEY,
  type InstallProgress,
  outboundAgentFrameRejection,
  PROMPT_RESOURCES_KEY,
  type PromptResource,
  ROSTER_PROBLEMS_KEY,
} from '@cairn/protocol';
import type { EventLog, LoggedEvent } from './event-log.js';

export interface WireChannel {
  send(text: string): void;
  close(code?: number, reason?: string): void;
}

export interface AgentWireServerOptions {
  readonly log: EventLog;
  /** The workstation a ticket belongs to, or undefined when the ticket is not valid. */
  readonly ticketOwner: (ticket: string) => string | undefined;
  readonly logLine?: (line: string) => void;
}

/**
 * How each frame a workstation sends names a session, and so how it is checked:
 * - `field`: its `sessionRef` must be a session opened on the sending workstation;
 * - `request`: it answers a request (by `id`) this side sent to the sending workstation;
 * - `inventory`: each entry of its `sessions` list must be the sender's; the others are refused;
 * - `server-only`: a frame only this side sends, refused from a workstation.
 * Frames that name no session are not listed.
 */
export const SESSION_FRAME_RULES = {
  agent_event: 'field',
  agent_turn_done: 'field',
  agent_session_lost: 'field',
  agent_backfill_events: 'request',
  agent_backfill_done: 'request',
  agent_resume_offer: 'inventory',
  heartbeat: 'inventory',
  agent_open: 'server-only',
  agent_prompt: 'server-only',
  agent_answer: 'server-only',
  agent_interrupt: 'server-only',
  agent_close: 'server-only',
  agent_event_ack: 'server-only',
  agent_steer: 'server-only',
  agent_set_config_option: 'server-only',
} as const satisfies Partial<Record<AgentFrame['t'], 'field' | 'request' | 'inventory' | 'server-only'>>;

/** Refusals are logged one by one up to this many per connection, then once per this many. */
const REFUSALS_LOGGED = 20;

/** What subscribers of a session receive: a stored event, or a notice that is not numbered. */
export type DriveNotice =
  | { kind: 'event'; sessionRef: string; event: LoggedEvent }
  | { kind: 'lost'; sessionRef: string; action: string; error: string };

type Reply<T extends AgentFrame['t']> = AgentFrameOf<T>;

/** How an open that asked for the agent's own fork went, from cairn's keys on `agent_opened`. */
export interface OpenedFork {
  /** The session is the fork asked for. */
  readonly forked?: true;
  /** The agent (or its workstation) cannot fork: hand the history off instead. */
  readonly forkUnsupported?: true;
}

/** What the transport calls for one connection. */
export interface ConnectionSide {
  receive(text: string): void;
  closed(): void;
}

interface PendingRequest {
  resolve(frame: AgentFrame): void;
  timer: NodeJS.Timeout;
}

const MAX_CONSECUTIVE_UNDECODABLE = 8;

/** One connected workstation. */
class Link {
  name: string | undefined;
  /** Set for a workstation in this process: it is this name without a ticket. */
  trustedName: string | undefined;
  /** The ticket it said hello with, checked again at each heartbeat so a revoked one is cut. */
  ticket: string | undefined;
  refused = 0;
  bridges: BridgeInfo[] = [];
  /** What the workstation says is wrong with its config.json. */
  rosterProblems: string[] = [];
  undecodable = 0;
  readonly pending = new Map<string, PendingRequest>();
  readonly ackTimers = new Map<string, NodeJS.Immediate>();

  constructor(
    readonly channel: WireChannel,
    readonly version: number,
  ) {}
}

export class AgentWireServer {
  private readonly links = new Set<Link>();
  /** Sign-ins under way that want to hear the address to open. */
  private readonly authSteps = new Map<
    string,
    (step: { url?: string; elicitationId: string; done: boolean }) => void
  >();
  /** Installs under way that want to hear their progress. */
  private readonly installSteps = new Map<string, (progress: InstallProgress) => void>();
  private readonly byName = new Map<string, Link>();
  /** Names held by workstations in this process; no ticket can take them. */
  private readonly reservedNames = new Set<string>();
  /** Which workstation each session was opened on, as the event log says (read once). */
  private readonly ownerCache = new Map<string, string | null>();
  private readonly refusedCounts = new Map<string, number>();
  private stopped = false;
  private readonly listeners = new Map<string, Set<(notice: DriveNotice) => void>>();
  private readonly workstationListeners = new Set<() => void>();
  readonly generation = randomUUID();

  constructor(private readonly options: AgentWireServerOptions) {}

  /** A new connection; `agentWire` is the version the workstation speaks. */
  attach(channel: WireChannel, agentWire: number = AGENT_WIRE_VERSION): ConnectionSide {
    return this.connect(channel, agentWire, undefined);
  }

  /**
   * A workstation in this process, known to be `name` without a ticket: there is no secret for
   * another process to learn, and no ticket can take the name from it.
   */
  attachTrusted(channel: WireChannel, name: string, agentWire: number = AGENT_WIRE_VERSION): ConnectionSide {
    this.reservedNames.add(name);
    return this.connect(channel, agentWire, name);
  }

  private connect(channel: WireChannel, agentWire: number, trustedName: string | undefined): ConnectionSide {
    const link = new Link(channel, Math.min(agentWire, AGENT_WIRE_VERSION));
    link.trustedName = trustedName;
    this.links.add(link);
    return {
      receive: (text) => this.receive(link, text),
      closed: () => this.detach(link),
    };
  }

  /** True once `close()` ran: nothing should connect again. */
  get closed(): boolean {
    return this.stopped;
  }

  /** Frames refused so far, by the workstation that sent them (`?` before its hello). */
  refusals(): Record<string, number> {
    return Object.fromEntries(this.refusedCounts);
  }

  /** Cuts a workstation's connection (a revoked ticket); it is told why. */
  disconnect(name: string, reason: string): boolean {
    const link = this.byName.get(name);
    if (!link) return false;
    link.channel.close(1008, reason);
    this.detach(link);
    return true;
  }

  /** Names of the workstations connected now. */
  workstations(): string[] {
    return [...this.byName.keys()];
  }

  roster(workstation: string): BridgeInfo[] {
    return this.byName.get(workstation)?.bridges ?? [];
  }

  /** What a workstation says is wrong with its config.json (empty when nothing is). */
  rosterProblems(workstation: string): string[] {
    return this.byName.get(workstation)?.rosterProblems ?? [];
  }

  /** Called whenever a workstation comes or goes. */
  onWorkstationsChanged(listener: () => void): () => void {
    this.workstationListeners.add(listener);
    return () => this.workstationListeners.delete(listener);
  }

  /** Waits until a workstation of that name is connected (the local one starts with the server). */
  async waitForWorkstation(name: string, timeoutMs = 10_000): Promise<boolean> {
    if (this.byName.has(name)) return true;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        off();
        resolve(false);
      }, timeoutMs);
      const off = this.onWorkstationsChanged(() => {
        if (!this.byName.has(name)) return;
        clearTimeout(timer);
        off();
        resolve(true);
      });
    });
  }

  /** Every stored event and notice of a session, from now on. */
  subscribe(sessionRef: string, listener: (notice: DriveNotice) => void): () => void {
    const set = this.listeners.get(sessionRef) ?? new Set();
    this.listeners.set(sessionRef, set);
    set.add(listener);
    return () => set.delete(listener);
  }

  async open(request: {
    workstation: string;
    sessionRef?: string;
    agentKey: string;
    bridge: string;
    cwd: string;
    nativeSessionId?: string | null;
    env?: Record<string, string>;
    agentEnv?: Record<string, string>;
    pathPrepend?: string[];
    /** Open the session as the agent's own fork of one it keeps (cairn's key on `agent_open`). */
    fork?: ForkOpen;
  }): Promise<Reply<'agent_opened'> & OpenedFork & { sessionRef: string }> {
    const sessionRef = request.sessionRef ?? randomUUID();
    const link = this.byName.get(request.workstation);
    const id = randomUUID();
    if (!link)
      return {
        t: 'agent_opened',
        id,
        ok: false,
        error: `workstation ${request.workstation} is not connected`,
        sessionRef,
      };
    this.ownerCache.set(sessionRef, request.workstation);
    this.options.log.upsert({
      sessionRef,
      workstation: request.workstation,
      agentKey: request.agentKey,
      bridge: request.bridge,
      cwd: request.cwd,
      nativeSessionId: request.nativeSessionId ?? null,
    });
    const frame: AgentFrameOf<'agent_open'> = {
      t: 'agent_open',
      id,
      sessionRef,
      agentKey: request.agentKey,
      bridge: request.bridge,
      cwd: request.cwd,
      shell: process.env.SHELL ?? '/bin/sh',
      ...(request.nativeSessionId ? { nativeSessionId: request.nativeSessionId } : {}),
      ...(request.env ? { env: request.env } : {}),
      ...(request.agentEnv ? { agentEnv: request.agentEnv } : {}),
      ...(request.pathPrepend ? { pathPrepend: request.pathPrepend } : {}),
      // Under cairn's key: a peer that does not know it opens a plain session, told apart below.
      ...(request.fork ? { [FORK_OPEN_KEY]: request.fork } : {}),
    };
    const reply = (await this.request(link, frame, 120_000)) as Reply<'agent_opened'>;
    const said = reply as unknown as Record<string, unknown>;
    if (request.fork && reply.ok && said[FORKED_KEY] !== true) {
      // A plain new session is not the fork asked for: it goes, and the caller takes another way.
      this.closeSession(sessionRef);
      return {
        ...reply,
        ok: false,
        error: `workstation ${request.workstation} does not make agents' own forks`,
        forkUnsupported: true,
        sessionRef,
      };
    }
    if (reply.ok && reply.nativeSessionId)
      this.options.log.setNativeSessionId(sessionRef, reply.nativeSessionId);
    return {
      ...reply,
      ...(said[FORKED_KEY] === true ? { forked: true } : {}),
      ...(said[FORK_UNSUPPORTED_KEY] === true ? { forkUnsupported: true } : {}),
      sessionRef,
    };
  }

  /** Sends a prompt; the turn's events and its `agent_turn_done` arrive through `subscribe`. */
  prompt(
    sessionRef: string,
    text: string,
    images?: AgentFrameOf<'agent_prompt'>['images'],
    resources: readonly PromptResource[] = [],
  ): { ok: true } | { ok: false; error: string } {
    const link = this.linkOf(sessionRef);
    if (!link) return { ok: false, error: 'the workstation of this session is not connected' };
    this.options.log.setTurnRunning(sessionRef, true);
    // Files ride under cairn's own key: a peer that does not know it sends the prompt without them.
    const files: Record<string, unknown> = resources.length > 0 ? { [PROMPT_RESOURCES_KEY]: resources } : {};
    this.send(link, {
      t: 'agent_prompt',
      sessionRef,
      text,
      ...(images && images.length > 0 ? { images } : {}),
      ...files,
    });
    return { ok: true };
  }

  interrupt(sessionRef: string): void {
    const link = this.linkOf(sessionRef);
    if (link) this.send(link, { t: 'agent_interrupt', sessionRef });
  }

  answer(sessionRef: string, requestId: string, outcome: string): void {
    const link = this.linkOf(sessionRef);
    if (link) this.send(link, { t: 'agent_answer', sessionRef, requestId, outcome });
  }

  closeSession(sessionRef: string): void {
    const link = this.linkOf(sessionRef);
    if (link) this.send(link, { t: 'agent_close', sessionRef });
    this.options.log.close(sessionRef);
  }

  async steer(
    sessionRef: string,
    text: string,
    images?: AgentFrameOf<'agent_steer'>['images'],
    priority?: string,
  ): Promise<Reply<'agent_steered'>> {
    const link = this.linkOf(sessionRef);
    const id = randomUUID();
    if (!link)
      return { t: 'agent_steered', id, ok: false, error: 'the workstation of this session is not connected' };
    const frame: AgentFrameOf<'agent_steer'> = {
      t: 'agent_steer',
      id,
      sessionRef,
      text,
      ...(images && images.length > 0 ? { images } : {}),
      ...(priority === undefined ? {} : { priority }),
    };
    return (await this.request(link, frame, 30_000)) as Reply<'agent_steered'>;
  }

  async setConfigOption(
    sessionRef: string,
    configId: string,
    value: string | boolean,
  ): Promise<Reply<'agent_config_option_set'>> {
    const link = this.linkOf(sessionRef);
    const id = randomUUID();
    if (!link)
      return {
        t: 'agent_config_option_set',
        id,
        ok: false,
        error: 'the workstation of this session is not connected',
      };
    return (await this.request(
      link,
      { t: 'agent_set_config_option', id, sessionRef, configId, value },
      30_000,
    )) as Reply<'agent_config_option_set'>;
  }

  async verify(
    workstation: string,
    bridge: string,
    query: Record<string, unknown>,
    timeoutMs?: number,
  ): Promise<Reply<'agent_verified'>> {
    const id = randomUUID();
    const link = this.byName.get(workstation);
    if (!link)
      return { t: 'agent_verified', id, ok: false, error: `workstation ${workstation} is not connected` };
    const frame: AgentFrameOf<'agent_verify'> = {
      t: 'agent_verify',
      id,
      bridge,
      query,
      ...(timeoutMs ? { timeoutMs } : {}),
    };
    return (await this.request(link, frame, (timeoutMs ?? 30_000) + 15_000)) as Reply<'agent_verified'>;
  }

  /**
   * Signs in with one of the agent's methods. A sign-in that sends the person to an address calls
   * `onUrl` with it (and again when that step is done); the promise settles with the final answer.
   */
  async authenticate(
    workstation: string,
    bridge: string,
    methodId: string,
    query: Record<string, unknown>,
    onUrl?: (step: { url?: string; elicitationId: string; done: boolean }) => void,
  ): Promise<Reply<'agent_authenticated'>> {
    const id = randomUUID();
    if (onUrl) this.authSteps.set(id, onUrl);
    const link = this.byName.get(workstation);
    if (!link)
      return {
        t: 'agent_authenticated',
        id,
        ok: false,
        error: `workstation ${workstation} is not connected`,
      };
    try {
      return (await this.request(
        link,
        { t: 'agent_authenticate', id, bridge, methodId, query },
        180_000,
      )) as Reply<'agent_authenticated'>;
    } finally {
      this.authSteps.delete(id);
    }
  }

  /** Installs a bridge's adapter; `onProgress` hears its phases and npm's lines as they come. */
  async install(
    workstation: string,
    bridge: string,
    onProgress?: (progress: InstallProgress) => void,
  ): Promise<Reply<'agent_installed'>> {
    const id = randomUUID();
    const link = this.byName.get(workstation);
    if (!link)
      return { t: 'agent_installed', id, ok: false, error: `workstation ${workstation} is not connected` };
    if (onProgress) this.installSteps.set(id, onProgress);
    try {
      return (await this.request(
        link,
        { t: 'agent_install', id, bridge },
        15 * 60_000,
      )) as Reply<'agent_installed'>;
    } finally {
      this.installSteps.delete(id);
    }
  }

  async listNative(
    workstation: string,
    bridge: string,
    query: Record<string, unknown>,
  ): Promise<Reply<'agent_native_sessions'>> {
    const id = randomUUID();
    const link = this.byName.get(workstation);
    if (!link)
      return {
        t: 'agent_native_sessions',
        id,
        ok: false,
        error: `workstation ${workstation} is not connected`,
      };
    return (await this.request(
      link,
      { t: 'agent_list_native', id, bridge, query },
      60_000,
    )) as Reply<'agent_native_sessions'>;
  }

  /** Closes every connection. */
  close(): void {
    this.stopped = true;
    for (const link of [...this.links]) {
      link.channel.close(1001, 'server stopping');
      this.detach(link);
    }
  }

  private linkOf(sessionRef: string): Link | undefined {
    const record = this.options.log.get(sessionRef);
    return record ? this.byName.get(record.workstation) : undefined;
  }

  private receive(link: Link, text: string): void {
    let frame: AgentFrame;
    try {
      frame = decodeAgentFrame(text);
    } catch (error) {
      link.undecodable += 1;
      this.options.logLine?.(`agent wire: undecodable frame: ${(error as Error).message}`);
      if (link.undecodable >= MAX_CONSECUTIVE_UNDECODABLE) {
        link.channel.close(1008, `${MAX_CONSECUTIVE_UNDECODABLE} undecodable frames in a row`);
        this.detach(link);
      }
      return;
    }
    link.undecodable = 0;
    if (link.name === undefined && frame.t !== 'agent_hello') {
      this.options.logLine?.(`agent wire: ${frame.t} before agent_hello; closing`);
      link.channel.close(1008, 'say agent_hello first');
      this.detach(link);
      return;
    }
    this.handle(link, frame);
  }

  private handle(link: Link, frame: AgentFrame): void {
    switch (frame.t) {
      case 'agent_hello': {
        const name = link.trustedName ?? this.options.ticketOwner(frame.ticket);
        if (link.name !== undefined) {
          // Said again on a channel that is up: the workstation's roster changed.
          if (name !== link.name) {
            this.refuse(link, frame.t, undefined, 'a hello again must name the same workstation');
            return;
          }
          this.takeRoster(link, frame);
          for (const listener of this.workstationListeners) listener();
          return;
        }
        if (name === undefined) {
          link.channel.close(1008, 'unknown ticket');
          this.detach(link);
          return;
        }
        if (link.trustedName === undefined && this.reservedNames.has(name)) {
          this.refuse(
            link,
            frame.t,
            undefined,
            `the name ${name} belongs to the workstation in this process`,
            name,
          );
          link.channel.close(1008, `the name ${name} is reserved`);
          this.detach(link);
          return;
        }
        const previous = this.byName.get(name);
        if (previous && previous !== link) {
          // The same workstation again (its old socket may not have noticed it died): the newer wins.
          this.options.logLine?.(
            `agent wire: workstation ${name} connected again; closing its older connection`,
          );
          previous.channel.close(1000, 'replaced by a new connection');
          this.detach(previous);
        }
        link.name = name;
        if (link.trustedName === undefined) link.ticket = frame.ticket;
        this.takeRoster(link, frame);
        this.byName.set(name, link);
        this.send(link, {
          t: 'agent_ready',
          generation: this.generation,
          agentWire: link.version,
          // cairn's: this side wants to hear an install's progress.
          [INSTALL_PROGRESS_READY_KEY]: true,
        } as AgentFrameOf<'agent_ready'>);
        for (const listener of this.workstationListeners) listener();
        return;
      }
      case 'heartbeat':
        if (link.ticket !== undefined && this.options.ticketOwner(link.ticket) !== link.name) {
          this.options.logLine?.(`agent wire: the ticket of workstation ${link.name} was revoked; closing`);
          link.channel.close(1008, 'ticket revoked');
          this.detach(link);
          return;
        }
        this.ownedEntries(link, frame.t, frame.sessions ?? []);
        this.send(link, { t: 'heartbeat_ack', seq: frame.seq });
        return;
      case 'agent_resume_offer':
        this.onResumeOffer(link, this.ownedEntries(link, frame.t, frame.sessions));
        return;
      case 'agent_event':
        if (!this.owns(link, frame.t, frame.sessionRef) || !this.numbered(link, frame)) return;
        this.store(link, frame.sessionRef, {
          seq: frame.seq,
          eventName: frame.eventName,
          payload: frame.payload,
        });
        return;
      case 'agent_turn_done':
        if (!this.owns(link, frame.t, frame.sessionRef) || !this.numbered(link, frame)) return;
        this.store(link, frame.sessionRef, {
          seq: frame.seq,
          eventName: 'agent_turn_done',
          payload: frame as unknown as Record<string, unknown>,
        });
        return;
      case 'agent_backfill_events': {
        const ref = link.pending.has(frame.id) ? this.pendingSessionRef.get(frame.id) : undefined;
        if (ref === undefined) {
          this.refuse(link, frame.t, undefined, 'it answers no backfill asked of this workstation');
          return;
        }
        for (const event of frame.events) {
          const seq = (event as { seq?: unknown }).seq;
          if (!isSeq(seq)) {
            this.refuse(
              link,
              frame.t,
              ref,
              `an event's seq must be a whole number from 1, got ${String(seq)}`,
            );
            continue;
          }
          this.store(link, ref, { seq, eventName: event.eventName, payload: event.payload });
        }
        return;
      }
      case 'agent_backfill_done':
        if (!link.pending.has(frame.id)) {
          this.refuse(link, frame.t, undefined, 'it answers no backfill asked of this workstation');
          return;
        }
        this.afterBackfill(frame.id);
        return;
      case 'agent_auth_url':
        this.authSteps.get(frame.id)?.({ url: frame.url, elicitationId: frame.elicitationId, done: false });
        return;
      case 'agent_auth_url_done':
        this.authSteps.get(frame.id)?.({ elicitationId: frame.elicitationId, done: true });
        return;
      case 'agent_installed': {
        const progress = (frame as unknown as Record<string, unknown>)[INSTALL_PROGRESS_KEY];
        if (progress !== undefined) {
          // Progress of an install under way; the final answer follows.
          if (isPlainRecord(progress))
            this.installSteps.get(frame.id)?.(progress as unknown as InstallProgress);
          return;
        }
        this.resolvePending(link, frame);
        return;
      }
      case 'agent_authenticated':
        // `pending` acknowledges a sign-in still under way; the final answer follows.
        if (frame.pending) return;
        this.resolvePending(link, frame);
        return;
      case 'agent_session_lost':
        if (!this.owns(link, frame.t, frame.sessionRef)) return;
        this.options.log.setTurnRunning(frame.sessionRef, false);
        this.notify(frame.sessionRef, {
          kind: 'lost',
          sessionRef: frame.sessionRef,
          action: frame.action,
          error: lostMessage(frame.action),
        });
        return;
      case 'agent_open':
      case 'agent_prompt':
      case 'agent_answer':
      case 'agent_interrupt':
      case 'agent_close':
      case 'agent_event_ack':
      case 'agent_steer':
      case 'agent_set_config_option':
        this.refuse(link, frame.t, frame.sessionRef, 'only the server sends it');
        return;
      default:
        this.resolvePending(link, frame);
    }
  }

  /** The roster a hello carries, and what it says is wrong with config.json. */
  private takeRoster(link: Link, frame: AgentFrameOf<'agent_hello'>): void {
    link.bridges = frame.bridges ?? [];
    const problems = (frame as unknown as Record<string, unknown>)[ROSTER_PROBLEMS_KEY];
    link.rosterProblems = Array.isArray(problems)
      ? problems.filter((p): p is string => typeof p === 'string').slice(0, 50)
      : [];
  }

  /** The workstation a session was opened on, or null for a session this server never opened. */
  private ownerOf(sessionRef: string): string | null {
    let owner = this.ownerCache.get(sessionRef);
    if (owner === undefined) {
      owner = this.options.log.get(sessionRef)?.workstation ?? null;
      this.ownerCache.set(sessionRef, owner);
    }
    return owner;
  }

  private owns(link: Link, type: string, sessionRef: string): boolean {
    const owner = this.ownerOf(sessionRef);
    if (owner !== null && owner === link.name) return true;
    this.refuse(
      link,
      type,
      sessionRef,
      owner === null ? 'no such session' : 'the session runs on another workstation',
    );
    return false;
  }

  /** The wire reads seq as any number; the log holds whole ones from 1, one after another. */
  private numbered(link: Link, frame: { t: string; sessionRef: string; seq: number }): boolean {
    if (isSeq(frame.seq)) return true;
    this.refuse(
      link,
      frame.t,
      frame.sessionRef,
      `seq must be a whole number from 1, got ${String(frame.seq)}`,
    );
    return false;
  }

  /** The entries of an inventory that name the sender's own sessions; the rest are refused. */
  private ownedEntries<T extends { sessionRef: string }>(
    link: Link,
    type: string,
    entries: readonly T[],
  ): T[] {
    return entries.filter((entry) => this.owns(link, type, entry.sessionRef));
  }

  /** A frame refused: counted by sender, logged (a flood only now and then), nothing kept. */
  private refuse(
    link: Link,
    type: string,
    sessionRef: string | undefined,
    why: string,
    who = link.name ?? '?',
  ): void {
    link.refused += 1;
    this.refusedCounts.set(who, (this.refusedCounts.get(who) ?? 0) + 1);
    if (link.refused <= REFUSALS_LOGGED || link.refused % 1000 === 0) {
      const about = sessionRef === undefined ? '' : ` for session ${sessionRef}`;
      const count = link.refused > REFUSALS_LOGGED ? ` (${link.refused} refused from it so far)` : '';
      this.options.logLine?.(`agent wire: refused ${type}${about} from workstation ${who}: ${why}${count}`);
    }
  }

  /** An answer to one of this side's requests, matched by its id. */
  private resolvePending(link: Link, frame: AgentFrame): void {
    const id = (frame as { id?: unknown }).id;
    if (typeof id === 'string') {
      const pending = link.pending.get(id);
      if (pending) {
        link.pending.delete(id);
        clearTimeout(pending.timer);
        pending.resolve(frame);
        return;
      }
    }
    if (frame.t === 'agent_backfill_done' || frame.t === 'agent_opened') return;
    this.options.logLine?.(`agent wire: unexpected ${frame.t}`);
  }

  /** Which session a backfill (keyed by its `agent_open` id) belongs to. */
  private readonly pendingSessionRef = new Map<string, string>();

  /**
   * After a reconnect: every open session the offer lists is re-attached with a backfill from
   * what the log holds; a session with a running turn that the offer leaves out has lost it.
   */
  private onResumeOffer(link: Link, offered: AgentFrameOf<'agent_resume_offer'>['sessions']): void {
    const listed = new Map(offered.map((s) => [s.sessionRef, s]));
    for (const record of this.options.log.ofWorkstation(link.name!)) {
      const entry = listed.get(record.sessionRef);
      if (!entry) {
        if (record.turnRunning) {
          this.options.log.setTurnRunning(record.sessionRef, false);
          this.notify(record.sessionRef, {
            kind: 'lost',
            sessionRef: record.sessionRef,
            action: 'missing_from_offer',
            error: 'the workstation no longer has this session; its running turn was lost',
          });
        }
        continue;
      }
      const id = randomUUID();
      this.pendingSessionRef.set(id, record.sessionRef);
      // The workstation restarted under a running turn: its agent is gone and no end will come.
      if (!entry.agentAlive && record.turnRunning) this.endAfterBackfill.set(id, record.sessionRef);
      const frame: AgentFrameOf<'agent_open'> = {
        t: 'agent_open',
        id,
        sessionRef: record.sessionRef,
        agentKey: record.agentKey,
        bridge: record.bridge,
        cwd: record.cwd,
        shell: process.env.SHELL ?? '/bin/sh',
        ...(record.nativeSessionId ? { nativeSessionId: record.nativeSessionId } : {}),
        resumeFromSeq: this.options.log.heldSeq(record.sessionRef),
        backfill: true,
      };
      void this.request(link, frame, 120_000).then((reply) => {
        this.pendingSessionRef.delete(id);
        this.afterBackfill(id);
        if (reply.t === 'agent_opened' && !reply.ok) {
          this.notify(record.sessionRef, {
            kind: 'lost',
            sessionRef: record.sessionRef,
            action: 'reopen_failed',
            error: reply.error ?? 'the session could not be reopened',
          });
        }
      });
    }
  }

  /** Turns to end once their backfill is in, keyed by the reopening request's id. */
  private readonly endAfterBackfill = new Map<string, string>();

  /**
   * A backfill is in: a turn its agent can no longer finish ends now, with what the journal held
   * and before the reopened agent replays its history, which is then no part of that reply.
   */
  private afterBackfill(id: string): void {
    const sessionRef = this.endAfterBackfill.get(id);
    if (sessionRef === undefined) return;
    this.endAfterBackfill.delete(id);
    if (!this.options.log.get(sessionRef)?.turnRunning) return;
    this.options.log.setTurnRunning(sessionRef, false);
    this.notify(sessionRef, {
      kind: 'lost',
      sessionRef,
      action: 'agent_gone',
      error: lostMessage('agent_gone'),
    });
  }

  /** Stores one event in order, acks it soon after, and hands it on; a gap asks for a backfill. */
  private store(link: Link, sessionRef: string, event: LoggedEvent): void {
    const result = this.options.log.append(sessionRef, event);
    if (result === 'repeat') return;
    if (result === 'gap') {
      this.requestBackfill(link, sessionRef);
      return;
    }
    if (event.eventName === 'agent_turn_done') this.options.log.setTurnRunning(sessionRef, false);
    this.scheduleAck(link, sessionRef);
    this.notify(sessionRef, { kind: 'event', sessionRef, event });
  }

  private readonly backfilling = new Set<string>();

  private requestBackfill(link: Link, sessionRef: string): void {
    if (this.backfilling.has(sessionRef)) return;
    const record = this.options.log.get(sessionRef);
    if (!record) return;
    this.backfilling.add(sessionRef);
    const id = randomUUID();
    this.pendingSessionRef.set(id, sessionRef);
    void this.request(
      link,
      {
        t: 'agent_open',
        id,
        sessionRef,
        agentKey: record.agentKey,
        bridge: record.bridge,
        cwd: record.cwd,
        shell: process.env.SHELL ?? '/bin/sh',
        resumeFromSeq: this.options.log.heldSeq(sessionRef),
        backfill: true,
      },
      120_000,
    ).finally(() => {
      this.pendingSessionRef.delete(id);
      this.backfilling.delete(sessionRef);
    });
  }

  private scheduleAck(link: Link, sessionRef: string): void {
    if (link.ackTimers.has(sessionRef)) return;
    link.ackTimers.set(
      sessionRef,
      setImmediate(() => {
        link.ackTimers.delete(sessionRef);
        this.options.log.commit();
        this.send(link, {
          t: 'agent_event_ack',
          sessionRef,
          throughSeq: this.options.log.heldSeq(sessionRef),
        });
      }),
    );
  }

  private notify(sessionRef: string, notice: DriveNotice): void {
    for (const listener of this.listeners.get(sessionRef) ?? []) {
      try {
        listener(notice);
      } catch (error) {
        this.options.logLine?.(`agent wire: a subscriber failed: ${(error as Error).message}`);
      }
    }
  }

  private request(link: Link, frame: AgentFrame & { id: string }, timeoutMs: number): Promise<AgentFrame> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        link.pending.delete(frame.id);
        resolve(
          timeoutReply(frame, `no answer from the workstation within ${Math.round(timeoutMs / 1000)} s`),
        );
      }, timeoutMs);
      link.pending.set(frame.id, { resolve, timer });
      if (!this.send(link, frame)) {
        clearTimeout(timer);
        link.pending.delete(frame.id);
        resolve(timeoutReply(frame, `this workstation (agent wire v${link.version}) cannot take ${frame.t}`));
      }
    });
  }

  /** Fitted to the workstation's version and checked; false when the frame could not go. */
  private send(link: Link, frame: AgentFrame): boolean {
    const fitted = fitAgentFrameToPeer(frame, link.version);
    if (!fitted.ok) {
      this.options.logLine?.(`agent wire: not sent: ${fitted.reason}`);
      return false;
    }
    const rejection = outboundAgentFrameRejection(fitted.frame);
    if (rejection !== null) {
      this.options.logLine?.(`agent wire: refused to send a malformed ${frame.t}: ${rejection}`);
      return false;
    }
    link.channel.send(encodeAgentFrame(fitted.frame));
    return true;
  }

  private detach(link: Link): void {
    if (!this.links.delete(link)) return;
    for (const timer of link.ackTimers.values()) clearImmediate(timer);
    for (const [id, pending] of link.pending) {
      clearTimeout(pending.timer);
      pending.resolve({
        t: 'agent_opened',
        id,
        ok: false,
        error: 'the workstation disconnected',
      } as AgentFrame);
    }
    link.pending.clear();
    if (link.name !== undefined && this.byName.get(link.name) === link) {
      this.byName.delete(link.name);
      for (const listener of this.workstationListeners) listener();
    }
  }
}

const isPlainRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const isSeq = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 1;

/** The reply a request gets when the workstation never answers, in the shape its answer has. */
function timeoutReply(frame: AgentFrame & { id: string }, error: string): AgentFrame {
  const { id } = frame;
  switch (frame.t) {
    case 'agent_open':
      return { t: 'agent_opened', id, ok: false, error };
    case 'agent_steer':
      return { t: 'agent_steered', id, ok: false, error };
    case 'agent_set_config_option':
      return { t: 'agent_config_option_set', id, ok: false, error };
    case 'agent_verify':
      return { t: 'agent_verified', id, ok: false, error };
    case 'agent_authenticate':
      return { t: 'agent_authenticated', id, ok: false, error };
    case 'agent_install':
      return { t: 'agent_installed', id, ok: false, error };
    case 'agent_list_native':
      return { t: 'agent_native_sessions', id, ok: false, error };
    default:
      return { t: 'agent_opened', id, ok: false, error };
  }
}

function lostMessage(action: string): string {
  switch (action) {
    case 'agent_exited':
      return 'the agent process ended';
    case 'reopen_failed':
      return 'the agent could not be started again for this session';
    case 'agent_gone':
      return 'the workstation restarted and the agent of this session with it; the running turn was lost';
    case 'unknown_session':
      return 'the workstation does not know this session';
    default:
      return `the session was lost (${action})`;
  }
}
