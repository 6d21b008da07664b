// Times and counts read from session files, checked against what the contract can carry. A
// timestamp is whole milliseconds from 1970 up to the last date a JavaScript clock can show; a
// token count or duration is a non-negative safe integer. A value outside that is absent from
// the event, and the event lists it in `invalid` with the reason, so nothing downstream (dates
// shown on screen, sums, the wire's schemas) meets a value it cannot handle.

/** A recorded value the event leaves out, and why. */
export interface InvalidValue {
  /** Where the value was in the record, e.g. `timestamp` or `message.usage.output_tokens`. */
  field: string;
  reason: string;
}

/** The last instant a Date can hold, in ms since the epoch. */
export const MAX_EPOCH_MS = 8.64e15;

export type Checked = { ok: true; value: number } | { ok: false; reason: string } | undefined;

const typeName = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`;

/**
 * A recorded time as whole ms since the epoch; undefined when nothing is recorded. Numbers are ms,
 * or seconds when below `secondsBelow`. Fractions of a millisecond are dropped.
 */
export function checkTimestamp(v: unknown, secondsBelow?: number): Checked {
  if (v === undefined || v === null) return undefined;
  let ms: number;
  if (typeof v === 'string') {
    ms = Date.parse(v);
    if (Number.isNaN(ms)) return { ok: false, reason: 'not a date' };
  } else if (typeof v === 'number') {
    if (!Number.isFinite(v)) return { ok: false, reason: 'not a finite number' };
    ms = secondsBelow !== undefined && Math.abs(v) < secondsBelow ? v * 1000 : v;
  } else return { ok: false, reason: `${typeName(v)}, not a date` };
  ms = Math.floor(ms);
  if (ms < 0) return { ok: false, reason: 'before 1970' };
  if (ms > MAX_EPOCH_MS) return { ok: false, reason: 'beyond the last date a clock can show' };
  return { ok: true, value: ms };
}

/** A recorded count (tokens, milliseconds): a non-negative safe integer; undefined when absent. */
export function checkCount(v: unknown): Checked {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number') return { ok: false, reason: `${typeName(v)}, not a number` };
  if (!Number.isFinite(v)) return { ok: false, reason: 'not a finite number' };
  if (v < 0) return { ok: false, reason: 'negative' };
  if (!Number.isInteger(v)) return { ok: false, reason: 'not a whole number' };
  if (v > Number.MAX_SAFE_INTEGER) return { ok: false, reason: 'too large to count exactly' };
  return { ok: true, value: v };
}

/** A recorded whole number of either sign (an exit code): a safe integer; undefined when absent. */
export function checkInteger(v: unknown): Checked {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number') return { ok: false, reason: `${typeName(v)}, not a number` };
  if (!Number.isSafeInteger(v)) return { ok: false, reason: 'not a whole number' };
  return { ok: true, value: v };
}

/**
 * The value of a check, noting in `invalid` (when given) why a recorded value was left out.
 */
export function checkedValue(checked: Checked, field: string, invalid?: InvalidValue[]): number | undefined {
  if (checked === undefined) return undefined;
  if (checked.ok) return checked.value;
  invalid?.push({ field, reason: checked.reason });
  return undefined;
}

/** checkTimestamp's value, the reason noted in `invalid`. */
export const timestampValue = (
  v: unknown,
  field: string,
  invalid?: InvalidValue[],
  secondsBelow?: number,
): number | undefined => checkedValue(checkTimestamp(v, secondsBelow), field, invalid);

/** checkCount's value, the reason noted in `invalid`. */
export const countValue = (v: unknown, field: string, invalid?: InvalidValue[]): number | undefined =>
  checkedValue(checkCount(v), field, invalid);

/** checkInteger's value, the reason noted in `invalid`. */
export const integerValue = (v: unknown, field: string, invalid?: InvalidValue[]): number | undefined =>
  checkedValue(checkInteger(v), field, invalid);

/** Session ids and lane ids the contract carries: a letter or digit, then letters, digits, `.`, `_`, `-`. */
const WIRE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

/** Whether a recorded id can name a session or a lane on the wire; one that cannot is not used as one. */
export const isWireId = (v: string): boolean => WIRE_ID.test(v);
