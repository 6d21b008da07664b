// The worker threads the cold index prepares sessions on. They start when there is work and leave
// when it is done, so an idle daemon holds no threads.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { SessionPlatform } from '@cairn/transcript';
import Tinypool from 'tinypool';
import type { ReadCount } from '../reader/source-files.js';
import type { IndexJob, PreparedIndex } from './index-job.js';

export interface IndexTask {
  job: IndexJob;
  env: Record<string, string | undefined>;
  homeDir: string;
}

export interface IndexTaskResult {
  prepared: PreparedIndex;
  /** What the worker read, for the catalog's read count. */
  read: ReadCount;
}

/** The built worker beside this code, or nothing when running from source. */
export function indexWorkerFile(): string | undefined {
  const path = fileURLToPath(new URL('./index-worker.js', import.meta.url));
  return existsSync(path) ? path : undefined;
}

export class IndexWorkers {
  private readonly pool: Tinypool;

  constructor(
    file: string,
    private readonly platform: SessionPlatform,
    readonly threads = Math.max(1, availableParallelism()),
  ) {
    this.pool = new Tinypool({ filename: file, minThreads: 0, maxThreads: threads, idleTimeout: 2_000 });
  }

  /** Rejects when the worker dies (out of memory on a huge session, say); a new one takes the next task. */
  run(job: IndexJob): Promise<IndexTaskResult> {
    const task: IndexTask = { job, env: { ...this.platform.env }, homeDir: this.platform.homeDir };
    return this.pool.run(task);
  }

  /** The threads alive now: none once the work is done and they have been idle a moment. */
  get liveThreads(): number {
    return this.pool.threads.length;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
