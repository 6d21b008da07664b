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
    /** Also answer each lane's tokens and cost (reads the whole transcript). */
    lanes: Type.Optional(Type.Boolean()),
  },
  { $id: 'SessionSummaryReadArgs', additionalProperties: false },
);
export type SessionSummaryReadArgs = Static<typeof SessionSummaryReadArgs>;

const Tokens = Type.Integer({ minimum: 0 });

/** Where the reader lands to show a lane: the first item on it that the reader shows unasked. */
export const LaneLanding = Type.Object(
  { uuid: Type.String({ minLength: 1 }), type: Type.String({ minLength: 1 }) },
  { $id: 'LaneLanding' },
);
export type LaneLanding = Static<typeof LaneLanding>;

/**
 * One lane's share of a session: the main agent's or a subagent's requests, priced one by one with
 * the catalog the session's cost comes from. Token names and meanings are the summary's
 * (`inputTokens` includes cache reads and writes); every lane's numbers add up to the summary's.
 */
export const SessionLaneCost = Type.Object(
  {
    /** The lane's id, as items' `agent_id` and the reader's `lane` name it. */
    id: Type.String(),
    /** The lane that spawned this one; absent on the main lane. */
    parentId: Type.Optional(Type.String()),
    /** What the subagent was asked to do, when recorded. */
    title: Type.Optional(Type.String()),
    requests: Tokens,
    inputTokens: Tokens,
    outputTokens: Tokens,
    cacheReadTokens: Tokens,
    cacheWriteTokens: Tokens,
    /** Dollars; absent when the lane used no tokens, or when a model it used has no price. */
    costUsd: Type.Optional(Type.Number({ minimum: 0 })),
    /** The models its requests ran on, the most used first. */
    models: Type.Array(Type.String()),
    /** Those of them the catalog has no price for. */
    unpricedModels: Type.Optional(Type.Array(Type.String())),
    compactions: Tokens,
    /** Main lane only: the points of the summary's `contextShape` that first follow each compaction. */
    contextMarks: Type.Optional(Type.Array(Type.Integer({ minimum: 0 }))),
    /** Where a link into the lane lands; absent when the lane has no items. */
    landing: Type.Optional(LaneLanding),
  },
  { $id: 'SessionLaneCost' },
);
export type SessionLaneCost = Static<typeof SessionLaneCost>;

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
    /** When asked: every lane, the main one first, each subagent after the lane that spawned it
     * (depth first, in the order they started). */
    lanes: Type.Optional(Type.Array(SessionLaneCost)),
    /** The price catalog the lanes' costs come from, with its version. */
    prices: Type.Optional(Type.String()),
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
