// `session_summary_read`: the numbers of one session.
import { type Static, Type } from '@sinclair/typebox';
import { request, response } from '../envelope.js';
import { AgentName, Sid } from '../identifiers.js';
import { Capability, SessionSummary } from '../session.js';

export const SessionSummaryReadArgs = Type.Object(
  {
    sid: Sid,
    /** Which agent's session, when two agents' sessions could share the id. */
    agent: Type.Optional(AgentName),
    /** Also answer the main lane's prompts. */
    prompts: Type.Optional(Type.Boolean()),
  },
  { $id: 'SessionSummaryReadArgs', additionalProperties: false },
);
export type SessionSummaryReadArgs = Static<typeof SessionSummaryReadArgs>;

export const SessionSummaryReadResult = Type.Object(
  {
    agent: AgentName,
    sid: Sid,
    summary: SessionSummary,
    /** What this session's files record; a number whose capability is missing is absent, not 0. */
    capabilities: Type.Array(Capability),
    /** Changes when a number changes meaning for the same files, so caches of summaries know to
     * recompute. */
    summary_version: Type.Integer({ minimum: 1 }),
  },
  { $id: 'SessionSummaryReadResult' },
);
export type SessionSummaryReadResult = Static<typeof SessionSummaryReadResult>;

export const SessionSummaryReadRequest = request(
  'session_summary_read',
  SessionSummaryReadArgs,
  'SessionSummaryReadRequest',
);
export type SessionSummaryReadRequest = Static<typeof SessionSummaryReadRequest>;
export const SessionSummaryReadResponse = response(
  'session_summary_read',
  SessionSummaryReadResult,
  'SessionSummaryReadResponse',
);
export type SessionSummaryReadResponse = Static<typeof SessionSummaryReadResponse>;
