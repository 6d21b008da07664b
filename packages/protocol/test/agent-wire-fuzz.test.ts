// Seeded fuzzing of the agent wire decoder: random text, random JSON, and the sample frames mutated
// in their structure and in their bytes. Decoding returns a frame or throws AgentFrameDecodeError,
// never anything else; whatever it returns may be sent back as it is.
import { describe, expect, it } from 'vitest';
import {
  AGENT_FRAME_FIXTURES,
  AGENT_FRAME_TYPES,
  type AgentFrame,
  AgentFrameDecodeError,
  decodeAgentFrame,
  outboundAgentFrameRejection,
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

const KEYS = ['t', 'id', 'seq', 'sessions', '__proto__', 'constructor', 'toString', 'prototype', 'x', ''];
const NUMBERS = [0, -0, 1, -1, 1.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, 2 ** 53 + 2, 1e308, -1e308, 5e-324];

function randomValue(random: Random, depth: number): unknown {
  const roll = int(random, depth > 3 ? 6 : 9);
  switch (roll) {
    case 0:
      return null;
    case 1:
      return random() < 0.5;
    case 2:
      return pick(random, NUMBERS);
    case 3:
      return random() * 1e6 - 5e5;
    case 4:
      return pick(random, [
        ...AGENT_FRAME_TYPES,
        '',
        'image',
        'select',
        'boolean',
        'injected',
        'x'.repeat(300),
      ]);
    case 5:
      return String.fromCharCode(...Array.from({ length: int(random, 12) }, () => int(random, 0x3000)));
    case 6:
    case 7: {
      const object: Record<string, unknown> = {};
      for (let i = int(random, 5); i > 0; i--) object[pick(random, KEYS)] = randomValue(random, depth + 1);
      return object;
    }
    default:
      return Array.from({ length: int(random, 4) }, () => randomValue(random, depth + 1));
  }
}

/** A copy of `value` with one node somewhere inside it removed, replaced or given an extra key. */
function mutate(random: Random, value: unknown, depth = 0): unknown {
  const here = depth > 0 && random() < 0.3;
  if (here) return randomValue(random, depth);
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
    } else {
      const key = pick(random, keys);
      copy[key] = mutate(random, copy[key], depth + 1);
    }
    return copy;
  }
  return randomValue(random, depth);
}

function mutateText(random: Random, text: string): string {
  const at = int(random, text.length + 1);
  switch (int(random, 5)) {
    case 0:
      return text.slice(0, at);
    case 1:
      return text.slice(0, at) + text.slice(at + 1 + int(random, 8));
    case 2:
      return (
        text.slice(0, at) +
        pick(random, ['{', '}', '[', ']', '"', ',', ':', '\\', '1e999', 'null', '\u0000']) +
        text.slice(at)
      );
    case 3:
      return text.replace(
        /\d+/,
        pick(random, ['1e400', '-1e400', '1.5', '123456789012345678901234567890', '0.1e1']),
      );
    default:
      return text.replace(/"(\w+)":/, `"__proto__":`);
  }
}

interface Tally {
  decoded: number;
  refused: number;
}

/** Decodes `text`; anything but a frame or AgentFrameDecodeError fails the test. */
function attempt(text: string, tally: Tally, resendable = true): void {
  let frame: AgentFrame;
  try {
    frame = decodeAgentFrame(text);
  } catch (error) {
    if (!(error instanceof AgentFrameDecodeError)) {
      throw new Error(`decoding ${JSON.stringify(text.slice(0, 200))} threw ${String(error)}`);
    }
    expect(error.message.length).toBeGreaterThan(0);
    expect(error.frameType === null || typeof error.frameType === 'string').toBe(true);
    expect(error.field === null || typeof error.field === 'string').toBe(true);
    tally.refused++;
    return;
  }
  tally.decoded++;
  // A decoded frame holds to every rule the outbound check applies, so it can be sent back as is.
  const rejection = outboundAgentFrameRejection(frame);
  // The one exception: nesting deep enough that JSON.parse copes and JSON.stringify runs out of stack.
  if (!resendable) {
    if (rejection !== null) expect(rejection).toMatch(/ cannot be serialized: /);
    return;
  }
  if (rejection !== null)
    throw new Error(`decoded ${text.slice(0, 200)} but it would be refused: ${rejection}`);
}

