// cairn usage: where the tokens and the money went, by day, week, month, session or 5-hour billing
// window, over every agent's sessions. Each request is priced on its own by the offline catalog.

import { join, resolve } from 'node:path';
import { PRICES_SOURCE } from '@cairn/server/pricing';
import {
  cairnHome,
  discoverSessions,
  runInPool,
  type SessionPlatform,
  sessionStamps,
} from '@cairn/transcript';
import { agentOption } from '../agent-option.js';
import { count, dollars } from '../format.js';
import { progressBar } from '../progress.js';
import { inProject } from '../sessions-filter.js';
import { buildId, stampsKey } from '../summary-cache.js';
import { parseCommand, UsageError } from '../usage.js';
import { type CachedEntries, openUsageCache, type UsageCache } from '../usage-cache.js';
import { usageFromDaemon } from '../usage-daemon.js';
import { liveWindow, runLive } from '../usage-live.js';
import { liveFromDaemon } from '../usage-live-daemon.js';
import {
  dateIn,
  entriesOf,
  JSON_KEY,
  REPORT_KINDS,
  rowJson,
  type UsageEntry,
  type UsageReportKind,
  type UsageRow,
  usageRows,
  usageTotals,
} from '../usage-report.js';

const USAGE =
  'cairn usage [daily|weekly|monthly|session|blocks] [--agent A] [--project P] [--model M] [--since DATE] [--until DATE] [--timezone TZ] [--breakdown] [--json] | cairn usage blocks --live';

const DATE = /^(\d{4})-?(\d{2})-?(\d{2})$/;

/** A --since/--until date (YYYY-MM-DD or YYYYMMDD) as YYYY-MM-DD, else a usage error. */
function dateOption(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const m = DATE.exec(value.trim());
  const date = m ? `${m[1]}-${m[2]}-${m[3]}` : undefined;
  // A date the calendar moves (2026-02-31) is not the date given.
  if (
    !date ||
    Number.isNaN(Date.parse(date)) ||
    new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date
  )
    throw new UsageError(`--${name} '${value}' is not a date; give YYYY-MM-DD or YYYYMMDD\nusage: ${USAGE}`);
  return date;
}

function timeZoneOption(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return value;
  } catch {
    throw new UsageError(
      `--timezone '${value}' is not a time zone; give an IANA name (UTC, Europe/Paris)\nusage: ${USAGE}`,
    );
  }
}

