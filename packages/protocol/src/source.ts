// Where an item or event came from in the agent's own files.
import { type Static, Type } from '@sinclair/typebox';

/** Reading `length` bytes at `offset` of `file` gives back the original record; the same shape as the
 * transcript library's `SourcePointer`, so a server passes it through unchanged. */
export const SourcePointer = Type.Object(
  {
    /** Absolute path on the host of the server that read it. */
    file: Type.String({ minLength: 1 }),
    offset: Type.Integer({ minimum: 0 }),
    length: Type.Integer({ minimum: 0 }),
    /** 1-based. */
    line: Type.Integer({ minimum: 1 }),
    /** The file is compressed; `offset` and `length` count its decompressed bytes. */
    codec: Type.Optional(Type.Literal('zstd')),
    /** The record is a row of a SQLite database at `file` rather than a byte range. */
    sqlite: Type.Optional(
      Type.Object({ table: Type.String({ minLength: 1 }), rowid: Type.Integer({ minimum: 0 }) }),
    ),
  },
  { $id: 'SourcePointer' },
);
export type SourcePointer = Static<typeof SourcePointer>;
