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

export type CachedSummary = Kept<SessionSummaryWithPrompts>;
export type SummaryCache = StampedCache<SessionSummaryWithPrompts>;

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

/** A stored summary, or undefined when the text is not one (the session is then read again). */
function parseSummary(text: string): SessionSummaryWithPrompts | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  for (const [key, v] of Object.entries(value)) {
    if (NUMBERS.has(key) ? isCount(v) : key === 'contextShape' && Array.isArray(v) && v.every(isCount))
      continue;
    return undefined;
  }
  return value as SessionSummaryWithPrompts;
}
