// Validation against the contract's schemas, with the first bad field named. Checkers are compiled
// once per schema, on first use.
import type { Static, TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors';
import { Value } from '@sinclair/typebox/value';
import type { ErrorBody } from './errors.js';
import { isOpName, OP_SCHEMAS, type OpName, type OpRequest, type OpResponse } from './op-table.js';

type Check = (value: unknown) => boolean;

const checks = new WeakMap<TSchema, Check>();

/** A compiled check, or the interpreted one where the page's Content-Security-Policy forbids
 * generating code (the browser refuses `new Function` with an EvalError): same answers, slower. */
function checkFor(schema: TSchema): Check {
  let check = checks.get(schema);
  if (check === undefined) {
    try {
      const compiled = TypeCompiler.Compile(schema);
      check = (value) => compiled.Check(value);
    } catch (cause) {
      if (!(cause instanceof EvalError)) throw cause;
      check = (value) => Value.Check(schema, value);
    }
    checks.set(schema, check);
  }
  return check;
}

export interface InvalidArgs {
  readonly code: 'invalid_args';
  readonly message: string;
  /** JSON pointer of the first bad field (`/since_at`, `/items/3/command`); `''` is the value itself. */
  readonly field: string;
}

export type Validation<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly error: InvalidArgs };

/** Checks `value` against `schema`; on failure names the first field at fault. */
export function validate<T extends TSchema>(schema: T, value: unknown): Validation<Static<T>> {
  if (checkFor(schema)(value)) return { ok: true, value: value as Static<T> };
  const first = Value.Errors(schema, value).First();
  const fault = first === undefined ? { path: '', message: 'does not match the schema' } : explain(first);
  const message = `${fault.path === '' ? 'value' : fault.path}: ${fault.message}`;
  return { ok: false, error: { code: 'invalid_args', message, field: fault.path } };
}

/** Whether `value` matches `schema`, without building an error. */
export function matches<T extends TSchema>(schema: T, value: unknown): value is Static<T> {
  return checkFor(schema)(value);
}

interface Fault {
  readonly path: string;
  readonly message: string;
}

// A value that fails a union fails every member, and the error worth reporting is the one of the member
// it was meant to be: the member whose discriminating fields it satisfies (a kind first, `type`, `op` or
// `ev`, then `role`) and that has the fewest bad fields. Ties go to the earlier member, which for items
// puts a typed tool ahead of the generic one. When no member accepts a discriminator, it is the fault.
const DISCRIMINATORS: readonly (readonly [string, number])[] = [
  ['type', 3000],
  ['op', 3000],
  ['ev', 3000],
  ['role', 1000],
];

function explain(error: ValueError): Fault {
  if (error.type !== ValueErrorType.Union) return { path: error.path, message: error.message };
  const options = (error.schema.anyOf ?? []) as TSchema[];
  if (options.length > 0 && options.every((option) => 'const' in option)) {
    const allowed = options.map((option) => JSON.stringify(option.const)).join(', ');
    return { path: error.path, message: `Expected one of ${allowed}` };
  }
  let best: ValueError[] | undefined;
  let bestMiss: string | undefined;
  let bestScore = Number.POSITIVE_INFINITY;
  for (const member of error.errors) {
    const errors = [...member];
    if (errors.length === 0) continue;
    const paths = new Set(errors.map((e) => e.path));
    let miss: string | undefined;
    let score = paths.size;
    for (const [name, weight] of DISCRIMINATORS) {
      const path = `${error.path}/${name}`;
      if (!paths.has(path)) continue;
      miss ??= path;
      score += weight;
    }
    if (score < bestScore) {
      best = errors;
      bestMiss = miss;
      bestScore = score;
    }
  }
  if (best?.[0] === undefined) return { path: error.path, message: error.message };
  if (bestMiss !== undefined) {
    const missing = best.some((e) => e.path === bestMiss && e.type === ValueErrorType.ObjectRequiredProperty);
    return {
      path: bestMiss,
      message: missing ? 'Expected required property' : 'Expected a value one of the allowed shapes has',
    };
  }
  return explain(best[0]);
}

export type RequestValidation =
  | { readonly ok: true; readonly op: OpName; readonly request: OpRequest<OpName> }
  | { readonly ok: false; readonly request_id?: string; readonly error: ErrorBody };

/** Reads an incoming request the way a server dispatches it: not an object, or no `op` or
 * `request_id`, is `bad_request`; an op outside the table is `unknown_op`; arguments that fail the
 * op's schema are `invalid_args` naming the field. Authorization (roles, hello) is the caller's next
 * step, from the same table. */
export function validateRequest(value: unknown): RequestValidation {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: { code: 'bad_request', message: 'a request is a JSON object' } };
  }
  const { op, request_id } = value as { op?: unknown; request_id?: unknown };
  const id = typeof request_id === 'string' && request_id !== '' ? request_id : undefined;
  if (id === undefined) {
    return {
      ok: false,
      error: { code: 'bad_request', message: 'request_id is missing', field: '/request_id' },
    };
  }
  if (typeof op !== 'string') {
    return {
      ok: false,
      request_id: id,
      error: { code: 'bad_request', message: 'op is missing', field: '/op' },
    };
  }
  if (!isOpName(op)) {
    return {
      ok: false,
      request_id: id,
      error: { code: 'unknown_op', message: `no op named ${op}`, field: '/op' },
    };
  }
  const checked = validate(OP_SCHEMAS[op].request, value);
  if (!checked.ok) return { ok: false, request_id: id, error: checked.error };
  return { ok: true, op, request: checked.value as OpRequest<OpName> };
}

/** Checks a successful reply against its op's response schema, as a client does on receipt. */
export function validateResponse<Op extends OpName>(op: Op, value: unknown): Validation<OpResponse<Op>> {
  return validate(OP_SCHEMAS[op].response, value) as Validation<OpResponse<Op>>;
}
