// Mutations a test applies to a valid value to make it invalid in one known field.
import type { TObject } from '@sinclair/typebox';

/** A value of a different JSON type than `value`, or undefined when `schema` accepts anything. */
export function wrongType(value: unknown): unknown {
  if (typeof value === 'string') return 42;
  if (typeof value === 'number') return 'forty-two';
  if (typeof value === 'boolean') return 'yes';
  if (value === null) return 'not null';
  if (Array.isArray(value)) return { not: 'an array' };
  if (value !== null && typeof value === 'object') return 'not an object';
  return undefined;
}

export interface Mutation {
  /** What was done, for the test's name. */
  readonly label: string;
  /** The JSON pointer the error must name (or start with). */
  readonly field: string;
  readonly value: Record<string, unknown>;
}

/** Every required field removed in turn, and every present field given a value of the wrong type. */
export function mutations(schema: TObject, valid: Record<string, unknown>): Mutation[] {
  const out: Mutation[] = [];
  for (const key of schema.required ?? []) {
    const { [key]: _removed, ...rest } = valid;
    out.push({ label: `without ${key}`, field: `/${key}`, value: rest });
  }
  for (const [key, present] of Object.entries(valid)) {
    const property = schema.properties[key];
    // A field typed `unknown` accepts any value, so it cannot be given a wrong one.
    if (property === undefined || Object.keys(property).length === 0) continue;
    out.push({
      label: `${key} of the wrong type`,
      field: `/${key}`,
      value: { ...valid, [key]: wrongType(present) },
    });
  }
  return out;
}
