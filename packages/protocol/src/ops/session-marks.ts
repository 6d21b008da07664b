// `session_marks_read` and `session_marks_write`: a person's own marks on sessions (a star, tags)
// and on items (a star). cairn's extension: the marks are the user's state, kept by the server
// apart from the index, which can be rebuilt from the agents' files at any time.
import { type Static, Type } from '@sinclair/typebox';
import { request, response } from '../envelope.js';
import { AgentId, AgentName, Sid, Timestamp } from '../identifiers.js';
import { TranscriptItemType } from '../item-types.js';

/** A word a person files a session under. Control characters are refused; anything else is kept
 * as written and drawn with invisible characters shown as code points. */
export const SessionTag = Type.String({ $id: 'SessionTag', minLength: 1, maxLength: 64 });
export type SessionTag = Static<typeof SessionTag>;

/** A starred item, pointed at as a search hit points at one: its record's uuid, its type, its lane
 * and its order among the record's items of that type. */
export const StarredItem = Type.Object(
  {
    item_uuid: Type.String({ minLength: 1, maxLength: 200 }),
    item_type: Type.Optional(TranscriptItemType),
    /** The subagent whose lane holds the item; absent for the session's own lane. */
    agent_id: Type.Optional(AgentId),
    nth: Type.Optional(Type.Integer({ minimum: 0 })),
  },
  { $id: 'StarredItem', additionalProperties: false },
);
export type StarredItem = Static<typeof StarredItem>;

/** Everything marked on one session. */
export const SessionMarks = Type.Object(
  {
    agent: AgentName,
    sid: Sid,
    starred: Type.Boolean(),
    /** Sorted, without repeats. */
    tags: Type.Array(SessionTag),
    items: Type.Array(StarredItem),
    updated_at: Timestamp,
  },
  { $id: 'SessionMarks' },
);
export type SessionMarks = Static<typeof SessionMarks>;

export const SessionMarksReadArgs = Type.Object(
  {
    /** Only this agent's sessions. */
    agent: Type.Optional(AgentName),
    /** Only this session. */
    sid: Type.Optional(Sid),
  },
  { $id: 'SessionMarksReadArgs', additionalProperties: false },
);
export type SessionMarksReadArgs = Static<typeof SessionMarksReadArgs>;

export const SessionMarksReadResult = Type.Object(
  {
    /** Every session with at least one mark, the latest marked first. */
    marks: Type.Array(SessionMarks),
  },
  { $id: 'SessionMarksReadResult' },
);
export type SessionMarksReadResult = Static<typeof SessionMarksReadResult>;

export const SessionMarksReadRequest = request(
  'session_marks_read',
  SessionMarksReadArgs,
  'SessionMarksReadRequest',
);
export type SessionMarksReadRequest = Static<typeof SessionMarksReadRequest>;
export const SessionMarksReadResponse = response(
  'session_marks_read',
  SessionMarksReadResult,
  'SessionMarksReadResponse',
);
export type SessionMarksReadResponse = Static<typeof SessionMarksReadResponse>;

/** Changes one session's marks; a field left out leaves that mark as it was. */
export const SessionMarksWriteArgs = Type.Object(
  {
    agent: AgentName,
    sid: Sid,
    starred: Type.Optional(Type.Boolean()),
    /** The session's tags from now on; `[]` removes them all. */
    tags: Type.Optional(Type.Array(SessionTag, { maxItems: 32 })),
    star_items: Type.Optional(Type.Array(StarredItem, { maxItems: 100 })),
    unstar_items: Type.Optional(Type.Array(StarredItem, { maxItems: 100 })),
  },
  { $id: 'SessionMarksWriteArgs', additionalProperties: false },
);
export type SessionMarksWriteArgs = Static<typeof SessionMarksWriteArgs>;

export const SessionMarksWriteResult = Type.Object(
  {
    /** The session's marks after the change. */
    marks: SessionMarks,
  },
  { $id: 'SessionMarksWriteResult' },
);
export type SessionMarksWriteResult = Static<typeof SessionMarksWriteResult>;

export const SessionMarksWriteRequest = request(
  'session_marks_write',
  SessionMarksWriteArgs,
  'SessionMarksWriteRequest',
);
export type SessionMarksWriteRequest = Static<typeof SessionMarksWriteRequest>;
export const SessionMarksWriteResponse = response(
  'session_marks_write',
  SessionMarksWriteResult,
  'SessionMarksWriteResponse',
);
export type SessionMarksWriteResponse = Static<typeof SessionMarksWriteResponse>;
