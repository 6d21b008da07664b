// The building blocks of the agent wire's frame table. A guard is data as well as a check: it says
// which JSON types it accepts and what it is made of, so a test (or a derived table such as the
// integer fields) can read it, and on failure it says which field inside the value is at fault.

/** The JSON type of a value as the wire sees it. */
export type JsonType = 'string' | 'number' | 'boolean' | 'null' | 'array' | 'object';

/** Where inside the guarded value the fault is (`''`, `.name`, `[2].mimeType`) and what is wrong
 * (`is required`, `must be a string, got number`). */
export interface GuardFault {
  readonly path: string;
  readonly problem: string;
}

export type GuardKind =
  | 'string'
  | 'integer'
  | 'int32'
  | 'positive_number'
  | 'boolean'
  | 'true'
  | 'one_of'
  | 'any'
  | 'record'
  | 'string_record'
  | 'array'
  | 'object'
  | 'nullable'
  | 'union';

export interface Guard<T> {
  readonly kind: GuardKind;
  /** What the value must be, in words, for messages: `a string`, `an array of image blocks`. */
  readonly expected: string;
  /** The JSON types a value of this guard can have; a value of any other type is refused. */
  readonly accepts: readonly JsonType[];
  /** Null when the value fits, else the first fault found. */
  readonly check: (value: unknown) => GuardFault | null;
  /** The guard of each element (`array`) or of the non-null value (`nullable`). */
  readonly inner?: Guard<unknown>;
  /** The fields of an `object` guard. */
  readonly fields?: FieldGuards;
  /** The values a `one_of` guard allows. */
  readonly values?: readonly string[];
  /** Carries the guarded type for `Infer`; never set at run time. */
  readonly __type?: T;
}

export interface FieldGuards {
  readonly required: Readonly<Record<string, Guard<unknown>>>;
  readonly optional: Readonly<Record<string, Guard<unknown>>>;
}

/** The type a guard accepts. */
export type Infer<G> = G extends Guard<infer T> ? T : never;

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The object type described by a required and an optional field table. */
export type InferFields<R, O> = Simplify<
  { -readonly [K in keyof R]: Infer<R[K]> } & { -readonly [K in keyof O]?: Infer<O[K]> }
>;

export function jsonTypeOf(value: unknown): JsonType | 'undefined' | 'other' {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string':
      return 'string';
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'object':
      return 'object';
    case 'undefined':
      return 'undefined';
    default:
      return 'other';
  }
}

/** How a refused value is described in a message: its type, or the value itself where the type
 * alone would not say what is wrong (`false` for a true-only field, `1.5` for a whole number). */
export function shown(value: unknown): string {
  const type = jsonTypeOf(value);
  if (type === 'number' || type === 'boolean') return String(value);
  if (type === 'string') {
    const text = value as string;
    return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
  }
  return type;
}

/** The fault of a value whose JSON type is wrong. */
export function typeFault(expected: string, value: unknown): GuardFault {
  return { path: '', problem: `must be ${expected}, got ${jsonTypeOf(value)}` };
}

/** A plain JSON object: not null, not an array. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A field's value, or undefined when the object does not hold it itself: inherited properties
 * (`constructor`, `toString`) are never a frame's fields. */
