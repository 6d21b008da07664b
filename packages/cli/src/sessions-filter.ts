// What `cairn sessions` narrows the listing to: a project, a span of time and a count.
import { basename, resolve, sep } from 'node:path';
import type { SessionHead } from '@cairn/transcript';
import { parseTime, TIME_FORMS } from './time.js';
import { UsageError } from './usage.js';

export interface ListingFilterValues {
  project?: string | undefined;
  since?: string | undefined;
  until?: string | undefined;
  limit?: string | undefined;
}

export interface ListingFilter {
  /** The heads kept, newest first as given, at most `--limit` of them. */
  apply(heads: readonly SessionHead[]): SessionHead[];
  /** What the filter asked for, for a listing it emptied ("match --project x"). */
  described: string;
}

export function listingFilter(v: ListingFilterValues, usage: string, now = Date.now()): ListingFilter {
  const fail = (message: string): never => {
    throw new UsageError(`${message}\nusage: ${usage}`);
  };
  const time = (flag: 'since' | 'until'): number | undefined => {
    const raw = v[flag];
    if (raw === undefined) return undefined;
    return parseTime(raw, now) ?? fail(`bad --${flag} '${raw}': give ${TIME_FORMS}`);
  };
  const since = time('since');
  const until = time('until');
  if (since !== undefined && until !== undefined && since > until)
    fail(`--until '${v.until}' is before --since '${v.since}'`);
  let limit: number | undefined;
  if (v.limit !== undefined) {
    limit = /^\d+$/.test(v.limit.trim()) ? Number(v.limit.trim()) : Number.NaN;
    if (!Number.isSafeInteger(limit) || limit < 1)
      fail(`bad --limit '${v.limit}': give a whole number above 0`);
  }
  if (v.project !== undefined && v.project.trim() === '') fail('--project is empty');
  const project = v.project === undefined ? undefined : inProject(v.project);

  const keeps = (h: SessionHead): boolean => {
    if (project && !project(h.cwd)) return false;
    // A session is kept when its span (first to last record) meets the span asked for.
    const last = h.lastActivityAt ?? h.startedAt;
    const first = h.startedAt ?? h.lastActivityAt;
    if (since !== undefined && (last === undefined || last < since)) return false;
    if (until !== undefined && (first === undefined || first > until)) return false;
    return true;
  };
  const asked = [
    v.project !== undefined ? `--project ${v.project}` : '',
    v.since !== undefined ? `--since ${v.since}` : '',
    v.until !== undefined ? `--until ${v.until}` : '',
  ].filter(Boolean);
  return {
    apply: (heads) => heads.filter(keeps).slice(0, limit),
    described: `match ${asked.join(' ') || 'the filter'}`,
  };
}

/**
 * A project is the folder a session ran in: given as a path (the folder or one above it, relative
 * to the current folder) or as the folder's name alone.
 */
export function inProject(project: string): (cwd: string | undefined) => boolean {
  const byName = !project.includes('/') && !project.includes(sep) && project !== '.' && project !== '..';
  const folder = trimSlash(resolve(project));
  return (cwd) => {
    if (cwd === undefined) return false;
    const dir = trimSlash(cwd);
    if (byName && basename(dir) === project) return true;
    return dir === folder || dir.startsWith(`${folder}/`) || dir.startsWith(`${folder}${sep}`);
  };
}

const trimSlash = (path: string): string => (path.length > 1 ? path.replace(/[/\\]+$/, '') : path);
