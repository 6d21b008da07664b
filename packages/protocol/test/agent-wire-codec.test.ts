// Encoding, decoding and the checks before sending, on the sample frames and on frames broken in
// known ways; and the guards whose rules are more than a JSON type.
import { describe, expect, it } from 'vitest';
import {
  AGENT_FRAME_FIXTURES,
  AGENT_FRAME_TYPES,
  type AgentFrame,
  AgentFrameDecodeError,
  type AgentFrameType,
  agentFrameFields,
  decodeAgentFrame,
  encodeAgentFrame,
  outboundAgentFrameRejection,
  outboundFailureReply,
  tryDecodeAgentFrame,
} from '../src/index.js';

const samples: Record<string, Record<string, unknown>> = AGENT_FRAME_FIXTURES as never;

function failureOf(text: string): AgentFrameDecodeError {
  try {
    decodeAgentFrame(text);
  } catch (error) {
    expect(error).toBeInstanceOf(AgentFrameDecodeError);
    return error as AgentFrameDecodeError;
  }
  throw new Error(`decoded: ${text}`);
}

function frameFailure(frame: Record<string, unknown>): AgentFrameDecodeError {
  return failureOf(JSON.stringify(frame));
}

const decodes = (frame: Record<string, unknown>) => tryDecodeAgentFrame(JSON.stringify(frame)).ok;

function edit(
  type: AgentFrameType,
  change: (frame: { sessions: Record<string, unknown>[]; [key: string]: unknown }) => void,
): Record<string, unknown> {
  const frame = structuredClone(samples[type]!);
  change(frame as never);
  return frame;
}

describe('round trip', () => {
  it.each(AGENT_FRAME_TYPES)(
    '%s: the sample encodes and decodes to an equal frame, and may be sent',
    (type) => {
      const frame = AGENT_FRAME_FIXTURES[type] as AgentFrame;
      const text = encodeAgentFrame(frame);
      expect(decodeAgentFrame(text)).toEqual(frame);
      expect(outboundAgentFrameRejection(frame)).toBeNull();
    },
  );
});

describe('decode errors', () => {
  it('name the frame and the field', () => {
    const open = edit('agent_open', (frame) => {
      delete frame.cwd;
    });
    const missing = frameFailure(open);
    expect(missing.message).toBe('agent_open.cwd is required');
    expect([missing.frameType, missing.field, missing.name]).toEqual([
      'agent_open',
      'cwd',
      'AgentFrameDecodeError',
    ]);
    const wrong = frameFailure({ ...open, cwd: 7 });
    expect(wrong.message).toBe('agent_open.cwd must be a string, got number');
    expect(frameFailure({ ...samples.agent_prompt!, images: [{ type: 'image', data: 'x' }] }).message).toBe(
      'agent_prompt.images[0].mimeType is required',
    );
    expect(frameFailure({ ...samples.agent_open!, env: { A: 'a', B: 2 } }).message).toBe(
      'agent_open.env["B"] must be a string, got number',
    );
  });

  it('say what is wrong with a text that is not a frame at all', () => {
    const cases: [string, string, string | null, string | null][] = [
      ['not json', '^agent frame is not JSON: ', null, null],
      ['', '^agent frame is not JSON: ', null, null],
      ['[1,2]', '^agent frame must be a JSON object, got array$', null, null],
      ['null', '^agent frame must be a JSON object, got null$', null, null],
      ['"agent_close"', '^agent frame must be a JSON object, got string$', null, null],
      ['{}', '^agent frame has no t$', null, 't'],
      ['{"t":7}', "^agent frame's t must be a string, got number$", null, 't'],
      ['{"t":"agent_teleport"}', '^unknown agent frame type "agent_teleport"$', 'agent_teleport', 't'],
      ['{"t":"toString","sessionRef":"x"}', '^unknown agent frame type "toString"$', 'toString', 't'],
      ['{"t":"__proto__"}', '^unknown agent frame type "__proto__"$', '__proto__', 't'],
    ];
    for (const [text, message, frameType, field] of cases) {
      const failure = failureOf(text);
      expect(failure.message, text).toMatch(new RegExp(message));
      expect([failure.frameType, failure.field], text).toEqual([frameType, field]);
    }
    expect(failureOf(42 as unknown as string).message).toBe('agent frame must be text, got number');
  });

  it('come back as a value from tryDecodeAgentFrame', () => {
    const result = tryDecodeAgentFrame('{"t":"agent_close"}');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.field).toBe('sessionRef');
    expect(tryDecodeAgentFrame(JSON.stringify(samples.agent_close))).toEqual({
      ok: true,
      frame: samples.agent_close,
    });
  });

  it('keep unknown keys on the decoded frame, and never read fields from the prototype', () => {
    const text =
      '{"t":"agent_close","sessionRef":"r","__proto__":{"sessionRef":1,"polluted":true},"v15":[1]}';
    const frame = decodeAgentFrame(text) as unknown as Record<string, unknown>;
    expect(frame.v15).toEqual([1]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(failureOf('{"t":"agent_close","__proto__":{"sessionRef":"r"}}').field).toBe('sessionRef');
    // A field is a frame's own: `constructor` and friends are not fields.
    expect(failureOf('{"t":"agent_interrupt"}').message).toBe('agent_interrupt.sessionRef is required');
  });
});

