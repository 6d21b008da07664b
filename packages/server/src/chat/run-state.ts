// A chat session's run state, resolved here and nowhere else: the browser renders it as sent.
// One phase from the flags by a fixed precedence, and a run id and a generation per logical run: the
// generation grows by one when a run begins (never on a mere flag change), so a client can drop the
// frames of an earlier run that arrive after a later one's.
import { randomUUID } from 'node:crypto';

export type RunPhase = 'idle' | 'streaming' | 'retrying' | 'compacting' | 'looping' | 'queued';

export interface RunFlags {
  streaming: boolean;
  retrying: boolean;
  compacting: boolean;
  looping: boolean;
  queued: boolean;
}

export interface RunState {
  runId: string;
  generation: number;
  busy: boolean;
  phase: RunPhase;
  flags: RunFlags;
}

/** Highest first: a retry shows over compaction, compaction over a loop, and so on. */
const PRECEDENCE: readonly (keyof RunFlags)[] = ['retrying', 'compacting', 'looping', 'streaming', 'queued'];

export function resolvePhase(flags: RunFlags): RunPhase {
  return PRECEDENCE.find((flag) => flags[flag]) ?? 'idle';
}

/** Work in progress; a queued message alone is not work. */
export function isBusy(flags: RunFlags): boolean {
  return flags.streaming || flags.retrying || flags.compacting || flags.looping;
}

export class RunTracker {
  private runId = randomUUID();
  private generation = 0;
  private flags: RunFlags = {
    streaming: false,
    retrying: false,
    compacting: false,
    looping: false,
    queued: false,
  };

  /** A new logical run (a prompt and whatever continues it: retries, continuations). */
  startRun(): void {
    this.runId = randomUUID();
    this.generation += 1;
  }

  /** Sets flags within the current run; returns the new state when anything changed, else undefined. */
  set(changes: Partial<RunFlags>): RunState | undefined {
    const next = { ...this.flags, ...changes };
    const changed = (Object.keys(next) as (keyof RunFlags)[]).some((k) => next[k] !== this.flags[k]);
    if (!changed) return undefined;
    this.flags = next;
    return this.state();
  }

  state(): RunState {
    return {
      runId: this.runId,
      generation: this.generation,
      busy: isBusy(this.flags),
      phase: resolvePhase(this.flags),
      flags: { ...this.flags },
    };
  }
}
