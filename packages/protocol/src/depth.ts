// How deep a parsed value may nest. Recursive code (JSON.stringify, renderers, validators, walks
// over tool inputs, schema checks) fails on values nested thousands of levels deep, and one such
// value must not take down everything that reads it. So every value read from a session's bytes or
// from an agent is bounded here, once, right after parsing: an object or array nested deeper than
// MAX_VALUE_DEPTH levels is replaced by the string DEEP_VALUE_PLACEHOLDER, which says what was
// there. Everything above that level is kept as it came.

/** Levels of objects and arrays kept, counting the parsed value itself as level 1. */
export const MAX_VALUE_DEPTH = 100;

/** What stands in for an object or array nested deeper than MAX_VALUE_DEPTH levels. */
export const DEEP_VALUE_PLACEHOLDER = `⟨cairn: value nested deeper than ${MAX_VALUE_DEPTH} levels, omitted⟩`;

const isContainer = (v: unknown): v is object => typeof v === 'object' && v !== null;

/**
 * Bounds a freshly parsed value in place: containers deeper than `maxDepth` become the
 * placeholder. Returns the value (the placeholder itself when the value is too deep) and how
 * many containers were cut. The recursion goes at most `maxDepth` levels deep.
 */
export function boundDepth(value: unknown, maxDepth = MAX_VALUE_DEPTH): { value: unknown; cut: number } {
  if (!isContainer(value)) return { value, cut: 0 };
  if (maxDepth < 1) return { value: DEEP_VALUE_PLACEHOLDER, cut: 1 };
  return { value, cut: boundChildren(value, 1, maxDepth) };
}

function boundChildren(node: object, depth: number, maxDepth: number): number {
  let cut = 0;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length; i++) {
      const child: unknown = node[i];
      if (!isContainer(child)) continue;
      if (depth >= maxDepth) {
        node[i] = DEEP_VALUE_PLACEHOLDER;
        cut++;
      } else cut += boundChildren(child, depth + 1, maxDepth);
    }
    return cut;
  }
  const rec = node as Record<string, unknown>;
  for (const key of Object.keys(rec)) {
    const child = rec[key];
    if (!isContainer(child)) continue;
    if (depth >= maxDepth) {
      // defineProperty also replaces an own `__proto__` member, which assignment would not.
      Object.defineProperty(rec, key, {
        value: DEEP_VALUE_PLACEHOLDER,
        writable: true,
        enumerable: true,
        configurable: true,
      });
      cut++;
    } else cut += boundChildren(child, depth + 1, maxDepth);
  }
  return cut;
}

/** JSON.parse, then boundDepth. Throws what JSON.parse throws. */
export function parseJson(text: string): unknown {
  return boundDepth(JSON.parse(text)).value;
}

/** Whether `value` nests deeper than `maxDepth` levels; looks at most `maxDepth + 1` levels down. */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  return deeper(value, 0, maxDepth);
}

function deeper(value: unknown, depth: number, maxDepth: number): boolean {
  if (!isContainer(value)) return false;
  if (depth >= maxDepth) return true;
  const children = Array.isArray(value) ? value : Object.values(value);
  for (const child of children) if (deeper(child, depth + 1, maxDepth)) return true;
  return false;
}

/**
 * JSON.stringify that answers undefined instead of throwing (a value too deep for the stack,
 * a cycle, a BigInt), for places that must go on with the rest.
 */
export function tryStringify(value: unknown, space?: number): string | undefined {
  try {
    return JSON.stringify(value, null, space);
  } catch {
    return undefined;
  }
}
