// The worker threads the cold index prepares sessions on, and a first listing reads the sessions'
// heads on. They start when there is work and leave when it is done, so an idle daemon holds no
// threads.
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import type { ListEntry, SessionPlatform } from '@cairn/transcript';
import Tinypool from 'tinypool';
import type { ReadCount } from '../reader/source-files.js';
import type { IndexJob, PreparedIndex } from './index-job.js';
import type { IndexPart } from './index-parts.js';

export interface IndexTask {
  job: IndexJob;
  env: Record<string, string | undefined>;
  homeDir: string;
}

/** One agent's listing, its entries sent to `port` (see ListingMessage). */
export interface ListingTask {
  agent: string;
  env: Record<string, string | undefined>;
  homeDir: string;
  port: MessagePort;
}

/** What a listing sends: entries as they are found, then what it read, or why it stopped. */
export type ListingMessage = { entries: ListEntry[] } | { read: ReadCount } | { failed: string };

/** One large session prepared in parts, its parts sent to `port` (see IndexPartsMessage). */
export interface IndexPartsTask extends IndexTask {
  port: MessagePort;
}

/** What a read in parts sends: its parts, the end with what was read, or why the thread stopped.
 * The daemon answers each batch of documents with 'more', or 'stop' to end the read. */
export type IndexPartsMessage =
  | Exclude<IndexPart, { kind: 'end' }>
  | (Extract<IndexPart, { kind: 'end' }> & { read: ReadCount })
  | { kind: 'failed'; error: string };

/** Batches of documents a read in parts may have made and not yet had taken. */
const PARTS_AHEAD = 2;

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

  /**
   * Prepares a large session on a thread a part at a time: the parts come as they are made, a few
   * batches of documents ahead of the reader at most, and `read` hears what the thread read. A
   * thread that dies ends the parts with an 'end' that says so. Leaving the loop early stops the read.
   */
  prepareInParts(job: IndexJob, read: (count: ReadCount) => void): AsyncIterable<IndexPart> {
    const { port1, port2 } = new MessageChannel();
    const task: IndexPartsTask = {
      job,
      env: { ...this.platform.env },
      homeDir: this.platform.homeDir,
      port: port2,
    };
    const queue: IndexPart[] = [];
    let ended = false;
    let wake: (() => void) | undefined;
    const fail = (error: string) => {
      if (ended) return;
      queue.push({ kind: 'end', facts: { ok: false, error: `the worker reading it stopped: ${error}` } });
      ended = true;
      port1.close();
      wake?.();
    };
    port1.on('message', (m: IndexPartsMessage) => {
      if (m.kind === 'failed') return fail(m.error);
      if (m.kind === 'end') {
        const { read: count, ...end } = m;
        read(count);
        queue.push(end);
        ended = true;
        port1.close();
      } else queue.push(m);
      wake?.();
    });
    // A thread that died sends nothing more: its task's rejection ends the parts.
    this.pool
      .run(task, { name: 'prepareParts', transferList: [port2] })
      .catch((cause: unknown) => fail(cause instanceof Error ? cause.message : String(cause)));
    for (let i = 0; i < PARTS_AHEAD; i++) port1.postMessage('more');
    return {
      async *[Symbol.asyncIterator]() {
        let done = false;
        try {
          for (;;) {
            const part = queue.shift();
            if (part) {
              if (part.kind === 'docs' && !ended) port1.postMessage('more');
              if (part.kind === 'end') done = true;
              yield part;
              if (done) return;
            } else if (ended) return;
            else await new Promise<void>((resolve) => (wake = resolve));
          }
        } finally {
          if (!done && !ended) {
            port1.postMessage('stop');
            port1.close();
          }
        }
      },
    };
  }

  /**
   * Starts listing `agent`'s sessions on a thread: the entries come as the listing finds them, and
   * `read` hears what it read once it is done. The listing stops with an error when the thread
   * does (and the entries it sent are the ones found before).
   */
  list(agent: string, read: (count: ReadCount) => void): AsyncIterable<ListEntry> {
    const { port1, port2 } = new MessageChannel();
    const task: ListingTask = {
      agent,
      env: { ...this.platform.env },
      homeDir: this.platform.homeDir,
      port: port2,
    };
    const batches: ListEntry[][] = [];
    let ended: { failed?: string } | undefined;
    let wake: (() => void) | undefined;
    const end = (how: { failed?: string }) => {
      ended ??= how;
      port1.close();
      wake?.();
    };
    port1.on('message', (m: ListingMessage) => {
      if ('entries' in m) batches.push(m.entries);
      else if ('read' in m) {
        read(m.read);
        end({});
      } else end({ failed: m.failed });
      wake?.();
    });
    // A thread that died sends nothing more: its task's rejection ends the listing.
    this.pool
      .run(task, { name: 'listAgent', transferList: [port2] })
      .catch((cause: unknown) => end({ failed: cause instanceof Error ? cause.message : String(cause) }));
    return {
      async *[Symbol.asyncIterator]() {
        for (;;) {
          const batch = batches.shift();
          if (batch) yield* batch;
          else if (ended?.failed !== undefined)
            throw new Error(`listing ${agent} on a worker: ${ended.failed}`);
          else if (ended) return;
          else await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    };
  }

  /** The threads alive now: none once the work is done and they have been idle a moment. */
  get liveThreads(): number {
    return this.pool.threads.length;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
