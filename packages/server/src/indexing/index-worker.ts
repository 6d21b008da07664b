// A worker thread of the cold index: prepares one session's index from its files per task, or lists
// one agent's sessions (their heads) for a first listing.
import { readFileSync } from 'node:fs';
import { type ListEntry, listSessions, nodePlatform, type SessionPlatform } from '@cairn/transcript';
import Tinypool, { type Transferable } from 'tinypool';
import { ReadStats, servingPlatform } from '../reader/source-files.js';
import { batchBuffers, prepareIndex } from './index-job.js';
import { prepareInParts } from './index-parts.js';
import type {
  IndexPartsMessage,
  IndexPartsTask,
  IndexTask,
  IndexTaskResult,
  ListingMessage,
  ListingTask,
} from './index-workers.js';

let platform: SessionPlatform | undefined;
let platformOf = '';

function platformFor(task: { env: Record<string, string | undefined>; homeDir: string }): SessionPlatform {
  const key = JSON.stringify([task.env, task.homeDir]);
  if (!platform || key !== platformOf) {
    const base = nodePlatform({ env: task.env, homeDir: task.homeDir });
    // One task at a time and nothing else to do while its files arrive: one blocking read each is
    // cheaper than the many thread-pool round trips of an async one.
    platform = { ...base, fs: { ...base.fs, readFile: async (path) => readFileSync(path) } };
    platformOf = key;
  }
  return platform;
}

export default async function prepare(task: IndexTask): Promise<object> {
  const stats = new ReadStats();
  const prepared = await prepareIndex(servingPlatform(platformFor(task), stats), task.job, {
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

/**
 * Prepares one large session a part at a time (see prepareInParts), sending each part to
 * `task.port` as it is made: a batch of documents only while the daemon has asked for more, so that
 * what waits between the threads stays a few batches however fast the reading goes. The daemon's
 * 'stop' ends the read.
 */
export async function prepareParts(task: IndexPartsTask): Promise<void> {
  const stats = new ReadStats();
  const port = task.port;
  let credit = 0;
  let stopped = false;
  let wake: (() => void) | undefined;
  port.on('message', (m: 'more' | 'stop') => {
    if (m === 'stop') stopped = true;
    else credit++;
    wake?.();
  });
  const send = (message: IndexPartsMessage, move: ArrayBuffer[] = []) => port.postMessage(message, move);
  try {
    const parts = prepareInParts(servingPlatform(platformFor(task), stats), task.job, {
      bytes: true,
      marks: true,
    });
    for await (const part of parts) {
      if (part.kind === 'docs') {
        while (credit === 0 && !stopped) await new Promise<void>((resolve) => (wake = resolve));
        if (stopped) break;
        credit--;
        const b = part.batch;
        send(part, b instanceof Uint8Array || b instanceof Uint16Array ? [b.buffer as ArrayBuffer] : []);
      } else if (part.kind === 'end') {
        send({ ...part, read: { files: [...stats.files], bytes: stats.bytes, reads: stats.reads } });
      } else send(part);
      if (stopped) break;
    }
  } catch (cause) {
    send({ kind: 'failed', error: cause instanceof Error ? cause.message : String(cause) });
  } finally {
    port.close();
  }
}

/** Entries of a listing sent together: the daemon records (and shows) them as they come. */
const LISTED_PER_MESSAGE = 200;

/**
 * Lists one agent's sessions, sending their entries to `task.port` as they are found and, last, what
 * was read. Only the port carries them: its messages and the task's answer do not keep one order.
 */
export async function listAgent(task: ListingTask): Promise<void> {
  const stats = new ReadStats();
  const send = (message: ListingMessage) => task.port.postMessage(message);
  let entries: ListEntry[] = [];
  try {
    for await (const entry of listSessions(servingPlatform(platformFor(task), stats), {
      agent: task.agent,
    })) {
      entries.push(entry);
      if (entries.length === LISTED_PER_MESSAGE) {
        send({ entries });
        entries = [];
      }
    }
    if (entries.length > 0) send({ entries });
    send({ read: { files: [...stats.files], bytes: stats.bytes, reads: stats.reads } });
  } catch (cause) {
    send({ failed: cause instanceof Error ? cause.message : String(cause) });
  } finally {
    task.port.close();
  }
}
