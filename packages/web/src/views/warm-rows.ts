// Rows about to scroll into view have their Markdown made in idle time. Made while the list scrolls,
// in the same task as the scroll, parsing and sanitizing it was the largest part of the long frames
// a performance trace of the reader showed.
import { useEffect } from 'preact/hooks';
import { warmMarkdown } from '../markdown.js';
import { str } from '../timeline/item.js';
import type { Row } from '../timeline/model.js';

/** Rows on each side of those drawn whose Markdown is made ahead. */
const AHEAD = 16;
/** Longer texts are made when drawn, as before: one can take longer than a frame to parse, and
 * made ahead it would hold up the next wheel turn as long. */
const MAX_CHARS = 4000;
/** Work taken from one idle period at most: a wheel turn arriving meanwhile waits for it to end. */
const SLICE_MS = 4;

// The item types drawn open as Markdown (see rows.tsx); folded bodies are made when opened.
const MARKDOWN_TYPES = new Set(['message:user:out', 'message:sub:in']);

const idle = (work: (deadline: { timeRemaining(): number }) => void): (() => void) => {
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(work);
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(() => work({ timeRemaining: () => 8 }), 50);
  return () => clearTimeout(id);
};

/** Warms the Markdown of the rows around `first`..`last` (the rows drawn), nearest first. */
export function useWarmMarkdown(
  rows: readonly Row[],
  first: number | undefined,
  last: number | undefined,
): void {
  useEffect(() => {
    if (first === undefined || last === undefined) return;
    const order: number[] = [];
    for (let k = 1; k <= AHEAD; k++) order.push(last + k, first - k);
    let at = 0;
    let cancel = (): void => {};
    const work = (deadline: { timeRemaining(): number }): void => {
      const until = performance.now() + Math.min(SLICE_MS, deadline.timeRemaining());
      while (at < order.length && performance.now() < until) {
        const row = rows[order[at++]!];
        if (row?.kind !== 'item' || !MARKDOWN_TYPES.has(row.item.type)) continue;
        const text = str(row.item, 'text');
        if (text && text.length <= MAX_CHARS) warmMarkdown(text);
      }
      if (at < order.length) cancel = idle(work);
    };
    cancel = idle(work);
    return () => cancel();
  }, [rows, first, last]);
}
