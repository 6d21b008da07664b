// Seeded fuzzing of the chat wire's checks: the samples of both directions mutated in their structure,
// random JSON, and values JSON cannot hold. A check answers with a value or a named fault, never
// throws, and agrees with the union schema on every input.
import { Value } from '@sinclair/typebox/value';
import { describe, expect, it } from 'vitest';
import {
  CHAT_CLIENT_MESSAGE_FIXTURES,
  CHAT_SERVER_EVENT_FIXTURES,
  ClientMessage,
  MAX_INLINE_IMAGE_BASE64_CHARS,
  ServerEvent,
  type Validation,
  validateClientMessage,
  validateServerEvent,
} from '../src/index.js';

/** mulberry32: small, fast, and the same sequence for the same seed on every machine. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

type Random = ReturnType<typeof prng>;

const int = (random: Random, below: number) => Math.floor(random() * below);
const pick = <T>(random: Random, items: readonly T[]): T => items[int(random, items.length)]!;

const SERVER_TYPES = Object.keys(CHAT_SERVER_EVENT_FIXTURES);
const CLIENT_TYPES = Object.keys(CHAT_CLIENT_MESSAGE_FIXTURES);
const KEYS = ['type', 'id', 'messageId', 'images', 'data', 'url', '__proto__', 'constructor', 'toString', ''];
const NUMBERS = [0, -0, 1, -1, 1.5, 2 ** 31, 2 ** 53, 2 ** 53 + 2, 1e308, -1e308, 5e-324, Number.NaN];
const STRINGS = [
  ...SERVER_TYPES,
  ...CLIENT_TYPES,
  '',
  'select',
  'boolean',
  'allow_once',
  'gzip-base64',
  'x'.repeat(300),
  'A'.repeat(MAX_INLINE_IMAGE_BASE64_CHARS + 1),
];

function randomValue(random: Random, depth: number): unknown {
  switch (int(random, depth > 3 ? 6 : 9)) {
    case 0:
      return null;
    case 1:
      return random() < 0.5;
    case 2:
      return pick(random, NUMBERS);
    case 3:
      return random() * 1e6 - 5e5;
    case 4:
      return pick(random, STRINGS);
    case 5:
      return String.fromCharCode(...Array.from({ length: int(random, 12) }, () => int(random, 0x3000)));
    case 6:
    case 7: {
      const object: Record<string, unknown> = {};
      for (let i = int(random, 5); i > 0; i--) {
        Object.defineProperty(object, pick(random, KEYS), {
          value: randomValue(random, depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return object;
    }
    default:
      return Array.from({ length: int(random, 4) }, () => randomValue(random, depth + 1));
  }
}

/** A copy of `value` with one node somewhere inside it removed, replaced or given an extra key. */
function mutate(random: Random, value: unknown, depth = 0): unknown {
  if (depth > 0 && random() < 0.3) return randomValue(random, depth);
  if (Array.isArray(value)) {
    if (value.length === 0 || random() < 0.15) return [...value, randomValue(random, depth)];
    const index = int(random, value.length);
    const copy = [...value];
    if (random() < 0.2) copy.splice(index, 1);
    else copy[index] = mutate(random, copy[index], depth + 1);
    return copy;
  }
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = { ...(value as Record<string, unknown>) };
    const keys = Object.keys(copy);
    const roll = random();
    if (keys.length === 0 || roll < 0.15) {
      Object.defineProperty(copy, pick(random, KEYS), {
        value: randomValue(random, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    } else if (roll < 0.35) {
      delete copy[pick(random, keys)];
    } else if (roll < 0.45) {
      // Another member's type on this member's fields.
      copy.type = pick(random, [...SERVER_TYPES, ...CLIENT_TYPES]);
    } else {
      const key = pick(random, keys);
      copy[key] = mutate(random, copy[key], depth + 1);
    }
    return copy;
  }
  return randomValue(random, depth);
}

/** Values JSON cannot hold, which a caller may still pass by mistake. */
const EXOTIC: unknown[] = [
  undefined,
  1n,
  Symbol('frame'),
  () => ({ type: 'stop' }),
  new Date(0),
  new Map([['type', 'stop']]),
  Object.create(null),
  Object.assign(Object.create(null), { type: 'stop' }),
  Object.create({ type: 'stop' }),
  { type: 'stop', extra: 1n },
  { type: 'queue_remove', id: Symbol('id') },
  {
    type: 'user_message',
    content: 'x',
    images: [{ mimeType: 'image/png', data: undefined, url: undefined }],
  },
  new Proxy({}, {}),
];

interface Side {
  readonly name: string;
  readonly samples: readonly unknown[];
  readonly union: typeof ServerEvent | typeof ClientMessage;
  readonly check: (value: unknown) => Validation<unknown>;
}

const SIDES: Side[] = [
  {
    name: 'server events',
    samples: Object.values(CHAT_SERVER_EVENT_FIXTURES),
    union: ServerEvent,
    check: validateServerEvent,
  },
  {
    name: 'client messages',
    samples: Object.values(CHAT_CLIENT_MESSAGE_FIXTURES),
    union: ClientMessage,
    check: validateClientMessage,
  },
];

/** Checks `value` and holds the answer to the contract: never a throw, a fault that names a field the
 * message repeats, and the same verdict as the union schema. */
function attempt(side: Side, value: unknown, tally: { ok: number; refused: number }, isJson: boolean): void {
  let result: Validation<unknown>;
  try {
    result = side.check(value);
  } catch (error) {
    throw new Error(`checking ${String(JSON.stringify(value))?.slice(0, 200)} threw ${String(error)}`);
  }
  if (result.ok) {
    tally.ok += 1;
    expect(result.value).toBe(value);
  } else {
    tally.refused += 1;
    expect(result.error.code).toBe('invalid_args');
    expect(result.error.field === '' || result.error.field.startsWith('/')).toBe(true);
    expect(result.error.message).toContain(result.error.field === '' ? 'value' : result.error.field);
  }
  if (isJson) expect(result.ok).toBe(Value.Check(side.union, value));
}

describe.each(SIDES)('the checks of the $name', (side) => {
  it('never throw on mutated samples, and agree with the union schema', () => {
    const random = prng(0xc0ffee ^ side.samples.length);
    const tally = { ok: 0, refused: 0 };
    for (let round = 0; round < 3_000; round++) {
      let value: unknown = pick(random, side.samples);
      for (let steps = 1 + int(random, 3); steps > 0; steps--) value = mutate(random, value);
      attempt(side, value, tally, true);
      // The same frame as it arrives: through JSON, `__proto__` keys become own keys.
      const text = JSON.stringify(value);
      if (text !== undefined) attempt(side, JSON.parse(text), tally, true);
    }
    // Mutations keep some frames valid (an extra key, a value of the right type) and break most.
    expect(tally.ok).toBeGreaterThan(100);
    expect(tally.refused).toBeGreaterThan(1_000);
  });

  it('never throw on random JSON', () => {
    const random = prng(0x5eed ^ side.samples.length);
    const tally = { ok: 0, refused: 0 };
    for (let round = 0; round < 2_000; round++) {
      const value = randomValue(random, 0);
      attempt(side, value, tally, true);
      const fields = value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
      attempt(side, { type: pick(random, STRINGS), ...fields }, tally, true);
    }
    expect(tally.refused).toBeGreaterThan(0);
  });

  it('never throw on values JSON cannot hold', () => {
    const tally = { ok: 0, refused: 0 };
    for (const value of EXOTIC) attempt(side, value, tally, false);
    expect(tally.refused).toBeGreaterThan(0);
  });
});
