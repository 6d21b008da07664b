// The thread searches run on. It starts with the first search and leaves after a minute without
// one, so an idle daemon holds no thread.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Tinypool from 'tinypool';
import type { SearchRow, SearchStatement } from './search-query.js';

export interface SearchTask {
  /** The index's database file. */
  file: string;
  /** Counts the times the index was replaced after damage (IndexDb.generation). */
  generation: number;
  statement: SearchStatement;
}

/** The built worker beside this code, or nothing when running from source. */
export function searchWorkerFile(): string | undefined {
  const path = fileURLToPath(new URL('./search-worker.js', import.meta.url));
  return existsSync(path) ? path : undefined;
}

export class SearchThread {
  private readonly pool: Tinypool;
  /** The thread of the index's check, while one runs. */
  private checking: Tinypool | undefined;
  private closed = false;

  constructor(private readonly file: string) {
    // One thread: searches take turns, and the cores are left to the daemon and the cold index.
    this.pool = new Tinypool({ filename: file, minThreads: 0, maxThreads: 1, idleTimeout: 60_000 });
  }

  /**
   * SQLite's check of every page of the index, on a thread of its own so that no search waits on
   * it; undefined when the daemon stopped first.
   */
  async checkPages(index: string): Promise<string | undefined> {
    if (this.closed) return undefined;
    const pool = new Tinypool({ filename: this.file, minThreads: 0, maxThreads: 1 });
    this.checking = pool;
    try {
      return (await pool.run({ file: index }, { name: 'checkPages' })) as string;
    } catch (cause) {
      if (this.closed) return undefined;
      throw cause;
    } finally {
      this.checking = undefined;
      await pool.destroy();
    }
  }

  /** Rejects when the search fails or the thread dies; the caller searches on its own thread then. */
  run(task: SearchTask): Promise<SearchRow[]> {
    return this.pool.run(task);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.pool.destroy(), this.checking?.destroy()]);
  }
}
