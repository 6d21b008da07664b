// The threads searches run on. They start when a browser opens the list of sessions (or with the
// first search) and leave after a minute without one, so an idle daemon holds no thread.
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

/**
 * How long one search may take, waiting for a thread included. SQLite cannot be told to stop a
 * statement from another thread, so a search past it has its thread ended (and a new one started
 * for the next search); a common word over a large index answers in well under a second.
 */
export const SEARCH_BUDGET_MS = 10_000;

/** Searches that run at once. A slow search holds one thread; the other answers everyone else. */
const SEARCH_THREADS = 2;

/** A search that ran past its budget and was stopped. */
export class SearchTooLong extends Error {
  constructor(readonly budgetMs: number) {
    super(`the search ran past ${budgetMs / 1000} s and was stopped; search for fewer or rarer words`);
    this.name = 'SearchTooLong';
  }
}

export class SearchThread {
  private readonly pool: Tinypool;
  /** The thread of the index's check, while one runs. */
  private checking: Tinypool | undefined;
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly budgetMs = SEARCH_BUDGET_MS,
  ) {
    // Two threads, not one per core: a search that matches much of a large index does not hold up
    // the next client's, and the cores are still left to the daemon and the cold index.
    this.pool = new Tinypool({
      filename: file,
      minThreads: 0,
      maxThreads: SEARCH_THREADS,
      idleTimeout: 60_000,
    });
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

  /**
   * Rejects with SearchTooLong past the budget (the caller must not search again on its own
   * thread then), and with another error when the search fails or the thread dies (the caller
   * searches on its own thread then).
   */
  async run(task: SearchTask): Promise<SearchRow[]> {
    const signal = AbortSignal.timeout(this.budgetMs);
    try {
      return await this.pool.run(task, { signal });
    } catch (cause) {
      if (signal.aborted && !this.closed) throw new SearchTooLong(this.budgetMs);
      throw cause;
    }
  }

  /**
   * Starts a thread and opens its connection ahead of the first search, when none is running: that
   * search would otherwise wait for both. A warming that fails is no loss: the search starts them.
   */
  warm(index: Pick<SearchTask, 'file' | 'generation'>): void {
    if (this.closed || this.pool.threads.length > 0) return;
    this.pool.run(index, { name: 'warm' }).then(
      () => this.warmed++,
      () => undefined,
    );
  }

  /** Threads warmed (see warm). */
  warmed = 0;

  /** The threads alive now: none once searches have stopped a while. */
  get liveThreads(): number {
    return this.pool.threads.length;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([this.pool.destroy(), this.checking?.destroy()]);
  }
}
