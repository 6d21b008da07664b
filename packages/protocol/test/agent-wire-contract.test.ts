// The agent wire's contract, read off AGENT_FRAME_SHAPES itself: for every frame type, every field
// the table names is enforced the way its guard says, down into nested objects, and keys the table
// does not name pass. No list of fields is kept here; only the sample frames come from outside.
import { describe, expect, it } from 'vitest';
import {
  AGENT_FRAME_FIXTURES,
  AGENT_FRAME_SHAPES,
  AGENT_FRAME_TYPES,
  AgentFrameDecodeError,
  type AgentFrameType,
  agentFrameFields,
  agentFrameValuesAt,
  agentWireGuards,
  decodeAgentFrame,
  type Guard,
  INTEGER_FIELDS,
  outboundAgentFrameRejection,
  TRUE_OR_ABSENT_FIELDS,
} from '../src/index.js';

type Step = string | number;

const samples: Record<string, Record<string, unknown>> = AGENT_FRAME_FIXTURES as never;

function pathText(steps: readonly Step[]): string {
  return steps
    .map((step, i) => (typeof step === 'number' ? `[${step}]` : i === 0 ? step : `.${step}`))
    .join('');
}

function getAt(value: unknown, steps: readonly Step[]): unknown {
  let at: unknown = value;
  for (const step of steps) at = (at as Record<string | number, unknown>)[step];
  return at;
}

/** A copy of `frame` with the value at `steps` replaced (or removed, for `remove`). */
function withValue(
  frame: Record<string, unknown>,
  steps: readonly Step[],
  value: unknown,
): Record<string, unknown> {
  const copy = structuredClone(frame);
  const parent = getAt(copy, steps.slice(0, -1)) as Record<string | number, unknown>;
  const last = steps[steps.length - 1]!;
  if (value === remove) delete parent[last];
  else parent[last] = value;
  return copy;
}
const remove = Symbol('remove');

function decodeFailure(frame: unknown): AgentFrameDecodeError | null {
  try {
    decodeAgentFrame(JSON.stringify(frame));
    return null;
  } catch (error) {
    if (error instanceof AgentFrameDecodeError) return error;
    throw error;
  }
}

/** One value of each JSON type, two of them for numbers and booleans. */
const CANDIDATES: readonly unknown[] = ['a string', 42, 1.5, true, false, null, [], { an: 'object' }];

interface Site {
  readonly steps: readonly Step[];
  readonly guard: Guard<unknown>;
  readonly required: boolean;
}

/** Every field the table names for `type`, and inside the sample's values every nested field the
 * guards name (the first element of each array stands for all). */
function sites(type: AgentFrameType): Site[] {
  const sample = samples[type]!;
  const out: Site[] = [];
  const visit = (guard: Guard<unknown>, steps: Step[], required: boolean) => {
    out.push({ steps, guard, required });
    const value = getAt(sample, steps);
    let inner = guard;
    if (inner.kind === 'nullable' && value !== null && inner.inner) inner = inner.inner;
    if (inner.kind === 'array' && inner.inner && Array.isArray(value) && value.length > 0) {
      visitObject(inner.inner, [...steps, 0]);
    }
    if (inner.kind === 'object') visitObject(inner, steps);
  };
  const visitObject = (guard: Guard<unknown>, steps: Step[]) => {
    if (guard.kind !== 'object' || !guard.fields) return;
    const value = getAt(sample, steps);
    if (value === undefined || value === null) return;
    for (const [key, inner] of Object.entries(guard.fields.required)) visit(inner, [...steps, key], true);
    for (const [key, inner] of Object.entries(guard.fields.optional)) {
      if (getAt(sample, [...steps, key]) !== undefined) visit(inner, [...steps, key], false);
    }
  };
  const fields = agentFrameFields(type);
  for (const [key, guard] of Object.entries(fields.required)) visit(guard, [key], true);
  for (const [key, guard] of Object.entries(fields.optional)) visit(guard, [key], false);
  return out;
}

