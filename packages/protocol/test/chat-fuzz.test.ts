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

import {
  int,
  mutate as mutateValue,
  pick,
  prng,
  type Random,
  randomValue as randomJson,
  type Vocabulary,
} from './random-json.js';

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

const WORDS: Vocabulary = {
  keys: KEYS,
  numbers: NUMBERS,
  strings: STRINGS,
  // Another member's type on this member's fields.
  retype: { key: 'type', values: [...SERVER_TYPES, ...CLIENT_TYPES] },
};
const randomValue = (random: Random, depth: number) => randomJson(random, WORDS, depth);
const mutate = (random: Random, value: unknown) => mutateValue(random, WORDS, value);

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
