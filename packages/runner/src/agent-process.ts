// One agent as a child process: the leader of a process tree of its own (some agents re-launch
// themselves and ignore signals on the parent, and what they start may leave the group, so only
// ending the whole tree ends them all), stdio as web streams for the SDK, stderr kept as a short
// tail for error messages, and nothing of cairn's own secrets in its env.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { PROCESS_TREE_VARIABLE, signalPids, treeMembers } from './process-ledger.js';

export interface AgentCommand {
  readonly command: string;
  readonly args: readonly string[];
  /** Where the process starts when that must not be the session's folder (`SpawnOptions.cwd`). */
  readonly cwd?: string;
}

export interface SpawnOptions {
  readonly cwd: string;
  /** The environment the agent starts with; `agentEnvironment` builds it. */
  readonly env: Readonly<Record<string, string>>;
  /** Hears each agent start and end, to keep a ledger of the groups still running. */
  readonly track?: ProcessTracker;
}

export interface ProcessTracker {
  /** A tree started: its leader and the mark its processes carry. */
  started(pid: number, mark: string): void;
  /** It ended, every process in it. */
  ended(pid: number): void;
}

/** Variables that are cairn's own and never reach an agent. */
const PRIVATE_VARIABLES = ['CAIRN_TOKEN', 'CAIRN_TICKET'];

/**
 * The user's environment, then what the frame asks for: `env` and `agentEnv` set variables,
 * `pathPrepend` goes before PATH. cairn's own secrets are removed last, so no frame can add them.
 */
export function agentEnvironment(
  base: Readonly<Record<string, string | undefined>>,
  extra: {
    env?: Readonly<Record<string, string>>;
    agentEnv?: Readonly<Record<string, string>>;
    pathPrepend?: readonly string[];
  } = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) if (value !== undefined) env[key] = value;
  Object.assign(env, extra.env ?? {}, extra.agentEnv ?? {});
  if (extra.pathPrepend && extra.pathPrepend.length > 0) {
    env.PATH = [...extra.pathPrepend, env.PATH ?? ''].filter((p) => p !== '').join(':');
  }
  for (const key of PRIVATE_VARIABLES) delete env[key];
  return env;
}

const STDERR_TAIL = 8 * 1024;

/** How long an agent whose input ended may take to exit by itself before it is signalled. */
const INPUT_END_WAIT_MS = 300;

export class AgentProcess {
  readonly child: ChildProcess;
  /** Settles with the exit code or signal once the process is gone (and reaped). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Inherited by every process the leader starts, even one that leaves its group and session. */
  readonly mark = randomUUID();
  private stderrTail = '';
  private gone = false;

  constructor(
    command: AgentCommand,
    private readonly options: SpawnOptions,
  ) {
    this.child = spawn(command.command, [...command.args], {
      cwd: command.cwd ?? options.cwd,
      env: { ...options.env, [PROCESS_TREE_VARIABLE]: this.mark },
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const { pid } = this.child;
    if (pid !== undefined) options.track?.started(pid, this.mark);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.gone = true;
        resolve({ code, signal });
      });
      this.child.once('error', (error) => {
        this.stderrTail += `\n${error.message}`;
        if (this.child.pid === undefined) {
          this.gone = true;
          resolve({ code: null, signal: null });
        }
      });
    });
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
    });
    // A write to an agent that just died must not become an unhandled error.
    this.child.stdin?.on('error', () => {});
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get alive(): boolean {
    return !this.gone && this.child.pid !== undefined;
  }

  /** The last lines the agent wrote on stderr, for an error message. */
  stderr(): string {
    return this.stderrTail.trim();
  }

  /** The stdio pair the SDK's `ndJsonStream` takes. */
  streams(): { output: WritableStream<Uint8Array>; input: ReadableStream<Uint8Array> } {
    const { stdin, stdout } = this.child;
    if (!stdin || !stdout) throw new Error('agent process has no stdio');
    return {
      output: Writable.toWeb(stdin) as WritableStream<Uint8Array>,
      input: Readable.toWeb(stdout) as ReadableStream<Uint8Array>,
    };
  }

  /**
   * Ends the whole tree: its input closed first, as an editor ends an agent (some write their last
   * records then: Copilot CLI its token counts), TERM if it is still there a moment later, then
   * KILL after `graceMs` if anything is left. With no grace, TERM at once.
   */
  async kill(graceMs = 2_000): Promise<void> {
    const pid = this.child.pid;
    if (pid === undefined) return;
    if (graceMs > 0 && !this.gone) {
      this.child.stdin?.end();
      const moment = new Promise((resolve) => setTimeout(resolve, Math.min(graceMs, INPUT_END_WAIT_MS)));
      await Promise.race([this.exited, moment]);
    }
    this.signalTree(pid, 'SIGTERM');
    const timer = setTimeout(() => this.signalTree(pid, 'SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
    // The leader is gone; what it started is not.
    this.signalTree(pid, 'SIGKILL');
    this.options.track?.ended(pid);
  }

  /** The group, the session and every marked process (the session id stays the leader's pid
   * while anything is in it, so no other process can have taken it). */
  private signalTree(pid: number, signal: NodeJS.Signals): void {
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
    signalPids(treeMembers([{ sessionLeader: pid, mark: this.mark }]), signal);
  }
}