describe('the agent frame table', () => {
  it('derives the frame types from its own keys', () => {
    expect(AGENT_FRAME_TYPES).toEqual(Object.keys(AGENT_FRAME_SHAPES));
    expect(AGENT_FRAME_TYPES.length).toBe(31);
  });

  it('has a sample frame for every frame type, and for none it does not know', () => {
    expect(Object.keys(AGENT_FRAME_FIXTURES).sort()).toEqual([...AGENT_FRAME_TYPES].sort());
  });

  it.each(AGENT_FRAME_TYPES)('%s: its sample is of its type and sets every field the table names', (type) => {
    const sample = samples[type]!;
    const fields = agentFrameFields(type);
    expect(sample.t).toBe(type);
    expect(Object.keys(sample).sort()).toEqual(
      ['t', ...Object.keys(fields.required), ...Object.keys(fields.optional)].sort(),
    );
    expect(decodeFailure(sample)).toBeNull();
  });
});

describe.each(AGENT_FRAME_TYPES)('%s', (type) => {
  const all = sites(type);

  it('refuses the frame without each required field, naming the field', () => {
    const required = all.filter((site) => site.required);
    for (const site of required) {
      const failure = decodeFailure(withValue(samples[type]!, site.steps, remove));
      expect(failure, pathText(site.steps)).not.toBeNull();
      expect(failure!.frameType).toBe(type);
      expect(failure!.field).toBe(pathText(site.steps));
      expect(failure!.message).toBe(`${type}.${pathText(site.steps)} is required`);
    }
  });

  it('passes the frame without each optional field', () => {
    for (const site of all.filter((site) => !site.required)) {
      expect(decodeFailure(withValue(samples[type]!, site.steps, remove)), pathText(site.steps)).toBeNull();
    }
  });

  it('refuses a value of a JSON type the field does not take, naming the field; null only where nullable', () => {
    for (const site of all) {
      for (const candidate of CANDIDATES) {
        const jsonType = agentWireGuards.jsonTypeOf(candidate);
        if (site.guard.accepts.includes(jsonType as never)) continue;
        const failure = decodeFailure(withValue(samples[type]!, site.steps, candidate));
        const label = `${pathText(site.steps)} = ${JSON.stringify(candidate)}`;
        expect(failure, label).not.toBeNull();
        expect(failure!.field, label).toBe(pathText(site.steps));
        expect(failure!.message, label).toMatch(
          new RegExp(`^${escapeRegExp(`${type}.${pathText(site.steps)}`)} must be .*, got ${jsonType}$`),
        );
      }
    }
  });

  it('accepts null exactly where the guard is nullable (or takes anything)', () => {
    for (const site of all) {
      const failure = decodeFailure(withValue(samples[type]!, site.steps, null));
      const nullable = site.guard.kind === 'nullable' || site.guard.kind === 'any';
      expect(failure === null, pathText(site.steps)).toBe(nullable);
      expect(site.guard.accepts.includes('null')).toBe(nullable);
    }
  });

  it('ignores keys the table does not name, at the top and inside nested objects', () => {
    const extra = { ...samples[type]!, futureKey: { anything: [1, 2] }, alsoNew: null };
    const decoded = decodeAgentFrame(JSON.stringify(extra)) as unknown as Record<string, unknown>;
    expect(decoded.futureKey).toEqual({ anything: [1, 2] });
    for (const site of all) {
      const value = getAt(samples[type]!, site.steps);
      if (
        agentWireGuards.jsonTypeOf(value) !== 'object' ||
        site.guard.kind === 'record' ||
        site.guard.kind === 'string_record'
      )
        continue;
      const widened = withValue(samples[type]!, site.steps, { ...(value as object), futureKey: 1 });
      expect(decodeFailure(widened), pathText(site.steps)).toBeNull();
    }
  });

  it('holds the integer rule on every integer field on the way out; decoding takes any finite number', () => {
    for (const path of INTEGER_FIELDS[type] ?? []) {
      for (const at of agentFrameValuesAt(samples[type]!, path)) {
        const steps = stepsOf(at.path);
        for (const bad of [1.5, -0.25, 1e-7, Number.POSITIVE_INFINITY, Number.NaN, null, '7']) {
          const frame = withValue(samples[type]!, steps, bad);
          const rejection = outboundAgentFrameRejection(frame as never);
          expect(rejection, `${at.path} = ${bad}`).toBe(
            `${type}.${at.path} must be a whole number, got ${bad}`,
          );
          // A fraction reaches the decoder as sent, and the decoder takes it, as the contract's does.
          if (typeof bad === 'number' && Number.isFinite(bad)) {
            const fits = at.path.endsWith('errorCode') ? decodeFailure(frame)?.field : decodeFailure(frame);
            expect(fits, `${at.path} = ${bad}`).toBe(at.path.endsWith('errorCode') ? at.path : null);
          }
        }
        for (const whole of [2 ** 53, -(2 ** 53), 1e21, -0]) {
          const frame = withValue(samples[type]!, steps, whole);
          if (at.path.endsWith('errorCode') && whole !== 0) continue;
          expect(outboundAgentFrameRejection(frame as never), `${at.path} = ${whole}`).toBeNull();
        }
        // Text can still hold a number no double can: 1e400 parses as Infinity.
        const huge = JSON.stringify(withValue(samples[type]!, steps, 987_654_321)).replace(
          '987654321',
          '1e400',
        );
        expect(decodeFailureText(huge)?.field, `${at.path} = 1e400`).toBe(at.path);
        expect(outboundAgentFrameRejection(withValue(samples[type]!, steps, 7) as never)).toBeNull();
        expect(outboundAgentFrameRejection(withValue(samples[type]!, steps, -3) as never)).toBeNull();
      }
    }
  });

  it('holds the true-or-absent rule: true passes, absent passes, false is refused by name', () => {
    for (const path of TRUE_OR_ABSENT_FIELDS[type] ?? []) {
      for (const at of agentFrameValuesAt(samples[type]!, path)) {
        const steps = stepsOf(at.path);
        const withFalse = withValue(samples[type]!, steps, false);
        expect(decodeFailure(withFalse)?.field).toBe(at.path);
        expect(decodeFailure(withFalse)?.message).toBe(
          `${type}.${at.path} must be true or absent, got false`,
        );
        expect(outboundAgentFrameRejection(withFalse as never)).toMatch(
          new RegExp(`^${escapeRegExp(`${type}.${at.path}`)} may only be true or absent.*, got false$`),
        );
        expect(decodeFailure(withValue(samples[type]!, steps, true))).toBeNull();
        const absent = withValue(samples[type]!, steps, remove);
        expect(decodeFailure(absent)).toBeNull();
        expect(outboundAgentFrameRejection(absent as never)).toBeNull();
      }
    }
  });
});

