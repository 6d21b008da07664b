// Spreading per-session work over worker threads, the largest sessions first so that the bytes,
// not the count, come out even. Each worker reads its own files, so only the small results cross
// threads. Without a built worker file (running from source) or with one session, the work runs
// in-process.
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
  onDone?: (done: number, total: number) => void;
  signal?: AbortSignal;
}

type Outcome<T extends TaskName> = Result<TaskResults[T], LoadTranscriptError>;

const workerFile = (): string | undefined => {
  const path = fileURLToPath(new URL('./worker.js', import.meta.url));
  return existsSync(path) ? path : undefined;
};

/**
 * The targets' indexes, largest main file first. Work grows with bytes, and a few sessions can
 * hold most of them: handing those out first keeps the last worker from running alone at the end.
 * A file that cannot be read sorts as empty (its task reports the failure).
 */
async function largestFirst(targets: readonly SessionTarget[]): Promise<number[]> {
  const sizes = await Promise.all(
    targets.map((t) =>
      stat(t.path).then(
        (s) => s.size,
        () => 0,
      ),
    ),
  );
  return targets.map((_, i) => i).sort((a, b) => sizes[b]! - sizes[a]! || a - b);
}

/** Runs `task` on every target and returns the outcomes in the targets' order. */
export async function runInPool<T extends TaskName>(
  task: T,
  targets: readonly SessionTarget[],
  options: PoolOptions = {},
): Promise<Outcome<T>[]> {
  const { env = process.env, homeDir, signal, onDone } = options;
  const taskOptions: TaskOptions = options.prompts ? { prompts: options.prompts } : {};
  const concurrency = Math.max(1, Math.min(options.concurrency ?? availableParallelism(), targets.length));
  const file = workerFile();
  const results: Outcome<T>[] = new Array(targets.length);

  if (!file || concurrency === 1) {
    const platform = nodePlatform(homeDir ? { env, homeDir } : { env });
    for (const [i, target] of targets.entries()) {
      signal?.throwIfAborted();
      results[i] = await runTask(task, platform, target, taskOptions);
      onDone?.(i + 1, targets.length);
    }
    return results;
  }

  const workerData = homeDir ? { env: { ...env }, homeDir } : { env: { ...env } };
  const workers = Array.from({ length: concurrency }, () => new Worker(file, { workerData }));
  const order = await largestFirst(targets);
  let next = 0;
  let done = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const feed = (w: Worker) => {
        if (next >= order.length) return;
        const index = order[next++]!;
        w.postMessage({ index, task, target: targets[index], options: taskOptions });
      };
      const abort = () => reject(signal?.reason);
      signal?.addEventListener('abort', abort, { once: true });
      for (const w of workers) {
        w.on('message', (msg: { index: number; result?: Outcome<T>; defect?: string }) => {
          if (msg.defect !== undefined) return reject(new Error(msg.defect));
          results[msg.index] = msg.result!;
          done++;
          onDone?.(done, targets.length);
          if (done === targets.length) resolve();
          else feed(w);
        });
        w.on('error', reject);
        // Two jobs in flight per worker: its next job is already there when it finishes one,
        // rather than after a round trip through this thread.
        feed(w);
        feed(w);
      }
      if (targets.length === 0) resolve();
    });
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results;
}
