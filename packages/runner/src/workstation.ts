// The workstation half of the agent wire: it holds the driven sessions and their journal, answers
// the server's frames, and after every (re)connection says hello, offers what its journal holds and
// backfills what the server missed. Transport-free: a channel is anything that can send text.

import { type FSWatcher, watch } from 'node:fs';
import { join } from 'node:path';
import {
  AGENT_EVENT_MAX_BYTES,
  AGENT_FRAME_MAX_BYTES,
  AGENT_WIRE_VERSION,
  type AgentFrame,
  type AgentFrameOf,
  decodeAgentFrame,
  encodeAgentFrame,
  FORK_OPEN_GUARD,
  FORK_OPEN_KEY,
  FORK_UNSUPPORTED_KEY,
  FORKED_KEY,
  type ForkOpen,
  fitAgentFrameToPeer,
  INSTALL_PROGRESS_READY_KEY,
  KILL_DEV_PROCESS_OPTION,
  outboundAgentFrameRejection,
  outboundFailureReply,
  PROMPT_RESOURCES_KEY,
  ROSTER_PROBLEMS_KEY,
} from '@cairn/protocol';
import type { ImageInput } from './acp-session.js';
import { agentEnvironment, type ProcessTracker } from './agent-process.js';
import { DrivenSession, type SessionLaunch, type SessionOutput } from './driven-session.js';
import { fitEvent } from './event-size.js';
import type { Journal, JournalEntry } from './journal.js';
import { type LaunchResolver, Probes } from './probes.js';
import { processLedger, reapLeftoverAgents } from './process-ledger.js';
import { isPromptResourceList } from './prompt-resources.js';
import { type RosterSnapshot, rosterSnapshot } from './roster.js';

export interface WireChannel {
  send(text: string): void;
  close(code?: number, reason?: string): void;
}

export interface WorkstationOptions {
  /** The secret it proves itself with over a network; none for a workstation joined in process. */
  readonly ticket?: string;
  readonly cairnHome: string;
  readonly journal: Journal;
  /** The user's environment the agents start from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** How a bridge key becomes a command line (and the extra ACP steps it needs). */
  readonly resolveLaunch: LaunchResolver;
  readonly log?: (line: string) => void;
  readonly heartbeatMs?: number;
  /** The version this side speaks; lower only to test an older peer. */
  readonly agentWire?: number;
  readonly limits?: SessionLaunch['limits'];
  /** Watch `$CAIRN_HOME/config.json` and say the new roster to the server when it changes. */
  readonly watchConfig?: boolean;
}

/** After this many undecodable frames in a row the channel is closed: the peer is not speaking the wire. */
const MAX_CONSECUTIVE_UNDECODABLE = 8;
/** Journal entries read at a time for a backfill. */
const BACKFILL_READ = 500;
/**
 * What one backfill batch may hold, counted as the journal stores its events. Events are at most
 * AGENT_EVENT_MAX_BYTES, so a batch stays well under the frame limit.
 */
const BACKFILL_BATCH_BYTES = 2 * AGENT_EVENT_MAX_BYTES;

type Inbound = AgentFrame;
/** The server reads `seq` beside the contract's fields, as the seed's own workstation sends it. */
type BackfillEvent = AgentFrameOf<'agent_backfill_events'>['events'][number] & { seq: number };

export class Workstation {
  private readonly sessions = new Map<string, DrivenSession>();
  /** Sessions whose events go to the current channel live (opened or backfilled on it). */
  private readonly attached = new Set<string>();
  private readonly closing = new Set<Promise<void>>();
  private channel: WireChannel | undefined;
  private peerVersion = 0;
  private undecodable = 0;
  private heartbeatSeq = 0;
  private heartbeatTimer: NodeJS.Timeout | undefined;
  private readonly probes: Probes;
  private readonly ledger: ProcessTracker;
  private readonly outbox: AgentFrame[] = [];
  private flushing: NodeJS.Immediate | undefined;
  private readonly log: (line: string) => void;
  /** The roster last said; a broken config.json keeps it. */
  private roster: RosterSnapshot | undefined;
  /** The server asked to hear install progress (a key of its `agent_ready`). */
  private serverWantsInstallProgress = false;
  private configWatcher: FSWatcher | undefined;
  private configTimer: NodeJS.Timeout | undefined;
  readonly version: number;

