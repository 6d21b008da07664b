// The small field schemas the browser wire's shapes are built from. Internal to the chat contract:
// the names are too generic for the package's top level.
import {
  type SchemaOptions,
  type TLiteral,
  type TProperties,
  type TSchema,
  type TUnion,
  Type,
} from '@sinclair/typebox';

/** A count or an index: a whole number, never negative. */
export const Count = Type.Integer({ minimum: 0 });
export const NullableCount = Type.Union([Count, Type.Null()]);

/** Milliseconds since the Unix epoch (possibly fractional, as a clock reading may be). */
export const Instant = Type.Number({ minimum: 0 });

/** A duration or a rate: never negative, possibly fractional. */
export const Amount = Type.Number({ minimum: 0 });
export const NullableAmount = Type.Union([Amount, Type.Null()]);

/** An id the server or the agent minted. Empty would match nothing, so it is refused. */
export const Id = Type.String({ minLength: 1 });

export const NullableString = Type.Union([Type.String(), Type.Null()]);

/** Free-form metadata a provider attaches (reasoning signatures and the like). */
export const Metadata = Type.Record(Type.String(), Type.Unknown());

type LiteralsOf<T extends readonly string[]> = { -readonly [K in keyof T]: TLiteral<T[K]> };

/** One of a fixed set of strings. */
export function literals<const T extends readonly [string, string, ...string[]]>(
  values: T,
  options?: SchemaOptions,
): TUnion<LiteralsOf<T>> {
  const members = values.map((value) => Type.Literal(value));
  return Type.Union(members, options) as unknown as TUnion<LiteralsOf<T>>;
}

/** `T | null`. */
export function nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** A frame of the browser wire: its `type` and its fields, named by `$id`. */
export function frame<T extends string, P extends TProperties>(type: T, fields: P, $id: string) {
  const literal = Type.Literal(type) as TLiteral<T>;
  return Type.Object({ type: literal, ...fields }, { $id });
}
