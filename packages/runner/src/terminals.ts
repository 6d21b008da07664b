// The ACP terminal capability: commands an agent asks the client to run (`terminal/create`), run in
// the session's project as process trees of their own (so a dev server and everything it starts,
// even what left its group with `setsid`, end together), with their output kept for the agent within its byte limit, written
// whole to a log file, and reported as dev processes: a `dev_process` event when one starts, exits
// or is killed, `dev_process_output` for its output, coalesced. They outlive the agent that started
// them (a dev server stays up if the agent dies) and end with the session.
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, statSync, type WriteStream } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { DEV_PROCESS_EVENT, DEV_PROCESS_OUTPUT_EVENT, DEV_PROCESS_TAIL } from '@cairn/protocol';
import { AgentProcess, type ProcessTracker } from './agent-process.js';

export interface TerminalOptions {
  /** The session's project: where a command runs unless it names a folder of its own. */
  readonly cwd: string;
  /** The environment the session's agent got; a command's own variables go on top. */
  readonly env: Readonly<Record<string, string>>;
  /** Where each command's whole output is written, `<id>.log`; none is kept without it. */
  readonly logDir?: string;
  readonly track?: ProcessTracker;
  /** Numbers and hands on one event (the session's journal). */
  readonly emit: (eventName: string, payload: Record<string, unknown>) => void;
  /** How long output gathers before it goes out as one event. */
  readonly flushMs?: number;
}

export interface CreateTerminal {
  readonly command: string;
  readonly args?: readonly string[] | null;
  readonly env?: readonly { name: string; value: string }[] | null;
  readonly cwd?: string | null;
  readonly outputByteLimit?: number | null;
}

export interface ExitStatus {
  readonly exitCode: number | null;
  readonly signal: string | null;
}

/** A terminal's output kept for the agent when it names no limit of its own. */
const DEFAULT_OUTPUT_LIMIT = 1024 * 1024;
const FLUSH_MS = 50;

type Status = 'running' | 'exited' | 'killed';

class Terminal {
  output = '';
  private outputBytes = 0;
  truncated = false;
  status: Status = 'running';
  exit: ExitStatus | undefined;
  endedAt: number | undefined;
  pendingChunk = '';
  readonly startedAt = Date.now();
  readonly exited: Promise<ExitStatus>;

  constructor(
    readonly id: string,
    readonly commandLine: string,
    readonly cwd: string,
    readonly process: AgentProcess,
    readonly limit: number,
    readonly log: WriteStream | undefined,
    readonly logPath: string,
  ) {
    this.exited = process.exited.then(({ code, signal }) => ({ exitCode: code, signal }));
  }

  /** Keeps the output within the agent's limit, cut at a character boundary from the front. */
  append(text: string): void {
    this.output += text;
    this.outputBytes += Buffer.byteLength(text);
    // Trimming costs a copy, so it waits until the text is twice the limit.
    if (this.outputBytes > this.limit * 2) this.trim();
  }

  trim(): void {
    if (this.outputBytes <= this.limit) return;
    const bytes = Buffer.from(this.output);
    let start = bytes.length - this.limit;
    // Never start inside a UTF-8 sequence: skip its continuation bytes.
    while (start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
    this.output = bytes.subarray(start).toString('utf8');
    this.outputBytes = bytes.length - start;
    this.truncated = true;
  }

  summary(): Record<string, unknown> {
    return {
      id: this.id,
      label: this.commandLine.length > 80 ? `${this.commandLine.slice(0, 79)}…` : this.commandLine,
      command: this.commandLine,
      cwd: this.cwd,
      status: this.status,
      ...(this.process.pid === undefined ? {} : { pid: this.process.pid }),
      startedAt: this.startedAt,
      ...(this.endedAt === undefined ? {} : { endedAt: this.endedAt }),
      exitCode: this.exit?.exitCode ?? null,
      ...(this.exit?.signal ? { signal: this.exit.signal } : {}),
      lastOutputTail: this.output.slice(-DEV_PROCESS_TAIL),
      fullOutputPath: this.logPath,
    };
  }
}

export class TerminalError extends Error {}

export class Terminals {
  private readonly terminals = new Map<string, Terminal>();
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: TerminalOptions) {}