  constructor(private readonly options: WorkstationOptions) {
    this.log = options.log ?? (() => {});
    reapLeftoverAgents(options.journal, this.log);
    this.ledger = processLedger(options.journal);
    this.version = options.agentWire ?? AGENT_WIRE_VERSION;
    this.probes = new Probes({
      cairnHome: options.cairnHome,
      env: options.env,
      resolveLaunch: options.resolveLaunch,
      emit: (frame) => this.emit(frame),
      installProgress: () => this.serverWantsInstallProgress,
      installed: () => this.announceRoster(),
      keyStored: (bridge) => void this.restartForKey(bridge),
    });
    if (options.watchConfig) this.watchConfig();
  }

  /**
   * Watches cairn's own folder for config.json being written or replaced (editors often write a
   * new file and rename it), and says the new roster a moment after the last change.
   */
  private watchConfig(): void {
    try {
      this.configWatcher = watch(this.options.cairnHome, (_event, name) => {
        if (name !== null && name !== 'config.json') return;
        clearTimeout(this.configTimer);
        this.configTimer = setTimeout(() => void this.announceRoster(), 150);
        this.configTimer.unref();
      });
      this.configWatcher.on('error', (error) =>
        this.log(`workstation: config.json watch failed: ${error.message}`),
      );
      this.configWatcher.unref();
    } catch (error) {
      this.log(
        `workstation: cannot watch ${this.options.cairnHome} for config.json: ${(error as Error).message}`,
      );
    }
  }

  /** The roster now, or the last good one when config.json cannot be read as a whole. */
  private async currentRoster(): Promise<RosterSnapshot> {
    const now = await rosterSnapshot(this.options.cairnHome, this.options.env, this.roster);
    for (const problem of now.problems)
      if (!this.roster?.problems.includes(problem)) this.log(`workstation: ${problem}`);
    this.roster = now;
    return now;
  }

  /** Says the roster again on the channel that is up (after an install, or a config.json edit). */
  async announceRoster(): Promise<void> {
    const channel = this.channel;
    const roster = await this.currentRoster();
    if (channel === undefined || this.channel !== channel || this.peerVersion === 0) return;
    this.emit(this.hello(roster));
  }

  private hello(roster: RosterSnapshot): AgentFrame {
    return {
      t: 'agent_hello',
      ticket: this.options.ticket ?? '',
      bridges: roster.bridges,
      ...(roster.problems.length > 0 ? { [ROSTER_PROBLEMS_KEY]: roster.problems } : {}),
    } as AgentFrame;
  }

  /**
   * A key was kept for `bridge`: its sessions let their agents go (none in the middle of a turn),
   * so the next prompt starts the agent again with the key in its environment.
   */
  private async restartForKey(bridge: string): Promise<void> {
    // Out of the map at once, so an open that follows the answer finds none to reuse.
    const going = [...this.sessions].filter(
      ([ref, session]) => this.options.journal.session(ref)?.bridge === bridge && !session.busy,
    );
    for (const [ref] of going) this.sessions.delete(ref);
    await Promise.all(going.map(([, session]) => session.stopAgent()));
  }

  /** A new connection to the server: say hello with the roster. */
  async connect(channel: WireChannel): Promise<void> {
    this.detach();
    this.channel = channel;
    this.undecodable = 0;
    const roster = await this.currentRoster();
    if (this.channel !== channel) return;
    this.emit(this.hello(roster));
  }

  /** The connection is gone; sessions and their agents live on, journaling. */
  detach(): void {
    this.outbox.length = 0;
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = undefined;
    this.channel = undefined;
    this.peerVersion = 0;
    this.attached.clear();
  }

  /** One text frame from the server. */
  receive(text: string): void {
    let frame: Inbound;
    try {
      frame = decodeAgentFrame(text) as Inbound;
    } catch (error) {
      this.undecodable += 1;
      this.log(`workstation: undecodable frame: ${(error as Error).message}`);
      if (this.undecodable >= MAX_CONSECUTIVE_UNDECODABLE) {
        this.channel?.close(1008, `${MAX_CONSECUTIVE_UNDECODABLE} undecodable frames in a row`);
        this.detach();
      }
      return;
    }
    this.undecodable = 0;
    void this.handle(frame).catch((error: unknown) => {
      this.log(`workstation: ${frame.t} failed: ${(error as Error).stack ?? error}`);
    });
  }

