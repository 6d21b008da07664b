// `usage_read`: the rows `cairn usage --json` prints, counted by the same code over the sessions
// this server lists, with the billing window open now.
import { basename } from 'node:path';
import type { UsageActiveBlock } from '@cairn/protocol';
import { findAdapter } from '@cairn/transcript';
import type { Catalog } from '../reader/catalog.js';
import { PRICES_SOURCE } from '../usage/pricing.js';
import { UsageEntries } from '../usage/usage-entries.js';
import {
  blockActivity,
  dateIn,
  type UsageEntry,
  type UsageReportKind,
  type UsageRow,
  usageRows,
  usageTotals,
} from '../usage/usage-report.js';
import { done, fail, type OpHandler } from './context.js';

const FIVE_HOURS = 5 * 3_600_000;

/** One reader per catalog, so its memory of read sessions lasts from one report to the next. */
const readers = new WeakMap<Catalog, UsageEntries>();

function readerOf(catalog: Catalog): UsageEntries {
  let reader = readers.get(catalog);
  if (!reader) {
    reader = new UsageEntries(catalog, catalog.platform());
    readers.set(catalog, reader);
  }
  return reader;
}

const trimSlash = (path: string): string => (path.length > 1 ? path.replace(/[/\\]+$/, '') : path);

/** A session ran in the project: in its folder or below it, or in a folder of that name. */
function inProject(project: string): (cwd: string | undefined) => boolean {
  const folder = trimSlash(project);
  const byName = !folder.includes('/') && !folder.includes('\\');
  return (cwd) => {
    if (cwd === undefined) return false;
    const dir = trimSlash(cwd);
    if (byName) return basename(dir) === folder;
    return dir === folder || dir.startsWith(`${folder}/`) || dir.startsWith(`${folder}\\`);
  };
}

/** The zone's name when the runtime knows it, else undefined. */
function knownZone(zone: string): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** The window open at `now` over `entries`, with the sessions that made requests in it. */
function activeBlock(entries: readonly UsageEntry[], now: number): UsageActiveBlock | undefined {
  // Entries are in time order. No request in the last five hours: no window is open.
  const lastAt = entries.at(-1)?.at;
  if (lastAt === undefined || now - lastAt >= FIVE_HOURS) return undefined;
  // More than five hours between two requests always opens a window: those before the last such
  // gap make no difference to the windows after it.
  let from = entries.length - 1;
  while (from > 0 && entries[from]!.at - entries[from - 1]!.at <= FIVE_HOURS) from--;
  const recent = entries.slice(from);
  const row = usageRows('blocks', recent, undefined)
    .filter((r) => !r.isGap)
    .at(-1);
  if (!row) return undefined;
  const activity = blockActivity(row, now);
  if (!activity.isActive) return undefined;
  const start = Date.parse(row.key);
  const sessions = new Map<string, UsageActiveBlock['sessions'][number]>();
  for (const e of recent) {
    if (e.at < start || e.at > row.lastAt) continue;
    const key = `${e.agent}\u0000${e.sessionId}`;
    const s = sessions.get(key);
    if (s && s.lastAt >= e.at) continue;
    sessions.set(key, {
      agent: e.agent,
      sid: e.sessionId,
      lastAt: e.at,
      ...(e.title !== undefined ? { title: e.title } : {}),
    });
  }
  return {
    row: wireRow(row),
    ...(activity.burnRate ? { burnRate: activity.burnRate } : {}),
    ...(activity.projection ? { projection: activity.projection } : {}),
    sessions: [...sessions.values()].sort((a, b) => b.lastAt - a.lastAt),
  };
}

/** A row as the contract carries it: fields left unset are absent, not undefined. */
function wireRow(r: UsageRow): UsageRow {
  const { title, endAt, isGap, ...rest } = r;
  return {
    ...rest,
    ...(title !== undefined ? { title } : {}),
    ...(endAt !== undefined ? { endAt } : {}),
    ...(isGap !== undefined ? { isGap } : {}),
  };
}

export const usageRead: OpHandler<'usage_read'> = async (req, ctx) => {
  const kind: UsageReportKind = req.kind ?? 'daily';
  let agent: string | undefined;
  if (req.agent !== undefined) {
    agent = findAdapter(req.agent)?.id;
    if (agent === undefined) return fail('invalid_args', `no agent named ${req.agent}`, '/agent');
  }
  const timeZone =
    req.timezone === undefined ? Intl.DateTimeFormat().resolvedOptions().timeZone : knownZone(req.timezone);
  if (timeZone === undefined)
    return fail('invalid_args', `'${req.timezone}' is not a time zone; give an IANA name`, '/timezone');
  if (req.since !== undefined && req.until !== undefined && req.since > req.until)
    return fail('invalid_args', `since ${req.since} is after until ${req.until}`, '/since');

  const { entries, errors } = await readerOf(ctx.catalog).read(agent);
  const inFolder = req.project === undefined ? undefined : inProject(req.project);
  const model = req.model?.toLowerCase();
  const { since, until } = req;
  const kept = entries.filter((e) => {
    if (inFolder && !inFolder(e.project)) return false;
    if (model !== undefined && !e.model.toLowerCase().includes(model)) return false;
    if (since !== undefined || until !== undefined) {
      const day = dateIn(e.at, timeZone);
      if ((since !== undefined && day < since) || (until !== undefined && day > until)) return false;
    }
    return true;
  });
  const rows = usageRows(kind, kept, timeZone);
  const now = Date.now();
  const active = activeBlock(kept, now);
  return done({
    kind,
    rows: rows.map(wireRow),
    totals: usageTotals(rows),
    prices: PRICES_SOURCE,
    timezone: timeZone,
    ...(active ? { active } : {}),
    at: now,
    ...(errors.length > 0 ? { errors } : {}),
  });
};
