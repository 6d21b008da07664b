// The fields every transcript item carries, and the two roles of a call and its answer.
import { type TProperties, type TSchema, Type } from '@sinclair/typebox';
import { Timestamp } from './identifiers.js';
import { SourcePointer } from './source.js';

export const BASE_FIELDS = {
  /** The id of the record the item was read from. Several items of one record (thinking, text and
   * calls of one reply) share it; links between items point with it, never with a position, since a
   * selection or a range decides which items a given answer holds. */
  uuid: Type.String({ minLength: 1 }),
  /** The item's own instant. A call and its result each keep theirs. */
  at: Timestamp,
  /** The turn of the session the item fell in, when it could be placed. Renumbered on every read, so
   * it is shown and never used to cut a range. */
  turn: Type.Optional(Type.Integer({ minimum: 0 })),
  /** The record behind the item. The seed's item has no such field; cairn adds it so that any item
   * leads back to the bytes it was read from (`transcript_read`). Always set by cairn's reader; optional
   * so that items written without one, like the seed's own examples, still validate. */
  source: Type.Optional(SourcePointer),
};

/** A call and what came back are two items linked by uuid, since an answer can arrive many items
 * later. A `use` without `result_item` has not come back, or came back outside the range read. */
export const USE_FIELDS = {
  role: Type.Literal('use'),
  /** The result's uuid, once there is one. */
  result_item: Type.Optional(Type.String({ minLength: 1 })),
};

export const RESULT_FIELDS = {
  role: Type.Literal('result'),
  /** The call this answers; known because a result exists only for a call. */
  parent_item: Type.String({ minLength: 1 }),
};

/** One member of the item union: the common fields, its `type`, and its own fields. */
export function item<T extends TSchema, P extends TProperties>($id: string, type: T, fields: P) {
  return Type.Object({ ...BASE_FIELDS, type, ...fields }, { $id });
}