  /** Every session the journal still holds, whether its agent runs or not. */
  inventory(): { sessionRef: string; journalMaxSeq: number; agentAlive: boolean }[] {
    return this.options.journal.openSessions().map((s) => ({
      sessionRef: s.sessionRef,
      journalMaxSeq: this.options.journal.maxSeq(s.sessionRef),
      agentAlive: this.sessions.get(s.sessionRef)?.alive === true,
    }));
  }

  /** Pids of the agents that run, for tests and diagnostics. */
  agentPids(): number[] {
    return [...this.sessions.values()].flatMap((s) => (s.pid === undefined ? [] : [s.pid]));
  }

  /** Ends every session's agent and the commands it ran (the journal keeps the sessions for a
   * later start; their commands would run on unheard). */
  async stop(): Promise<void> {
    this.configWatcher?.close();
    clearTimeout(this.configTimer);
    this.detach();
    await Promise.all(
      [...this.sessions.values()].map(async (s) => {
        await s.stopAgent();
        await s.terminals.closeAll();
      }),
    );
    this.sessions.clear();
    await Promise.allSettled([...this.closing]);
  }

  private async handle(frame: Inbound): Promise<void> {
    switch (frame.t) {
      case 'agent_ready':
        return this.onReady(frame);
      case 'heartbeat_ack':
        return;
      case 'agent_open':
        return this.onOpen(frame);
      case 'agent_prompt':
        return this.onPrompt(frame);
      case 'agent_answer':
        this.sessions.get(frame.sessionRef)?.answer(frame.requestId, frame.outcome);
        return;
      case 'agent_interrupt':
        this.sessions.get(frame.sessionRef)?.cancel();
        return;
      case 'agent_close':
        return this.onClose(frame.sessionRef);
      case 'agent_event_ack':
        this.options.journal.ack(frame.sessionRef, frame.throughSeq);
        return;
      case 'agent_steer':
        return this.onSteer(frame);
      case 'agent_set_config_option':
        return this.onSetConfigOption(frame);
      case 'agent_list_native':
        this.emit(await this.probes.listNative(frame));
        return;
      case 'agent_verify':
        this.emit(await this.probes.verify(frame));
        return;
      case 'agent_authenticate':
        this.emit(await this.probes.authenticate(frame));
        return;
      case 'agent_install':
        this.emit(await this.probes.install(frame));
        return;
      default:
        this.log(`workstation: ignoring ${frame.t}, a frame the server does not send`);
    }
  }

  private onReady(frame: AgentFrameOf<'agent_ready'>): void {
    this.peerVersion = Math.min(frame.agentWire, this.version);
    this.serverWantsInstallProgress =
      (frame as unknown as Record<string, unknown>)[INSTALL_PROGRESS_READY_KEY] === true;
    clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = setInterval(() => this.heartbeat(), this.options.heartbeatMs ?? 10_000);
    this.heartbeatTimer.unref();
    this.emit({ t: 'agent_resume_offer', sessions: this.inventory() });
  }

  private heartbeat(): void {
    this.heartbeatSeq += 1;
    this.emit({
      t: 'heartbeat',
      seq: this.heartbeatSeq,
      sentAtEpochMs: Date.now(),
      sessions: this.inventory(),
    });
  }

