// Mapping a stream of entries through slow lookups (a file's head read per session) with a few of
// them under way at once, while the results still come out in the stream's order.

/**
 * `lookup` of each of `source`'s entries, in order, starting up to `ahead` lookups before their
 * results are taken. A failed lookup fails the stream where its result would have come; a failed
 * source fails it after the results of what it gave before.
 */
export async function* lookAhead<S, R>(
  source: AsyncIterable<S>,
  ahead: number,
  lookup: (entry: S) => Promise<R>,
): AsyncGenerator<R> {
  const entries = source[Symbol.asyncIterator]();
  const pending: Promise<R>[] = [];
  let ended = false;
  try {
    for (;;) {
      let next: IteratorResult<S>;
      try {
        next = await entries.next();
      } catch (cause) {
        ended = true;
        while (pending.length > 0) yield await pending.shift()!;
        throw cause;
      }
      if (next.done) break;
      const result = lookup(next.value);
      // Seen when its turn comes; until then its failure is nobody's.
      result.catch(() => undefined);
      pending.push(result);
      if (pending.length >= ahead) yield await pending.shift()!;
    }
    ended = true;
    while (pending.length > 0) yield await pending.shift()!;
  } finally {
    // Left early (a consumer that stopped, a failed lookup): the source is closed too.
    if (!ended) await entries.return?.();
  }
}

/** Session heads a listing reads at once: enough to keep the file system busy, few enough to hold. */
export const HEADS_AHEAD = 8;
