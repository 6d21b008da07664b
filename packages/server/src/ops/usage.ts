// `usage_read`: the rows `cairn usage --json` prints, counted by the same code over the sessions
// this server lists, with the billing window open now.
import { basename } from 'node:path';
import { setImmediate } from 'node:timers/promises';
import type { UsageActiveBlock } from '@cairn/protocol';
import { findAdapter } from '@cairn/transcript';
import type { Catalog } from '../reader/catalog.js';
import { PRICES_SOURCE } from '../usage/pricing.js';
import { UsageEntries, type UsageRead, type UsageSession } from '../usage/usage-entries.js';
import {
  blockActivity,
  dateIn,
  type UsageEntry,
  type UsageReportKind,
  type UsageRow,
  usageRows,
  usageRowsPaced,
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

/**
 * The entries from the last gap of more than five hours on: the window open now, whenever now is,
 * is found among them alone (see activeBlock), and a kept report holds no more than these.
 */
function sinceLastGap(entries: readonly UsageEntry[]): readonly UsageEntry[] {
  let from = entries.length - 1;
  while (from > 0 && entries[from]!.at - entries[from - 1]!.at <= FIVE_HOURS) from--;
  return from <= 0 ? entries : entries.slice(from);
}

/** The window open at `now` over `entries`, with the sessions that made requests in it. */
function activeBlock(entries: readonly UsageEntry[], now: number): UsageActiveBlock | undefined {
  // Entries are in time order. No request in the last five hours: no window is open.
  const lastAt = entries.at(-1)?.at;
  if (lastAt === undefined || now - lastAt >= FIVE_HOURS) return undefined;
  // More than five hours between two requests always opens a window: those before the last such
  // gap make no difference to the windows after it.
  const recent = sinceLastGap(entries);
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

/** A report made of one read, ready to send, with the entries the open window is found in. */
interface Report {
  rows: UsageRow[];
  totals: ReturnType<typeof usageTotals>;
  recent: readonly UsageEntry[];
}

/**
 * The reports made of each read, by their arguments. A read the reader hands back again (no
 * session changed since) answers from here: asking again costs no count at all.
 */
const reports = new WeakMap<UsageRead, Map<string, Promise<Report>>>();
/** The entries since the last gap of each read, by the filters they passed (see reportOf). */
const tails = new WeakMap<UsageRead, Map<string, readonly UsageEntry[]>>();
/** Reports kept per read: a page's filters and the CLI's few kinds, not every combination asked. */
const REPORTS_KEPT = 16;

/**
 * The rows of `kind` over the read's entries that match the filters, and the entries the open
 * window is looked for in: those of the agent, project and model, whatever the days asked, since
 * the window open now does not depend on the days a report shows.
 */
function reportOf(
  read: UsageRead,
  kind: UsageReportKind,
  req: { project?: string; model?: string; since?: string; until?: string },
  timeZone: string,
): Promise<Report> {
  let kept = reports.get(read);
  if (!kept) {
    kept = new Map();
    reports.set(read, kept);
  }
  const key = JSON.stringify([kind, req.project, req.model, req.since, req.until, timeZone]);
  const known = kept.get(key);
  if (known) return known;
  // Kept while it is made, so that two asking at once share it.
  const report = makeReport(read, kind, req, timeZone);
  if (kept.size >= REPORTS_KEPT) kept.delete(kept.keys().next().value!);
  kept.set(key, report);
  report.catch(() => {
    if (kept.get(key) === report) kept.delete(key);
  });
  return report;
}

async function makeReport(
  read: UsageRead,
  kind: UsageReportKind,
  req: { project?: string; model?: string; since?: string; until?: string },
  timeZone: string,
): Promise<Report> {
  const inFolder = req.project === undefined ? undefined : inProject(req.project);
  const model = req.model?.toLowerCase();
  const { since, until } = req;
  // Over hundreds of thousands of requests the steps below take a few hundred ms: clients are
  // answered between them.
  const pause = () => setImmediate();
  const recent = (await read.entries(pause)).filter((e) => {
    if (inFolder && !inFolder(e.project)) return false;
    if (model !== undefined && !e.model.toLowerCase().includes(model)) return false;
    return true;
  });
  const inDays =
    since === undefined && until === undefined
      ? recent
      : recent.filter((e) => {
          const day = dateIn(e.at, timeZone);
          return !((since !== undefined && day < since) || (until !== undefined && day > until));
        });
  const rows = await usageRowsPaced(kind, inDays, timeZone, pause);
  // Reports of one read with the same agent, project and model keep one list of the entries since
  // the last gap: the entries are made anew for each report.
  const tailKey = JSON.stringify([req.project, req.model]);
  let tail = tails.get(read)?.get(tailKey);
  if (!tail) {
    // A read holds the requests made until it was read: when the last is five hours old, no window
    // is open now, nor will be while the read lasts (a new request makes a new read). Its entries
    // since the last gap are then kept as none, instead of held for nothing: without a night's
    // rest between requests they can be a large part of the whole.
    const lastAt = recent.at(-1)?.at;
    tail = lastAt !== undefined && Date.now() - lastAt < FIVE_HOURS ? sinceLastGap(recent) : [];
    const held = tails.get(read) ?? new Map<string, readonly UsageEntry[]>();
    if (held.size >= REPORTS_KEPT) held.delete(held.keys().next().value!);
    held.set(tailKey, tail);
    tails.set(read, held);
  }
  return { rows: rows.map(wireRow), totals: usageTotals(rows), recent: tail };
}

/** The zone a report is counted in when its asker names none: the server's own. */
const serverZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** The warming started for each catalog, for those who wait for it. */
const warming = new WeakMap<Catalog, Promise<void>>();

/**
 * Reads every indexed session's requests from the index in the background after a start, and makes
 * the Usage page's two reports in the server's zone, so that the first `usage_read` answers as fast
 * as the next ones: the sessions of `indexed` (those the index holds from its last run) while the
 * catalog lists the sessions, the reports once every session is listed, and again once the index
 * is settled (only the sessions it read again meanwhile are made again). A failure is left
 * for the first report to meet.
 */
export function warmUsage(catalog: Catalog, indexed: () => readonly UsageSession[]): Promise<void> {
  const reader = readerOf(catalog);
  const make = async (read: UsageRead) => {
    for (const kind of ['daily', 'session'] as const) await reportOf(read, kind, {}, serverZone());
  };
  const reports = async () => {
    const read = await reader.warm();
    if (read) await make(read);
  };
  const warm = (async () => {
    // The sessions the index held at its last run, while the catalog lists those on disk, and the
    // reports made of them: those of a start that finds every session as it was.
    const held = indexed();
    await reader.prime(held);
    const provisional = reader.assemble(held);
    if (provisional) await make(provisional);
    await catalog.listed();
    await reports();
    await catalog.settled();
    await reports();
  })();
  warming.set(catalog, warm);
  return warm;
}

/** The warming of the catalog's usage rows, when it was started. */
export const usageWarming = (catalog: Catalog): Promise<void> | undefined => warming.get(catalog);

export const usageRead: OpHandler<'usage_read'> = async (req, ctx) => {
  const kind: UsageReportKind = req.kind ?? 'daily';
  let agent: string | undefined;
  if (req.agent !== undefined) {
    agent = findAdapter(req.agent)?.id;
    if (agent === undefined) return fail('invalid_args', `no agent named ${req.agent}`, '/agent');
  }
  const timeZone = req.timezone === undefined ? serverZone() : knownZone(req.timezone);
  if (timeZone === undefined)
    return fail('invalid_args', `'${req.timezone}' is not a time zone; give an IANA name`, '/timezone');
  if (req.since !== undefined && req.until !== undefined && req.since > req.until)
    return fail('invalid_args', `since ${req.since} is after until ${req.until}`, '/since');

  const read = await readerOf(ctx.catalog).read(agent);
  const { errors } = read;
  const { rows, totals, recent } = await reportOf(read, kind, req, timeZone);
  const now = Date.now();
  const active = activeBlock(recent, now);
  return done({
    kind,
    rows,
    totals,
    prices: PRICES_SOURCE,
    timezone: timeZone,
    ...(active ? { active } : {}),
    at: now,
    ...(errors.length > 0 ? { errors } : {}),
  });
};
