// `session_search`: full-text search over what sessions said and did, answered per item.
import { type Static, Type } from '@sinclair/typebox';
import { request, response } from '../envelope.js';
import { AgentName, Cursor, Sid, Timestamp } from '../identifiers.js';
import { TranscriptItemType } from '../item-types.js';

/** Which text a search looks in. Tool output is the bulk of a transcript and mostly noise for a
 * search, which is why it is a target of its own that a client can leave out. */
export const SearchTarget = Type.Union(
  [
    Type.Literal('prompt'),
    Type.Literal('assistant'),
    Type.Literal('thinking'),
    Type.Literal('tool_input'),
    Type.Literal('tool_output'),
  ],
  { $id: 'SearchTarget' },
);
export type SearchTarget = Static<typeof SearchTarget>;

export const SessionSearchArgs = Type.Object(
  {
    /** Words that must all occur in one item; `"…"` quotes a phrase. */
    query: Type.String({ minLength: 1, maxLength: 1000 }),
    /** Absent searches every target. */
    targets: Type.Optional(Type.Array(SearchTarget, { minItems: 1 })),
    agents: Type.Optional(Type.Array(AgentName, { minItems: 1 })),
    /** Only this session. */
    sid: Type.Optional(Sid),
    /** Only sessions whose working directory contains this text. */
    cwd: Type.Optional(Type.String({ minLength: 1 })),
    /** Only items at or after / at or before these instants. */
    since_at: Type.Optional(Timestamp),
    until_at: Type.Optional(Timestamp),
    limit: Type.Optional(Type.Integer({ minimum: 1 })),
    cursor: Type.Optional(Cursor),
    /** `rank` (absent): best first; a server may rank only the newest of a very common word's
     * matches when nothing but `targets` narrows the search. `time`: in the order the items were
     * recorded (those without a time first), as a reader steps through one session's hits page
     * after page. */
    order: Type.Optional(Type.Union([Type.Literal('rank'), Type.Literal('time')])),
    /** Also count every matching item (the answer's `total`): the search then looks at all of its
     * matches, not only the page's, so ask on a first page only. */
    count: Type.Optional(Type.Boolean()),
  },
  { $id: 'SessionSearchArgs', additionalProperties: false },
);
export type SessionSearchArgs = Static<typeof SessionSearchArgs>;

/** One matching item, with what a result list needs to show it and link to it. */
export const SessionSearchHit = Type.Object(
  {
    agent: AgentName,
    sid: Sid,
    /** The subagent whose transcript holds the item; absent for the session's own. */
    agent_id: Type.Optional(Type.String()),
    /** The item the link lands on (`transcript_items_read` with `since_uuid`). */
    item_uuid: Type.String({ minLength: 1 }),
    item_type: TranscriptItemType,
    target: SearchTarget,
    at: Type.Optional(Timestamp),
    /** Text around the match, the matches between `SNIPPET_MARK_START` and `SNIPPET_MARK_END`. */
    snippet: Type.String(),
    /** Relevance; higher is better, comparable only within one answer. */
    score: Type.Number(),
    /** The session's title and directory, so a hit can be shown without a second request. */
    title: Type.Optional(Type.String()),
    cwd: Type.Optional(Type.String()),
    /** The workstation a synced session is on; absent for the server's own. */
    workstation: Type.Optional(Type.String()),
  },
  { $id: 'SessionSearchHit' },
);
export type SessionSearchHit = Static<typeof SessionSearchHit>;

export const SessionSearchResult = Type.Object(
  {
    /** Best first, or in the order `order` asked. */
    hits: Type.Array(SessionSearchHit),
    /** Absent on the last page. */
    next_cursor: Type.Optional(Cursor),
    /** Every item the search matches, on all pages; given when `count` was asked. */
    total: Type.Optional(Type.Integer({ minimum: 0 })),
    /** The index is still being built, so sessions not yet indexed were not searched. */
    partial: Type.Boolean(),
  },
  { $id: 'SessionSearchResult' },
);
export type SessionSearchResult = Static<typeof SessionSearchResult>;

export const SessionSearchRequest = request('session_search', SessionSearchArgs, 'SessionSearchRequest');
export type SessionSearchRequest = Static<typeof SessionSearchRequest>;
export const SessionSearchResponse = response('session_search', SessionSearchResult, 'SessionSearchResponse');
export type SessionSearchResponse = Static<typeof SessionSearchResponse>;
