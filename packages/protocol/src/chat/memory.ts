// The session's memory as a status panel shows it: observations, reflections, compaction, and the
// light context-pruning telemetry. cairn emits none of it yet; the shapes keep the contract whole.
import { type Static, Type } from '@sinclair/typebox';
import { Amount, Count, Instant, literals, nullable, WireId } from './fields.js';

const DcpLiteEventKind = literals([
  'decision',
  'activation',
  'application',
  'scheduled',
  'deferred',
  'skipped',
  'completed',
  'failed',
]);
const DcpLiteSource = literals(['tool', 'auto']);
const DcpLiteMode = literals(['request_time', 'after_turn']);
const DcpLiteScope = literals(['closed_phase', 'older_history']);
const Tokens = Amount;
const NullableTokens = nullable(Amount);

/** The figures an event of the pruner may carry. */
const DCP_LITE_FIGURES = {
  /** A fixed classification; never user content or an error's body. */
  reason: Type.Optional(Type.String()),
  satisfiedSignals: Type.Optional(Type.Array(Type.String())),
  rawTokens: Type.Optional(Tokens),
  contextTokens: Type.Optional(NullableTokens),
  contextPercent: Type.Optional(nullable(Type.Number())),
  tokensBefore: Type.Optional(Tokens),
  tokensAfter: Type.Optional(Tokens),
  tokensRemoved: Type.Optional(Type.Number()),
};

export const WireDcpLiteTelemetry = Type.Object(
  {
    /** The telemetry's own version; fields are only ever added. */
    version: Type.Literal(1),
    event: DcpLiteEventKind,
    source: DcpLiteSource,
    mode: Type.Optional(DcpLiteMode),
    scope: Type.Optional(DcpLiteScope),
    timestamp: Instant,
    ...DCP_LITE_FIGURES,
  },
  { $id: 'WireDcpLiteTelemetry' },
);
export type WireDcpLiteTelemetry = Static<typeof WireDcpLiteTelemetry>;

export const WireDcpLiteStatus = Type.Object(
  {
    contextWindow: Type.Optional(
      Type.Object({
        usedTokens: NullableTokens,
        maxTokens: NullableTokens,
        percent: nullable(Type.Number()),
      }),
    ),
    thresholds: Type.Object({
      postRunCompactionThresholdTokens: Tokens,
      autoContextLimitRatio: Type.Number(),
      olderHistoryKeepRecentTokens: Tokens,
      olderHistoryMinCompactableTokens: Tokens,
      cooldownTurns: Count,
    }),
    lastEvent: Type.Optional(
      Type.Object({
        kind: DcpLiteEventKind,
        message: Type.String(),
        timestamp: Instant,
        source: Type.Optional(DcpLiteSource),
        mode: Type.Optional(DcpLiteMode),
        scope: Type.Optional(DcpLiteScope),
        ...DCP_LITE_FIGURES,
      }),
    ),
  },
  { $id: 'WireDcpLiteStatus' },
);
export type WireDcpLiteStatus = Static<typeof WireDcpLiteStatus>;

export const WireSessionMemoryStatus = Type.Object(
  {
    mode: literals(['active', 'passive']),
    phase: literals(['idle', 'observing', 'compacting', 'reflecting', 'pruning']),
    inFlight: Type.Object({
      observer: Type.Boolean(),
      compaction: Type.Boolean(),
      reflection: Type.Boolean(),
      pruner: Type.Boolean(),
    }),
    reflections: Type.Object({ count: Count, tokens: Tokens }),
    observations: Type.Object({
      committedCount: Count,
      committedTokens: Tokens,
      pendingCount: Count,
      pendingTokens: Tokens,
    }),
    thresholds: Type.Object({ observation: Tokens, compaction: Tokens, reflection: Tokens }),
    progress: Type.Object({
      sinceObservationBoundTokens: Tokens,
      sinceLastCompactionTokens: Tokens,
      observationPoolTokens: Tokens,
    }),
    dcpLite: Type.Optional(WireDcpLiteStatus),
  },
  { $id: 'WireSessionMemoryStatus' },
);
export type WireSessionMemoryStatus = Static<typeof WireSessionMemoryStatus>;

export const MemoryRelevance = literals(['low', 'medium', 'high', 'critical'], { $id: 'MemoryRelevance' });
export type MemoryRelevance = Static<typeof MemoryRelevance>;

export const WireObservationItem = Type.Object(
  {
    id: WireId,
    content: Type.String(),
    timestamp: Type.String(),
    relevance: MemoryRelevance,
    /** No compaction snapshot covers it yet. */
    pending: Type.Boolean(),
  },
  { $id: 'WireObservationItem' },
);
export type WireObservationItem = Static<typeof WireObservationItem>;

export const WireReflectionItem = Type.Object(
  {
    id: WireId,
    content: Type.String(),
    /** The observations it rests on; older reflections name none. */
    supportingObservationIds: Type.Array(Type.String()),
  },
  { $id: 'WireReflectionItem' },
);
export type WireReflectionItem = Static<typeof WireReflectionItem>;

export const WireSessionMemoryDetails = Type.Object(
  {
    summary: nullable(Type.String()),
    observations: Type.Array(WireObservationItem),
    reflections: Type.Array(WireReflectionItem),
  },
  { $id: 'WireSessionMemoryDetails' },
);
export type WireSessionMemoryDetails = Static<typeof WireSessionMemoryDetails>;

/** One of the largest contributors to a compacted span, by role, tool or source. */
export const WireCompactionTokenSourceBucket = Type.Object(
  { type: literals(['role', 'tool', 'source']), name: Type.String(), tokens: Tokens },
  { $id: 'WireCompactionTokenSourceBucket' },
);
export type WireCompactionTokenSourceBucket = Static<typeof WireCompactionTokenSourceBucket>;
