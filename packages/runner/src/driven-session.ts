// One session the workstation drives, under the server's `sessionRef`: the live ACP session (when
// its agent runs) and the journal that numbers and keeps every event and turn end. The agent can
// die and be reopened from its native id; the journal, and so the numbering, goes on.
import type { ForkOpen, PromptResource } from '@cairn/protocol';
import {
  type AcpSession,
  AcpSession as AcpSessionClass,
  type ImageInput,
  type OpenedSession,
  type Refusal,
  type SessionLimits,
  type TurnOutcome,
} from './acp-session.js';
import type { AgentCommand, ProcessTracker } from './agent-process.js';
import { fitEvent } from './event-size.js';
import type { Journal } from './journal.js';
import { type StoreErrors, storeErrorCheck } from './store-errors.js';
import { Terminals } from './terminals.js';

/** How a session's agent is started; kept so it can be started again from its native id. */
export interface SessionLaunch {
  readonly command: AgentCommand;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  readonly clientCapabilities?: Record<string, unknown>;
  readonly authenticate?: { methodId: string; _meta?: Record<string, unknown> };
  readonly limits?: Partial<SessionLimits>;
  readonly track?: ProcessTracker;
  /** Where the whole output of the commands the agent runs is written. */
  readonly terminalLogDir?: string;
  /** Hears what was refused or cut on the way (the workstation's log). */
  readonly log?: (line: string) => void;
  /** Where a turn's error is read back from when the agent's adapter drops it. */
  readonly storeErrors?: StoreErrors;
}

/** Frames the session produces; the journal has numbered and stored them already. */
export interface SessionOutput {
  event(frame: {
    t: 'agent_event';
    sessionRef: string;
    seq: number;
    eventName: string;
    payload: object;
  }): void;
  turnDone(frame: TurnDoneFrame): void;
  lost(sessionRef: string, action: string): void;
}

export interface TurnDoneFrame {
  t: 'agent_turn_done';
  sessionRef: string;
  seq: number;
  status: string;
  stopReason?: string;
  nativeSessionId?: string | null;
  error?: string | null;
  authMethods?: Refusal['authMethods'];
  errorCode?: number | null;
}

export class DrivenSession {
  private acp: AcpSession | undefined;
  private opening: Promise<{ ok: true; info: OpenedSession } | { ok: false; refusal: Refusal }> | undefined;
  private nativeId: string | null;
  private closing = false;
  /** The turn in flight, so stopping waits for its end to be journaled. */
  private current: Promise<TurnOutcome> | undefined;
  /** The commands the agent ran through the terminal capability: they outlive an agent restart. */
  readonly terminals: Terminals;

  constructor(
    readonly sessionRef: string,
    private readonly launch: SessionLaunch,
    private readonly journal: Journal,
    private readonly output: SessionOutput,
    nativeSessionId: string | null,
    /** Made as the agent's fork of another session, the first time it opens (it has no id yet). */
    private fork: ForkOpen | null = null,
  ) {
    this.nativeId = nativeSessionId;
    this.terminals = new Terminals({
      cwd: launch.cwd,
      env: launch.env,
      ...(launch.terminalLogDir ? { logDir: launch.terminalLogDir } : {}),
      ...(launch.track ? { track: launch.track } : {}),
      emit: (eventName, payload) => this.record(eventName, payload),
    });
  }

  get alive(): boolean {
    return this.acp?.alive === true;
  }

  get busy(): boolean {
    return this.acp?.busy === true;
  }

  get nativeSessionId(): string | null {
    return this.nativeId;
  }

  get pid(): number | undefined {
    return this.acp?.pid;
  }

  get info(): OpenedSession | undefined {
    return this.acp?.info;
  }

  /** Starts the agent (again) unless it runs; two calls at once share one start. */
  ensureOpen(): Promise<
    { ok: true; info: OpenedSession; reloaded: boolean } | { ok: false; refusal: Refusal }
  > {
    if (this.acp?.alive) return Promise.resolve({ ok: true, info: this.acp.info, reloaded: false });
    this.opening ??= this.start().finally(() => {
      this.opening = undefined;
    });
    return this.opening.then((r) => (r.ok ? { ...r, reloaded: true } : r));
  }

  private async start(): Promise<{ ok: true; info: OpenedSession } | { ok: false; refusal: Refusal }> {
    const { terminalLogDir: _logs, storeErrors: _store, ...launch } = this.launch;
    const opened = await AcpSessionClass.open({
      ...launch,
      terminals: this.terminals,
      nativeSessionId: this.nativeId,
      // Once the fork has an id of its own, a restart reopens that, never forks again.
      ...(this.nativeId === null && this.fork ? { fork: this.fork } : {}),
      onEvent: (eventName, payload) => this.record(eventName, payload),
      onExit: (reason) => this.onAgentExit(reason),
    });
    if (!opened.ok) return opened;
    this.acp = opened.session;
    this.fork = null;
    if (this.nativeId !== opened.session.nativeSessionId) {
      this.nativeId = opened.session.nativeSessionId;
      this.journal.setNativeSessionId(this.sessionRef, this.nativeId);
    }
    return { ok: true, info: opened.session.info };
  }

