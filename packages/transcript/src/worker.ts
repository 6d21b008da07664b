// A worker thread of the session pool: runs one task per message with a platform built from
// the environment it was given.
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { SessionTarget } from './model.js';
import type { SessionPlatform } from './platform.js';
import { nodePlatform } from './platform-node.js';
import { runTask, type TaskName, type TaskOptions } from './tasks.js';

interface Job {
  index: number;
  task: TaskName;
  target: SessionTarget;
  options: TaskOptions;
}

const base = nodePlatform(workerData as { env: Record<string, string | undefined>; homeDir?: string });
// A worker runs one job at a time and has nothing to do while its files arrive, so it reads them
// in one blocking call rather than in the many thread-pool round trips of an async read.
const platform: SessionPlatform = {
  ...base,
  fs: { ...base.fs, readFile: async (path) => readFileSync(path) },
};

parentPort?.on('message', async (job: Job) => {
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
  }
});