export async function usageCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    {
      agent: { type: 'string' },
      project: { type: 'string' },
      model: { type: 'string' },
      since: { type: 'string' },
      until: { type: 'string' },
      timezone: { type: 'string' },
      breakdown: { type: 'boolean' },
      json: { type: 'boolean' },
      live: { type: 'boolean' },
    },
    USAGE,
  );
  if (positionals.length > 1)
    throw new UsageError(`unexpected argument '${positionals[1]}'\nusage: ${USAGE}`);
  const kind = (positionals[0] ?? 'daily') as UsageReportKind;
  if (!REPORT_KINDS.includes(kind))
    throw new UsageError(
      `unknown report '${positionals[0]}'; give one of ${REPORT_KINDS.join(', ')}\nusage: ${USAGE}`,
    );
  const agent = agentOption(values.agent, USAGE);
  if (values.project !== undefined && values.project.trim() === '')
    throw new UsageError(`--project is empty\nusage: ${USAGE}`);
  if (values.model !== undefined && values.model.trim() === '')
    throw new UsageError(`--model is empty\nusage: ${USAGE}`);
  const since = dateOption('since', values.since);
  const until = dateOption('until', values.until);
  if (since && until && since > until)
    throw new UsageError(`--since ${since} is after --until ${until}\nusage: ${USAGE}`);
  const timeZone = timeZoneOption(values.timezone);
  if (values.live && kind !== 'blocks') throw new UsageError(`--live goes with blocks only\nusage: ${USAGE}`);
  if (values.live && values.json)
    throw new UsageError(`--live draws for a person; it takes no --json\nusage: ${USAGE}`);

  const breakdown = values.breakdown ?? false;
  // A running daemon's index answers without reading a transcript. A --project given as a bare
  // name stays here: the CLI also takes it as a folder below this one, which the daemon cannot see.
  const byName =
    values.project !== undefined && !/[/\\]/.test(values.project) && !/^\.\.?$/.test(values.project);
  if (values.live && !byName) {
    const filters = {
      ...(agent !== undefined ? { agent } : {}),
      ...(values.project !== undefined ? { project: resolve(values.project) } : {}),
      ...(values.model !== undefined ? { model: values.model } : {}),
      // The days are those of this command's zone, as when it reads the files itself.
      ...(since !== undefined ? { since } : {}),
      ...(until !== undefined ? { until } : {}),
      timezone: timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    };
    const drawn = await liveFromDaemon(cairnHome(platform.env, platform.homeDir), platform.env, filters);
    if (drawn !== undefined) return drawn;
  }
  if (!values.live && !byName) {
    const reply = await usageFromDaemon(cairnHome(platform.env, platform.homeDir), platform.env, {
      kind,
      ...(agent !== undefined ? { agent } : {}),
      ...(values.project !== undefined ? { project: resolve(values.project) } : {}),
      ...(values.model !== undefined ? { model: values.model } : {}),
      ...(since !== undefined ? { since } : {}),
      ...(until !== undefined ? { until } : {}),
      // The zone this command counts in, not the daemon's.
      timezone: timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone,
    });
    if (reply) {
      printReport(kind, reply.rows, reply.errors ?? [], reply.prices, breakdown, values.json ?? false);
      return 0;
    }
  }

  const { entries, errors } = await readEntries(platform, agent);
  const inFolder = values.project === undefined ? undefined : inProject(values.project);
  const model = values.model?.toLowerCase();
  const keep = (e: UsageEntry): boolean => {
    if (inFolder && !inFolder(e.project)) return false;
    if (model !== undefined && !e.model.toLowerCase().includes(model)) return false;
    if (since || until) {
      const day = dateIn(e.at, timeZone);
      if ((since && day < since) || (until && day > until)) return false;
    }
    return true;
  };
  if (values.live) {
    for (const e of errors) process.stderr.write(`cairn: ${e.ref}: ${e.error}\n`);
    // The first read is done; later ones take unchanged sessions from the cache.
    let first: UsageEntry[] | undefined = entries;
    return runLive(async (at) => {
      const now = first ?? (await readEntries(platform, agent)).entries;
      first = undefined;
      return liveWindow(now.filter(keep), at);
    });
  }
  const kept = entries.filter(keep);
  printReport(kind, usageRows(kind, kept, timeZone), errors, PRICES_SOURCE, breakdown, values.json ?? false);
  return 0;
}

function printReport(
  kind: UsageReportKind,
  rows: readonly UsageRow[],
  errors: readonly { ref: string; error: string }[],
  /** The price catalog the costs come from. */
  prices: string,
  breakdown: boolean,
  json: boolean,
): void {
  if (json) {
    const out = {
      [JSON_KEY[kind]]: rows.map((r) => rowJson(kind, r, breakdown)),
      totals: usageTotals(rows),
      prices,
      ...(errors.length > 0 ? { errors } : {}),
    };
    process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  } else {
    process.stdout.write(renderTable(kind, rows, breakdown, prices));
    for (const e of errors) process.stderr.write(`cairn: ${e.ref}: ${e.error}\n`);
  }
}

/**
 * Every request with tokens and a time in every session of the agent (or of every agent). A
 * session whose files are as they were at the last run is taken from the cache, not read again.
 */