  /**
   * Opens a session, or re-attaches one this workstation already holds: the journal's entries
   * after `resumeFromSeq` go out first (when the server asks for a backfill), then `agent_opened`.
   */
  private async onOpen(frame: AgentFrameOf<'agent_open'>): Promise<void> {
    const found = await this.sessionFor(frame);
    if (!found.ok) {
      this.emit({ t: 'agent_opened', id: frame.id, ok: false, error: found.error });
      return;
    }
    const session = found.session;
    if (frame.backfill || frame.resumeFromSeq !== undefined) {
      this.backfill(frame.id, frame.sessionRef, frame.resumeFromSeq ?? 0);
    }
    this.attached.add(frame.sessionRef);
    const opened = await session.ensureOpen();
    if (!opened.ok) {
      this.emit({
        t: 'agent_opened',
        id: frame.id,
        ok: false,
        error: opened.refusal.message,
        ...(opened.refusal.errorCode === undefined ? {} : { errorCode: opened.refusal.errorCode }),
        ...(opened.refusal.authMethods === undefined ? {} : { authMethods: opened.refusal.authMethods }),
        ...(opened.refusal.forkUnsupported ? { [FORK_UNSUPPORTED_KEY]: true } : {}),
      });
      return;
    }
    const { info } = opened;

    this.emit({
      t: 'agent_opened',
      id: frame.id,
      ok: true,
      nativeSessionId: info.nativeSessionId,
      ...(info.supportsSteering ? { supportsSteering: true as const } : {}),
      ...(opened.reloaded ? { reloaded: true as const } : {}),
      ...(info.agentInfo ? { agentInfo: info.agentInfo } : {}),
      ...(info.supportsImageInput ? { supportsImageInput: true as const } : {}),
      configOptions: info.configOptions as AgentFrameOf<'agent_opened'>['configOptions'],
      authMethods: info.authMethods,
      ...(info.forked ? { [FORKED_KEY]: true } : {}),
    });
  }

  /**
   * Sends the journal's entries after `afterSeq` as batches sized by bytes, so none comes near the
   * frame limit, then `agent_backfill_done`.
   */
  private backfill(id: string, sessionRef: string, afterSeq: number): void {
    let count = 0;
    let cursor = afterSeq;
    let batch: BackfillEvent[] = [];
    let batchBytes = 0;
    const send = () => {
      if (batch.length > 0) this.emit({ t: 'agent_backfill_events', id, events: batch });
      batch = [];
      batchBytes = 0;
    };
    for (;;) {
      const entries = this.options.journal.read(sessionRef, cursor, BACKFILL_READ);
      if (entries.length === 0) break;
      for (const entry of entries) {
        const event = this.backfillEvent(sessionRef, entry);
        if (batchBytes + event.bytes > BACKFILL_BATCH_BYTES) send();
        batch.push(event.event);
        batchBytes += event.bytes;
        count += 1;
        cursor = entry.seq;
      }
    }
    send();
    this.emit({ t: 'agent_backfill_done', id, ok: true, count });
  }

  /** One journal entry as a backfill event; one stored before events were bounded is cut now. */
  private backfillEvent(sessionRef: string, entry: JournalEntry): { event: BackfillEvent; bytes: number } {
    const done = entry.frame.t === 'agent_turn_done';
    const eventName = done ? 'agent_turn_done' : String(entry.frame.eventName);
    const payload = (done ? entry.frame : entry.frame.payload) as Record<string, unknown>;
    if (entry.bytes <= AGENT_EVENT_MAX_BYTES)
      return { event: { seq: entry.seq, eventName, payload }, bytes: entry.bytes };
    const fitted = fitEvent(payload);
    if (fitted.cutFrom !== undefined) {
      this.log(
        `workstation: ${sessionRef}: journal entry ${entry.seq} of ${entry.bytes} bytes was cut to be resent`,
      );
    }
    return {
      event: { seq: entry.seq, eventName, payload: fitted.payload },
      bytes: Buffer.byteLength(JSON.stringify(fitted.payload)),
    };
  }

  private async onPrompt(frame: AgentFrameOf<'agent_prompt'>): Promise<void> {
    const session = this.sessions.get(frame.sessionRef) ?? (await this.revive(frame.sessionRef));
    if (!session) {
      this.emit({ t: 'agent_session_lost', sessionRef: frame.sessionRef, action: 'unknown_session' });
      return;
    }
    const images: ImageInput[] = (frame.images ?? []).map((i) => ({
      data: i.data,
      mimeType: i.mimeType,
      ...(i.uri === undefined ? {} : { uri: i.uri }),
    }));
    if (images.length > 0 && session.info && !session.info.supportsImageInput) {
      this.log(`workstation: ${frame.sessionRef}: images dropped, the agent does not take them`);
      images.length = 0;
    }
    const resources = (frame as unknown as Record<string, unknown>)[PROMPT_RESOURCES_KEY];
    await session.prompt(frame.text, images, isPromptResourceList(resources) ? resources : []);
  }