describe('the derived field tables', () => {
  it("name the seed's integer fields, the nested inventory and native-session ones included", () => {
    expect(INTEGER_FIELDS).toEqual({
      agent_ready: ['agentWire'],
      agent_resume_offer: ['sessions[].journalMaxSeq'],
      heartbeat: ['seq', 'sentAtEpochMs', 'sessions[].journalMaxSeq'],
      heartbeat_ack: ['seq'],
      agent_open: ['resumeFromSeq'],
      agent_opened: ['errorCode'],
      agent_event: ['seq'],
      agent_turn_done: ['seq', 'errorCode'],
      agent_event_ack: ['throughSeq'],
      agent_native_sessions: ['sessions[].updatedAtEpochMs'],
      agent_backfill_done: ['count'],
    });
  });

  it('name every true-or-absent field, the roster entries included', () => {
    expect(TRUE_OR_ABSENT_FIELDS).toEqual({
      agent_hello: [
        'bridges[].adapterInstalled',
        'bridges[].supportsSteering',
        'bridges[].supportsImageInput',
      ],
      agent_opened: ['supportsSteering', 'reloaded', 'supportsImageInput'],
      agent_verified: ['authenticated'],
      agent_authenticated: ['pending'],
      agent_installed: ['adapterInstalled'],
    });
  });
});

function decodeFailureText(text: string): AgentFrameDecodeError | null {
  try {
    decodeAgentFrame(text);
    return null;
  } catch (error) {
    if (error instanceof AgentFrameDecodeError) return error;
    throw error;
  }
}

function stepsOf(path: string): Step[] {
  return (path.match(/[^.[\]]+|\[\d+\]/g) ?? []).map((step) =>
    step.startsWith('[') ? Number(step.slice(1, -1)) : step,
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
