// How a compaction happened, as its divider says it: the classifier's words ("auto, 170251 tokens
// before") with the number written the way every other count in the app is.
import { formatExact } from '../format.js';

/** The words in the boundary's parentheses, numbers grouped; undefined when there are none. */
export function compactionHow(boundaryText: string): string | undefined {
  const how = /\(([^)]*)\)/.exec(boundaryText)?.[1];
  if (how === undefined || how.trim() === '') return undefined;
  return how.replace(/\b\d{4,}\b/g, (digits) => formatExact(Number(digits)));
}
