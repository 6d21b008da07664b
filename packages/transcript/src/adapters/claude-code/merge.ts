// Interleaving the files of a session by time while keeping each file's own order.

/**
 * Merges lists by timestamp; each list keeps its order, an item without a timestamp stays after
 * its predecessor, and ties go to the earlier list (the main file first).
 */
export function mergeByTime<T>(
  lists: readonly (readonly T[])[],
  timeOf: (item: T) => number | undefined,
): T[] {
  if (lists.length === 1) return [...(lists[0] ?? [])];
  const keys = lists.map((list) => {
    let last = Number.NEGATIVE_INFINITY;
    return list.map((item) => {
      last = timeOf(item) ?? last;
      return last;
    });
  });
  const at = lists.map(() => 0);
  const out: T[] = [];
  for (;;) {
    let best = -1;
    let bestKey = Number.POSITIVE_INFINITY;
    for (let i = 0; i < lists.length; i++) {
      const key = keys[i]?.[at[i] ?? 0];
      if (key !== undefined && (best === -1 || key < bestKey)) {
        best = i;
        bestKey = key;
      }
    }
    if (best === -1) return out;
    const index = at[best] ?? 0;
    out.push((lists[best] as readonly T[])[index] as T);
    at[best] = index + 1;
  }
}