  /**
   * The session this workstation holds under the frame's ref, or a new one started from the
   * frame (its native id, else the one the journal kept, so a restart reopens what it had).
   */
  private async sessionFor(
    frame: AgentFrameOf<'agent_open'>,
  ): Promise<{ ok: true; session: DrivenSession } | { ok: false; error: string }> {
    const existing = this.sessions.get(frame.sessionRef);
    if (existing) return { ok: true, session: existing };
    const journal = this.options.journal;
    const launch = await this.options.resolveLaunch(frame.bridge, {
      cwd: frame.cwd,
      env: agentEnvironment(this.options.env, {
        ...(frame.env ? { env: frame.env } : {}),
        ...(frame.agentEnv ? { agentEnv: frame.agentEnv } : {}),
        ...(frame.pathPrepend ? { pathPrepend: frame.pathPrepend } : {}),
      }),
      ...(frame.command ? { command: frame.command, args: frame.args ?? [] } : {}),
    });
    if (!launch.ok) return launch;
    const fork = forkOf(frame);
    if (!fork.ok) return fork;
    // Two opens of one ref may have raced through the await above; the first one made it.
    const raced = this.sessions.get(frame.sessionRef);
    if (raced) return { ok: true, session: raced };
    const { id: _id, resumeFromSeq: _from, backfill: _backfill, ...open } = frame;
    const nativeSessionId =
      frame.nativeSessionId ?? journal.session(frame.sessionRef)?.nativeSessionId ?? null;
    journal.upsertSession({
      sessionRef: frame.sessionRef,
      agentKey: frame.agentKey,
      bridge: frame.bridge,
      cwd: frame.cwd,
      nativeSessionId,
      openFrame: open,
    });
    const session = new DrivenSession(
      frame.sessionRef,
      {
        ...launch.launch,
        track: this.ledger,
        log: this.log,
        terminalLogDir: join(this.options.cairnHome, 'terminals'),
        ...(this.options.limits ? { limits: this.options.limits } : {}),
      },
      journal,
      this.output,
      nativeSessionId,
      fork.fork,
    );
    this.sessions.set(frame.sessionRef, session);
    return { ok: true, session };
  }

  /** A session known to the journal but not to this process (a restart): start it from its record. */
  private async revive(sessionRef: string): Promise<DrivenSession | undefined> {
    const record = this.options.journal.session(sessionRef);
    if (!record || record.closed) return undefined;
    const found = await this.sessionFor({
      ...(record.openFrame as unknown as AgentFrameOf<'agent_open'>),
      t: 'agent_open',
      id: `revive-${sessionRef}`,
    });
    if (!found.ok) return undefined;
    this.attached.add(sessionRef);
    return found.session;
  }

  private async onClose(sessionRef: string): Promise<void> {
    const session = this.sessions.get(sessionRef);
    this.sessions.delete(sessionRef);
    this.attached.delete(sessionRef);
    if (!session) return this.options.journal.markClosed(sessionRef);
    // `stop` waits for closes under way: the journal they write to is closed after it.
    const closing = session.close();
    this.closing.add(closing);
    try {
      await closing;
    } finally {
      this.closing.delete(closing);
    }
  }

  private async onSteer(frame: AgentFrameOf<'agent_steer'>): Promise<void> {
    const session = this.sessions.get(frame.sessionRef);
    if (!session) {
      this.emit({
        t: 'agent_steered',
        id: frame.id,
        ok: false,
        error: 'no such session on this workstation',
      });
      return;
    }
    const images = (frame.images ?? []).map((i) => ({ data: i.data, mimeType: i.mimeType }));
    const result = await session.steer(frame.text, images, frame.priority);
    this.emit(
      result.ok
        ? { t: 'agent_steered', id: frame.id, ok: true, outcome: result.outcome }
        : { t: 'agent_steered', id: frame.id, ok: false, error: result.error },
    );
  }

