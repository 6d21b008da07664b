// One chat session at run time: the agent session it drives over the agent wire, the tabs that
// watch it, its turn in flight (buffered so a tab that arrives mid-turn can rebuild it), its queue,
// its pending permissions, its loop and interval scheduler. Agent events become the browser's
// ServerEvents here, and the messages are persisted as each turn ends.
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import {
  API_KEY_QUERY,
  type AppliedPermissionRule,
  type ChatCommand,
  DEV_PROCESS_EVENT,
  DEV_PROCESS_OUTPUT_EVENT,
  KILL_DEV_PROCESS_OPTION,
  type PromptResource,
} from '@cairn/protocol';
import type { AgentWireServer, DriveNotice } from '../drive/agent-wire-server.js';
import type { ChatSessionRow, ChatStore, ImageRow, MessageRow } from './chat-store.js';
import { DevProcesses } from './dev-processes.js';
import { type HistoryLimits, historyFrames } from './history-frames.js';
import { type PermissionRuleStore, ruleAnswer, suggestionsFor } from './permission-rule-store.js';
import { ProjectFileError, resolveProjectFile } from './project-files.js';
import { type RunFlags, RunTracker } from './run-state.js';

export type Event = { type: string } & Record<string, unknown>;

export interface ChatSocket {
  send(event: Event): void;
}

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export const MAX_LOOP_ITERATIONS = 25;
/** The most prompts a session's queue holds; one more is refused with a message. */
export const MAX_QUEUE = 50;
const DEFAULT_LOOP_ITERATIONS = 10;
export const LOOP_DONE = '<LOOP_DONE>';
const AUTH_REQUIRED = -32000;

export interface ChatDeps {
  readonly store: ChatStore;
  readonly wire: AgentWireServer;
  readonly workstation: string;
  readonly clock: Clock;
  readonly log: (line: string) => void;
  /** When a history goes in chunks rather than whole in `session_ready`; the defaults otherwise. */
  readonly historyLimits?: HistoryLimits;
  /** Permission rules remembered per project; without it every request goes to the page. */
  readonly rules?: PermissionRuleStore;
}

export interface UserMessage {
  content: string;
  images?: ImageRow[];
  loop?: boolean;
  loopMaxIterations?: number;
  loopGoal?: string;
  intervalMinutes?: number;
  loopControl?: 'run_now' | 'stop';
  /** Project files, relative to the session's folder, handed to the agent with the prompt. */
  files?: string[];
}

interface QueueItem {
  id: string;
  content: string;
  images?: ImageRow[];
  position: number;
  createdAt: string;
}

interface Turn {
  messageId: string;
  startedAt: number;
  firstDeltaAt?: number;
  /** Text and thinking chunks streamed so far. */
  deltas?: number;
  events: Event[];
  text: string;
  thinking: boolean;
  /** Each call of the turn as last shown: its name and input. */
  tools: Map<string, { name: string; args: unknown }>;
  usage?: Record<string, unknown>;
}

interface Opened {
  configOptions: unknown[] | null;
  supportsSteering: boolean;
  supportsImageInput: boolean;
}

export class ChatSession {
  private readonly sockets = new Set<ChatSocket>();
  private readonly run = new RunTracker();
  private opened: Opened | undefined;
  private opening: Promise<boolean> | undefined;
  private turn: Turn | undefined;
  private readonly queue: QueueItem[] = [];
  private readonly permissions = new Map<string, Event>();
  /** Requests a permission rule answered, until the agent says they are settled. */
  private readonly ruled = new Map<string, { request: Event; applied: AppliedPermissionRule }>();
  private signIn: Event | null = null;
  private contextUsed: number | null = null;
  private contextMax: number | null = null;
  private loop: { iteration: number; max: number; goal: string | null } | undefined;
  private interval:
    | {
        minutes: number;
        hasLoop: boolean;
        goal: string | null;
        content: string;
        count: number;
        nextAt: number;
        timer: unknown;
      }
    | undefined;
  private stopping = false;
  private readonly devProcesses = new DevProcesses();
  /** Why the agent's last start failed; a tab that attaches is told, and the next prompt tries again. */
  private startError: string | undefined;
  /** A prompt is on its way to the agent (waiting for it to start); more prompts queue. */
  private starting = false;
  /** A chosen config value the last start could not set again: the next prompt is refused. */
  private configFailure: string | undefined;
  /** The queue_changed of this macrotask's edits, sent once they are done. */
  private queueFlush: NodeJS.Immediate | undefined;
  private readonly unsubscribe: (() => void)[] = [];
  /** The slash commands the agent announced last; undefined until it announces any. */
  private commands: ChatCommand[] | undefined;
  /** The files of queued prompts, by queue id: kept off the queue's rows, which the tabs see. */
  private readonly queuedFiles = new Map<string, string[]>();

  constructor(
    private row: ChatSessionRow,
    private readonly cwd: string,
    private readonly deps: ChatDeps,
  ) {
    this.unsubscribe.push(deps.wire.subscribe(row.id, (notice) => this.onNotice(notice)));
    // A workstation that went away may come back as a new process whose agent session has lost
    // the chosen config: open it again (and set them again) before the next prompt.
    this.unsubscribe.push(
      deps.wire.onWorkstationsChanged(() => {
        if (!deps.wire.workstations().includes(deps.workstation)) this.opened = undefined;
      }),
    );
  }

  get id(): string {
    return this.row.id;
  }

  /** Why the agent's last start failed, if it did. */
  get problem(): string | undefined {
    return this.startError;
  }

