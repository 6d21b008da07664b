// Work over a long session's events or items, a slice at a time: a session of hundreds of MB holds
// hundreds of thousands of them, and the daemon must go on answering others meanwhile.
import { setImmediate } from 'node:timers/promises';

/** Runs `step` over `[0, total)` in slices of `size`, with a turn of the event loop after each. */
export async function inSlices(
  total: number,
  size: number,
  step: (from: number, end: number) => void,
): Promise<void> {
  for (let from = 0; from < total; from += size) {
    step(from, Math.min(total, from + size));
    await setImmediate();
  }
}
