// A stand-in for the helper module the contract's agent wire imports but does not include. Each
// helper is written from the way the contract's code calls it: guards are predicates on one value,
// `hasRequired` / `hasOptional` apply a table of guards to an object's fields, and
// `decodeChannelFrame` parses text and hands an object with a known `t` to a frame guard.
//
// Two element shapes are not stated anywhere in the contract: a roster entry (`bridges`) and an
// auth method. They follow cairn's reading of them, so agreement on those is by construction.
//
// Errors thrown here start with `[stand-in]`: their wording is this file's, not the contract's, and
// a test comparing messages must not hold cairn to it.

const PREFIX = '[stand-in]';

/** A JSON object: not null, not a list. */
export function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isString(value) {
  return typeof value === 'string';
}

export function isBoolean(value) {
  return typeof value === 'boolean';
}

/** Any number JSON can carry: finite, whole or not. */
export function isNumber(value) {
  return typeof value === 'number' && Number.isFinite(value);
}

/** A string, or "none" (null or absent), like the contract's own `isNullable…` guards. */
export function isNullableString(value) {
  return value === undefined || value === null || typeof value === 'string';
}

export function isStringArray(value) {
  return Array.isArray(value) && value.every(isString);
}

export function isStringRecord(value) {
  return isObject(value) && Object.values(value).every(isString);
}

/** Every guard of `guards` holds on a present field of `value`. */
export function hasRequired(value, guards) {
  return Object.keys(guards).every((key) => value[key] !== undefined && guards[key](value[key]));
}

/** Every guard of `guards` holds on its field of `value` when the field is present. */
export function hasOptional(value, guards) {
  return Object.keys(guards).every((key) => value[key] === undefined || guards[key](value[key]));
}

const isTrue = (value) => value === true;

function isBridgeInfo(value) {
  return (
    isObject(value) &&
    hasRequired(value, { key: isString, name: isString }) &&
    hasOptional(value, {
      cliInstalled: isBoolean,
      adapterInstalled: isTrue,
      version: isNullableString,
      supportsSteering: isTrue,
      supportsImageInput: isTrue,
    })
  );
}

export function isBridgeInfoArray(value) {
  return Array.isArray(value) && value.every(isBridgeInfo);
}

function isAuthMethodInfo(value) {
  return (
    isObject(value) &&
    hasRequired(value, { id: isString, name: isString }) &&
    hasOptional(value, { description: isNullableString, type: isNullableString })
  );
}

/** A whole table of auth methods, or "none" (null or absent). */
export function isNullableAuthMethodInfoArray(value) {
  if (value === undefined || value === null) return true;
  return Array.isArray(value) && value.every(isAuthMethodInfo);
}

/** The object `text` holds, when it has a `t` among `discriminators` and passes `guard`. */
export function decodeChannelFrame(text, discriminators, guard) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`${PREFIX} not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!isObject(value)) throw new Error(`${PREFIX} not an object`);
  if (typeof value.t !== 'string' || !discriminators.has(value.t)) {
    throw new Error(`${PREFIX} unknown frame type ${String(value.t)}`);
  }
  if (!guard(value)) throw new Error(`${PREFIX} malformed ${value.t}`);
  return value;
}
