// The session list's choices applied to the heads: the filters that narrow it and the orders that
// sort it, each a plain function of the heads so the view stays a drawing.
import type { SessionHead } from '@cairn/protocol';
import type { ListFilters, SessionSort } from '../route.js';

export const SORT_LABELS: Readonly<Record<SessionSort, string>> = {
  recent: 'most recent',
  tokens: 'most tokens',
  cost: 'highest cost',
  duration: 'longest',
};

/** The instant a `YYYY-MM-DD` day starts, in local time. */
export function dayStart(day: string): number | undefined {
  const [y, m, d] = day.split('-').map(Number);
  if (y === undefined || m === undefined || d === undefined) return undefined;
  const at = new Date(y, m - 1, d).getTime();
  return Number.isFinite(at) ? at : undefined;
}

export const lastActive = (h: SessionHead): number => h.last_activity_at ?? h.started_at ?? 0;

export const totalTokens = (h: SessionHead): number | undefined =>
  h.input_tokens === undefined && h.output_tokens === undefined
    ? undefined
    : (h.input_tokens ?? 0) + (h.output_tokens ?? 0);

/** The heads the filters keep (the agent filter is applied by the caller, which also counts agents). */
export function filterHeads(heads: readonly SessionHead[], f: ListFilters): SessionHead[] {
  const since = f.since === undefined ? undefined : dayStart(f.since);
  return heads.filter(
    (h) =>
      (f.project === undefined || (h.cwd ?? '') === f.project) &&
      (since === undefined || lastActive(h) >= since) &&
      (!f.active || h.active) &&
      (!f.failed || (h.failed_tools ?? 0) > 0),
  );
}

const SORT_VALUE: Readonly<Record<SessionSort, (h: SessionHead) => number | undefined>> = {
  recent: lastActive,
  tokens: totalTokens,
  cost: (h) => h.cost_usd,
  duration: (h) => h.duration_ms,
};

/** Largest first; a session without the number (not read yet, or not recorded) goes last. */
export function sortHeads(heads: readonly SessionHead[], sort: SessionSort): SessionHead[] {
  const value = SORT_VALUE[sort];
  return [...heads].sort((a, b) => {
    const va = value(a);
    const vb = value(b);
    if (va !== undefined && vb !== undefined && va !== vb) return vb - va;
    if (va === undefined && vb !== undefined) return 1;
    if (vb === undefined && va !== undefined) return -1;
    // Equal or both unknown: the most recent first.
    return lastActive(b) - lastActive(a);
  });
}

export const sortValue = (h: SessionHead, sort: SessionSort): number | undefined => SORT_VALUE[sort](h);

const dollars = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

/** `$1.23`; under a cent, `<$0.01` rather than a misleading `$0.00`. */
export function formatCost(usd: number): string {
  if (usd > 0 && usd < 0.01) return '<$0.01';
  return dollars.format(usd);
}

/** A model name without the date suffix some providers add (`claude-sonnet-4-5-20250929`). */
export const shortModel = (model: string): string => model.replace(/-\d{8}$/, '');