  private async onSetConfigOption(frame: AgentFrameOf<'agent_set_config_option'>): Promise<void> {
    const session = this.sessions.get(frame.sessionRef);
    const result = !session
      ? { ok: false as const, error: 'no such session on this workstation' }
      : frame.configId === KILL_DEV_PROCESS_OPTION
        ? await this.killDevProcess(session, frame.value)
        : await session.setConfigOption(frame.configId, frame.value);
    this.emit(
      result.ok
        ? {
            t: 'agent_config_option_set',
            id: frame.id,
            ok: true,
            configOptions: result.configOptions as AgentFrameOf<'agent_config_option_set'>['configOptions'],
          }
        : { t: 'agent_config_option_set', id: frame.id, ok: false, error: result.error },
    );
  }

  private async killDevProcess(session: DrivenSession, id: string | boolean) {
    if (typeof id === 'string' && (await session.killTerminal(id)))
      return { ok: true as const, configOptions: (session.info?.configOptions ?? []) as unknown[] };
    return { ok: false as const, error: `no dev process ${String(id)} in this session` };
  }

  private readonly output: SessionOutput = {
    event: (frame) => {
      if (this.attached.has(frame.sessionRef)) this.emit(frame as AgentFrame);
    },
    turnDone: (frame) => {
      if (this.attached.has(frame.sessionRef)) this.emit(frame as AgentFrame);
    },
    lost: (sessionRef, action) => {
      if (this.attached.has(sessionRef)) this.emit({ t: 'agent_session_lost', sessionRef, action });
    },
  };

  /**
   * Puts one frame on the wire: fitted to the peer's version first (a gated frame is not sent,
   * a field the peer would drop is left out), then checked; a malformed answer becomes a failure
   * reply, so the server is told instead of waiting out its timeout.
   */
  private emit(frame: AgentFrame): void {
    if (!this.channel) return;
    this.outbox.push(frame);
    this.flushing ??= setImmediate(() => this.flush());
  }

  /**
   * What was journaled since the last flush is committed, then everything queued goes out in
   * order: nothing reaches the wire before it is durable, and one commit covers a burst.
   */
  private flush(): void {
    this.flushing = undefined;
    this.options.journal.commit();
    const frames = this.outbox.splice(0);
    for (const frame of frames) this.put(frame);
  }

  private put(frame: AgentFrame): void {
    const channel = this.channel;
    if (!channel) return;
    let out: AgentFrame = frame;
    if (frame.t !== 'agent_hello') {
      const fitted = fitAgentFrameToPeer(frame, this.peerVersion || this.version);
      if (!fitted.ok) {
        this.log(`workstation: not sent to a v${this.peerVersion} server: ${fitted.reason}`);
        return;
      }
      out = fitted.frame;
    }
    const rejection = outboundAgentFrameRejection(out);
    if (rejection !== null) {
      this.log(`workstation: refused to send a malformed ${out.t}: ${rejection}`);
      const reply = outboundFailureReply(out, rejection);
      if (reply) channel.send(encodeAgentFrame(reply));
      return;
    }
    const text = encodeAgentFrame(out);
    // Past the limit the server closes the connection, and a resend would close it again.
    if (text.length * 3 > AGENT_FRAME_MAX_BYTES && Buffer.byteLength(text) > AGENT_FRAME_MAX_BYTES) {
      const reason = `${Buffer.byteLength(text)} bytes, over the ${AGENT_FRAME_MAX_BYTES} a frame may take`;
      this.log(`workstation: did not send a ${out.t} of ${reason}`);
      const reply = outboundFailureReply(out, reason);
      if (reply) channel.send(encodeAgentFrame(reply));
      return;
    }
    channel.send(text);
  }
}

/** The fork an `agent_open` asks for under cairn's key, checked; none when the key is absent. */
function forkOf(
  frame: AgentFrameOf<'agent_open'>,
): { ok: true; fork: ForkOpen | null } | { ok: false; error: string } {
  const value = (frame as unknown as Record<string, unknown>)[FORK_OPEN_KEY];
  if (value === undefined) return { ok: true, fork: null };
  const fault = FORK_OPEN_GUARD.check(value);
  if (fault) return { ok: false, error: `agent_open ${FORK_OPEN_KEY}${fault.path} ${fault.problem}` };
  const { nativeSessionId, messageId } = value as ForkOpen;
  return { ok: true, fork: { nativeSessionId, ...(messageId === undefined ? {} : { messageId }) } };
}