  /** `terminal/create`: starts the command and answers its id at once, as ACP asks. */
  create(request: CreateTerminal): string {
    const cwd = request.cwd ?? this.options.cwd;
    if (!isAbsolute(cwd)) throw new TerminalError(`cwd must be an absolute path, got ${JSON.stringify(cwd)}`);
    if (!isDirectory(cwd)) throw new TerminalError(`cwd ${cwd} is not a folder`);
    if (typeof request.command !== 'string' || request.command.trim() === '')
      throw new TerminalError('command must be a non-empty string');
    const args = request.args ?? [];
    // A bare command line with no arguments is for a shell, as an agent writes it in a terminal.
    const shell = args.length === 0 && /\s/.test(request.command.trim());
    const argv = shell
      ? { command: '/bin/sh', args: ['-c', request.command] }
      : { command: request.command, args };
    const env: Record<string, string> = { ...this.options.env };
    for (const v of request.env ?? []) env[v.name] = v.value;

    const id = `term-${randomUUID()}`;
    const child = new AgentProcess(argv, {
      cwd,
      env,
      ...(this.options.track ? { track: this.options.track } : {}),
    });
    if (child.pid === undefined) {
      throw new TerminalError(`could not start ${request.command}: ${child.stderr() || 'spawn failed'}`);
    }
    child.child.stdin?.end();
    const commandLine = [request.command, ...args].join(' ');
    const limit = clampLimit(request.outputByteLimit);
    const { log, path } = this.openLog(id);
    const terminal = new Terminal(id, commandLine, cwd, child, limit, log, path);
    this.terminals.set(id, terminal);
    const hear = (chunk: string) => {
      terminal.append(chunk);
      terminal.log?.write(chunk);
      terminal.pendingChunk += chunk;
      this.flushSoon();
    };
    child.child.stdout?.setEncoding('utf8');
    child.child.stdout?.on('data', hear);
    child.child.stderr?.on('data', hear);
    void terminal.exited.then((exit) => this.onExit(terminal, exit));
    this.options.emit(DEV_PROCESS_EVENT, { change: 'started', process: terminal.summary() });
    return id;
  }

  /** `terminal/output`: what was kept, whether some was cut, and how it ended if it did. */
  output(id: string): { output: string; truncated: boolean; exitStatus?: ExitStatus } {
    const terminal = this.get(id);
    terminal.trim();
    return {
      output: terminal.output,
      truncated: terminal.truncated,
      ...(terminal.exit ? { exitStatus: terminal.exit } : {}),
    };
  }

  waitForExit(id: string): Promise<ExitStatus> {
    return this.get(id).exited;
  }

  /** `terminal/kill`, and the kill button of the list: the id stays valid for its output. */
  async kill(id: string): Promise<void> {
    const terminal = this.get(id);
    if (terminal.status !== 'running') return;
    terminal.status = 'killed';
    await terminal.process.kill();
  }

  /** `terminal/release`: ends it if it still runs and forgets it. */
  async release(id: string): Promise<void> {
    await this.kill(id);
    this.terminals.delete(id);
  }

  /** The session ends: so does every command it started. */
  async closeAll(): Promise<void> {
    await Promise.all([...this.terminals.values()].map((t) => this.kill(t.id)));
    this.flush();
  }

  /** The dev processes of this session, as the list shows them. */
  list(): Record<string, unknown>[] {
    return [...this.terminals.values()].map((t) => t.summary());
  }

  has(id: string): boolean {
    return this.terminals.has(id);
  }

  private get(id: string): Terminal {
    const terminal = this.terminals.get(id);
    if (!terminal) throw new TerminalError(`no terminal ${id}`);
    return terminal;
  }

  private onExit(terminal: Terminal, exit: ExitStatus): void {
    terminal.exit = exit;
    terminal.endedAt = Date.now();
    if (terminal.status === 'running') terminal.status = 'exited';
    // The leader is gone; what it left in its tree goes with it, and the ledger forgets it.
    void terminal.process.kill(0);
    terminal.log?.end();
    // Its last output goes out before the news of its end.
    this.flush();
    this.options.emit(DEV_PROCESS_EVENT, {
      change: terminal.status === 'killed' ? 'killed' : 'exited',
      process: terminal.summary(),
    });
  }

  private flushSoon(): void {
    this.flushTimer ??= setTimeout(() => this.flush(), this.options.flushMs ?? FLUSH_MS);
  }

  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    for (const terminal of this.terminals.values()) {
      if (terminal.pendingChunk === '') continue;
      const chunk = terminal.pendingChunk;
      terminal.pendingChunk = '';
      this.options.emit(DEV_PROCESS_OUTPUT_EVENT, { processId: terminal.id, chunk });
    }
  }

  private openLog(id: string): { log: WriteStream | undefined; path: string } {
    const dir = this.options.logDir;
    if (!dir) return { log: undefined, path: '' };
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      const path = join(dir, `${id}.log`);
      const log = createWriteStream(path, { mode: 0o600 });
      // A full disk loses the log, not the process.
      log.on('error', () => {});
      return { log, path };
    } catch {
      return { log: undefined, path: '' };
    }
  }
}

function clampLimit(limit: number | null | undefined): number {
  if (typeof limit !== 'number' || !Number.isFinite(limit) || limit <= 0) return DEFAULT_OUTPUT_LIMIT;
  return Math.min(Math.floor(limit), DEFAULT_OUTPUT_LIMIT * 16);
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