describe("the guards' own rules", () => {
  it('image blocks: the discriminator is image, data and mimeType are required, uri may be null', () => {
    const prompt = samples.agent_prompt!;
    const image = { type: 'image', data: 'AAAA', mimeType: 'image/png' };
    expect(
      decodes({ ...prompt, images: [image, { ...image, uri: null }, { ...image, uri: 'file:///a.png' }] }),
    ).toBe(true);
    expect(frameFailure({ ...prompt, images: [{ ...image, type: 'audio' }] }).message).toBe(
      'agent_prompt.images[0].type must be one of "image", got "audio"',
    );
    expect(frameFailure({ ...prompt, images: [image, { ...image, data: undefined }] }).field).toBe(
      'images[1].data',
    );
    expect(frameFailure({ ...prompt, images: image }).field).toBe('images');
  });

  it('config options: currentValue follows type, choices are all options or all groups', () => {
    const base = samples.agent_config_option_set!;
    const select = {
      id: 'mode',
      name: 'Mode',
      type: 'select',
      currentValue: 'a',
      options: [{ value: 'a', name: 'A' }],
    };
    const toggle = { id: 'fast', name: 'Fast', type: 'boolean', currentValue: false };
    const group = { group: 'g', name: 'G', options: [{ value: 'a', name: 'A', description: null }] };
    const ok = (configOptions: unknown) => decodes({ ...base, configOptions });
    expect(ok([select, toggle])).toBe(true);
    expect(ok([{ ...select, options: [group, group] }])).toBe(true);
    expect(ok([{ ...select, options: [] }])).toBe(true);
    expect(ok([])).toBe(true);
    expect(ok(null)).toBe(true);

    const fault = (configOptions: unknown) => frameFailure({ ...base, configOptions }).message;
    expect(fault([{ ...select, currentValue: true }])).toBe(
      'agent_config_option_set.configOptions[0].currentValue must be a string, got boolean',
    );
    expect(fault([toggle, { ...toggle, currentValue: 'on' }])).toBe(
      'agent_config_option_set.configOptions[1].currentValue must be a boolean, got string',
    );
    expect(fault([{ ...select, options: [group, { value: 'b', name: 'B' }] }])).toMatch(
      /^agent_config_option_set\.configOptions\[0\]\.options\[1\]\.group is required$/,
    );
    expect(fault([{ ...select, options: [{ value: 'b', name: 'B' }, group] }])).toMatch(
      /^agent_config_option_set\.configOptions\[0\]\.options\[1\]\.value is required$/,
    );
    expect(fault([{ ...select, type: 'slider' }])).toBe(
      'agent_config_option_set.configOptions[0].type must be "select" or "boolean", got "slider"',
    );
    expect(fault([{ ...toggle, type: undefined }])).toBe(
      'agent_config_option_set.configOptions[0].type is required',
    );
    expect(fault([{ ...toggle, id: 3, type: 'x' }])).toBe(
      'agent_config_option_set.configOptions[0].id must be a string, got number',
    );
    expect(fault([{ ...toggle, category: 4 }])).toBe(
      'agent_config_option_set.configOptions[0].category must be a string or null, got number',
    );

    const set = samples.agent_set_config_option!;
    expect(decodes({ ...set, value: true })).toBe(true);
    expect(frameFailure({ ...set, value: 1 }).message).toBe(
      'agent_set_config_option.value must be a string or a boolean, got number',
    );
  });

  it('steer outcomes are injected or promptRequired, nothing else', () => {
    const steered = samples.agent_steered!;
    expect(decodes({ ...steered, outcome: 'promptRequired' })).toBe(true);
    expect(frameFailure({ ...steered, outcome: 'startedNewTurn' }).message).toBe(
      'agent_steered.outcome must be one of "injected", "promptRequired", got "startedNewTurn"',
    );
  });

  it('probe timeouts are finite and above zero, or null, or absent', () => {
    const verify = samples.agent_verify!;
    for (const good of [1, 0.5, 30_000, 10 ** 12, null, undefined]) {
      expect(decodes({ ...verify, timeoutMs: good }), String(good)).toBe(true);
    }
    for (const bad of [0, -1, '30s', true]) {
      expect(frameFailure({ ...verify, timeoutMs: bad }).field, String(bad)).toBe('timeoutMs');
    }
    expect(failureOf(JSON.stringify(verify).replace('15000', '1e400')).field).toBe('timeoutMs');
  });

  it('JSON-RPC error codes are 32-bit integers or null', () => {
    const done = samples.agent_turn_done!;
    for (const good of [-32000, 0, -2_147_483_648, 2_147_483_647, null]) {
      expect(decodes({ ...done, errorCode: good }), String(good)).toBe(true);
    }
    for (const bad of [-32000.5, 2_147_483_648, -2_147_483_649, '-32000']) {
      expect(frameFailure({ ...done, errorCode: bad }).field, String(bad)).toBe('errorCode');
    }
    // A reader takes null (an older peer's "no code"), but a sender says that by leaving it out.
    for (const frame of [done, samples.agent_opened!]) {
      expect(outboundAgentFrameRejection({ ...frame, errorCode: null } as never)).toBe(
        `${frame.t}.errorCode must be a whole number, got null`,
      );
      expect(outboundAgentFrameRejection({ ...frame, errorCode: undefined } as never)).toBeNull();
    }
    expect(outboundAgentFrameRejection({ ...done, errorCode: 2_147_483_648 } as never)).toBe(
      'agent_turn_done.errorCode must be a whole number from -2147483648 to 2147483647, got 2147483648',
    );
  });

  it('agent info needs only a name; a pinned-version report needs both versions', () => {
    expect(decodes({ ...samples.agent_opened!, agentInfo: { name: 'x' } })).toBe(true);
    expect(decodes({ ...samples.agent_opened!, agentInfo: { name: 'x', title: null, version: null } })).toBe(
      true,
    );
    expect(
      frameFailure({ ...samples.agent_installed!, pinnedVersionUnavailable: { pinned: '1' } }).field,
    ).toBe('pinnedVersionUnavailable.installedInstead');
  });

  it('a query must be present but may be anything, null included', () => {
    for (const type of ['agent_list_native', 'agent_verify', 'agent_authenticate'] as const) {
      for (const query of [null, 0, 'x', [], { cwd: 3 }])
        expect(decodes({ ...samples[type]!, query })).toBe(true);
      expect(frameFailure({ ...samples[type]!, query: undefined }).message).toBe(`${type}.query is required`);
    }
  });

  it('available commands and auth methods: a half-formed entry fails the whole table', () => {
    expect(
      frameFailure({
        ...samples.agent_verified!,
        availableCommands: [{ name: 'x', description: 'y' }, { name: 'z' }],
      }).field,
    ).toBe('availableCommands[1].description');
    expect(frameFailure({ ...samples.agent_opened!, authMethods: [{ id: 'a' }] }).field).toBe(
      'authMethods[0].name',
    );
    expect(decodes({ ...samples.agent_opened!, authMethods: [] })).toBe(true);
  });
});

