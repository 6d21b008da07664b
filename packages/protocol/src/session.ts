// What is known about a session without reading it whole (its head) and the numbers read from it.
import { type Static, Type } from '@sinclair/typebox';
import { AgentName, Sid, Timestamp } from './identifiers.js';

/** One session as a listing sees it. Paths are the serving host's. */
export const SessionHead = Type.Object(
  {
    agent: AgentName,
    sid: Sid,
    /** The session's main file. */
    path: Type.String({ minLength: 1 }),
    /** Every file of the session, main file first, then subagent files. */
    files: Type.Optional(Type.Array(Type.String())),
    /** The main file is gone and only subagent files remain: `files` holds only them and the
     * main lane is empty. */
    main_file_missing: Type.Optional(Type.Boolean()),
    cwd: Type.Optional(Type.String()),
    title: Type.Optional(Type.String()),
    first_prompt: Type.Optional(Type.String()),
    started_at: Type.Optional(Timestamp),
    /** The time of the latest record across its files (their modification time only when no
     * record carries a time). */
    last_activity_at: Type.Optional(Timestamp),
    /** Bytes on disk across all its files. */
    size: Type.Integer({ minimum: 0 }),
    /** The git branch the session started on, when the agent records it. */
    git_branch: Type.Optional(Type.String()),
    // The numbers below come from reading the whole session; each is absent until it was read, and
    // absent when the agent does not record it.
    /** The main lane's model: the one it made the most requests with (subagents' models, however
     * many requests they made, are not the session's). */
    model: Type.Optional(Type.String()),
    /** The person's prompts on the main lane: typed messages and slash commands. */
    prompts: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Input tokens (cache reads and writes included) over every lane. */
    input_tokens: Type.Optional(Type.Integer({ minimum: 0 })),
    output_tokens: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Dollars the requests cost by `prices`; absent when a model used has no known price. */
    cost_usd: Type.Optional(Type.Number({ minimum: 0 })),
    /** The price catalog and its version, e.g. `genai-prices 0.1.8`. */
    prices: Type.Optional(Type.String()),
    /** First to last record. */
    duration_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    /** The time spent in turns: from each prompt to the last record of its turn, summed. */
    active_ms: Type.Optional(Type.Integer({ minimum: 0 })),
    /** Tool calls that failed. */
    failed_tools: Type.Optional(Type.Integer({ minimum: 0 })),
    /** The server saw the files change moments ago, or change recently with a turn still in
     * flight: never inferred from the files' times alone. */
    active: Type.Boolean(),
    /** The workstation the session was read on, for one synced from another machine (its paths are
     * that machine's); absent for the server's own. */
    workstation: Type.Optional(Type.String()),
  },
  { $id: 'SessionHead' },
);
export type SessionHead = Static<typeof SessionHead>;

/** What an agent's files can record. A number whose capability a session lacks is absent, never 0,
 * so a client can say "not recorded" instead of showing a false zero. */
export const CAPABILITIES = [
  'requests',
  'usage',
  'durations',
  'reasoning',
  'compaction',
  'compactionTokens',
  'subagents',
  'systemPrompt',
  'toolSchemas',
  'hooks',
] as const;

export const Capability = Type.Union(
  CAPABILITIES.map((name) => Type.Literal(name)),
  { $id: 'Capability' },
);
export type Capability = Static<typeof Capability>;

const Count = Type.Optional(Type.Integer({ minimum: 0 }));

/** The numbers of one session, under the transcript library's own names so a server passes its
 * summary through unchanged. `inputTokens` includes cache reads and writes; `outputTokens` includes
 * reasoning. */
export const SessionSummary = Type.Object(
  {
    compactions: Count,
    /** Input tokens of each request in order, downsampled to at most 120 points. */
    contextShape: Type.Optional(Type.Array(Type.Integer({ minimum: 0 }), { maxItems: 120 })),
    durationMs: Count,
    failedTools: Count,
    inputTokens: Count,
    outputTokens: Count,
    cacheReadTokens: Count,
    cacheWriteTokens: Count,
    requests: Count,
    subagents: Count,
    turns: Count,
    /** The main lane's prompts, when asked for. */
    prompts: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'SessionSummary' },
);
export type SessionSummary = Static<typeof SessionSummary>;