  /** Runs one turn to its end and records `agent_turn_done`; reopens a dead agent first. */
  async prompt(
    text: string,
    images: readonly ImageInput[] = [],
    resources: readonly PromptResource[] = [],
  ): Promise<TurnOutcome> {
    const opened = await this.ensureOpen();
    if (!opened.ok) {
      const outcome: TurnOutcome = { status: 'failed', ...opened.refusal };
      this.finishTurn(outcome);
      this.output.lost(this.sessionRef, 'reopen_failed');
      return outcome;
    }
    const { storeErrors, env, log } = this.launch;
    const readBack = await storeErrorCheck(storeErrors, env, this.nativeId, log);
    const acp = this.acp;
    if (!acp?.alive) {
      // It went while the store was marked.
      const outcome: TurnOutcome = { status: 'failed', message: 'the agent exited before the turn began' };
      this.finishTurn(outcome);
      return outcome;
    }
    if (acp.busy) {
      // Not a turn of its own: the server sent a prompt into a running one.
      return { status: 'failed', message: 'a turn is already running in this session' };
    }
    const turn = acp.prompt(text, images, resources).then(readBack);
    this.current = turn;
    const outcome = await turn;
    this.current = undefined;
    this.finishTurn(outcome);
    return outcome;
  }

  cancel(): void {
    this.acp?.cancel();
  }

  answer(requestId: string, outcome: string): boolean {
    return this.acp?.answer(requestId, outcome) ?? false;
  }

  steer(text: string, images: readonly ImageInput[], priority?: string) {
    if (!this.acp?.alive) return Promise.resolve({ ok: false as const, error: 'the agent is not running' });
    return this.acp.steer(text, images, priority);
  }

  setConfigOption(configId: string, value: string | boolean) {
    if (!this.acp?.alive) return Promise.resolve({ ok: false as const, error: 'the agent is not running' });
    return this.acp.setConfigOption(configId, value);
  }

  /** Ends the agent but keeps the session open in the journal, to be started again later. */
  async stopAgent(): Promise<void> {
    this.closing = true;
    await this.opening?.catch(() => {});
    await this.acp?.close();
    await this.current;
    // The turn's end is journaled on the next tick of `prompt`; let it run.
    await new Promise((resolve) => setImmediate(resolve));
  }

  /** Ends a command the agent started; false when the session has none by that id. */
  async killTerminal(id: string): Promise<boolean> {
    if (!this.terminals.has(id)) return false;
    await this.terminals.kill(id);
    return true;
  }

  async close(): Promise<void> {
    await this.stopAgent();
    await this.terminals.closeAll();
    this.journal.markClosed(this.sessionRef);
  }

  /**
   * Numbers and stores one event, then hands it on. Synchronous, so arrival order is seq order.
   * One too large to carry is cut first, so the journal and every resend hold the same thing.
   */
  private record(eventName: string, raw: Record<string, unknown>): void {
    const { payload, cutFrom } = fitEvent(raw);
    if (cutFrom !== undefined) {
      this.launch.log?.(
        `workstation: ${this.sessionRef}: a ${eventName} event of ${cutFrom} bytes was cut to fit the event limit`,
      );
    }
    const frame = this.journal.append(this.sessionRef, (seq) => ({
      t: 'agent_event' as const,
      sessionRef: this.sessionRef,
      seq,
      eventName,
      payload,
    }));
    this.output.event(frame);
  }

  private finishTurn(outcome: TurnOutcome): void {
    if (outcome.status !== 'failed' && outcome.usage) this.record('turn_usage', { usage: outcome.usage });
    const frame = this.journal.append(this.sessionRef, (seq): TurnDoneFrame => {
      const done: TurnDoneFrame = {
        t: 'agent_turn_done',
        sessionRef: this.sessionRef,
        seq,
        status: outcome.status,
        nativeSessionId: this.nativeId,
      };
      if (outcome.status !== 'failed') done.stopReason = outcome.stopReason;
      else {
        done.error = outcome.message;
        if (outcome.errorCode !== undefined) done.errorCode = outcome.errorCode;
        if (outcome.authMethods !== undefined) done.authMethods = outcome.authMethods;
      }
      return done;
    });
    this.output.turnDone(frame);
  }

  private onAgentExit(reason: string): void {
    this.acp = undefined;
    if (this.closing) return;
    this.record('agent_exited', { reason });
    this.output.lost(this.sessionRef, 'agent_exited');
  }
}