describe('outboundAgentFrameRejection', () => {
  it('names the field of a broken frame', () => {
    const open = samples.agent_open!;
    expect(outboundAgentFrameRejection({ ...open, cwd: undefined } as never)).toBe(
      'agent_open.cwd is required',
    );
    expect(outboundAgentFrameRejection({ ...open, shell: 3 } as never)).toBe(
      'agent_open.shell must be a string, got number',
    );
    expect(
      outboundAgentFrameRejection({ ...samples.heartbeat!, sentAtEpochMs: 1_767_225_600_000.25 } as never),
    ).toBe('heartbeat.sentAtEpochMs must be a whole number, got 1767225600000.25');
    expect(outboundAgentFrameRejection({ ...samples.heartbeat!, seq: Number.NaN } as never)).toBe(
      'heartbeat.seq must be a whole number, got NaN',
    );
    const native = edit('agent_native_sessions', (frame) => {
      frame.sessions[0]!.updatedAtEpochMs = 1_767_225_600_000.5;
    });
    expect(outboundAgentFrameRejection(native as never)).toBe(
      'agent_native_sessions.sessions[0].updatedAtEpochMs must be a whole number, got 1767225600000.5',
    );
    const offer = edit('agent_resume_offer', (frame) => {
      frame.sessions[1]!.journalMaxSeq = 42.5;
    });
    expect(outboundAgentFrameRejection(offer as never)).toMatch(
      /^agent_resume_offer\.sessions\[1\]\.journalMaxSeq must be a whole number, got 42.5$/,
    );
    // A whole number past 2^53 is still a whole number: the far side's 64-bit fields hold it.
    const large = edit('agent_resume_offer', (frame) => {
      frame.sessions[1]!.journalMaxSeq = 2 ** 60;
    });
    expect(outboundAgentFrameRejection(large as never)).toBeNull();
    // An inventory entry that lacks the field, or is not an object, holds no whole number either.
    const lacking = edit('heartbeat', (frame) => {
      frame.sessions![0] = 'drv_x' as never;
    });
    expect(outboundAgentFrameRejection(lacking as never)).toBe(
      'heartbeat.sessions[0].journalMaxSeq must be a whole number, got undefined',
    );
    // A value of another type is shown as it prints.
    expect(outboundAgentFrameRejection({ ...samples.agent_event!, seq: '43' } as never)).toBe(
      'agent_event.seq must be a whole number, got 43',
    );
    expect(outboundAgentFrameRejection({ ...samples.agent_verified!, authenticated: false } as never)).toBe(
      'agent_verified.authenticated may only be true or absent (absent means unknown, never "not authenticated"), got false',
    );
    expect(
      outboundAgentFrameRejection({ ...samples.agent_installed!, adapterInstalled: false } as never),
    ).toMatch(
      /^agent_installed\.adapterInstalled may only be true or absent \(absent means the adapter did not get onto the machine\), got false$/,
    );
    expect(outboundAgentFrameRejection({ ...samples.agent_verified!, authenticated: 'no' } as never)).toMatch(
      /, got no$/,
    );
    expect(outboundAgentFrameRejection({ t: 'agent_teleport' } as never)).toBe(
      'unknown agent frame type "agent_teleport"',
    );
  });

  it('is total: a frame that cannot be serialized, or is not an object, is a message too', () => {
    const cyclic: Record<string, unknown> = { ...samples.agent_event!, payload: {} };
    (cyclic.payload as Record<string, unknown>).self = cyclic;
    // The serializer's own message, as it stands.
    expect(outboundAgentFrameRejection(cyclic as never)).toMatch(/^Converting circular structure to JSON/);
    expect(outboundAgentFrameRejection({ ...samples.agent_event!, payload: { n: 10n } } as never)).toBe(
      'Do not know how to serialize a BigInt',
    );
    const throwing = {
      ...samples.agent_event!,
      payload: {
        toJSON() {
          throw new Error('no');
        },
      },
    };
    expect(outboundAgentFrameRejection(throwing as never)).toBe('no');
    const getter = Object.defineProperty({ t: 'heartbeat', sentAtEpochMs: 1 }, 'seq', {
      enumerable: true,
      get() {
        throw new Error('gone');
      },
    });
    expect(outboundAgentFrameRejection(getter as never)).toBe('gone');
    for (const bad of [null, undefined, 'heartbeat', 3, []]) {
      expect(outboundAgentFrameRejection(bad as never), String(bad)).toMatch(
        /^an agent frame must be an object/,
      );
    }
    expect(outboundAgentFrameRejection({ ...samples.agent_event!, toJSON: () => undefined } as never)).toBe(
      'agent_event serializes to nothing',
    );
  });

  it('judges what the peer will read: undefined optional keys vanish, toJSON applies', () => {
    expect(outboundAgentFrameRejection({ ...samples.agent_opened!, error: undefined } as never)).toBeNull();
    const when = { toJSON: () => 'later' };
    expect(outboundAgentFrameRejection({ ...samples.agent_answer!, outcome: when } as never)).toBeNull();
  });
});

