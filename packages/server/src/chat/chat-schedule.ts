// A chat session's schedule: the loop that prompts the agent again until it writes LOOP_DONE or
// reaches its cap, and the interval that sends a prompt every few minutes (skipped while busy).
import type { ChatDeps, Event, UserMessage } from './chat-deps.js';
import type { RunFlags } from './run-state.js';

export const MAX_LOOP_ITERATIONS = 25;
const DEFAULT_LOOP_ITERATIONS = 10;
export const LOOP_DONE = '<LOOP_DONE>';

/** What the schedule asks of its session. */
export interface ScheduleHost {
  readonly deps: ChatDeps;
  broadcast(event: Event): void;
  setFlags(changes: Partial<RunFlags>): void;
  /** A turn runs or is starting: an interval's occurrence is skipped. */
  busy(): boolean;
  /** An interval's occurrence, sent as a tab's message would be. */
  send(message: UserMessage): Promise<void>;
}

export function loopInstruction(goal: string | undefined): string {
  return `\n\nWork on this until it is done${goal ? ` (goal: ${goal})` : ''}. When it is complete, write ${LOOP_DONE}.`;
}

export class ChatSchedule {
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

  constructor(private readonly host: ScheduleHost) {}

  get looping(): boolean {
    return this.loop !== undefined;
  }

  /** The interval as `session_ready` tells it. */
  intervalState() {
    return {
      intervalActive: this.interval !== undefined,
      intervalMinutes: this.interval?.minutes ?? null,
      intervalNextTickAt: this.interval?.nextAt ?? null,
      intervalLaunchCount: this.interval?.count ?? 0,
      intervalHasLoop: this.interval?.hasLoop ?? false,
      intervalGoal: this.interval?.goal ?? null,
    };
  }

  /** A loop begins with its first prompt, `content`; the caller starts that turn. */
  startLoop(message: UserMessage, content: string): void {
    const max = Math.min(
      Math.max(1, Math.trunc(message.loopMaxIterations ?? DEFAULT_LOOP_ITERATIONS)),
      MAX_LOOP_ITERATIONS,
    );
    this.loop = { iteration: 1, max, goal: message.loopGoal ?? null };
    this.host.setFlags({ looping: true });
    this.host.broadcast({ type: 'loop_iteration', iteration: 1, maxIterations: max, prompt: content });
  }

  /**
   * After a turn of a loop: its next iteration's prompt (and the part only the agent gets), or
   * undefined once the loop has ended or when there is none.
   */
  nextIteration(
    stopReason: string,
    text: string,
    stopping: boolean,
  ): { prompt: string; suffix: string } | undefined {
    if (this.loop) {
      if (stopReason !== 'stop' || stopping) this.endLoop();
      else if (text.includes(LOOP_DONE)) {
        this.host.broadcast({ type: 'loop_complete', iterations: this.loop.iteration });
        this.endLoop();
      } else if (this.loop.iteration >= this.loop.max) {
        this.host.broadcast({ type: 'loop_max_iterations', iterations: this.loop.iteration });
        this.endLoop();
      } else {
        this.loop.iteration += 1;
        const prompt = `Continue. When the task is complete, write ${LOOP_DONE}.`;
        this.host.broadcast({
          type: 'loop_iteration',
          iteration: this.loop.iteration,
          maxIterations: this.loop.max,
          prompt,
        });
        return { prompt, suffix: this.loop.goal ? `\nGoal: ${this.loop.goal}` : '' };
      }
    }
    return undefined;
  }

  endLoop(): void {
    this.loop = undefined;
    this.host.setFlags({ looping: false });
  }

  armInterval(message: UserMessage): void {
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
    this.host.broadcast({
      type: 'interval_armed',
      intervalMinutes: minutes,
      hasLoop: message.loop === true,
      goal: message.loopGoal ?? null,
    });
    this.fireInterval(true);
  }

  /** One occurrence now (skipped while busy), and the next one scheduled. */
  fireInterval(resetCadence: boolean): void {
    const interval = this.interval;
    if (!interval) return;
    if (resetCadence || interval.timer === undefined) this.scheduleInterval();
    if (this.host.busy()) {
      this.host.broadcast({ type: 'interval_skipped', reason: 'busy' });
      return;
    }
    interval.count += 1;
    this.host.broadcast({ type: 'interval_launched', occurrence: interval.count });
    const { content, hasLoop, goal } = interval;
    void this.host.send({
      content,
      ...(hasLoop ? { loop: true } : {}),
      ...(goal ? { loopGoal: goal } : {}),
    });
  }

  private scheduleInterval(): void {
    const interval = this.interval;
    if (!interval) return;
    const { clock } = this.host.deps;
    if (interval.timer !== undefined) clock.clearTimeout(interval.timer);
    const ms = interval.minutes * 60_000;
    interval.nextAt = clock.now() + ms;
    interval.timer = clock.setTimeout(() => {
      if (!this.interval) return;
      this.interval.timer = undefined;
      this.fireInterval(false);
    }, ms);
  }

  stopInterval(announce: boolean): void {
    if (!this.interval) return;
    if (this.interval.timer !== undefined) this.host.deps.clock.clearTimeout(this.interval.timer);
    this.interval = undefined;
    if (announce) this.host.broadcast({ type: 'interval_stopped' });
  }
}
