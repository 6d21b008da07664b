// `usage_read`, cairn's own: tokens and cost of every agent's sessions added up by day, week, month,
// session or 5-hour billing window, the rows `cairn usage --json` prints, with ccusage's field names
// for the numbers. The reply also carries the billing window open now, with its burn rate.
import { type Static, Type } from '@sinclair/typebox';
import { request, response } from '../envelope.js';
import { AgentName, Sid, Timestamp } from '../identifiers.js';

export const UsageReportKind = Type.Union(
  [
    Type.Literal('daily'),
    Type.Literal('weekly'),
    Type.Literal('monthly'),
    Type.Literal('session'),
    Type.Literal('blocks'),
  ],
  { $id: 'UsageReportKind' },
);
export type UsageReportKind = Static<typeof UsageReportKind>;

const Tokens = Type.Integer({ minimum: 0 });
/** Dollars; null when a model used has no price in the catalog (a partial sum would read as the whole). */
const Dollars = Type.Union([Type.Number({ minimum: 0 }), Type.Null()]);
/** A calendar day, YYYY-MM-DD. */
const Day = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });

export const UsageReadArgs = Type.Object(
  {
    /** How the requests are grouped; `daily` when absent. */
    kind: Type.Optional(UsageReportKind),
    /** Only this agent's sessions (an id or an alias). */
    agent: Type.Optional(AgentName),
    /** Only sessions run in this folder or below it, or in a folder of this name. */
    project: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    /** Only models whose name contains this text, in any case. */
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    /** Only requests on or after / on or before this day, in `timezone`. */
    since: Type.Optional(Day),
    until: Type.Optional(Day),
    /** The IANA zone days are counted in; the server's own when absent. */
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { $id: 'UsageReadArgs', additionalProperties: false },
);
export type UsageReadArgs = Static<typeof UsageReadArgs>;

const Counts = {
  /** Input the cache did not serve. */
  inputTokens: Tokens,
  outputTokens: Tokens,
  cacheCreationTokens: Tokens,
  cacheReadTokens: Tokens,
  reasoningTokens: Tokens,
  /** Input, output, cache writes and cache reads. */
  totalTokens: Tokens,
  totalCost: Dollars,
};

export const UsageModelBreakdown = Type.Object(
  {
    modelName: Type.String(),
    inputTokens: Tokens,
    outputTokens: Tokens,
    cacheCreationTokens: Tokens,
    cacheReadTokens: Tokens,
    reasoningTokens: Tokens,
    cost: Dollars,
  },
  { $id: 'UsageModelBreakdown' },
);

export const UsageAgentBreakdown = Type.Object(
  { agent: AgentName, totalTokens: Tokens, cost: Dollars },
  { $id: 'UsageAgentBreakdown' },
);

export const UsageProjectBreakdown = Type.Object(
  {
    /** The folder the sessions ran in; empty when the agent did not record one. */
    project: Type.String(),
    totalTokens: Tokens,
    cost: Dollars,
  },
  { $id: 'UsageProjectBreakdown' },
);

export const UsageRow = Type.Object(
  {
    /** A date, a week's first day (Sunday), a month (YYYY-MM), a session id, or a window's start
     * (ISO; `gap-<ISO>` for the idle time between windows). */
    key: Type.String({ minLength: 1 }),
    ...Counts,
    modelsUsed: Type.Array(Type.String()),
    /** Largest cost first. */
    modelBreakdowns: Type.Array(UsageModelBreakdown),
    /** Largest cost first. */
    agentBreakdowns: Type.Array(UsageAgentBreakdown),
    agents: Type.Array(AgentName),
    /** The folders the sessions ran in. */
    projects: Type.Array(Type.String()),
    /** Largest cost first. */
    projectBreakdowns: Type.Array(UsageProjectBreakdown),
    /** Requests counted. */
    entries: Tokens,
    firstAt: Type.Number(),
    lastAt: Type.Number(),
    /** Session rows: the session's title. */
    title: Type.Optional(Type.String()),
    /** Window rows: the window's end, and whether it stands for idle time between windows. */
    endAt: Type.Optional(Type.Number()),
    isGap: Type.Optional(Type.Boolean()),
  },
  { $id: 'UsageRow' },
);
export type UsageRow = Static<typeof UsageRow>;

/** The billing window open now, as `cairn usage blocks --json` describes its last window. */
export const UsageActiveBlock = Type.Object(
  {
    row: UsageRow,
    /** From the window's first request to its last; absent while they are the same moment. */
    burnRate: Type.Optional(
      Type.Object({
        tokensPerMinute: Type.Number({ minimum: 0 }),
        tokensPerMinuteForIndicator: Type.Number({ minimum: 0 }),
        costPerHour: Dollars,
      }),
    ),
    /** The window's totals at its end if the rate holds. */
    projection: Type.Optional(
      Type.Object({
        totalTokens: Tokens,
        totalCost: Dollars,
        remainingMinutes: Tokens,
      }),
    ),
    /** Sessions with a request in the window, the latest first. */
    sessions: Type.Array(
      Type.Object({
        agent: AgentName,
        sid: Sid,
        lastAt: Type.Number(),
        title: Type.Optional(Type.String()),
      }),
    ),
  },
  { $id: 'UsageActiveBlock' },
);
export type UsageActiveBlock = Static<typeof UsageActiveBlock>;

export const UsageReadResult = Type.Object(
  {
    kind: UsageReportKind,
    /** Oldest first; sessions by their last request. */
    rows: Type.Array(UsageRow),
    totals: Type.Object(Counts),
    /** The price catalog and its version. */
    prices: Type.String(),
    /** The zone days were counted in. */
    timezone: Type.String(),
    /** The window open at `at`, when a request came in the last five hours. */
    active: Type.Optional(UsageActiveBlock),
    /** When the report was made. */
    at: Timestamp,
    /** Sessions that could not be read, each with why. */
    errors: Type.Optional(Type.Array(Type.Object({ ref: Type.String(), error: Type.String() }))),
  },
  { $id: 'UsageReadResult' },
);
export type UsageReadResult = Static<typeof UsageReadResult>;

export const UsageReadRequest = request('usage_read', UsageReadArgs, 'UsageReadRequest');
export type UsageReadRequest = Static<typeof UsageReadRequest>;
export const UsageReadResponse = response('usage_read', UsageReadResult, 'UsageReadResponse');
export type UsageReadResponse = Static<typeof UsageReadResponse>;
