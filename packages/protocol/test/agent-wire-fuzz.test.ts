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

import {
  int,
  mutate as mutateValue,
  pick,
  prng,
  type Random,
  randomValue as randomJson,
  type Vocabulary,
} from './random-json.js';

const WORDS: Vocabulary = {
  keys: ['t', 'id', 'seq', 'sessions', '__proto__', 'constructor', 'toString', 'prototype', 'x', ''],
  numbers: [0, -0, 1, -1, 1.5, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, 2 ** 53 + 2, 1e308, -1e308, 5e-324],
  strings: [...AGENT_FRAME_TYPES, '', 'image', 'select', 'boolean', 'injected', 'x'.repeat(300)],
};
const randomValue = (random: Random, depth: number) => randomJson(random, WORDS, depth);
const mutate = (random: Random, value: unknown) => mutateValue(random, WORDS, value);

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
  // A decoded frame holds to every rule the outbound check applies but one, so it can be sent back
  // as is: decoding takes any finite number (and an error code's null) where the far side reads an
  // integer, and only a sender is held to whole numbers.
  const rejection = outboundAgentFrameRejection(frame);
  if (rejection?.includes(' must be a whole number, got ') && !rejection.includes(' from ')) return;
  // The other exception: nesting deep enough that JSON.parse copes and JSON.stringify runs out of stack.
  if (!resendable) {
    if (rejection !== null) expect(rejection).toBe('Maximum call stack size exceeded');
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
