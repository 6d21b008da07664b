// The server half of the agent wire. Workstations connect (over a WebSocket, or in process for
// `cairn run`), say hello with a ticket, and from then on this side opens sessions on them, sends
// prompts and answers, and receives every event exactly once: stored in the event log first, then
// acked; subscribers hear it from the log, so on a database shared by several server processes
// they hear it whichever process the workstation is connected to. After a reconnect it asks each
// workstation for what it missed.
//
// A workstation is trusted with its own sessions only: a frame that names a session is accepted
// from the workstation the session was opened on and refused (logged, counted, nothing stored)
// from any other, so one ticket never reaches another machine's sessions.
//
// This file is the server itself: connections and their hello, the workstations connected, the
// frames they send, and the subscribers of each session. Its parts each have a file: a connected
// workstation and the requests it is sent (wire-link), who may speak for a session
// (session-authority), events taken in, acked and backfilled (event-intake), what the daemon asks
// of a session (session-requests) and of a workstation's agents (agent-requests), and what a
// session's subscribers hear (session-feeds).
import { randomUUID } from 'node:crypto';
import {
  AGENT_WIRE_VERSION,
  type AgentFrame,
  type AgentFrameOf,
  type BridgeInfo,
  decodeAgentFrame,
  type ForkOpen,
  INSTALL_PROGRESS_KEY,
  INSTALL_PROGRESS_READY_KEY,
  type InstallProgress,
  type PromptResource,
  ROSTER_PROBLEMS_KEY,
} from '@cairn/protocol';
import type { DriveLogRecords } from '../storage/server-store.js';
import { driveOf } from '../storage/sqlite-store.js';
import { AgentRequests } from './agent-requests.js';
import { EventIntake, lostMessage } from './event-intake.js';
import { EventLog, type LoggedEvent } from './event-log.js';
import { isSeq, SESSION_FRAME_RULES, SessionAuthority } from './session-authority.js';
import { SessionFeeds } from './session-feeds.js';
import { SessionRequests } from './session-requests.js';
import { EventRate, TRY_AGAIN_LATER, type WireLimits, wireLimits } from './wire-limits.js';
import { Link, type WireChannel } from './wire-link.js';

export { SESSION_FRAME_RULES } from './session-authority.js';
export type { WireChannel } from './wire-link.js';

export interface AgentWireServerOptions {
  /** The driven sessions and their events: the store's drive records, or a log file of its own. */
  readonly log: EventLog | DriveLogRecords;
  /** The workstation a ticket belongs to, or undefined when the ticket is not valid. */
  readonly ticketOwner: (ticket: string) => string | undefined;
  readonly logLine?: (line: string) => void;
  /** Workstations at once, events a second and what may wait to be stored; defaults when absent. */
  readonly limits?: Partial<WireLimits>;
}

/** What the server's parts share: its options, with the event log behind the store's interface. */
export interface WireContext extends Omit<AgentWireServerOptions, 'log'> {
  readonly drive: DriveLogRecords;
}

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

const MAX_CONSECUTIVE_UNDECODABLE = 8;

export class AgentWireServer {
  private readonly links = new Set<Link>();
  private readonly byName = new Map<string, Link>();
  private readonly agents = new AgentRequests(this.byName);
  private readonly sessions: SessionRequests;
  /** Names held by workstations in this process; no ticket can take them. */
  private readonly reservedNames = new Set<string>();
  private readonly authority: SessionAuthority;
  private readonly intake: EventIntake;
  private stopped = false;
  private readonly feeds: SessionFeeds;
  private readonly workstationListeners = new Set<() => void>();
  readonly generation = randomUUID();
  readonly limits: WireLimits;
  /** Each workstation's events a second, kept across its reconnects so that one does not refill it. */
  private readonly rates = new Map<string, EventRate>();
  /** The most events and frames that ever waited at once on one connection, to be stored. */
  peakWaiting = 0;

  private readonly options: WireContext;

