// One chat session at run time: the agent session it drives over the agent wire, the tabs that
// watch it, its turn in flight (buffered so a tab that arrives mid-turn can rebuild it), its queue,
// its pending permissions, its loop and interval scheduler. Agent events become the browser's
// ServerEvents here, and the messages are persisted as each turn ends.
//
// This file is the session itself: the tabs and what they send, starting the agent (its config
// and sign-in), and the prompts. Its parts each have a file: the turn in flight (chat-turn), the
// queue (prompt-queue), the permission cards (chat-permissions) and the loop and interval
// (chat-schedule); what they share is in chat-deps.
import { randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import {
  type ChatCommand,
  DEV_PROCESS_EVENT,
  DEV_PROCESS_OUTPUT_EVENT,
  KILL_DEV_PROCESS_OPTION,
  type PromptResource,
} from '@cairn/protocol';
import type { DriveNotice } from '../drive/agent-wire-server.js';
import { AgentStart } from './agent-start.js';
import type { ChatDeps, ChatSocket, Event, UserMessage } from './chat-deps.js';
import { ChatPermissions } from './chat-permissions.js';
import { ChatSchedule, loopInstruction } from './chat-schedule.js';
import type { ChatSessionRow, ImageRow, MessageRow } from './chat-store.js';
import { ChatTurn } from './chat-turn.js';
import { DevProcesses } from './dev-processes.js';
import { historyFrames } from './history-frames.js';
import { ProjectFileError, resolveProjectFile } from './project-files.js';
import { MAX_QUEUE, PromptQueue, queueFull } from './prompt-queue.js';
import { type RunFlags, RunTracker } from './run-state.js';

export {
  type ChatDeps,
  type ChatSocket,
  type Clock,
  type Event,
  realClock,
  type UserMessage,
} from './chat-deps.js';
export { LOOP_DONE, MAX_LOOP_ITERATIONS } from './chat-schedule.js';
export { turnTiming } from './chat-turn.js';
export { MAX_QUEUE } from './prompt-queue.js';

export class ChatSession {
  private readonly sockets = new Set<ChatSocket>();
  private readonly run = new RunTracker();
  private readonly agent: AgentStart;
  private readonly turn: ChatTurn;
  private readonly queue: PromptQueue;
  private readonly permissions: ChatPermissions;
  private readonly schedule: ChatSchedule;
  private stopping = false;
  private readonly devProcesses = new DevProcesses();
  /** A prompt is on its way to the agent (waiting for it to start); more prompts queue. */
  private starting = false;
  private readonly unsubscribe: (() => void)[] = [];
  /** The slash commands the agent announced last; undefined until it announces any. */
  private commands: ChatCommand[] | undefined;

  constructor(
    private row: ChatSessionRow,
    private readonly cwd: string,
    private readonly deps: ChatDeps,
  ) {
    const broadcast = (event: Event) => this.broadcast(event);
    const setFlags = (changes: Partial<RunFlags>) => this.setFlags(changes);
    this.agent = new AgentStart({
      cwd,
      deps,
      row: () => this.row,
      keepNativeSessionId: (nativeSessionId) => {
        this.deps.store.setNativeSessionId(this.row.id, nativeSessionId);
        this.row = { ...this.row, nativeSessionId };
      },
      starting: () => this.starting,
      broadcast,
      sendReadyAll: () => {
        for (const socket of this.sockets) this.sendReady(socket);
      },
    });
    this.turn = new ChatTurn({
      sessionId: row.id,
      deps,
      broadcast,
      setFlags,
      showSignIn: (message, methods) => this.agent.showSignIn(message, methods),
      appendUser: (content, images, first) => this.appendUser(content, images, first),
      afterTurn: (stopReason, text) => this.afterTurn(stopReason, text),
    });
    this.queue = new PromptQueue(deps.clock, broadcast, setFlags);
    this.permissions = new ChatPermissions(row.id, cwd, deps, broadcast);
    this.schedule = new ChatSchedule({
      deps,
      broadcast,
      setFlags,
      busy: () => this.busy || this.turn.current !== undefined,
      send: (message) => this.onUserMessage(message),
    });
    this.unsubscribe.push(deps.wire.subscribe(row.id, (notice) => this.onNotice(notice)));
    // A workstation that went away may come back as a new process whose agent session has lost
    // the chosen config: open it again (and set them again) before the next prompt.
    this.unsubscribe.push(
      deps.wire.onWorkstationsChanged(() => {
        if (!deps.wire.workstations().includes(deps.workstation)) this.agent.opened = undefined;
      }),
    );
  }

  get id(): string {
    return this.row.id;
  }

  /** Why the agent's last start failed, if it did. */
  get problem(): string | undefined {
    return this.agent.startError;
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
    if (this.agent.opened) return;
    if (this.agent.opening) socket.send(this.agent.startingNotice());
    else if (this.agent.startError !== undefined)
      socket.send({ type: 'error', message: this.agent.startError });
    else if (!this.deps.wire.workstations().includes(this.deps.workstation))
      // Nothing to start on: said plainly, and the history stays readable meanwhile.
      socket.send({
        type: 'agent_notification',
        level: 'warning',
        message: `The workstation ${this.deps.workstation} is not connected: the agent starts when a message is sent once it is back.`,
      });
    else void this.agent.ensureOpen();
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
        if (this.schedule.looping) this.schedule.endLoop();
        this.deps.wire.interrupt(this.row.id);
        return;
      case 'steer':
        return this.onSteer(String(message.content ?? ''), (message.images as ImageRow[] | undefined) ?? []);
      case 'permission_answer':
        return this.permissions.answer(String(message.requestId), String(message.optionId));
      case 'permission_remember':
        return this.permissions.rememberRule(String(message.requestId), String(message.rule));
      case 'queue_remove':
        return this.queue.remove(message.id);
      case 'queue_edit':
        return this.queue.edit(message.id, message.content);
      case 'queue_clear':
        return this.queue.clear();
      case 'dev_process_kill':
        return this.killDevProcess(String(message.processId));
      case 'sign_in':
        return this.agent.onSignIn(
          String(message.methodId),
          typeof message.key === 'string' ? message.key : undefined,
        );
      case 'set_config_option':
        return this.agent.setConfigOption(String(message.configId), message.value as string | boolean);
      default:
        this.broadcast({ type: 'error', message: `unknown message type ${String(message.type)}` });
    }
  }

  /** Ends the scheduler; the agent session stays for the next tab. */
  dispose(): void {
    this.schedule.stopInterval(false);
    this.queue.dispose();
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
      currentTurn: this.turn.shown(),
      contextWindowUsed: this.turn.contextUsed,
      contextWindowMax: this.turn.contextMax,
      ...this.schedule.intervalState(),
      runState: this.run.state(),
      agent: this.row.agent,
      configOptions: this.agent.opened?.configOptions ?? null,
      // Until the agent is up, what its adapter is known to advertise.
      supportsSteering: this.agent.opened?.supportsSteering ?? this.agent.bridge()?.supportsSteering === true,
      supportsImageInput:
        this.agent.opened?.supportsImageInput ?? this.agent.bridge()?.supportsImageInput === true,
      queue: this.queue.rows(),
      pendingPermissions: this.permissions.pending(),
      settledPermissions: this.deps.store.settledPermissions(this.row.id),
      signIn: this.agent.signIn,
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

  private async onUserMessage(message: UserMessage): Promise<void> {
    if (message.loopControl) {
      if (message.loopControl === 'stop') this.schedule.stopInterval(true);
      else this.schedule.fireInterval(true);
      return;
    }
    const content = message.content ?? '';
    if (content.trim() === '' && (message.images ?? []).length === 0) return;
    if (message.intervalMinutes !== undefined) {
      this.schedule.armInterval(message);
      return;
    }
    if (this.busy || this.turn.current) {
      this.queue.enqueue(content, message.images, message.files);
      return;
    }
    if (message.loop) {
      this.schedule.startLoop(message, content);
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
      this.schedule.endLoop();
      return;
    }
    const first = this.deps.store.messages(this.row.id).every((m) => m.role !== 'user');
    this.appendUser(content, images, first);
    if (first && this.row.title === 'New chat') this.rename(titleOf(content));
    this.run.startRun();
    this.turn.begin();
    this.setFlags({ streaming: true });
    const sent = this.deps.wire.prompt(
      this.row.id,
      `${content}${suffix}`,
      images.map((i) => ({ type: 'image' as const, data: i.data!, mimeType: i.mimeType })),
      resources,
    );
    if (!sent.ok) this.turn.finishTurn('error', sent.error);
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
    if (!(await this.agent.ensureOpen())) return '';
    if (this.agent.configFailure !== undefined) {
      const failure = this.agent.configFailure;
      this.agent.configFailure = undefined;
      return `${failure}. The message was not sent: check the setting and send it again.`;
    }
    if (images.length > 0 && !this.agent.opened?.supportsImageInput)
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
    if (!this.turn.current) {
      await this.onUserMessage({ content, images });
      return;
    }
    if (
      this.agent.opened?.supportsSteering &&
      (images.length === 0 || this.agent.opened.supportsImageInput)
    ) {
      const reply = await this.deps.wire.steer(
        this.row.id,
        content,
        images.flatMap((i) =>
          i.data ? [{ type: 'image' as const, data: i.data, mimeType: i.mimeType }] : [],
        ),
      );
      if (reply.ok) {
        this.turn.splitTurnAt(content, images);
        this.broadcast({ type: 'steer_result', ok: true, outcome: 'injected' });
        return;
      }
      this.deps.log(`chat: steer refused, queued instead: ${reply.error}`);
    }
    if (this.queue.length >= MAX_QUEUE) {
      this.broadcast({ type: 'steer_result', ok: false, error: queueFull() });
      return;
    }
    this.queue.enqueue(content, images);
    this.broadcast({ type: 'steer_result', ok: true, outcome: 'queued' });
  }

  private onNotice(notice: DriveNotice): void {
    if (notice.kind === 'lost') {
      this.agent.opened = undefined;
      if (this.turn.current) this.turn.finishTurn('error', notice.error);
      return;
    }
    const { eventName, payload } = notice.event;
    // biome-ignore lint/suspicious/noExplicitAny: an agent's payload, read field by field with checks
    const p = payload as Record<string, any>;
    switch (eventName) {
      case 'usage_update':
        this.turn.contextUsed = typeof p.used === 'number' ? p.used : this.turn.contextUsed;
        this.turn.contextMax = typeof p.size === 'number' ? p.size : this.turn.contextMax;
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
          if (this.agent.opened) this.agent.opened.configOptions = p.configOptions;
          this.broadcast({ type: 'config_options', configOptions: p.configOptions });
        }
        return;
      case 'permission_request':
        this.permissions.request(p);
        return;
      case 'permission_settled':
        this.permissions.settled(p);
        return;
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
        if (this.turn.current) this.turn.current.usage = p.usage as Record<string, unknown>;
        return;
      case 'agent_turn_done':
        this.turn.onTurnDone(p);
        return;
    }
    // The rest belongs to a turn; outside one it is an agent replaying its history on reopen,
    // which the chat already holds.
    this.turn.onEvent(eventName, p);
  }

  /** The loop's next iteration, else the queue's next message, else idle. */
  private afterTurn(stopReason: string, text: string): void {
    const iteration = this.schedule.nextIteration(stopReason, text, this.stopping);
    if (iteration) {
      void this.startTurn(iteration.prompt, [], iteration.suffix);
      return;
    }
    if (this.stopping) return;
    const next = this.queue.takeNext();
    if (next) void this.startTurn(next.item.content, next.item.images ?? [], '', next.files);
  }

  private setFlags(changes: Partial<RunFlags>): void {
    const state = this.run.set(changes);
    if (state) this.broadcast({ type: 'run_state', sessionId: this.row.id, runState: state });
  }

  private broadcast(event: Event): void {
    for (const socket of this.sockets) socket.send(event);
  }
}

function titleOf(content: string): string {
  const line = content.trim().split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 59)}…` : line || 'New chat';
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
