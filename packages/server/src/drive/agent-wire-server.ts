// The server half of the agent wire. Workstations connect (over a WebSocket, or in process for
// `cairn run`), say hello with a ticket, and from then on this side opens sessions on them, sends
// prompts and answers, and receives every event exactly once: stored in the event log first, then
// acked, then handed to subscribers. After a reconnect it asks each workstation for what it missed.
import { randomUUID } from 'node:crypto';
import {
  AGENT_WIRE_VERSION,
  type AgentFrame,
  type AgentFrameOf,
  type BridgeInfo,
  decodeAgentFrame,
  encodeAgentFrame,
  fitAgentFrameToPeer,
  outboundAgentFrameRejection,
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

/** What subscribers of a session receive: a stored event, or a notice that is not numbered. */
export type DriveNotice =
  | { kind: 'event'; sessionRef: string; event: LoggedEvent }
  | { kind: 'lost'; sessionRef: string; action: string; error: string };

type Reply<T extends AgentFrame['t']> = AgentFrameOf<T>;

interface PendingRequest {
  resolve(frame: AgentFrame): void;
  timer: NodeJS.Timeout;
}

const MAX_CONSECUTIVE_UNDECODABLE = 8;

/** One connected workstation. */
class Link {
  name: string | undefined;
  bridges: BridgeInfo[] = [];
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
  private readonly byName = new Map<string, Link>();
  private readonly listeners = new Map<string, Set<(notice: DriveNotice) => void>>();
  private readonly workstationListeners = new Set<() => void>();
  readonly generation = randomUUID();

  constructor(private readonly options: AgentWireServerOptions) {}

  /** A new connection; `agentWire` is the version the workstation speaks. */
  attach(
    channel: WireChannel,
    agentWire: number = AGENT_WIRE_VERSION,
  ): {
    receive(text: string): void;
    closed(): void;
  } {
    const link = new Link(channel, Math.min(agentWire, AGENT_WIRE_VERSION));
    this.links.add(link);
    return {
      receive: (text) => this.receive(link, text),
      closed: () => this.detach(link),
    };
  }

  /** Names of the workstations connected now. */
  workstations(): string[] {
    return [...this.byName.keys()];
  }

  roster(workstation: string): BridgeInfo[] {
    return this.byName.get(workstation)?.bridges ?? [];
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
  }): Promise<Reply<'agent_opened'> & { sessionRef: string }> {
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
    };
    const reply = (await this.request(link, frame, 120_000)) as Reply<'agent_opened'>;
    if (reply.ok && reply.nativeSessionId)
      this.options.log.setNativeSessionId(sessionRef, reply.nativeSessionId);
    return { ...reply, sessionRef };
  }

  /** Sends a prompt; the turn's events and its `agent_turn_done` arrive through `subscribe`. */
  prompt(
    sessionRef: string,
    text: string,
    images?: AgentFrameOf<'agent_prompt'>['images'],
  ): { ok: true } | { ok: false; error: string } {
    const link = this.linkOf(sessionRef);
    if (!link) return { ok: false, error: 'the workstation of this session is not connected' };
    this.options.log.setTurnRunning(sessionRef, true);
    this.send(link, {
      t: 'agent_prompt',
      sessionRef,
      text,
      ...(images && images.length > 0 ? { images } : {}),
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

  async install(workstation: string, bridge: string): Promise<Reply<'agent_installed'>> {
    const id = randomUUID();
    const link = this.byName.get(workstation);
    if (!link)
      return { t: 'agent_installed', id, ok: false, error: `workstation ${workstation} is not connected` };
    return (await this.request(
      link,
      { t: 'agent_install', id, bridge },
      15 * 60_000,
    )) as Reply<'agent_installed'>;
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
        const name = this.options.ticketOwner(frame.ticket);
        if (name === undefined) {
          link.channel.close(1008, 'unknown ticket');
          this.detach(link);
          return;
        }
        const previous = this.byName.get(name);
        if (previous && previous !== link) {
          previous.channel.close(1000, 'replaced by a new connection');
          this.detach(previous);
        }
        link.name = name;
        link.bridges = frame.bridges ?? [];
        this.byName.set(name, link);
        this.send(link, { t: 'agent_ready', generation: this.generation, agentWire: link.version });
        for (const listener of this.workstationListeners) listener();
        return;
      }
      case 'heartbeat':
        this.send(link, { t: 'heartbeat_ack', seq: frame.seq });
        return;
      case 'agent_resume_offer':
        this.onResumeOffer(link, frame.sessions);
        return;
      case 'agent_event':
        this.store(link, frame.sessionRef, {
          seq: frame.seq,
          eventName: frame.eventName,
          payload: frame.payload,
        });
        return;
      case 'agent_turn_done':
        this.store(link, frame.sessionRef, {
          seq: frame.seq,
          eventName: 'agent_turn_done',
          payload: frame as unknown as Record<string, unknown>,
        });
        return;
      case 'agent_backfill_events': {
        for (const event of frame.events) {
          const seq = (event as { seq?: unknown }).seq;
          const ref = this.pendingSessionRef.get(frame.id);
          if (typeof seq !== 'number' || ref === undefined) continue;
          this.store(link, ref, { seq, eventName: event.eventName, payload: event.payload });
        }
        return;
      }
      case 'agent_auth_url':
        this.authSteps.get(frame.id)?.({ url: frame.url, elicitationId: frame.elicitationId, done: false });
        return;
      case 'agent_auth_url_done':
        this.authSteps.get(frame.id)?.({ elicitationId: frame.elicitationId, done: true });
        return;
      case 'agent_authenticated':
        // `pending` acknowledges a sign-in still under way; the final answer follows.
        if (frame.pending) return;
        this.resolvePending(link, frame);
        return;
      case 'agent_session_lost':
        this.notify(frame.sessionRef, {
          kind: 'lost',
          sessionRef: frame.sessionRef,
          action: frame.action,
          error: lostMessage(frame.action),
        });
        return;
      default:
        this.resolvePending(link, frame);
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
    case 'unknown_session':
      return 'the workstation does not know this session';
    default:
      return `the session was lost (${action})`;
  }
}
