// `session_list`: every agent's sessions, newest activity first, paged.
import { type Static, Type } from '@sinclair/typebox';
import { request, response } from '../envelope.js';
import { AgentName, Cursor, Timestamp } from '../identifiers.js';
import { SessionHead } from '../session.js';

export const SessionListArgs = Type.Object(
  {
    /** Only these agents' sessions; absent lists every agent's. */
    agents: Type.Optional(Type.Array(AgentName, { minItems: 1 })),
    /** Only sessions whose working directory contains this text. */
    cwd: Type.Optional(Type.String({ minLength: 1 })),
    /** Only sessions that are (true) or are not (false) active now. */
    active: Type.Optional(Type.Boolean()),
    /** Only sessions active at or after this instant. */
    since_at: Type.Optional(Timestamp),
    /** How many heads to answer with; the server narrows it to its own limit. */
    limit: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Continue where a previous answer's `next_cursor` left off. */
    cursor: Type.Optional(Cursor),
  },
  { $id: 'SessionListArgs', additionalProperties: false },
);
export type SessionListArgs = Static<typeof SessionListArgs>;

export const SessionListResult = Type.Object(
  {
    /** Newest `last_activity_at` first. */
    sessions: Type.Array(SessionHead),
    /** Sessions matching the filters in all pages. */
    total: Type.Integer({ minimum: 0 }),
    /** Absent on the last page. */
    next_cursor: Type.Optional(Cursor),
  },
  { $id: 'SessionListResult' },
);
export type SessionListResult = Static<typeof SessionListResult>;

export const SessionListRequest = request('session_list', SessionListArgs, 'SessionListRequest');
export type SessionListRequest = Static<typeof SessionListRequest>;
export const SessionListResponse = response('session_list', SessionListResult, 'SessionListResponse');
export type SessionListResponse = Static<typeof SessionListResponse>;
