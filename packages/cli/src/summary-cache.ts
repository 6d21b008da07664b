// The numbers of sessions that have not changed since the last `cairn summary --all`, kept in
// $CAIRN_HOME/summaries.sqlite: a session whose files all carry the stamps they had when it was
// summed up is not read again, so a run costs what changed rather than the whole history. An
// entry holds for the build that wrote it only, since another build may count differently.
import type { SessionFileStamp, SessionSummaryWithPrompts } from '@cairn/transcript';
import { type Kept, StampedCache } from './stamped-cache.js';

/** The build's id, from the bundler; absent when running from source, which then keeps nothing. */
declare const CAIRN_BUILD: string | undefined;
export const buildId = (): string | undefined => (typeof CAIRN_BUILD === 'string' ? CAIRN_BUILD : undefined);

/** Stamps as the caches compare them: the same files, sizes and times give the same text. */
export const stampsKey = (stamps: readonly SessionFileStamp[]): string =>
  JSON.stringify(stamps.map((s) => [s.path, s.size, s.mtimeMs]));

/** What `--all` shows of a session beyond its numbers; the cost with the price catalog it came from. */
export interface RowFacts {
  model?: string;
  activeMs?: number;
  costUsd?: number;
  prices?: string;
}

/** A session's numbers, under `facts` what was read of it whole when it was small enough, and the
 * time of its last record as the listing gave it (the same files give the same time). */
export type KeptSummary = SessionSummaryWithPrompts & { facts?: RowFacts; lastActivityAt?: number };

export type CachedSummary = Kept<KeptSummary>;
export type SummaryCache = StampedCache<KeptSummary>;

/** Opens (or makes) the cache at `file` for build `build`; throws what SQLite or the folder throws. */
export const openSummaryCache = (file: string, build: string): SummaryCache =>
  StampedCache.open(file, build, 'summary', parseSummary);

const NUMBERS = new Set([
  'compactions',
  'durationMs',
  'failedTools',
  'inputTokens',
  'outputTokens',
  'cacheReadTokens',
  'cacheWriteTokens',
  'requests',
  'subagents',
  'turns',
]);

const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v >= 0;

const isFacts = (v: unknown): v is RowFacts => {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  return Object.entries(v).every(([key, x]) =>
    key === 'model' || key === 'prices'
      ? typeof x === 'string'
      : (key === 'activeMs' || key === 'costUsd') && isCount(x),
  );
};

/** A stored summary, or undefined when the text is not one (the session is then read again). */
function parseSummary(text: string): KeptSummary | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const { facts, lastActivityAt, ...summary } = value as Record<string, unknown>;
  if (facts !== undefined && !isFacts(facts)) return undefined;
  if (lastActivityAt !== undefined && !isCount(lastActivityAt)) return undefined;
  for (const [key, v] of Object.entries(summary)) {
    if (NUMBERS.has(key) ? isCount(v) : key === 'contextShape' && Array.isArray(v) && v.every(isCount))
      continue;
    return undefined;
  }
  return value as KeptSummary;
}
