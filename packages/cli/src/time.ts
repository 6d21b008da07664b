// Times given on the command line: ISO 8601, or relative to now (`-10m`, `-2h`, `-1d`).

const RELATIVE = /^-(\d+)(s|m|h|d|w)$/;
const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};
// A date, optionally with a time of day and a zone; without a zone the time is local.
const ISO = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;

export const TIME_FORMS =
  'an ISO time (2026-02-12, 2026-02-12T16:00:00Z) or a relative one (-30s, -10m, -2h, -1d, -1w)';

/** ms since the epoch, or undefined when `value` is neither form. */
export function parseTime(value: string, now: number): number | undefined {
  const v = value.trim();
  const rel = RELATIVE.exec(v);
  if (rel) return now - Number(rel[1]) * UNIT_MS[rel[2]!]!;
  if (!ISO.test(v)) return undefined;
  const ms = Date.parse(v.replace(' ', 'T'));
  if (Number.isNaN(ms) || ms < 0) return undefined;
  // Date.parse rolls 2026-02-31 over into March; a date it had to move is not the date given.
  const day = v.slice(0, 10);
  const local = !/(?:Z|[+-]\d{2}:?\d{2})$/.test(v) && v.length > 10;
  const d = new Date(ms);
  const shown = local
    ? `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`
    : d.toISOString().slice(0, 10);
  if (!/[+-]\d{2}:?\d{2}$/.test(v) && shown !== day) return undefined;
  return ms;
}

const pad = (n: number): string => String(n).padStart(2, '0');
