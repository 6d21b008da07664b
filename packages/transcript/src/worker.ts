// A worker thread of the session pool: runs one task per message with a platform built from
// the environment it was given.
import { parentPort, workerData } from 'node:worker_threads';
import type { SessionTarget } from './model.js';
import { nodePlatform } from './platform-node.js';
import { runTask, type TaskName, type TaskOptions } from './tasks.js';

interface Job {
  index: number;
  task: TaskName;
  target: SessionTarget;
  options: TaskOptions;
}

const platform = nodePlatform(workerData as { env: Record<string, string | undefined>; homeDir?: string });

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
