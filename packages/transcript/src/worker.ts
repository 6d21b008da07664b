// A worker thread of the session pool: runs one task per message with a platform built from
// the environment it was given.
import { parentPort, workerData } from 'node:worker_threads';
import type { SessionTarget } from './model.js';
import type { SessionPlatform } from './platform.js';
import { nodePlatform } from './platform-node.js';
import { ReadBuffers } from './read-buffers.js';
import { runTask, type TaskName, type TaskOptions } from './tasks.js';

interface Job {
  index: number;
  task: TaskName;
  target: SessionTarget;
  options: TaskOptions;
}

const base = nodePlatform(workerData as { env: Record<string, string | undefined>; homeDir?: string });
// A worker runs one job at a time and has nothing to do while its files arrive, so it reads them
// in one blocking call rather than in the many thread-pool round trips of an async read. A job's
// result holds none of its files' bytes, so the next job reads into the same buffers.
const buffers = new ReadBuffers();
const platform: SessionPlatform = {
  ...base,
  fs: { ...base.fs, readFile: async (path) => buffers.read(path) },
};

// The pool sends a job ahead while one runs: they run one after the other, never interleaved at
// an await, since both would read into the same buffers.
let queue = Promise.resolve();
parentPort?.on('message', (job: Job) => {
  queue = queue.then(() => run(job));
});

async function run(job: Job): Promise<void> {
  try {
    parentPort?.postMessage({
      index: job.index,
      result: await runTask(job.task, platform, job.target, job.options),
    });
  } catch (error) {
    parentPort?.postMessage({
      index: job.index,
      defect: error instanceof Error ? error.stack : String(error),
    });
  } finally {
    buffers.release();
  }
}
