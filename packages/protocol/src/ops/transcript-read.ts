// `transcript_read`: the records of a session's file as the agent wrote them, by byte range.
import { type Static, Type } from '@sinclair/typebox';
import { request, response } from '../envelope.js';
import { AgentId, AgentName, Sid } from '../identifiers.js';

/** The client never names a path: the file is the session's own, or its subagent's, so nothing can be
 * read outside the agents' session files. Offsets are those of item `source` pointers (decompressed
 * bytes for a compressed file), so the record behind an item is `after: source.offset` with
 * `max_bytes: source.length`. Give `before` or `after`, not both. */
export const TranscriptReadArgs = Type.Object(
  {
    sid: Sid,
    agent: Type.Optional(AgentName),
    /** Read this subagent's file instead of the session's main file. */
    agent_id: Type.Optional(AgentId),
    /** Records ending at or before this offset, the latest first to go in; absent reads from the end.
     * Paging backwards passes the previous answer's `start`. */
    before: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Records starting at or after this offset, reading forwards. */
    after: Type.Optional(Type.Integer({ minimum: 0 })),
    /** How much to answer with; the server narrows it to its own limit. Whole records are always
     * answered, so at least one record is, however long. */
    max_bytes: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { $id: 'TranscriptReadArgs', additionalProperties: false },
);
export type TranscriptReadArgs = Static<typeof TranscriptReadArgs>;

export const TranscriptReadResult = Type.Object(
  {
    sid: Sid,
    agent_id: Type.Optional(Type.String()),
    /** The file read, on the server's host. */
    file: Type.String({ minLength: 1 }),
    codec: Type.Optional(Type.Literal('zstd')),
    /** Whole records as written, oldest first, without their line ends. */
    lines: Type.Array(Type.String()),
    /** Offset of the first record answered; 0 means the beginning is included. */
    start: Type.Integer({ minimum: 0 }),
    /** Offset just past the last record answered. */
    end: Type.Integer({ minimum: 0 }),
    /** The file's size now; it grows while the session runs. */
    size: Type.Integer({ minimum: 0 }),
  },
  { $id: 'TranscriptReadResult' },
);
export type TranscriptReadResult = Static<typeof TranscriptReadResult>;

export const TranscriptReadRequest = request('transcript_read', TranscriptReadArgs, 'TranscriptReadRequest');
export type TranscriptReadRequest = Static<typeof TranscriptReadRequest>;
export const TranscriptReadResponse = response(
  'transcript_read',
  TranscriptReadResult,
  'TranscriptReadResponse',
);
export type TranscriptReadResponse = Static<typeof TranscriptReadResponse>;