describe('outboundFailureReply', () => {
  const ANSWERS: Partial<Record<AgentFrameType, AgentFrameType>> = {
    agent_opened: 'agent_opened',
    agent_native_sessions: 'agent_native_sessions',
    agent_verified: 'agent_verified',
    agent_authenticated: 'agent_authenticated',
    agent_installed: 'agent_installed',
    agent_steered: 'agent_steered',
    agent_config_option_set: 'agent_config_option_set',
    agent_backfill_done: 'agent_backfill_done',
    agent_backfill_events: 'agent_backfill_done',
  };

  it.each(AGENT_FRAME_TYPES)('%s: answers a failed reply with a well-formed failure, or nothing', (type) => {
    const frame = { ...samples[type]!, id: 'req-9' } as unknown as AgentFrame;
    const reply = outboundFailureReply(frame, 'agent_opened.errorCode must be a whole number, got 1.5');
    const answer = ANSWERS[type];
    if (answer === undefined) {
      expect(reply).toBeNull();
      return;
    }
    const error = `the workstation client produced a malformed ${type}: agent_opened.errorCode must be a whole number, got 1.5`;
    expect(reply).toEqual(
      answer === 'agent_backfill_done'
        ? { t: answer, id: 'req-9', ok: false, count: 0, error }
        : { t: answer, id: 'req-9', ok: false, error },
    );
    expect(outboundAgentFrameRejection(reply!)).toBeNull();
    expect(Object.keys(agentFrameFields(answer).required)).toEqual(
      expect.arrayContaining(Object.keys(reply!).filter((key) => key !== 't' && key !== 'error')),
    );
    for (const id of ['', undefined, 7, null]) {
      expect(outboundFailureReply({ ...frame, id } as never, 'x'), String(id)).toBeNull();
    }
  });
});
