// Rules on single fields that the frame table implies and that are held on frames before they are
// sent: whole numbers (decoding takes any finite number there; only the sender is held to the rule)
// and true-or-absent flags (which decoding holds too, but without the field's meaning in the
// message). Both tables are derived from the frame table, so a field added there is covered here
// without a second list.
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

/** Per frame type, the fields the far side reads as integers. A fraction, NaN or an infinity in one
 * of them does not lose precision there: the whole frame fails to decode. */
export const INTEGER_FIELDS = pathsOf(INTEGER_RULES);

/** Per frame type, the fields that are `true` or absent, never `false`. */
export const TRUE_OR_ABSENT_FIELDS = pathsOf(TRUE_OR_ABSENT_RULES);

/** What the absence of each true-or-absent field says, for the message that refuses a `false`. */
const ABSENCE_MEANS: Readonly<Record<string, string>> = {
  'agent_verified.authenticated': 'absent means unknown, never "not authenticated"',
  'agent_installed.adapterInstalled': 'absent means the adapter did not get onto the machine',
  'agent_hello.bridges[].adapterInstalled': 'absent means the adapter is not on the machine',
  'agent_authenticated.pending': 'absent means this reply is the final word',
  'agent_opened.reloaded': 'absent means this open did not reload',
  'agent_opened.supportsSteering': 'absent means not supported',
  'agent_opened.supportsImageInput': 'absent means not supported',
  'agent_hello.bridges[].supportsSteering': 'absent means not supported',
  'agent_hello.bridges[].supportsImageInput': 'absent means not supported',
};

/** A refused value as a message shows it: as the value itself would print. */
function printed(value: unknown): string {
  try {
    return String(value);
  } catch {
    // An object without a prototype has no way to print itself.
    return typeof value;
  }
}

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

/**
 * Every value at an integer field's `path` in `frame`, for the whole-number check. An absent
 * top-level field is skipped (it is optional, or the decoder names it), and so is a list that is
 * not a list; but an entry of a list is checked whatever it is, so an entry that is not an object,
 * or lacks the field, is reported as holding `undefined`.
 */
function integerValuesAt(
  frame: Record<string, unknown>,
  path: AgentFieldPath,
): { path: string; value: unknown }[] {
  const split = path.indexOf('[]');
  if (split < 0) {
    const value = ownValue(frame, path);
    return value === undefined ? [] : [{ path, value }];
  }
  const key = path.slice(0, split);
  const rest = path.slice(split + 2);
  const entries = ownValue(frame, key);
  if (!Array.isArray(entries)) return [];
  const field = rest.startsWith('.') ? rest.slice(1) : rest;
  return entries.map((entry, index) => ({
    path: `${key}[${index}]${rest}`,
    value:
      entry !== null && typeof entry === 'object' && !Array.isArray(entry)
        ? ownValue(entry, field)
        : undefined,
  }));
}

/** The integer rules of each frame type, top-level fields first, then those inside lists. */
const INTEGER_CHECK_ORDER = {} as Record<AgentFrameType, readonly FieldRule[]>;
for (const type of AGENT_FRAME_TYPES) {
  const rules = INTEGER_RULES[type];
  const nested = (rule: FieldRule) => rule.path.includes('[]');
  INTEGER_CHECK_ORDER[type] = [...rules.filter((rule) => !nested(rule)), ...rules.filter(nested)];
}

/**
 * The first integer field of `frame` that holds something other than a whole number, as a message
 * naming the field; null when there is none. `null` is refused too, even where decoding allows it
 * (`errorCode`): a sender has no reason to write it, since absence says the same. The range of a
 * 32-bit field is the decoder's to check.
 */
export function integerViolation(frame: Record<string, unknown>, type: AgentFrameType): string | null {
  for (const rule of INTEGER_CHECK_ORDER[type]) {
    for (const at of integerValuesAt(frame, rule.path)) {
      if (!Number.isInteger(at.value))
        return `${type}.${at.path} must be a whole number, got ${printed(at.value)}`;
    }
  }
  return null;
}

/** The first true-or-absent field of `frame` that holds something else, as a message; or null. */
export function trueOrAbsentViolation(frame: Record<string, unknown>, type: AgentFrameType): string | null {
  for (const rule of TRUE_OR_ABSENT_RULES[type]) {
    for (const at of agentFrameValuesAt(frame, rule.path)) {
      if (at.value === true) continue;
      const absence = ABSENCE_MEANS[`${type}.${rule.path}`];
      const why = absence === undefined ? '' : ` (${absence})`;
      return `${type}.${at.path} may only be true or absent${why}, got ${printed(at.value)}`;
    }
  }
  return null;
}
