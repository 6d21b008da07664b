// Rules on single fields that the frame table implies and that are checked again, field by field,
// on frames before they are sent: whole numbers and true-or-absent flags. Both tables are derived
// from the frame table, so a field added there is covered here without a second list.
import { type Guard, isPlainObject, ownValue } from './guards.js';
import { AGENT_FRAME_TYPES, type AgentFrameType, agentFrameFields } from './shapes.js';

/** A field's place in a frame: `seq`, `sessions[].journalMaxSeq` (`[]` stands for every element). */
export type AgentFieldPath = string;

interface FieldRule {
  readonly path: AgentFieldPath;
  readonly guard: Guard<unknown>;
  /** The field may also be null (`errorCode`). */
  readonly nullable: boolean;
}

function collect(
  guard: Guard<unknown>,
  path: string,
  wanted: (guard: Guard<unknown>) => boolean,
  out: FieldRule[],
): void {
  if (wanted(guard)) {
    out.push({ path, guard, nullable: false });
    return;
  }
  if (guard.kind === 'nullable' && guard.inner && wanted(guard.inner)) {
    out.push({ path, guard: guard.inner, nullable: true });
    return;
  }
  if (guard.kind === 'nullable' && guard.inner) collect(guard.inner, path, wanted, out);
  if (guard.kind === 'array' && guard.inner) collect(guard.inner, `${path}[]`, wanted, out);
  if (guard.kind === 'object' && guard.fields) {
    for (const [key, inner] of Object.entries({ ...guard.fields.required, ...guard.fields.optional })) {
      collect(inner, `${path}.${key}`, wanted, out);
    }
  }
}

function rulesOf(wanted: (guard: Guard<unknown>) => boolean): Record<AgentFrameType, readonly FieldRule[]> {
  const table = {} as Record<AgentFrameType, readonly FieldRule[]>;
  for (const type of AGENT_FRAME_TYPES) {
    const fields = agentFrameFields(type);
    const out: FieldRule[] = [];
    for (const [key, guard] of Object.entries({ ...fields.required, ...fields.optional })) {
      collect(guard, key, wanted, out);
    }
    table[type] = out;
  }
  return table;
}

function pathsOf(
  rules: Record<AgentFrameType, readonly FieldRule[]>,
): Partial<Record<AgentFrameType, readonly AgentFieldPath[]>> {
  const table: Partial<Record<AgentFrameType, readonly AgentFieldPath[]>> = {};
  for (const type of AGENT_FRAME_TYPES) {
    if (rules[type].length > 0) table[type] = rules[type].map((rule) => rule.path);
  }
  return table;
}

const isIntegerGuard = (guard: Guard<unknown>) => guard.kind === 'integer' || guard.kind === 'int32';
const isTrueOnlyGuard = (guard: Guard<unknown>) => guard.kind === 'true';

const INTEGER_RULES = rulesOf(isIntegerGuard);
const TRUE_OR_ABSENT_RULES = rulesOf(isTrueOnlyGuard);

/** Per frame type, the fields the far side reads as integers. A fraction, NaN, an infinity or a
 * number beyond 2^53 - 1 in one of them does not lose precision there: the whole frame fails. */
export const INTEGER_FIELDS = pathsOf(INTEGER_RULES);

/** Per frame type, the fields that are `true` or absent, never `false`. */
export const TRUE_OR_ABSENT_FIELDS = pathsOf(TRUE_OR_ABSENT_RULES);

/** What the absence of each true-or-absent field says, for the message that refuses a `false`. */
const ABSENCE_MEANS: Readonly<Record<string, string>> = {
  authenticated: 'absent means unknown, never "not authenticated"',
  adapterInstalled: 'absent means the adapter is not on the machine',
  pending: 'absent means this reply is the final word',
  reloaded: 'absent means this open did not reload',
  supportsSteering: 'absent means not supported',
  supportsImageInput: 'absent means not supported',
};

const stepCache = new Map<string, readonly string[]>();

/** Every value found at `path` in `value`, with the concrete path (`sessions[2].journalMaxSeq`).
 * Absent values and elements that are not of the expected form are skipped: the decoder reports them. */
export function agentFrameValuesAt(value: unknown, path: AgentFieldPath): { path: string; value: unknown }[] {
  let steps = stepCache.get(path);
  if (steps === undefined) {
    steps = path.match(/[^.[\]]+|\[\]/g) ?? [];
    if (stepCache.size < 256) stepCache.set(path, steps);
  }
  let found: { path: string; value: unknown }[] = [{ path: '', value }];
  for (const step of steps) {
    const next: { path: string; value: unknown }[] = [];
    for (const at of found) {
      if (step === '[]') {
        if (Array.isArray(at.value)) {
          at.value.forEach((element, index) => {
            next.push({ path: `${at.path}[${index}]`, value: element });
          });
        }
      } else if (isPlainObject(at.value)) {
        const inner = ownValue(at.value, step);
        if (inner !== undefined)
          next.push({ path: at.path === '' ? step : `${at.path}.${step}`, value: inner });
      }
    }
    found = next;
  }
  return found;
}

/** The first integer field of `frame` that holds something other than a whole number (or null
 * where the field allows null), as a message naming the field; null when there is none. */
export function integerViolation(frame: Record<string, unknown>, type: AgentFrameType): string | null {
  for (const rule of INTEGER_RULES[type]) {
    for (const at of agentFrameValuesAt(frame, rule.path)) {
      if (at.value === null && rule.nullable) continue;
      const fault = rule.guard.check(at.value);
      if (fault !== null) return `${type}.${at.path} ${fault.problem}`;
    }
  }
  return null;
}

/** The first true-or-absent field of `frame` that holds something else, as a message; or null. */
export function trueOrAbsentViolation(frame: Record<string, unknown>, type: AgentFrameType): string | null {
  for (const rule of TRUE_OR_ABSENT_RULES[type]) {
    for (const at of agentFrameValuesAt(frame, rule.path)) {
      if (at.value === true) continue;
      const key = rule.path.slice(rule.path.lastIndexOf('.') + 1);
      const absence = ABSENCE_MEANS[key];
      const why = absence === undefined ? '' : ` (${absence})`;
      return `${type}.${at.path} may only be true or absent${why}, got ${describe(at.value)}`;
    }
  }
  return null;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value === null || typeof value !== 'object') return String(value);
  return Array.isArray(value) ? 'array' : 'object';
}
