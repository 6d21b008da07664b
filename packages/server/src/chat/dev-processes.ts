// The dev processes of one chat session: the commands its agent ran in terminals, as the workstation
// reported them. Their summaries are rebuilt field by field from the agent wire's payloads (a
// workstation is another program), and each keeps a bounded tail of its output.
import { DEV_PROCESS_TAIL } from '@cairn/protocol';

export interface DevProcess {
  id: string;
  label: string;
  command: string;
  cwd: string;
  status: 'running' | 'exited' | 'killed';
  pid?: number;
  startedAt: number;
  endedAt?: number;
  exitCode: number | null;
  lastOutputTail: string;
  fullOutputPath: string;
}

const STATUSES = new Set(['running', 'exited', 'killed']);
/** A session's list stays short: the oldest ended ones go first. */
const KEPT = 50;

const text = (v: unknown, fallback = ''): string => (typeof v === 'string' ? v : fallback);
const count = (v: unknown): number | undefined =>
  Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : undefined;

export class DevProcesses {
  private readonly processes = new Map<string, DevProcess>();

  /** A started, exited or killed process; undefined when the payload names none. */
  update(payload: unknown): DevProcess | undefined {
    if (typeof payload !== 'object' || payload === null) return undefined;
    const p = payload as Record<string, unknown>;
    const id = text(p.id);
    if (id === '') return undefined;
    const known = this.processes.get(id);
    const pid = count(p.pid);
    const endedAt = count(p.endedAt);
    const process: DevProcess = {
      id,
      label: text(p.label, known?.label ?? text(p.command)),
      command: text(p.command, known?.command ?? ''),
      cwd: text(p.cwd, known?.cwd ?? ''),
      status: STATUSES.has(p.status as string) ? (p.status as DevProcess['status']) : 'running',
      ...(pid === undefined ? {} : { pid }),
      startedAt: count(p.startedAt) ?? known?.startedAt ?? Date.now(),
      ...(endedAt === undefined ? {} : { endedAt }),
      exitCode: Number.isInteger(p.exitCode) ? (p.exitCode as number) : null,
      lastOutputTail: text(p.lastOutputTail, known?.lastOutputTail ?? '').slice(-DEV_PROCESS_TAIL),
      fullOutputPath: text(p.fullOutputPath, known?.fullOutputPath ?? ''),
    };
    this.processes.set(id, process);
    this.prune();
    return { ...process };
  }

  /** New output of a process; its tail grows and stays bounded. */
  output(processId: string, chunk: string): { processId: string; chunk: string; tail: string } | undefined {
    const process = this.processes.get(processId);
    if (!process || chunk === '') return undefined;
    process.lastOutputTail = (process.lastOutputTail + chunk).slice(-DEV_PROCESS_TAIL);
    return { processId, chunk, tail: process.lastOutputTail };
  }

  get(id: string): DevProcess | undefined {
    return this.processes.get(id);
  }

  list(): DevProcess[] {
    return [...this.processes.values()].map((p) => ({ ...p }));
  }

  private prune(): void {
    if (this.processes.size <= KEPT) return;
    for (const [id, p] of this.processes) {
      if (this.processes.size <= KEPT) break;
      if (p.status !== 'running') this.processes.delete(id);
    }
  }
}