  get busy(): boolean {
    return this.starting || this.run.state().busy;
  }

  /**
   * A tab: it gets the whole state now, history first, and every event from here on. The agent
   * starts behind it; the tabs see the start as pending and get the state again once it is up.
   */
  attach(socket: ChatSocket): void {
    this.sockets.add(socket);
    this.sendReady(socket);
    if (this.opened) return;
    if (this.opening) socket.send(this.startingNotice());
    else if (this.startError !== undefined) socket.send({ type: 'error', message: this.startError });
    else if (!this.deps.wire.workstations().includes(this.deps.workstation))
      // Nothing to start on: said plainly, and the history stays readable meanwhile.
      socket.send({
        type: 'agent_notification',
        level: 'warning',
        message: `The workstation ${this.deps.workstation} is not connected: the agent starts when a message is sent once it is back.`,
      });
    else void this.ensureOpen();
  }

  detach(socket: ChatSocket): void {
    this.sockets.delete(socket);
  }

  /** A ClientMessage from a tab, already validated. */
  async receive(message: Event): Promise<void> {
    switch (message.type) {
      case 'user_message':
        return this.onUserMessage(message as unknown as UserMessage);
      case 'stop':
        this.stopping = true;
        if (this.loop) this.endLoop();
        this.deps.wire.interrupt(this.row.id);
        return;
      case 'steer':
        return this.onSteer(String(message.content ?? ''), (message.images as ImageRow[] | undefined) ?? []);
      case 'permission_answer': {
        const requestId = String(message.requestId);
        if (!this.permissions.has(requestId)) return; // settled already: the first answer won
        this.deps.wire.answer(this.row.id, requestId, String(message.optionId));
        return;
      }
      case 'permission_remember':
        return this.rememberRule(String(message.requestId), String(message.rule));
      case 'queue_remove':
        return this.editQueue(() => {
          const at = this.queue.findIndex((q) => q.id === message.id);
          if (at >= 0) this.queue.splice(at, 1);
          this.queuedFiles.delete(String(message.id));
        });
      case 'queue_edit':
        return this.editQueue(() => {
          const item = this.queue.find((q) => q.id === message.id);
          if (item) item.content = String(message.content);
        });
      case 'queue_clear':
        return this.editQueue(() => {
          this.queue.length = 0;
          this.queuedFiles.clear();
        });
      case 'dev_process_kill':
        return this.killDevProcess(String(message.processId));
      case 'sign_in':
        return this.onSignIn(
          String(message.methodId),
          typeof message.key === 'string' ? message.key : undefined,
        );
      case 'set_config_option': {
        if (!(await this.ensureOpen())) return;
        const reply = await this.deps.wire.setConfigOption(
          this.row.id,
          String(message.configId),
          message.value as string | boolean,
        );
        if (reply.ok) {
          // Kept, to be set again whenever the agent session is opened anew (a restart, a reconnect).
          this.deps.store.setConfigValue(
            this.row.id,
            String(message.configId),
            message.value as string | boolean,
          );
          this.configFailure = undefined;
          if (this.opened) this.opened.configOptions = reply.configOptions ?? this.opened.configOptions;
          this.broadcast({ type: 'config_options', configOptions: reply.configOptions ?? [] });
        } else this.broadcast({ type: 'error', message: reply.error ?? 'the agent refused the option' });
        return;
      }
      default:
        this.broadcast({ type: 'error', message: `unknown message type ${String(message.type)}` });
    }
  }

  /** Ends the scheduler; the agent session stays for the next tab. */
  dispose(): void {
    this.stopInterval(false);
    if (this.queueFlush) clearImmediate(this.queueFlush);
    for (const off of this.unsubscribe.splice(0)) off();
  }

  /** The opening: whole, or in chunks when the history is long; back to back either way. */
  private sendReady(socket: ChatSocket): void {
    for (const frame of historyFrames(this.ready(), this.deps.historyLimits)) socket.send(frame);
  }

  private ready(): Event & { history: unknown[] } {
    const history = this.deps.store.messages(this.row.id).map(toWire);
    return {
      type: 'session_ready',
      sessionId: this.row.id,
      history,
      totalMessageCount: history.length,
      currentTurn: this.turn
        ? { turnId: this.turn.messageId, startedAt: this.turn.startedAt, events: [...this.turn.events] }
        : null,
      contextWindowUsed: this.contextUsed,
      contextWindowMax: this.contextMax,
      intervalActive: this.interval !== undefined,
      intervalMinutes: this.interval?.minutes ?? null,
      intervalNextTickAt: this.interval?.nextAt ?? null,
      intervalLaunchCount: this.interval?.count ?? 0,
      intervalHasLoop: this.interval?.hasLoop ?? false,
      intervalGoal: this.interval?.goal ?? null,
      runState: this.run.state(),
      agent: this.row.agent,
      configOptions: this.opened?.configOptions ?? null,
      // Until the agent is up, what its adapter is known to advertise.
      supportsSteering: this.opened?.supportsSteering ?? this.bridge()?.supportsSteering === true,
      supportsImageInput: this.opened?.supportsImageInput ?? this.bridge()?.supportsImageInput === true,
      queue: this.queue.map((q) => ({ ...q })),
      pendingPermissions: [...this.permissions.values()],
      settledPermissions: this.deps.store.settledPermissions(this.row.id),
      signIn: this.signIn,
      devProcesses: this.devProcesses.list(),
      ...(this.commands ? { availableCommands: this.commands } : {}),
    };
  }

