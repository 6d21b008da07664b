// Spreading per-session work over worker threads. Targets may still be arriving (a discovery that
// walks the agents' folders): the workers start on the first ones while the rest are found. Of the
// targets waiting, the largest main file goes first, so that the bytes, not the count, come out
// even and the last worker does not run alone at the end. Each worker reads its own files, so only
// the small results cross threads. Without a built worker file (running from source) or with one
// target, the work runs in-process.
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { SessionTarget } from './model.js';
import { nodePlatform } from './platform-node.js';
import type { LoadTranscriptError, Result } from './result.js';
import { runTask, type TaskName, type TaskOptions, type TaskResults } from './tasks.js';

export interface PoolOptions extends TaskOptions {
  env?: Readonly<Record<string, string | undefined>>;
  homeDir?: string;
  /** Worker threads to use; defaults to the machine's available parallelism. */
  concurrency?: number;
  /** Called as each job ends; `total` counts the targets known so far. */
  onDone?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

type Outcome<T extends TaskName> = Result<TaskResults[T], LoadTranscriptError>;

const workerFile = (): string | undefined => {
  const path = fileURLToPath(new URL('./worker.js', import.meta.url));
  return existsSync(path) ? path : undefined;
};

/** A file's size, or 0 when it cannot be read (its task reports the failure). */
const sizeOf = (path: string): Promise<number> =>
  stat(path).then(
    (s) => s.size,
    () => 0,
  );

/** Targets waiting for a worker, handed out largest first. */
class Waiting {
  private readonly items: { index: number; size: number }[] = [];
  private sorted = true;

  add(index: number, size: number): void {
    this.items.push({ index, size });
    this.sorted = false;
  }

  get size(): number {
    return this.items.length;
  }

  /** The largest waiting target's index (the earlier of equals). */
  take(): number | undefined {
    if (!this.sorted) {
      this.items.sort((a, b) => a.size - b.size || b.index - a.index);
      this.sorted = true;
    }
    return this.items.pop()?.index;
  }
}

/**
 * Runs `task` on every target and returns the outcomes in the targets' order (for an async
 * iterable, the order it yields them in). An iterable that throws rejects the run.
 */
export async function runInPool<T extends TaskName>(
  task: T,
  targets: readonly SessionTarget[] | AsyncIterable<SessionTarget>,
  options: PoolOptions = {},
): Promise<Outcome<T>[]> {
  const { env = process.env, homeDir, signal, onDone } = options;
  const taskOptions: TaskOptions = options.prompts ? { prompts: options.prompts } : {};
  const known = Array.isArray(targets) ? targets.length : Number.POSITIVE_INFINITY;
  const concurrency = Math.max(1, Math.min(options.concurrency ?? availableParallelism(), known));
  const file = workerFile();
  if (!file || concurrency === 1) return inProcess(task, targets, taskOptions, options);

  const workerData = homeDir ? { env: { ...env }, homeDir } : { env: { ...env } };
  const workers: Worker[] = [];
  const all: SessionTarget[] = [];
  const results: Outcome<T>[] = [];
  const waiting = new Waiting();
  // Sizes still being looked up: a target is handed out once its size is known.
  let sizing = 0;
  let arrived = false;
  let done = 0;
  // Once the run has failed, the targets still arriving are left unread.
  let failed = false;
  try {
    await new Promise<void>((resolve, rejectRun) => {
      const reject = (cause: unknown) => {
        failed = true;
        rejectRun(cause);
      };
      const inFlight = new Map<Worker, number>();
      const finishIfDone = () => {
        if (arrived && sizing === 0 && done === all.length) resolve();
      };
      // Two jobs in flight per worker: its next job is already there when it finishes one,
      // rather than after a round trip through this thread.
      const feed = () => {
        for (const w of workers)
          while ((inFlight.get(w) ?? 0) < 2 && waiting.size > 0) {
            const index = waiting.take()!;
            inFlight.set(w, (inFlight.get(w) ?? 0) + 1);
            w.postMessage({ index, task, target: all[index], options: taskOptions });
          }
      };
      const start = () => {
        const w = new Worker(file, { workerData });
        workers.push(w);
        w.on('message', (msg: { index: number; result?: Outcome<T>; defect?: string }) => {
          if (msg.defect !== undefined) return reject(new Error(msg.defect));
          results[msg.index] = msg.result!;
          inFlight.set(w, inFlight.get(w)! - 1);
          done++;
          onDone?.(done, all.length);
          feed();
          finishIfDone();
        });
        w.on('error', reject);
      };
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
      (async () => {
        for await (const target of targets) {
          if (failed) return;
          signal?.throwIfAborted();
          const index = all.push(target) - 1;
          // A worker per target up to the limit, so that a run of one target starts one.
          if (workers.length < concurrency) start();
          sizing++;
          void sizeOf(target.path).then((size) => {
            sizing--;
            waiting.add(index, size);
            feed();
          });
        }
        arrived = true;
        finishIfDone();
      })().catch(reject);
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results;
}

async function inProcess<T extends TaskName>(
  task: T,
  targets: readonly SessionTarget[] | AsyncIterable<SessionTarget>,
  taskOptions: TaskOptions,
  { env = process.env, homeDir, signal, onDone }: PoolOptions,
): Promise<Outcome<T>[]> {
  const platform = nodePlatform(homeDir ? { env, homeDir } : { env });
  const results: Outcome<T>[] = [];
  for await (const target of targets) {
    signal?.throwIfAborted();
    results.push(await runTask(task, platform, target, taskOptions));
    onDone?.(results.length, Array.isArray(targets) ? targets.length : results.length);
  }
  return results;
}
