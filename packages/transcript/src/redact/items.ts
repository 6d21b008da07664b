// A dump's items redacted with one cheap walk over them all: each distinct string is given the first
// look once (prefilter.ts), and only the items holding a string it lets through go to the redactor.
// The rest, nearly all of a dump, are handed back as they are, never copied nor scanned again.
import { type RedactionCounts, redactValue, SHORTEST, secretFilter } from './redact.js';

/** The characters of every string in a value. */
function textLength(value: unknown): number {
  if (typeof value === 'string') return value.length;
  let n = 0;
  if (Array.isArray(value)) for (const v of value) n += textLength(v);
  else if (value !== null && typeof value === 'object')
    for (const v of Object.values(value as Record<string, unknown>)) n += textLength(v);
  return n;
}

/**
 * The items with every string redacted, as `redactValue` gives them, and the secrets counted. The
 * items that may hold a secret are redacted a batch at a time, a batch closing once its strings reach
 * `batchChars` characters, so the text scanned at once stays bounded.
 */
export async function redactItems<T>(
  items: readonly T[],
  batchChars: number,
  /** The first look's answers kept from earlier calls, for a dump redacted a part at a time. */
  looked = new Map<string, boolean>(),
): Promise<{ items: T[]; counts: RedactionCounts }> {
  const mayHold = await secretFilter();
  // The first look's answer for each distinct string met: a dump repeats many (paths, tool names).
  const holds = (value: unknown): boolean => {
    if (typeof value === 'string') {
      if (value.length < SHORTEST) return false;
      let answer = looked.get(value);
      if (answer === undefined) {
        answer = mayHold(value);
        looked.set(value, answer);
      }
      return answer;
    }
    if (Array.isArray(value)) {
      for (const v of value) if (holds(v)) return true;
    } else if (value !== null && typeof value === 'object') {
      // Keys, not Object.values: no array is made per object, which cost as much as the rest of
      // the walk; an item's plain objects inherit no enumerable key.
      const object = value as Record<string, unknown>;
      for (const key in object) if (holds(object[key])) return true;
    }
    return false;
  };

  const out = [...items];
  const counts: RedactionCounts = {};
  let batch: number[] = [];
  let chars = 0;
  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const r = await redactValue(batch.map((i) => items[i] as T));
    for (const [kind, n] of Object.entries(r.counts)) counts[kind] = (counts[kind] ?? 0) + n;
    batch.forEach((i, k) => {
      out[i] = r.value[k] as T;
    });
    batch = [];
    chars = 0;
  };
  for (let i = 0; i < items.length; i++) {
    if (!holds(items[i])) continue;
    batch.push(i);
    chars += textLength(items[i]);
    if (chars >= batchChars) await flush();
  }
  await flush();
  return { items: out, counts };
}