async function readEntries(
  platform: SessionPlatform,
  agent: string | undefined,
): Promise<{ entries: UsageEntry[]; errors: { ref: string; error: string }[] }> {
  const entries: UsageEntry[] = [];
  const errors: { ref: string; error: string }[] = [];
  const cache = openCache(platform);
  const fresh: CachedEntries[] = [];
  // The sessions handed to the pool, in the order they went.
  const sent: { agent: string; id: string; path: string }[] = [];
  // The workers start on the first sessions found while the folders are still being walked, as
  // `summary --all` does; a session the cache holds unchanged is taken from it instead.
  async function* targets() {
    const lookups: Promise<void>[] = [];
    const changed: { agent: string; id: string; path: string }[] = [];
    for await (const entry of discoverSessions(platform, agent ? { agent } : {})) {
      if ('ref' in entry) {
        errors.push({ ref: entry.ref, error: entry.error.message });
        continue;
      }
      const s = { agent: entry.agent, id: entry.id, path: entry.path };
      // A lookup that fails hands the session out, for its read to say what is wrong.
      if (cache?.holds(s.path))
        lookups.push(
          sessionStamps(platform, { agent: s.agent, path: s.path, sessionId: s.id })
            .then((stamps) => stamps && cache.lookup(s.path, stampsKey(stamps)))
            .catch(() => undefined)
            .then((kept) => {
              if (kept) entries.push(...kept);
              else changed.push(s);
            }),
        );
      else changed.push(s);
      yield* handOut(changed);
    }
    await Promise.all(lookups);
    yield* handOut(changed);
  }
  function* handOut(changed: { agent: string; id: string; path: string }[]) {
    for (const s of changed.splice(0)) {
      sent.push(s);
      yield { agent: s.agent, path: s.path, sessionId: s.id };
    }
  }
  const progress = progressBar('reading');
  // Sessions are independent: spread them over worker threads, each reading its own files.
  const results = await runInPool('requests', targets(), {
    env: platform.env,
    homeDir: platform.homeDir,
    onDone: (done, total) => progress.update(done, total),
  });
  for (const [i, s] of sent.entries()) {
    const outcome = results[i]!;
    if (!outcome.ok) {
      errors.push({ ref: s.path, error: outcome.error.message });
      continue;
    }
    const mine = entriesOf(s.agent, s.id, outcome.value);
    entries.push(...mine);
    // Without stamps the next run could not tell the files unchanged: nothing is kept.
    if (outcome.value.stamps.length > 0)
      fresh.push({ path: s.path, agent: s.agent, stamps: stampsKey(outcome.value.stamps), value: mine });
  }
  progress.done();
  if (cache) {
    try {
      cache.save(fresh, agent);
    } catch (error) {
      warnCache(platform, error, "this run's requests are not kept");
    } finally {
      cache.close();
    }
  }
  // One order whatever came from the cache: the rows' model lists and sums do not depend on it.
  entries.sort((a, b) => a.at - b.at || a.sessionId.localeCompare(b.sessionId));
  return { entries, errors };
}

const cacheFile = (platform: SessionPlatform): string =>
  join(cairnHome(platform.env, platform.homeDir), 'usage.sqlite');

/** The cache, or undefined from source or when it cannot be used (the run goes on without). */
function openCache(platform: SessionPlatform): UsageCache | undefined {
  const build = buildId();
  if (build === undefined) return undefined;
  try {
    return openUsageCache(cacheFile(platform), build);
  } catch (error) {
    warnCache(platform, error, 'every session is read');
    return undefined;
  }
}

function warnCache(platform: SessionPlatform, error: unknown, outcome: string): void {
  const why = error instanceof Error ? error.message : String(error);
  process.stderr.write(`cairn: the usage cache ${cacheFile(platform)}: ${why}; ${outcome}\n`);
}

const cost = (usd: number | null): string => (usd === null ? '-' : dollars(usd));

function renderTable(
  kind: UsageReportKind,
  rows: readonly UsageRow[],
  breakdown: boolean,
  prices: string,
): string {
  const label = kind === 'session' ? 'session' : kind === 'blocks' ? 'window (UTC)' : 'period';
  const width = kind === 'session' ? 36 : kind === 'blocks' ? 24 : 10;
  const line = (
    key: string,
    r: Parameters<typeof usageTotals>[0][number] | ReturnType<typeof usageTotals>,
    models: string,
  ) =>
    `${key.padEnd(width)} ${count(r.inputTokens).padStart(12)} ${count(r.outputTokens).padStart(11)} ${count(r.cacheReadTokens).padStart(15)} ${count(r.cacheCreationTokens).padStart(13)} ${count(r.totalTokens).padStart(15)} ${cost(r.totalCost).padStart(10)}  ${models}\n`;
  const out = [
    `${label.padEnd(width)} ${'input'.padStart(12)} ${'output'.padStart(11)} ${'cache read'.padStart(15)} ${'cache write'.padStart(13)} ${'total'.padStart(15)} ${'cost'.padStart(10)}  models\n`,
  ];
  for (const r of rows) {
    if (r.isGap) {
      out.push(`${'(idle)'.padEnd(width)} until ${new Date(r.endAt!).toISOString().slice(0, 16)}\n`);
      continue;
    }
    const key = kind === 'blocks' ? r.key.slice(0, 16).replace('T', ' ') : r.key;
    out.push(line(key, r, r.modelsUsed.join(', ')));
    // A model's row leaves the key blank and names the model where the row's models are.
    if (breakdown)
      for (const m of r.modelBreakdowns)
        out.push(
          line(
            '',
            {
              ...m,
              totalTokens: m.inputTokens + m.outputTokens + m.cacheReadTokens + m.cacheCreationTokens,
              totalCost: m.cost,
            },
            `  ${m.modelName}`,
          ),
        );
  }
  out.push(line('total', usageTotals(rows), ''));
  out.push(`costs from ${prices}; '-' where the catalog has no price for a model used\n`);
  return out.join('');
}
