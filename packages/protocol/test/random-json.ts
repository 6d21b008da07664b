// Seeded random JSON for the wire fuzz tests: the same values for the same seed on every machine,
// drawn from a vocabulary each wire gives (its keys, awkward numbers, its own strings).

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
export function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export type Random = ReturnType<typeof prng>;

export const int = (random: Random, below: number): number => Math.floor(random() * below);
export const pick = <T>(random: Random, items: readonly T[]): T => items[int(random, items.length)]!;

export interface Vocabulary {
  readonly keys: readonly string[];
  readonly numbers: readonly number[];
  readonly strings: readonly string[];
  /** When set, some object mutations give the value another frame's discriminator instead. */
  readonly retype?: { readonly key: string; readonly values: readonly string[] };
}

/** Sets a key as an own property, so `__proto__` is a key like any other, not the prototype. */
function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}

export function randomValue(random: Random, words: Vocabulary, depth = 0): unknown {
  switch (int(random, depth > 3 ? 6 : 9)) {
    case 0:
      return null;
    case 1:
      return random() < 0.5;
    case 2:
      return pick(random, words.numbers);
    case 3:
      return random() * 1e6 - 5e5;
    case 4:
      return pick(random, words.strings);
    case 5:
      return String.fromCharCode(...Array.from({ length: int(random, 12) }, () => int(random, 0x3000)));
    case 6:
    case 7: {
      const object: Record<string, unknown> = {};
      for (let i = int(random, 5); i > 0; i--)
        setOwn(object, pick(random, words.keys), randomValue(random, words, depth + 1));
      return object;
    }
    default:
      return Array.from({ length: int(random, 4) }, () => randomValue(random, words, depth + 1));
  }
}

/** A copy of `value` with one node somewhere inside it removed, replaced or given an extra key. */
export function mutate(random: Random, words: Vocabulary, value: unknown, depth = 0): unknown {
  if (depth > 0 && random() < 0.3) return randomValue(random, words, depth);
  if (Array.isArray(value)) {
    if (value.length === 0 || random() < 0.15) return [...value, randomValue(random, words, depth)];
    const index = int(random, value.length);
    const copy = [...value];
    if (random() < 0.2) copy.splice(index, 1);
    else copy[index] = mutate(random, words, copy[index], depth + 1);
    return copy;
  }
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    const keys = Object.keys(copy);
    const roll = random();
    if (keys.length === 0 || roll < 0.15) {
      setOwn(copy, pick(random, words.keys), randomValue(random, words, depth + 1));
    } else if (roll < 0.35) {
      delete copy[pick(random, keys)];
    } else if (roll < 0.45 && words.retype) {
      copy[words.retype.key] = pick(random, words.retype.values);
    } else {
      const key = pick(random, keys);
      copy[key] = mutate(random, words, copy[key], depth + 1);
    }
    return copy;
  }
  return randomValue(random, words, depth);
}
