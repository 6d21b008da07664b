// After a burst of work (the start's listing, a cold index, the usage reports made ready), the heap
// keeps what that work left behind until V8 next collects, and a daemon left idle may not collect
// for a long time: over a home of 20,000 sessions that is about a hundred megabytes held for
// nothing. One full collection, once the work has been quiet a while, gives it back.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Quiet this long after the last work before collecting. */
const QUIET_MS = 10_000;
/** Collect only when the heap grew this much since the last collection: small work is V8's own business. */
const GROWTH_BYTES = 32 * 1024 * 1024;

let collector: (() => void) | undefined | null = null;

/** V8's full collection, made callable once; undefined where the flag cannot be set. */
function fullCollection(): (() => void) | undefined {
  if (collector === null) {
    try {
      setFlagsFromString('--expose-gc');
      collector = runInNewContext('gc') as () => void;
    } catch {
      collector = undefined;
    }
  }
  return collector;
}

export class IdleCollect {
  private timer: NodeJS.Timeout | undefined;
  private usedAfterLast = 0;
  /** Full collections made. */
  collections = 0;

  constructor(private readonly quietMs = QUIET_MS) {}

  /** Work just ended: a collection follows QUIET_MS later unless more work comes first. */
  workDone(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.collect(), this.quietMs);
    this.timer.unref();
  }

  /** More work began: the collection waits for its end. */
  workBegan(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  close(): void {
    clearTimeout(this.timer);
  }

  private collect(): void {
    if (getHeapStatistics().used_heap_size - this.usedAfterLast < GROWTH_BYTES) return;
    const gc = fullCollection();
    if (!gc) return;
    gc();
    this.collections++;
    this.usedAfterLast = getHeapStatistics().used_heap_size;
  }
}