export function ownValue(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

function scalar<T>(kind: GuardKind, expected: string, type: JsonType, test: (value: unknown) => boolean) {
  const guard: Guard<T> = {
    kind,
    expected,
    accepts: [type],
    check: (value) => {
      if (jsonTypeOf(value) !== type) return typeFault(expected, value);
      return test(value) ? null : { path: '', problem: `must be ${expected}, got ${shown(value)}` };
    },
  };
  return guard;
}

export const string: Guard<string> = scalar('string', 'a string', 'string', () => true);

export const boolean: Guard<boolean> = scalar('boolean', 'a boolean', 'boolean', () => true);

/**
 * A field the far side reads as an integer. Decoding takes any finite number here, as the contract's
 * own guards do; the whole-number rule is held on a frame before it is sent (field-rules.ts), where
 * the sender can still be named. The integer kind is what marks the field for that check.
 */
export const integer: Guard<number> = scalar('integer', 'a finite number', 'number', (value) =>
  Number.isFinite(value),
);

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;

/** A whole number in the 32-bit range (JSON-RPC error codes). */
export const int32: Guard<number> = scalar(
  'int32',
  'a whole number from -2147483648 to 2147483647',
  'number',
  (value) => Number.isInteger(value) && (value as number) >= INT32_MIN && (value as number) <= INT32_MAX,
);

/** A finite number above zero (a time budget: zero, negative or infinite budgets mean nothing). */
export const positiveNumber: Guard<number> = scalar(
  'positive_number',
  'a finite number above 0',
  'number',
  (value) => Number.isFinite(value) && (value as number) > 0,
);

/** `true` and nothing else: for fields whose absence already says "no" or "unknown", so that a
 * `false` would be a second spelling a reader could disagree with. */
export const trueOnly: Guard<true> = {
  kind: 'true',
  expected: 'true (or absent)',
  accepts: ['boolean'],
  check: (value) => {
    if (value === true) return null;
    const got = typeof value === 'boolean' ? 'false' : jsonTypeOf(value);
    return { path: '', problem: `must be true or absent, got ${got}` };
  },
};

export function oneOf<const V extends readonly string[]>(values: V): Guard<V[number]> {
  const expected = `one of ${values.map((value) => JSON.stringify(value)).join(', ')}`;
  return {
    kind: 'one_of',
    expected,
    accepts: ['string'],
    values,
    check: (value) => {
      if (typeof value !== 'string') return typeFault(expected, value);
      return values.includes(value)
        ? null
        : { path: '', problem: `must be ${expected}, got ${shown(value)}` };
    },
  };
}

/** Any value at all, as long as the key is there (`null` included). */
export const anything: Guard<unknown> = {
  kind: 'any',
  expected: 'any value',
  accepts: ['string', 'number', 'boolean', 'null', 'array', 'object'],
  check: () => null,
};

/** A JSON object with any contents. */
export const record: Guard<Record<string, unknown>> = {
  kind: 'record',
  expected: 'an object',
  accepts: ['object'],
  check: (value) => (isPlainObject(value) ? null : typeFault('an object', value)),
};

export const stringRecord: Guard<Record<string, string>> = {
  kind: 'string_record',
  expected: 'an object of strings',
  accepts: ['object'],
  check: (value) => {
    if (!isPlainObject(value)) return typeFault('an object of strings', value);
    for (const key of Object.keys(value)) {
      const entry = value[key];
      if (typeof entry !== 'string') {
        return { path: `[${JSON.stringify(key)}]`, problem: `must be a string, got ${jsonTypeOf(entry)}` };
      }
    }
    return null;
  },
};

export function arrayOf<T>(inner: Guard<T>, expected = `an array of ${inner.expected}`): Guard<T[]> {
  return {
    kind: 'array',
    expected,
    accepts: ['array'],
    inner: inner as Guard<unknown>,
    check: (value) => {
      if (!Array.isArray(value)) return typeFault(expected, value);
      for (let index = 0; index < value.length; index++) {
        const fault = inner.check(value[index]);
        if (fault !== null) return { path: `[${index}]${fault.path}`, problem: fault.problem };
      }
      return null;
    },
  };
}

export const stringArray: Guard<string[]> = arrayOf(string, 'an array of strings');

export function nullable<T>(inner: Guard<T>): Guard<T | null> {
  return {
    kind: 'nullable',
    expected: `${inner.expected} or null`,
    accepts: [...inner.accepts, 'null'],
    inner: inner as Guard<unknown>,
    check: (value) => {
      if (value === null) return null;
      const type = jsonTypeOf(value);
      // A value of a type the inner guard never takes is told against the whole guard, null included.
      if (!inner.accepts.includes(type as JsonType)) return typeFault(`${inner.expected} or null`, value);
      return inner.check(value);
    },
  };
}

/** The first fault among an object's fields: required ones in table order, then optional ones. A
 * missing required field is one whose value is absent or `undefined`; an optional one may be absent. */
export function checkFields(object: Record<string, unknown>, fields: FieldGuards): GuardFault | null {
  const { required, optional } = entriesOf(fields);
  for (const [key, guard] of required) {
    const value = ownValue(object, key);
    if (value === undefined) return { path: `.${key}`, problem: 'is required' };
    const fault = guard.check(value);
    if (fault !== null) return { path: `.${key}${fault.path}`, problem: fault.problem };
  }
  for (const [key, guard] of optional) {
    const value = ownValue(object, key);
    if (value === undefined) continue;
    const fault = guard.check(value);
    if (fault !== null) return { path: `.${key}${fault.path}`, problem: fault.problem };
  }
  return null;
}

type Entries = readonly (readonly [string, Guard<unknown>])[];

// Field tables are fixed once built; their entries are listed once rather than on every frame.
const entryCache = new WeakMap<FieldGuards, { required: Entries; optional: Entries }>();

function entriesOf(fields: FieldGuards): { required: Entries; optional: Entries } {
  let entries = entryCache.get(fields);
  if (entries === undefined) {
    entries = { required: Object.entries(fields.required), optional: Object.entries(fields.optional) };
    entryCache.set(fields, entries);
  }
  return entries;
}

type GuardTable = Readonly<Record<string, Guard<unknown>>>;

/** An object with required and optional fields; keys it does not name are ignored. */
export function objectOf<R extends GuardTable, O extends GuardTable = Record<never, never>>(
  expected: string,
  required: R,
  optional?: O,
): Guard<InferFields<R, O>> {
  const fields: FieldGuards = { required, optional: optional ?? {} };
  return {
    kind: 'object',
    expected,
    accepts: ['object'],
    fields,
    check: (value) => (isPlainObject(value) ? checkFields(value, fields) : typeFault(expected, value)),
  };
}

/** A value that is one of several shapes, judged by `check` (which names the fault itself). */
export function union<T>(
  expected: string,
  accepts: readonly JsonType[],
  check: (value: unknown) => GuardFault | null,
): Guard<T> {
  return { kind: 'union', expected, accepts, check };
}
