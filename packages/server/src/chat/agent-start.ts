// Starting a chat session's agent: its session opened on the workstation once (and again after it
// was lost), the config values chosen in this chat set on it again, and the sign-in an agent may
// ask for first. What the agent said it can do when it opened is kept here for the session to read.
import { API_KEY_QUERY } from '@cairn/protocol';
import { AUTH_REQUIRED, type ChatDeps, type Event } from './chat-deps.js';
import type { ChatSessionRow } from './chat-store.js';

export interface Opened {
  configOptions: unknown[] | null;
  supportsSteering: boolean;
  supportsImageInput: boolean;
}

/** What starting the agent asks of its session. */
export interface StartHost {
  readonly cwd: string;
  readonly deps: ChatDeps;
  row(): ChatSessionRow;
  /** The agent named its own session anew: kept with the chat. */
  keepNativeSessionId(nativeSessionId: string): void;
  /** A prompt is waiting for this start. */
  starting(): boolean;
  broadcast(event: Event): void;
  /** Every tab gets the whole state again. */
  sendReadyAll(): void;
}

export class AgentStart {
  /** What the open agent session can do; undefined until it is open, and again once it is lost. */
  opened: Opened | undefined;
  opening: Promise<boolean> | undefined;
  /** Why the agent's last start failed; a tab that attaches is told, and the next prompt tries again. */
  startError: string | undefined;
  /** The sign-in card, while the agent waits for one. */
  signIn: Event | null = null;
  /** A chosen config value the last start could not set again: the next prompt is refused. */
  configFailure: string | undefined;

  constructor(private readonly host: StartHost) {}

  private get row(): ChatSessionRow {
    return this.host.row();
  }

  private get deps(): ChatDeps {
    return this.host.deps;
  }

  /** A tab chose a config value (mode, model, …): set on the agent, and kept when it took it. */
  async setConfigOption(configId: string, value: string | boolean): Promise<void> {
    if (!(await this.ensureOpen())) return;
    const reply = await this.deps.wire.setConfigOption(this.row.id, configId, value);
    if (reply.ok) {
      // Kept, to be set again whenever the agent session is opened anew (a restart, a reconnect).
      this.deps.store.setConfigValue(this.row.id, configId, value);
      this.configFailure = undefined;
      if (this.opened) this.opened.configOptions = reply.configOptions ?? this.opened.configOptions;
      this.host.broadcast({ type: 'config_options', configOptions: reply.configOptions ?? [] });
    } else this.host.broadcast({ type: 'error', message: reply.error ?? 'the agent refused the option' });
  }

  /** Opens the agent session once (again after it was lost); false when the agent refused. */
  ensureOpen(): Promise<boolean> {
    if (this.opened) return Promise.resolve(true);
    this.opening ??= this.open().finally(() => {
      this.opening = undefined;
    });
    return this.opening;
  }

  bridge() {
    return this.deps.wire.roster(this.deps.workstation).find((b) => b.key === this.row.agent);
  }

  startingNotice(): Event {
    return {
      type: 'agent_notification',
      level: 'info',
      message: `Starting ${this.bridge()?.name ?? this.row.agent}…`,
    };
  }

  private async open(): Promise<boolean> {
    this.host.broadcast(this.startingNotice());
    const reply = await this.deps.wire.open({
      workstation: this.deps.workstation,
      sessionRef: this.row.id,
      agentKey: this.row.agent,
      bridge: this.row.agent,
      cwd: this.host.cwd,
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
        this.host.broadcast({
          type: 'error',
          message: this.host.starting()
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
      this.host.keepNativeSessionId(reply.nativeSessionId);
    }
    const failure = await this.applyChosenConfig(opened);
    this.opened = opened;
    // The tabs that attached while it started learn what the agent can do, and its options.
    this.host.sendReadyAll();
    if (failure) {
      this.configFailure = failure;
      this.host.broadcast({ type: 'error', message: `${failure}.` });
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
  async onSignIn(methodId: string, key: string | undefined): Promise<void> {
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
        this.host.broadcast(this.signIn);
      },
    );
    if (!reply.ok) {
      this.host.broadcast({
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
    this.host.broadcast({
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

  showSignIn(message: string, methods: unknown[]): void {
    this.signIn = { type: 'sign_in_required', agent: this.row.agent, message, methods };
    this.host.broadcast(this.signIn);
  }
}
