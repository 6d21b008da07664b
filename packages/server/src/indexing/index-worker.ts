// A worker thread of the cold index: prepares one session's index from its files per task.
import { readFileSync } from 'node:fs';
import { nodePlatform, type SessionPlatform } from '@cairn/transcript';
import Tinypool, { type Transferable } from 'tinypool';
import { ReadStats, servingPlatform } from '../reader/source-files.js';
import { batchBuffers, prepareIndex } from './index-job.js';
import type { IndexTask, IndexTaskResult } from './index-workers.js';

let platform: SessionPlatform | undefined;
let platformOf = '';

export default async function prepare(task: IndexTask): Promise<object> {
  const key = JSON.stringify([task.env, task.homeDir]);
  if (!platform || key !== platformOf) {
    const base = nodePlatform({ env: task.env, homeDir: task.homeDir });
    // One task at a time and nothing else to do while its files arrive: one blocking read each is
    // cheaper than the many thread-pool round trips of an async one.
    platform = { ...base, fs: { ...base.fs, readFile: async (path) => readFileSync(path) } };
    platformOf = key;
  }
  const stats = new ReadStats();
  const prepared = await prepareIndex(servingPlatform(platform, stats), task.job, {
    bytes: true,
    marks: true,
  });
  const result: IndexTaskResult = {
    prepared,
    read: { files: [...stats.files], bytes: stats.bytes, reads: stats.reads },
  };
  // The documents' buffers move to the daemon's thread; the rest of the result is copied.
  const movable = { [Tinypool.transferableSymbol]: batchBuffers(prepared), [Tinypool.valueSymbol]: result };
  // Tinypool types these symbols as any symbol, not as the ones its Transferable names.
  return Tinypool.move(movable as unknown as Transferable);
}
