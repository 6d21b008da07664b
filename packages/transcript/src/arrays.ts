// Adding many elements to an array at once. `a.push(...b)` passes each element of `b` as an
// argument, and a long `b` (every record of a large session on its first read) overflows the
// call stack; these take any length.

/** Appends `items` to `target`, in order. */
export function appendAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) target.push(item);
}

/** Inserts `items` into `target` before index `at`, in order. */
export function insertAll<T>(target: T[], at: number, items: readonly T[]): void {
  const tail = target.splice(at);
  appendAll(target, items);
  appendAll(target, tail);
}