  private async killDevProcess(processId: string): Promise<void> {
    const dev = this.devProcesses.get(processId);
    if (dev?.status !== 'running') {
      this.broadcast({ type: 'error', message: `no running dev process ${processId} in this session` });
      return;
    }
    const reply = await this.deps.wire.setConfigOption(this.row.id, KILL_DEV_PROCESS_OPTION, processId);
    if (!reply.ok) this.broadcast({ type: 'error', message: `could not end ${dev.label}: ${reply.error}` });
  }

  /** Opens the agent session once (again after it was lost); false when the agent refused. */
  private ensureOpen(): Promise<boolean> {
    if (this.opened) return Promise.resolve(true);
    this.opening ??= this.open().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  private bridge() {
    return this.deps.wire.roster(this.deps.workstation).find((b) => b.key === this.row.agent);
  }

  private startingNotice(): Event {
    return {
      type: 'agent_notification',
      level: 'info',
      message: `Starting ${this.bridge()?.name ?? this.row.agent}…`,
    };
  }

  private async open(): Promise<boolean> {
    this.broadcast(this.startingNotice());
    const reply = await this.deps.wire.open({
      workstation: this.deps.workstation,
      sessionRef: this.row.id,
      agentKey: this.row.agent,
      bridge: this.row.agent,
      cwd: this.cwd,
      ...(this.row.nativeSessionId ? { nativeSessionId: this.row.nativeSessionId } : {}),
    });
    if (!reply.ok) {
      if (reply.errorCode === AUTH_REQUIRED) {
        this.startError = undefined;
        this.showSignIn(reply.error ?? 'sign-in needed', reply.authMethods ?? []);
      } else {
        // Said once; prompts do not each wait out another start. The next one tries again.
        const failed = `${this.row.agent} did not start: ${reply.error ?? 'unknown error'}.`;
        this.startError = `${failed} The next message starts it again.`;
        this.broadcast({
          type: 'error',
          message: this.starting
            ? `${failed} The message was not sent; send it again to retry.`
            : this.startError,
        });
      }
      return false;
    }
    this.startError = undefined;
    this.signIn = null;
    const opened: Opened = {
      configOptions: (reply.configOptions as unknown[] | null | undefined) ?? null,
      supportsSteering: reply.supportsSteering === true,
      supportsImageInput: reply.supportsImageInput === true,
    };
    if (reply.nativeSessionId && reply.nativeSessionId !== this.row.nativeSessionId) {
      this.deps.store.setNativeSessionId(this.row.id, reply.nativeSessionId);
      this.row = { ...this.row, nativeSessionId: reply.nativeSessionId };
    }
    const failure = await this.applyChosenConfig(opened);
    this.opened = opened;
    // The tabs that attached while it started learn what the agent can do, and its options.
    for (const socket of this.sockets) this.sendReady(socket);
    if (failure) {
      this.configFailure = failure;
      this.broadcast({ type: 'error', message: `${failure}.` });
    }
    return true;
  }

  /**
   * Sets the config values chosen in this chat (mode, model, …) on a session just opened, which
   * may have started with the agent's defaults. Returns what could not be set, else undefined;
   * a value that cannot be set any more is forgotten once the person has been told.
   */
  private async applyChosenConfig(opened: Opened): Promise<string | undefined> {
    const failures: string[] = [];
    for (const { configId, value } of this.deps.store.configValues(this.row.id)) {
      const options = (opened.configOptions ?? []) as {
        id?: unknown;
        name?: unknown;
        currentValue?: unknown;
      }[];
      const option = options.find((o) => o.id === configId);
      if (option?.currentValue === value) continue;
      const reply = await this.deps.wire.setConfigOption(this.row.id, configId, value);
      if (reply.ok) {
        opened.configOptions = reply.configOptions ?? opened.configOptions;
        continue;
      }
      const name = typeof option?.name === 'string' ? `${option.name} (${configId})` : configId;
      failures.push(
        `${name} could not be set back to ${JSON.stringify(value)} (${reply.error ?? 'refused'})`,
      );
      this.deps.store.forgetConfigValue(this.row.id, configId);
    }
    if (failures.length === 0) return undefined;
    return `This chat's ${failures.join('; ')} when the agent session was opened again; the agent's own setting applies now`;
  }

  /**
   * A method of the sign-in card, used: a key is handed to the workstation to keep for the agent
   * (the agent starts again with it before the next prompt); any other method is started on the
   * workstation, and an address the agent gives is put on the card. The key is in no frame that
   * leaves here and in no log line.
   */
  private async onSignIn(methodId: string, key: string | undefined): Promise<void> {
    const agent = this.row.agent;
    const name = this.bridge()?.name ?? agent;
    const reply = await this.deps.wire.authenticate(
      this.deps.workstation,
      agent,
      methodId,
      key === undefined ? {} : { [API_KEY_QUERY]: key },
      (step) => {
        if (step.url === undefined || this.signIn === null) return;
        this.signIn = { ...this.signIn, url: step.url };
        this.broadcast(this.signIn);
      },
    );
    if (!reply.ok) {
      this.broadcast({
        type: 'sign_in_result',
        agent,
        methodId,
        ok: false,
        message: reply.error ?? 'the sign-in failed',
      });
      return;
    }
    // The agent runs again with what the sign-in changed before the next prompt.
    this.opened = undefined;
    this.signIn = null;
    this.startError = undefined;
    this.broadcast({
      type: 'sign_in_result',
      agent,
      methodId,
      ok: true,
      message:
        key === undefined
          ? `${name} is signed in. Send your message again.`
          : `The key is kept for ${name}. Send your message again.`,
    });
  }

  /**
   * "Always allow" on a card: the rule (one the card offered) is kept for this project, and the
   * request is allowed once; later requests it covers are answered by it.
   */
  private rememberRule(requestId: string, rule: string): void {
    const request = this.permissions.get(requestId);
    if (!request || !this.deps.rules) return; // settled already: the first answer won
    const offered = (request.rememberable as { rule: string }[] | undefined) ?? [];
    if (!offered.some((s) => s.rule === rule)) {
      this.broadcast({ type: 'error', message: `the card offered no rule ${rule} to remember` });
      return;
    }
    const options = request.options as { optionId: string; kind: string }[];
    const allow =
      options.find((o) => o.kind === 'allow_once') ?? options.find((o) => o.kind === 'allow_always');
    if (!allow) {
      this.broadcast({ type: 'error', message: 'the agent offered no way to allow this call' });
      return;
    }
    this.deps.rules.remember(this.cwd, 'allow', rule);
    this.deps.wire.answer(this.row.id, requestId, allow.optionId);
  }

  private showSignIn(message: string, methods: unknown[]): void {
    this.signIn = { type: 'sign_in_required', agent: this.row.agent, message, methods };
    this.broadcast(this.signIn);
  }

  private async onUserMessage(message: UserMessage): Promise<void> {
    if (message.loopControl) {
      if (message.loopControl === 'stop') this.stopInterval(true);
      else this.fireInterval(true);
      return;
    }
    const content = message.content ?? '';
    if (content.trim() === '' && (message.images ?? []).length === 0) return;
    if (message.intervalMinutes !== undefined) {
      this.armInterval(message);
      return;
    }
    if (this.busy || this.turn) {
      this.enqueue(content, message.images, message.files);
      return;
    }
    if (message.loop) {
      const max = Math.min(
        Math.max(1, Math.trunc(message.loopMaxIterations ?? DEFAULT_LOOP_ITERATIONS)),
        MAX_LOOP_ITERATIONS,
      );
      this.loop = { iteration: 1, max, goal: message.loopGoal ?? null };
      this.setFlags({ looping: true });
      this.broadcast({ type: 'loop_iteration', iteration: 1, maxIterations: max, prompt: content });
      await this.startTurn(content, message.images ?? [], loopInstruction(message.loopGoal));
      return;
    }
    await this.startTurn(content, message.images ?? [], '', message.files);
  }

  /** Persists and shows the prompt, then sends it; `suffix` goes to the agent only. */
  private async startTurn(
    content: string,
    images: ImageRow[],
    suffix = '',
    files: readonly string[] = [],
  ): Promise<void> {
    // Busy before the first await: a message that arrives while the agent starts queues behind
    // this one instead of starting a turn of its own. The tabs see the run once the prompt is kept.
    this.starting = true;
    this.stopping = false;
    let refusal: string | undefined;
    let resources: PromptResource[] = [];
    try {
      refusal = await this.refusal(images);
      if (refusal === undefined && files.length > 0) {
        const attached = await this.attachedFiles(files);
        if (typeof attached === 'string') refusal = attached;
        else resources = attached;
      }
    } finally {
      this.starting = false;
    }
    if (refusal === undefined && this.stopping)
      refusal = 'Stopped before the agent had started: the message was not sent.';
    if (refusal !== undefined) {
      if (refusal) this.broadcast({ type: 'error', message: refusal });
      this.endLoop();
      return;
    }
    const first = this.deps.store.messages(this.row.id).every((m) => m.role !== 'user');
    this.appendUser(content, images, first);
    if (first && this.row.title === 'New chat') this.rename(titleOf(content));
    this.run.startRun();
    const now = this.deps.clock.now();
    this.turn = {
      messageId: randomUUID(),
      startedAt: now,
      events: [],
      text: '',
      thinking: false,
      tools: new Map(),
    };
    this.emitTurn({ type: 'message_start', messageId: this.turn.messageId, role: 'assistant' });
    this.setFlags({ streaming: true });
    const sent = this.deps.wire.prompt(
      this.row.id,
      `${content}${suffix}`,
      images.map((i) => ({ type: 'image' as const, data: i.data!, mimeType: i.mimeType })),
      resources,
    );
    if (!sent.ok) this.finishTurn('error', sent.error);
  }

  /** The prompt's files as the agent gets them, or why one cannot go. */
  private async attachedFiles(files: readonly string[]): Promise<PromptResource[] | string> {
    const resources: PromptResource[] = [];
    for (const name of new Set(files)) {
      try {
        resources.push({ uri: pathToFileURL(await resolveProjectFile(this.cwd, name)).href, name });
      } catch (error) {
        if (!(error instanceof ProjectFileError)) throw error;
        return `${error.message}: the message was not sent.`;
      }
    }
    return resources;
  }

  /** Why a prompt cannot go to the agent now ('' when that was said already), else undefined. */
  private async refusal(images: ImageRow[]): Promise<string | undefined> {
    if (!(await this.ensureOpen())) return '';
    if (this.configFailure !== undefined) {
      const failure = this.configFailure;
      this.configFailure = undefined;
      return `${failure}. The message was not sent: check the setting and send it again.`;
    }
    if (images.length > 0 && !this.opened?.supportsImageInput)
      return `${this.row.agent} does not take images; the message was not sent`;
    if (images.some((i) => i.data === undefined)) return 'only inline images can be sent to an agent';
    return undefined;
  }

  private appendUser(content: string, images: ImageRow[], isFirstUserMessage: boolean): void {
    const message = this.deps.store.addMessage({
      id: randomUUID(),
      sessionId: this.row.id,
      role: 'user',
      content,
      events: '',
      createdAt: this.deps.clock.now(),
      images,
      outputTokens: null,
      durationMs: null,
      tokensPerSecond: null,
      ttftMs: null,
    });
    this.broadcast({ type: 'user_message_appended', message: toWire(message), isFirstUserMessage });
  }

  private rename(title: string): void {
    this.deps.store.rename(this.row.id, title);
    // A title the person chose stands over the agent's.
    if (this.row.renamed) return;
    this.row = { ...this.row, title };
    this.broadcast({ type: 'session_renamed', sessionId: this.row.id, title });
  }

  /** The person renamed the chat (already kept): the tabs show it at once. */
  renamedByPerson(title: string): void {
    this.row = { ...this.row, title, renamed: true };
    this.broadcast({ type: 'session_renamed', sessionId: this.row.id, title });
  }

  private async onSteer(content: string, images: ImageRow[]): Promise<void> {
    if (content.trim() === '') return;
    if (!this.turn) {
      await this.onUserMessage({ content, images });
      return;
    }
    if (this.opened?.supportsSteering && (images.length === 0 || this.opened.supportsImageInput)) {
      const reply = await this.deps.wire.steer(
        this.row.id,
        content,
        images.flatMap((i) =>
          i.data ? [{ type: 'image' as const, data: i.data, mimeType: i.mimeType }] : [],
        ),
      );
      if (reply.ok) {
        this.splitTurnAt(content, images);
        this.broadcast({ type: 'steer_result', ok: true, outcome: 'injected' });
        return;
      }
      this.deps.log(`chat: steer refused, queued instead: ${reply.error}`);
    }
    if (this.queue.length >= MAX_QUEUE) {
      this.broadcast({ type: 'steer_result', ok: false, error: queueFull() });
      return;
    }
    this.enqueue(content, images);
    this.broadcast({ type: 'steer_result', ok: true, outcome: 'queued' });
  }

  /**
   * The agent took a steer into its running turn. What it said so far ends there, kept as a message
   * of its own; the steer's message follows it; what the agent says next is a new message of the
   * same turn. So the three read in the order they happened, live and after a reload alike, and the
   * cut-off text never runs into the reply that follows.
   */
  private splitTurnAt(content: string, images: ImageRow[]): void {
    const turn = this.turn;
    if (!turn) {
      this.appendUser(content, images, false);
      return;
    }
    this.endThinking();
    const end = this.deps.clock.now();
    // No stop reason: the part was not stopped, the turn goes on after the steer.
    this.emitTurn({ type: 'message_end', messageId: turn.messageId });
    // A part with nothing in it yet (the steer came before the agent's first word) is not kept;
    // a tab drops the empty message it ended.
    const said = turn.events.some((e) => e.type !== 'message_start' && e.type !== 'message_end');
    const timing = turnTiming(turn, end, { outputTokens: 0 });
    if (said)
      this.deps.store.addMessage({
        id: turn.messageId,
        sessionId: this.row.id,
        role: 'assistant',
        content: turn.text,
        events: turn.events.map((e) => JSON.stringify(e)).join('\n'),
        createdAt: turn.startedAt,
        images: [],
        outputTokens: null,
        durationMs: timing.durationMs,
        tokensPerSecond: null,
        ttftMs: timing.ttftMs,
      });
    this.appendUser(content, images, false);
    turn.messageId = randomUUID();
    turn.startedAt = end;
    turn.firstDeltaAt = undefined;
    turn.deltas = 0;
    turn.events = [];
    turn.text = '';
    this.emitTurn({ type: 'message_start', messageId: turn.messageId, role: 'assistant' });
  }

  /** A full queue refuses the message, and the tabs are told. */
  private enqueue(content: string, images?: ImageRow[], files?: string[]): void {
    if (this.queue.length >= MAX_QUEUE) {
      this.broadcast({ type: 'error', message: queueFull() });
      return;
    }
    const id = randomUUID();
    if (files && files.length > 0) this.queuedFiles.set(id, files);
    this.editQueue(() => {
      this.queue.push({
        id,
        content,
        ...(images && images.length > 0 ? { images } : {}),
        position: this.queue.length,
        createdAt: new Date(this.deps.clock.now()).toISOString(),
      });
    });
  }

  /**
   * The contract's queue_changed carries the whole queue, so a burst of edits (a paste of many
   * prompts) is sent as one, after the burst: traffic grows with the edits, not their square.
   */
  private editQueue(change: () => void): void {
    change();
    this.queue.forEach((q, i) => {
      q.position = i;
    });
    this.setFlags({ queued: this.queue.length > 0 });
    this.queueFlush ??= setImmediate(() => {
      this.queueFlush = undefined;
      this.broadcast({ type: 'queue_changed', queue: this.queue.map((q) => ({ ...q })) });
    });
  }

  private onNotice(notice: DriveNotice): void {
    if (notice.kind === 'lost') {
      this.opened = undefined;
      if (this.turn) this.finishTurn('error', notice.error);
      return;
    }
    const { eventName, payload } = notice.event;
    // biome-ignore lint/suspicious/noExplicitAny: an agent's payload, read field by field with checks
    const p = payload as Record<string, any>;
    switch (eventName) {
      case 'usage_update':
        this.contextUsed = typeof p.used === 'number' ? p.used : this.contextUsed;
        this.contextMax = typeof p.size === 'number' ? p.size : this.contextMax;
        return;
      case 'session_info_update':
        if (typeof p.title === 'string' && p.title.trim() !== '' && p.title !== this.row.title)
          this.rename(p.title.trim());
        return;
      case 'available_commands_update':
        if (Array.isArray(p.availableCommands)) {
          this.commands = chatCommands(p.availableCommands);
          this.broadcast({ type: 'available_commands', commands: this.commands });
        }
        return;
      case 'config_option_update':
        if (Array.isArray(p.configOptions)) {
          if (this.opened) this.opened.configOptions = p.configOptions;
          this.broadcast({ type: 'config_options', configOptions: p.configOptions });
        }
        return;
      case 'permission_request': {
        const event: Event = {
          type: 'permission_request',
          requestId: String(p.requestId),
          toolCall: {
            id: String(p.toolCall?.toolCallId ?? ''),
            title: String(p.toolCall?.title ?? 'The agent asks'),
            ...(typeof p.toolCall?.kind === 'string' ? { kind: p.toolCall.kind } : {}),
            ...(p.toolCall?.rawInput !== undefined ? { args: p.toolCall.rawInput } : {}),
          },
          options: (Array.isArray(p.options) ? p.options : []).map((o: Record<string, unknown>) => ({
            optionId: String(o.optionId),
            name: String(o.name),
            kind: String(o.kind),
          })),
        };
        // A remembered rule (or config.json's) answers before any page is asked.
        const ruled = this.deps.rules && ruleAnswer(this.deps.rules, this.cwd, p.toolCall, event);
        if (ruled) {
          this.ruled.set(String(p.requestId), { request: event, applied: ruled.applied });
          this.broadcast(ruled.line);
          this.deps.wire.answer(this.row.id, String(p.requestId), ruled.optionId);
          return;
        }
        const rememberable = this.deps.rules ? suggestionsFor(p.toolCall, this.cwd) : [];
        if (rememberable.length > 0) event.rememberable = rememberable;
        this.permissions.set(String(p.requestId), event);
        this.broadcast(event);
        return;
      }
      case 'permission_settled': {
        const requestId = String(p.requestId);
        const optionId = String(p.outcome);
        const by = String(p.by === 'close' ? 'cancel' : p.by);
        const request = this.permissions.get(requestId);
        this.permissions.delete(requestId);
        if (request) this.deps.store.settlePermission(this.row.id, { request, optionId, by });
        const ruled = this.ruled.get(requestId);
        this.ruled.delete(requestId);
        if (ruled)
          this.deps.store.settlePermission(this.row.id, {
            request: ruled.request,
            optionId,
            by,
            rule: ruled.applied,
          });
        this.broadcast({ type: 'permission_settled', requestId, optionId, by });
        return;
      }
      case DEV_PROCESS_EVENT: {
        const dev = this.devProcesses.update(p.process);
        if (dev) {
          const change = p.change === 'started' || p.change === 'killed' ? p.change : 'exited';
          this.broadcast({ type: 'dev_processes_changed', processId: dev.id, process: dev, change });
        }
        return;
      }
      case DEV_PROCESS_OUTPUT_EVENT: {
        const output = this.devProcesses.output(String(p.processId), String(p.chunk ?? ''));
        if (output) this.broadcast({ type: 'dev_process_output', ...output });
        return;
      }
      case 'turn_usage':
        if (this.turn) this.turn.usage = p.usage as Record<string, unknown>;
        return;
      case 'agent_turn_done':
        this.onTurnDone(p);
        return;
    }
    // The rest belongs to a turn; outside one it is an agent replaying its history on reopen,
    // which the chat already holds.
    const turn = this.turn;
    if (!turn) return;
    switch (eventName) {
      case 'agent_message_chunk':
        if (p.content?.type !== 'text') return;
        this.endThinking();
        this.firstDelta();
        turn.text += p.content.text;
        this.emitTurn({ type: 'text_delta', messageId: turn.messageId, delta: p.content.text });
        return;
      case 'agent_thought_chunk':
        if (p.content?.type !== 'text') return;
        this.firstDelta();
        if (!turn.thinking) {
          turn.thinking = true;
          this.emitTurn({ type: 'thinking_start', messageId: turn.messageId });
        }
        this.emitTurn({ type: 'thinking_delta', messageId: turn.messageId, delta: p.content.text });
        return;
      case 'tool_call': {
        this.endThinking();
        const id = String(p.toolCallId);
        const shown = { name: String(p.title ?? p.kind ?? 'tool'), args: p.rawInput ?? {} };
        turn.tools.set(id, shown);
        this.emitTurn({
          type: 'tool_call',
          messageId: turn.messageId,
          id,
          ...shown,
          startedAt: this.deps.clock.now(),
        });
        return;
      }
      case 'tool_call_update': {
        const id = String(p.toolCallId);
        const known = turn.tools.get(id);
        const title = typeof p.title === 'string' && p.title !== '' ? p.title : undefined;
        // New, or named or given its input only now (an agent may fill a call in as it runs):
        // the call again under its id, which a tab updates in place.
        if (
          known === undefined ||
          (title !== undefined && title !== known.name) ||
          p.rawInput !== undefined
        ) {
          const shown = {
            name: title ?? known?.name ?? String(p.kind ?? 'tool'),
            args: p.rawInput ?? known?.args ?? {},
          };
          turn.tools.set(id, shown);
          this.emitTurn({
            type: 'tool_call',
            messageId: turn.messageId,
            id,
            ...shown,
            startedAt: this.deps.clock.now(),
          });
        }
        if (p.status === 'completed' || p.status === 'failed') {
          this.emitTurn({
            type: 'tool_result',
            messageId: turn.messageId,
            id,
            result: p.rawOutput ?? p.content ?? null,
            ...(p.status === 'failed' ? { isError: true } : {}),
            finishedAt: this.deps.clock.now(),
          });
        }
        return;
      }
    }
  }

  private firstDelta(): void {
    if (!this.turn) return;
    this.turn.deltas = (this.turn.deltas ?? 0) + 1;
    if (this.turn.firstDeltaAt === undefined) this.turn.firstDeltaAt = this.deps.clock.now();
  }

  private endThinking(): void {
    if (this.turn?.thinking) {
      this.turn.thinking = false;
      this.emitTurn({ type: 'thinking_end', messageId: this.turn.messageId });
    }
  }

  // biome-ignore lint/suspicious/noExplicitAny: the turn end's payload, read field by field with checks
  private onTurnDone(p: Record<string, any>): void {
    if (!this.turn) return;
    if (p.status === 'completed') {
      this.finishTurn(p.stopReason === 'max_tokens' ? 'length' : 'stop');
    } else if (p.status === 'cancelled') {
      this.finishTurn('aborted');
    } else {
      if (p.errorCode === AUTH_REQUIRED)
        this.showSignIn(String(p.error ?? 'sign-in needed'), p.authMethods ?? []);
      this.finishTurn('error', String(p.error ?? 'the turn failed'));
    }
  }

  /** Ends the turn: message_end, token_usage, the persisted message, then what comes next. */
  private finishTurn(stopReason: 'stop' | 'length' | 'aborted' | 'error', errorMessage?: string): void {
    const turn = this.turn;
    if (!turn) return;
    this.endThinking();
    const end = this.deps.clock.now();
    this.emitTurn({
      type: 'message_end',
      messageId: turn.messageId,
      stopReason,
      ...(stopReason === 'length' ? { truncated: true } : {}),
      ...(errorMessage ? { errorMessage } : {}),
    });
    const timing = turnTiming(turn, end, usageOf(turn.usage));
    // The timings are the chat's own and known for every agent that streamed; the token counts
    // only when the agent reported them (all zero otherwise, which a tab reads as not known).
    if (turn.usage || timing.ttftMs !== null) {
      const usage = usageOf(turn.usage);
      this.emitTurn({
        type: 'token_usage',
        messageId: turn.messageId,
        usage: { ...usage, cost: null, creditsUsed: 0 },
        contextWindowUsed: this.contextUsed,
        contextWindowMax: this.contextMax,
        ...timing,
      });
    }
    if (errorMessage) this.emitTurn({ type: 'error', message: errorMessage });
    this.deps.store.addMessage({
      id: turn.messageId,
      sessionId: this.row.id,
      role: 'assistant',
      content: turn.text,
      events: turn.events.map((e) => JSON.stringify(e)).join('\n'),
      createdAt: turn.startedAt,
      images: [],
      outputTokens: turn.usage ? usageOf(turn.usage).outputTokens : null,
      durationMs: timing.durationMs,
      tokensPerSecond: timing.tokensPerSecond,
      ttftMs: timing.ttftMs,
    });
    this.turn = undefined;
    this.broadcast({ type: 'agent_end' });
    this.setFlags({ streaming: false });
    this.afterTurn(stopReason, turn.text);
  }

  /** The loop's next iteration, else the queue's next message, else idle. */
  private afterTurn(stopReason: string, text: string): void {
    if (this.loop) {
      if (stopReason !== 'stop' || this.stopping) this.endLoop();
      else if (text.includes(LOOP_DONE)) {
        this.broadcast({ type: 'loop_complete', iterations: this.loop.iteration });
        this.endLoop();
      } else if (this.loop.iteration >= this.loop.max) {
        this.broadcast({ type: 'loop_max_iterations', iterations: this.loop.iteration });
        this.endLoop();
      } else {
        this.loop.iteration += 1;
        const prompt = `Continue. When the task is complete, write ${LOOP_DONE}.`;
        this.broadcast({
          type: 'loop_iteration',
          iteration: this.loop.iteration,
          maxIterations: this.loop.max,
          prompt,
        });
        void this.startTurn(prompt, [], this.loop.goal ? `\nGoal: ${this.loop.goal}` : '');
        return;
      }
    }
    if (this.stopping) return;
    const next = this.queue[0];
    if (next) {
      this.editQueue(() => this.queue.shift());
      const files = this.queuedFiles.get(next.id) ?? [];
      this.queuedFiles.delete(next.id);
      void this.startTurn(next.content, next.images ?? [], '', files);
    }
  }

  private endLoop(): void {
    this.loop = undefined;
    this.setFlags({ looping: false });
  }

  private armInterval(message: UserMessage): void {
    this.stopInterval(false);
    const minutes = Math.max(1, Math.trunc(message.intervalMinutes ?? 1));
    this.interval = {
      minutes,
      hasLoop: message.loop === true,
      goal: message.loopGoal ?? null,
      content: message.content,
      count: 0,
      nextAt: 0,
      timer: undefined,
    };
    this.broadcast({
      type: 'interval_armed',
      intervalMinutes: minutes,
      hasLoop: message.loop === true,
      goal: message.loopGoal ?? null,
    });
    this.fireInterval(true);
  }

  /** One occurrence now (skipped while busy), and the next one scheduled. */
  private fireInterval(resetCadence: boolean): void {
    const interval = this.interval;
    if (!interval) return;
    if (resetCadence || interval.timer === undefined) this.scheduleInterval();
    if (this.busy || this.turn) {
      this.broadcast({ type: 'interval_skipped', reason: 'busy' });
      return;
    }
    interval.count += 1;
    this.broadcast({ type: 'interval_launched', occurrence: interval.count });
    const { content, hasLoop, goal } = interval;
    void this.onUserMessage({
      content,
      ...(hasLoop ? { loop: true } : {}),
      ...(goal ? { loopGoal: goal } : {}),
    });
  }

  private scheduleInterval(): void {
    const interval = this.interval;
    if (!interval) return;
    if (interval.timer !== undefined) this.deps.clock.clearTimeout(interval.timer);
    const ms = interval.minutes * 60_000;
    interval.nextAt = this.deps.clock.now() + ms;
    interval.timer = this.deps.clock.setTimeout(() => {
      if (!this.interval) return;
      this.interval.timer = undefined;
      this.fireInterval(false);
    }, ms);
  }

  private stopInterval(announce: boolean): void {
    if (!this.interval) return;
    if (this.interval.timer !== undefined) this.deps.clock.clearTimeout(this.interval.timer);
    this.interval = undefined;
    if (announce) this.broadcast({ type: 'interval_stopped' });
  }

  private setFlags(changes: Partial<RunFlags>): void {
    const state = this.run.set(changes);
    if (state) this.broadcast({ type: 'run_state', sessionId: this.row.id, runState: state });
  }

  /** An event of the turn: buffered for tabs that arrive later, and sent to those here now. */
  private emitTurn(event: Event): void {
    this.turn?.events.push(event);
    this.broadcast(event);
  }

  private broadcast(event: Event): void {
    for (const socket of this.sockets) socket.send(event);
  }
}

const queueFull = () =>
  `The queue is full (${MAX_QUEUE} messages at most): this message was not queued. Send it once the queue has room.`;

function loopInstruction(goal: string | undefined): string {
  return `\n\nWork on this until it is done${goal ? ` (goal: ${goal})` : ''}. When it is complete, write ${LOOP_DONE}.`;
}

function titleOf(content: string): string {
  const line = content.trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 59)}…` : line || 'New chat';
}

interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  totalTokens: number;
}

/** An agent's usage object in the browser's terms; agents spell the fields differently. */
function usageOf(raw: Record<string, unknown> | undefined): Usage {
  const n = (...keys: string[]) => {
    for (const key of keys) {
      const value = raw?.[key];
      if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.trunc(value);
    }
    return 0;
  };
  const inputTokens = n('inputTokens', 'input_tokens');
  const outputTokens = n('outputTokens', 'output_tokens');
  const cacheReadTokens = n('cachedReadTokens', 'cacheReadTokens', 'cache_read_input_tokens');
  const cacheWriteTokens = n('cachedWriteTokens', 'cacheWriteTokens', 'cache_creation_input_tokens');
  const totalTokens =
    n('totalTokens', 'total_tokens') || inputTokens + outputTokens + cacheReadTokens + cacheWriteTokens;
  return { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, totalTokens };
}

/**
 * The seed's timing numbers: time to first delta from message_start, the generation window from
 * the first delta to message_end, and output tokens per second over that window (one decimal).
 * A reply that came in one piece was not streamed: it has no generation window to give.
 */
export function turnTiming(
  turn: { startedAt: number; firstDeltaAt?: number; deltas?: number },
  end: number,
  usage: { outputTokens: number },
): { ttftMs: number | null; durationMs: number | null; tokensPerSecond: number | null } {
  if (turn.firstDeltaAt === undefined) return { ttftMs: null, durationMs: null, tokensPerSecond: null };
  const ttftMs = Math.max(0, turn.firstDeltaAt - turn.startedAt);
  if (turn.deltas === 1) return { ttftMs, durationMs: null, tokensPerSecond: null };
  const durationMs = Math.max(0, end - turn.firstDeltaAt);
  const tokensPerSecond =
    usage.outputTokens > 0 && durationMs > 0
      ? Math.round((usage.outputTokens / (durationMs / 1000)) * 10) / 10
      : null;
  return { ttftMs, durationMs, tokensPerSecond };
}

function toWire(m: MessageRow): Record<string, unknown> {
  return {
    id: m.id,
    role: m.role,
    content: m.content,
    events: m.events,
    createdAt: m.createdAt,
    sequence: m.sequence,
    ...(m.role === 'user' ? { images: m.images } : {}),
    ...(m.role === 'assistant'
      ? {
          outputTokens: m.outputTokens,
          durationMs: m.durationMs,
          tokensPerSecond: m.tokensPerSecond,
          ttftMs: m.ttftMs,
        }
      : {}),
  };
}

/** The agent's announced commands as the tabs get them: well-formed ones only, hints kept. */
function chatCommands(announced: unknown[]): ChatCommand[] {
  const commands: ChatCommand[] = [];
  for (const c of announced) {
    if (typeof c !== 'object' || c === null) continue;
    const { name, description, input } = c as { name?: unknown; description?: unknown; input?: unknown };
    if (typeof name !== 'string' || name === '') continue;
    const hint = (input as { hint?: unknown } | null | undefined)?.hint;
    commands.push({
      name,
      description: typeof description === 'string' ? description : '',
      ...(typeof hint === 'string' && hint !== '' ? { inputHint: hint } : {}),
    });
  }
  return commands;
}