const samples = AGENT_FRAME_TYPES.map((type) => AGENT_FRAME_FIXTURES[type] as unknown);

describe('decoding never throws anything but AgentFrameDecodeError', () => {
  it('on random text', () => {
    const random = prng(0x5eed_0001);
    const tally = { decoded: 0, refused: 0 };
    const alphabet = '{}[]":,0123456789.eE+-tnulrfasbcdx\\ \n\u00e9\u2028';
    for (let i = 0; i < 1500; i++) {
      const length = int(random, 60);
      attempt(Array.from({ length }, () => alphabet[int(random, alphabet.length)]).join(''), tally);
    }
    expect(tally.refused).toBeGreaterThan(1400);
  });

  it('on random JSON, frame-like or not', () => {
    const random = prng(0x5eed_0002);
    const tally = { decoded: 0, refused: 0 };
    for (let i = 0; i < 1500; i++) {
      const value = randomValue(random, 0);
      if (value !== null && typeof value === 'object' && !Array.isArray(value) && random() < 0.7) {
        (value as Record<string, unknown>).t = pick(random, AGENT_FRAME_TYPES);
      }
      attempt(JSON.stringify(value), tally);
    }
    expect(tally.refused).toBeGreaterThan(1000);
  });

  it('on the sample frames mutated in their structure', () => {
    const random = prng(0x5eed_0003);
    const tally = { decoded: 0, refused: 0 };
    for (let i = 0; i < 3000; i++) {
      let value = pick(random, samples);
      for (let n = 1 + int(random, 3); n > 0; n--) value = mutate(random, value);
      attempt(JSON.stringify(value), tally);
    }
    // Both outcomes are common, so the fuzzing reaches past the first check.
    expect(tally.decoded).toBeGreaterThan(300);
    expect(tally.refused).toBeGreaterThan(1000);
  });

  it('on the sample frames mutated in their bytes', () => {
    const random = prng(0x5eed_0004);
    const tally = { decoded: 0, refused: 0 };
    for (let i = 0; i < 2000; i++) {
      attempt(mutateText(random, JSON.stringify(pick(random, samples))), tally);
    }
    expect(tally.refused).toBeGreaterThan(500);
  });

  it('on deep nesting, huge numbers and prototype keys', () => {
    const tally = { decoded: 0, refused: 0 };
    const deep = 100_000;
    attempt('['.repeat(deep) + ']'.repeat(deep), tally);
    attempt(`${'{"a":'.repeat(deep)}1${'}'.repeat(deep)}`, tally);
    attempt(
      `{"t":"agent_event","sessionRef":"r","seq":1,"eventName":"e","payload":${'['.repeat(deep)}${']'.repeat(deep)}}`,
      tally,
    );
    attempt(
      `{"t":"agent_event","sessionRef":"r","seq":1,"eventName":"e","payload":${'{"a":'.repeat(deep)}1${'}'.repeat(deep)}}`,
      tally,
      false,
    );
    attempt('['.repeat(deep), tally);
    for (const number of ['1e400', '-1e400', '1e-400', '9'.repeat(400), '-0', '0.0000001']) {
      attempt(`{"t":"heartbeat","seq":${number},"sentAtEpochMs":1}`, tally);
      attempt(`{"t":"agent_verify","id":"v","bridge":"b","query":1,"timeoutMs":${number}}`, tally);
    }
    for (const key of ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf']) {
      attempt(`{"t":"agent_close","${key}":{"sessionRef":"r"}}`, tally);
      attempt(`{"t":"agent_close","sessionRef":"r","${key}":null}`, tally);
      attempt(`{"t":"${key}"}`, tally);
      attempt(
        `{"t":"agent_open","id":"o","sessionRef":"r","agentKey":"k","bridge":"b","cwd":"c","shell":"s","env":{"${key}":1}}`,
        tally,
      );
    }
    expect(tally.decoded).toBeGreaterThan(5);
    expect(({} as Record<string, unknown>).sessionRef).toBeUndefined();
  });
});
