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

// The seed types every number of the wire as a plain `number` and every id as a plain `string`, so
// these accept exactly that: a count, a time or a rate that is negative or fractional still parses,
// and whoever uses the value holds it to the range that use needs (a chunk index to the chunks
// announced, a loop cap to the server's maximum, a time to something a clock could show).

/** A count or an index, as the seed types it: any number. */
export const Count = Type.Number();
export const NullableCount = Type.Union([Count, Type.Null()]);

/** Milliseconds since the Unix epoch, as the seed types it: any number. */
export const Instant = Type.Number();

/** A duration or a rate, as the seed types it: any number. */
export const Amount = Type.Number();
export const NullableAmount = Type.Union([Amount, Type.Null()]);

/** An id of the seed's frames and rows: any string, the empty one included (it still pairs a result
 * with its call, or a row with its duplicate, by equality). */
export const WireId = Type.String();

/** An id that cairn's own messages and HTTP bodies carry to name something the server holds; empty
 * names nothing, so it is refused. */
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
