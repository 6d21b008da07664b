// `session_links_read`: which sessions carry on from which. cairn's extension: a hand-off or a fork
// starts a new session from an old one, and cairn keeps that link in its own state (never in the
// agents' folders), so both ends can name the other.
import { type Static, Type } from '@sinclair/typebox';
import { request, response } from '../envelope.js';
import { AgentName, Sid, Timestamp } from '../identifiers.js';

/** One end of a link: a session of an agent. */
export const LinkedSession = Type.Object(
  { agent: AgentName, sid: Sid },
  { $id: 'LinkedSession', additionalProperties: false },
);
export type LinkedSession = Static<typeof LinkedSession>;

/** `handoff`: the new session was given the old one's items to go on with; `fork`: it holds the old
 * one's history up to an item. */
export const SessionLinkKind = Type.Union([Type.Literal('handoff'), Type.Literal('fork')], {
  $id: 'SessionLinkKind',
});
export type SessionLinkKind = Static<typeof SessionLinkKind>;

/** How the new session was given the history: `agent`, the agent's own fork of the session
 * (through ACP); `handoff`, a document of it sent as the first prompt. */
export const SessionLinkVia = Type.Union([Type.Literal('agent'), Type.Literal('handoff')]);
export type SessionLinkVia = Static<typeof SessionLinkVia>;

export const SessionLink = Type.Object(
  {
    kind: SessionLinkKind,
    /** The session the work came from. */
    from: LinkedSession,
    /** The session that carries it on. */
    to: LinkedSession,
    /** The last item of `from` the new session was given: a fork's point, or a hand-off's end. */
    at_item: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** Absent on links kept before cairn said which way it was made. */
    via: Type.Optional(SessionLinkVia),
    created_at: Timestamp,
  },
  { $id: 'SessionLink', additionalProperties: false },
);
export type SessionLink = Static<typeof SessionLink>;

export const SessionLinksReadArgs = Type.Object(
  {
    /** Only links with a session of this agent at either end. */
    agent: Type.Optional(AgentName),
    /** Only links with this session at either end. */
    sid: Type.Optional(Sid),
  },
  { $id: 'SessionLinksReadArgs', additionalProperties: false },
);
export type SessionLinksReadArgs = Static<typeof SessionLinksReadArgs>;

export const SessionLinksReadResult = Type.Object(
  {
    /** Oldest first. */
    links: Type.Array(SessionLink),
  },
  { $id: 'SessionLinksReadResult' },
);
export type SessionLinksReadResult = Static<typeof SessionLinksReadResult>;

export const SessionLinksReadRequest = request(
  'session_links_read',
  SessionLinksReadArgs,
  'SessionLinksReadRequest',
);
export type SessionLinksReadRequest = Static<typeof SessionLinksReadRequest>;
export const SessionLinksReadResponse = response(
  'session_links_read',
  SessionLinksReadResult,
  'SessionLinksReadResponse',
);
export type SessionLinksReadResponse = Static<typeof SessionLinksReadResponse>;