  constructor(options: AgentWireServerOptions) {
    const { log, ...rest } = options;
    this.options = { ...rest, drive: log instanceof EventLog ? driveOf(log) : log };
    this.limits = wireLimits(options.limits);
    this.feeds = new SessionFeeds(this.options.drive, this.options.logLine);
    this.authority = new SessionAuthority(this.options);
    this.sessions = new SessionRequests(this.options, this.byName, this.authority);
    this.intake = new EventIntake(this.options, this.authority, (sessionRef, notice) =>
      this.notify(sessionRef, notice),
    );
  }

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
    const link = new Link(channel, Math.min(agentWire, AGENT_WIRE_VERSION), this.options.logLine);
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
    return this.authority.refusals();
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
    return this.feeds.subscribe(sessionRef, listener);
  }

  open(request: {
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
    return this.sessions.open(request);
  }

  /** Sends a prompt; the turn's events and its `agent_turn_done` arrive through `subscribe`. */
  prompt(
    sessionRef: string,
    text: string,
    images?: AgentFrameOf<'agent_prompt'>['images'],
    resources: readonly PromptResource[] = [],
  ): { ok: true } | { ok: false; error: string } {
    return this.sessions.prompt(sessionRef, text, images, resources);
  }

  interrupt(sessionRef: string): void {
    this.sessions.interrupt(sessionRef);
  }

  answer(sessionRef: string, requestId: string, outcome: string): void {
    this.sessions.answer(sessionRef, requestId, outcome);
  }

  closeSession(sessionRef: string): void {
    this.sessions.closeSession(sessionRef);
  }

  steer(
    sessionRef: string,
    text: string,
    images?: AgentFrameOf<'agent_steer'>['images'],
    priority?: string,
  ): Promise<Reply<'agent_steered'>> {
    return this.sessions.steer(sessionRef, text, images, priority);
  }

  setConfigOption(
    sessionRef: string,
    configId: string,
    value: string | boolean,
  ): Promise<Reply<'agent_config_option_set'>> {
    return this.sessions.setConfigOption(sessionRef, configId, value);
  }

  verify(
    workstation: string,
    bridge: string,
    query: Record<string, unknown>,
    timeoutMs?: number,
  ): Promise<Reply<'agent_verified'>> {
    return this.agents.verify(workstation, bridge, query, timeoutMs);
  }

  /**
   * Signs in with one of the agent's methods. A sign-in that sends the person to an address calls
   * `onUrl` with it (and again when that step is done); the promise settles with the final answer.
   */
  authenticate(
    workstation: string,
    bridge: string,
    methodId: string,
    query: Record<string, unknown>,
    onUrl?: (step: { url?: string; elicitationId: string; done: boolean }) => void,
  ): Promise<Reply<'agent_authenticated'>> {
    return this.agents.authenticate(workstation, bridge, methodId, query, onUrl);
  }

  /** Installs a bridge's adapter; `onProgress` hears its phases and npm's lines as they come. */
  install(
    workstation: string,
    bridge: string,
    onProgress?: (progress: InstallProgress) => void,
  ): Promise<Reply<'agent_installed'>> {
    return this.agents.install(workstation, bridge, onProgress);
  }

  listNative(
    workstation: string,
    bridge: string,
    query: Record<string, unknown>,
  ): Promise<Reply<'agent_native_sessions'>> {
    return this.agents.listNative(workstation, bridge, query);
  }

  /** Closes every connection. */
  close(): void {
    this.stopped = true;
    this.feeds.close();
    for (const link of [...this.links]) {
      link.channel.close(1001, 'server stopping');
      this.detach(link);
    }
  }

  private receive(link: Link, text: string): void {
    // What a refused connection still sends is not taken in.
    if (!this.links.has(link)) return;
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
    const bytes = Buffer.byteLength(text);
    const events = eventsIn(frame);
    if (!this.withinLimits(link, events, bytes)) return;
    // A connection's frames are handled in the order they came: one that waits for the store holds
    // back those behind it; the others are handled at once, as they arrive.
    if (link.waiting) {
      link.backlog.push({ frame, bytes, events });
      link.backlogEvents += Math.max(1, events);
      link.backlogBytes += bytes;
      return;
    }
    this.dispatch(link, frame, bytes);
  }

  /**
   * Whether a frame carrying `events` events in `bytes` may be taken in: within its workstation's
   * rate, and with what waits to be stored from this connection under the bound. If not, the
   * connection is refused with the limit it met; nothing of the frame is stored or acked.
   */
  private withinLimits(link: Link, events: number, bytes: number): boolean {
    // The workstation in this process is the server's own, with no socket to flood.
    if (link.trustedName !== undefined) return true;
    const { eventsPerSecond, eventBurst, maxUnstoredEvents, maxUnstoredBytes } = this.limits;
    const waiting = link.backlogEvents + link.unstoredEvents + Math.max(1, events);
    let refusal: string | undefined;
    if (waiting > maxUnstoredEvents || link.backlogBytes + link.unstoredBytes + bytes > maxUnstoredBytes)
      refusal = `over ${maxUnstoredEvents} events or ${Math.round(maxUnstoredBytes / 1024 / 1024)} MiB waiting to be stored`;
    else if (events > 0 && link.rate !== undefined && !link.rate.take(events))
      refusal = `event rate over ${eventsPerSecond}/s (burst ${eventBurst})`;
    if (refusal === undefined) {
      if (waiting > this.peakWaiting) this.peakWaiting = waiting;
      return true;
    }
    this.options.logLine?.(`agent wire: workstation ${link.name ?? '?'} refused: ${refusal}; closing`);
    link.channel.close(TRY_AGAIN_LATER, `${refusal}; back off and send again`);
    this.detach(link);
    return false;
  }

  private dispatch(link: Link, frame: AgentFrame, bytes: number): void {
    const waiting = this.handle(link, frame, bytes);
    if (waiting === undefined) return;
    link.waiting = true;
    void waiting
      .catch((error) =>
        this.options.logLine?.(
          `agent wire: ${frame.t} from workstation ${link.name ?? '?'} failed: ${(error as Error).message}`,
        ),
      )
      .finally(() => {
        link.waiting = false;
        while (!link.waiting && link.backlog.length > 0) {
          const next = link.backlog.shift()!;
          link.backlogEvents -= Math.max(1, next.events);
          link.backlogBytes -= next.bytes;
          this.dispatch(link, next.frame, next.bytes);
        }
      });
  }

  /** Handles a frame of `bytes`; answers a promise when it has to wait for the store, else nothing. */
  private handle(link: Link, frame: AgentFrame, bytes: number): Promise<void> | undefined {
    // Whose sessions the frame names is read from the store once, then known.
    const unknown = this.authority.unknown(namedSessions(frame));
    if (unknown.length > 0) return this.authority.lookUp(unknown).then(() => this.handle(link, frame, bytes));
    switch (frame.t) {
      case 'agent_hello': {
        const name = link.trustedName ?? this.options.ticketOwner(frame.ticket);
        if (link.name !== undefined) {
          // Said again on a channel that is up: the workstation's roster changed.
          if (name !== link.name) {
            this.authority.refuse(link, frame.t, undefined, 'a hello again must name the same workstation');
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
          this.authority.refuse(
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
        if (link.trustedName === undefined) {
          link.ticket = frame.ticket;
          link.rate = this.rateOf(name);
        }
        // Its sessions known at once, for what is sent to them before they say anything.
        this.authority
          .learn(name)
          .catch((error) =>
            this.options.logLine?.(
              `agent wire: cannot read the sessions of workstation ${name}: ${(error as Error).message}`,
            ),
          );
        this.takeRoster(link, frame);
        this.byName.set(name, link);
        link.send({
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
        this.authority.ownedEntries(link, frame.t, frame.sessions ?? []);
        link.send({ t: 'heartbeat_ack', seq: frame.seq });
        return;
      case 'agent_resume_offer':
        this.intake
          .onResumeOffer(link, this.authority.ownedEntries(link, frame.t, frame.sessions))
          .catch((error) =>
            this.options.logLine?.(
              `agent wire: cannot reopen the sessions of workstation ${link.name}: ${(error as Error).message}`,
            ),
          );
        return;
      case 'agent_event':
        if (!this.authority.owns(link, frame.t, frame.sessionRef) || !this.authority.numbered(link, frame))
          return;
        this.intake.store(
          link,
          frame.sessionRef,
          { seq: frame.seq, eventName: frame.eventName, payload: frame.payload },
          bytes,
        );
        return;
      case 'agent_turn_done':
        if (!this.authority.owns(link, frame.t, frame.sessionRef) || !this.authority.numbered(link, frame))
          return;
        this.intake.store(
          link,
          frame.sessionRef,
          {
            seq: frame.seq,
            eventName: 'agent_turn_done',
            payload: frame as unknown as Record<string, unknown>,
          },
          bytes,
        );
        return;
      case 'agent_backfill_events': {
        const ref = this.intake.backfillOf(link, frame.id);
        if (ref === undefined) {
          this.authority.refuse(link, frame.t, undefined, 'it answers no backfill asked of this workstation');
          return;
        }
        for (const event of frame.events) {
          const seq = (event as { seq?: unknown }).seq;
          if (!isSeq(seq)) {
            this.authority.refuse(
              link,
              frame.t,
              ref,
              `an event's seq must be a whole number from 1, got ${String(seq)}`,
            );
            continue;
          }
          this.intake.store(
            link,
            ref,
            { seq, eventName: event.eventName, payload: event.payload },
            Math.ceil(bytes / frame.events.length),
          );
        }
        return;
      }
      case 'agent_backfill_done':
        if (!link.pending.has(frame.id)) {
          this.authority.refuse(link, frame.t, undefined, 'it answers no backfill asked of this workstation');
          return;
        }
        return this.intake.afterBackfill(frame.id);
      case 'agent_auth_url':
        this.agents.authSteps.get(frame.id)?.({
          url: frame.url,
          elicitationId: frame.elicitationId,
          done: false,
        });
        return;
      case 'agent_auth_url_done':
        this.agents.authSteps.get(frame.id)?.({ elicitationId: frame.elicitationId, done: true });
        return;
      case 'agent_installed': {
        const progress = (frame as unknown as Record<string, unknown>)[INSTALL_PROGRESS_KEY];
        if (progress !== undefined) {
          // Progress of an install under way; the final answer follows.
          if (isPlainRecord(progress))
            this.agents.installSteps.get(frame.id)?.(progress as unknown as InstallProgress);
          return;
        }
        link.resolvePending(frame);
        return;
      }
      case 'agent_authenticated':
        // `pending` acknowledges a sign-in still under way; the final answer follows.
        if (frame.pending) return;
        link.resolvePending(frame);
        return;
      case 'agent_session_lost':
        if (!this.authority.owns(link, frame.t, frame.sessionRef)) return;
        // After the events sent before it, as the workstation sent them.
        return this.intake
          .settled(frame.sessionRef)
          .then(() => this.options.drive.setTurnRunning(frame.sessionRef, false))
          .then(() =>
            this.notify(frame.sessionRef, {
              kind: 'lost',
              sessionRef: frame.sessionRef,
              action: frame.action,
              error: lostMessage(frame.action),
            }),
          );
      case 'agent_open':
      case 'agent_prompt':
      case 'agent_answer':
      case 'agent_interrupt':
      case 'agent_close':
      case 'agent_event_ack':
      case 'agent_steer':
      case 'agent_set_config_option':
        this.authority.refuse(link, frame.t, frame.sessionRef, 'only the server sends it');
        return;
      default:
        link.resolvePending(frame);
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

  /** Events reach subscribers through the store; this is for this process's notices. */
  private notify(sessionRef: string, notice: DriveNotice): void {
    this.feeds.notice(sessionRef, notice);
  }

  private detach(link: Link): void {
    if (!this.links.delete(link)) return;
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
      // A full bucket is what a new one would be: forgotten, so the map holds only recent senders.
      if (this.rates.get(link.name)?.full) this.rates.delete(link.name);
      for (const listener of this.workstationListeners) listener();
    }
  }

  /** The event rate of a workstation, the same one across its connections. */
  private rateOf(name: string): EventRate {
    let rate = this.rates.get(name);
    if (!rate) {
      rate = new EventRate(this.limits.eventsPerSecond, this.limits.eventBurst);
      this.rates.set(name, rate);
    }
    return rate;
  }
}

/** How many events of a session's log a frame carries, each counted against the rate. */
function eventsIn(frame: AgentFrame): number {
  if (frame.t === 'agent_event' || frame.t === 'agent_turn_done') return 1;
  if (frame.t === 'agent_backfill_events') return frame.events.length;
  return 0;
}

/** The sessions a frame names that a workstation must own: its `sessionRef`, or its inventory's. */
function namedSessions(frame: AgentFrame): string[] {
  const rule = (SESSION_FRAME_RULES as Partial<Record<string, string>>)[frame.t];
  if (rule === 'field') return [(frame as { sessionRef: string }).sessionRef];
  if (rule === 'inventory')
    return ((frame as { sessions?: { sessionRef: string }[] }).sessions ?? []).map((s) => s.sessionRef);
  return [];
}

const isPlainRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
