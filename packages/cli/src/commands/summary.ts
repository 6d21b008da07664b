// cairn summary: a session's numbers, or every session's with --all.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  cairnHome,
  discoverSessions,
  type FoundSession,
  foldTranscript,
  listSessions,
  loadTranscript,
  type ModelAndTime,
  modelAndTime,
  runInPool,
  SESSION_SUMMARY_VERSION,
  type SessionPlatform,
  type SessionSummaryWithPrompts,
  type SessionTarget,
  SUMMARY_FACTS_MAX_BYTES,
  sessionStamps,
  summarizeSession,
  type Transcript,
} from '@cairn/transcript';
import { agentOption } from '../agent-option.js';
import { count, dollars, oneLine, shortTime, span } from '../format.js';
import { progressBar } from '../progress.js';
import { nameOfPath, resolveRef } from '../refs.js';
import { linksOf, readSessionLinks } from '../session-links.js';
import {
  buildId,
  type CachedSummary,
  type KeptSummary,
  openSummaryCache,
  type RowFacts,
  type SummaryCache,
  stampsKey,
} from '../summary-cache.js';
import type { Priced } from '../summary-cost.js';
import { Failure, parseCommand, UsageError } from '../usage.js';

const USAGE = 'cairn summary <ref> | --all [--agent A] [--json]';

interface Row {
  agent: string;
  id: string;
  path: string;
  /** The main file is gone; the numbers are its subagents' files'. */
  mainFileMissing?: true;
  summary: SessionSummaryWithPrompts;
}

/** One session's row of `--all`: the time of its last record, for the order, and what a read of the
 * whole session adds to its numbers (absent for one too large to read whole). */
interface AllRow extends Row, Omit<RowFacts, 'prices'> {
  lastActivityAt?: number;
}

export async function summaryCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    { all: { type: 'boolean' }, agent: { type: 'string' }, json: { type: 'boolean' } },
    USAGE,
  );
  if (Boolean(values.all) === positionals.length > 0 || positionals.length > 1) {
    throw new UsageError(`give one <ref> or --all\nusage: ${USAGE}`);
  }
  const agent = agentOption(values.agent, USAGE);
  if (values.all) return summarizeAll(platform, agent, values.json ?? false);

  const { target, head } = await resolveRef(platform, positionals[0]!, agent);
  const { summary, facts, transcript } = await readSummary(platform, target);
  // A path names no session by itself: the homes say whose it is.
  const named = head ?? (await nameOfPath(platform, target));
  const row: Row = {
    agent: named?.agent ?? target.agent ?? '',
    id: named?.id ?? target.sessionId ?? '',
    path: target.path,
    ...(head?.mainFileMissing ? { mainFileMissing: true as const } : {}),
    summary,
  };
  // The price catalog is large: only a single session's summary, which shows a cost, loads it.
  const { priced } = await import('../summary-cost.js');
  const cost = transcript && priced(row.agent, transcript);
  if (values.json) {
    // The sessions this one was handed off or forked from, and those that carry it on.
    const links = linksOf(
      await readSessionLinks(platform),
      row.agent,
      row.id || transcript?.session.id || '',
    );
    process.stdout.write(
      `${JSON.stringify({ version: SESSION_SUMMARY_VERSION, ...row, ...factsJson(facts, cost), links }, null, 2)}\n`,
    );
  } else process.stdout.write(renderSummary(row, facts, cost));
  return 0;
}

async function summarizeAll(
  platform: SessionPlatform,
  agent: string | undefined,
  json: boolean,
): Promise<number> {
  const heads: FoundSession[] = [];
  const errors: { ref: string; error: string }[] = [];
  const cache = openCache(platform);
  const { pricedRequests, PRICES_SOURCE } = await import('../summary-cost.js');
  // A cost priced by another catalog than this build's is worked out again.
  const current = (s: KeptSummary | undefined) =>
    s && (s.facts?.prices === undefined || s.facts.prices === PRICES_SOURCE) ? s : undefined;
  // By the heads' index: the summary kept for a session unchanged since.
  const kept: (KeptSummary | undefined)[] = [];
  // The listing's time of each session's last record, read from the files' ends while the pool
  // reads them whole: the order of the rows, as `cairn sessions` orders them. A run where every
  // session is kept with its time, as it was, lists nothing.
  let activity: Promise<Map<string, number>> | undefined;
  const listActivity = () => {
    activity ??= lastActivityByPath(platform, agent);
  };
  // The heads' index of each target handed to the pool, in the order they went.
  const sent: number[] = [];
  // Every file is read in full below, so the sessions are found without the listing's head reads;
  // the workers start on the first ones found while the folders are still being walked.
  async function* targets() {
    // Stamps looked up while the walk goes on; the sessions they find changed, not yet handed out.
    const lookups: Promise<void>[] = [];
    const changed: [number, SessionTarget][] = [];
    for await (const entry of discoverSessions(platform, agent ? { agent } : {})) {
      if ('ref' in entry) {
        errors.push({ ref: entry.ref, error: entry.error.message });
        continue;
      }
      const i = heads.push(entry) - 1;
      const target = { path: entry.path, agent: entry.agent, sessionId: entry.id };
      // A session the cache has never seen goes straight to the pool, whose workers take its stamps.
      // A lookup that fails hands the session out, for its read to say what is wrong.
      if (cache?.holds(entry.path))
        lookups.push(
          sessionStamps(platform, target)
            .then((stamps) => stamps && current(cache.lookup(entry.path, stampsKey(stamps))))
            .catch(() => undefined)
            .then((summary) => {
              kept[i] = summary;
              if (!summary) changed.push([i, target]);
              if (summary?.lastActivityAt === undefined) listActivity();
            }),
        );
      else {
        changed.push([i, target]);
        listActivity();
      }
      yield* handOut(changed);
    }
    await Promise.all(lookups);
    yield* handOut(changed);
  }
  function* handOut(changed: [number, SessionTarget][]) {
    for (const [i, target] of changed.splice(0)) {
      sent.push(i);
      yield target;
    }
  }
  const progress = progressBar('summarizing');
  // Sessions are independent: spread them over worker threads, each reading its own files.
  const results = await runInPool('summaryFacts', targets(), {
    env: platform.env,
    homeDir: platform.homeDir,
    onDone: (done, total) => progress.update(done, total),
  });
  progress.done();
  const outcomes = new Map(sent.map((head, k) => [head, results[k]!]));
  const lastActivity = (await activity) ?? new Map<string, number>();
  const rows: AllRow[] = [];
  const fresh: CachedSummary[] = [];
  for (const [i, h] of heads.entries()) {
    const outcome = outcomes.get(i);
    const last = lastActivity.get(h.path) ?? kept[i]?.lastActivityAt;
    const at = (r: AllRow): AllRow => (last === undefined ? r : { ...r, lastActivityAt: last });
    if (outcome === undefined) {
      const { facts, lastActivityAt: _, ...summary } = kept[i]!;
      rows.push(at(withFacts({ agent: h.agent, id: h.id, path: h.path, summary }, facts)));
      continue;
    }
    if (!outcome.ok) {
      errors.push({ ref: h.path, error: outcome.error.message });
      continue;
    }
    const { summary, stamps, facts: read } = outcome.value;
    let facts: RowFacts | undefined;
    if (read) {
      const cost = pricedRequests(h.agent, read.requests);
      facts = {
        ...(read.model !== undefined ? { model: read.model } : {}),
        ...(read.activeMs !== undefined ? { activeMs: read.activeMs } : {}),
        ...(cost.usd !== undefined ? { costUsd: cost.usd } : {}),
        prices: PRICES_SOURCE,
      };
    }
    rows.push(at(withFacts({ agent: h.agent, id: h.id, path: h.path, summary }, facts)));
    const value: KeptSummary = {
      ...summary,
      ...(facts ? { facts } : {}),
      ...(last !== undefined ? { lastActivityAt: last } : {}),
    };
    fresh.push({ path: h.path, agent: h.agent, stamps: stampsKey(stamps), value });
  }
  if (cache) {
    try {
      cache.save(fresh, agent);
    } catch (error) {
      warnCache(platform, error, "this run's numbers are not kept");
    } finally {
      cache.close();
    }
  }
  // Newest first, as `cairn sessions` lists them; a session whose files could not be timed last.
  rows.sort((a, b) => (b.lastActivityAt ?? -1) - (a.lastActivityAt ?? -1) || a.id.localeCompare(b.id));
  const totals: AllTotals = totalsOf(rows.map((r) => r.summary));
  for (const key of ['costUsd', 'activeMs'] as const)
    for (const r of rows) if (r[key] !== undefined) totals[key] = (totals[key] ?? 0) + r[key];
  // Dollars to the billionth, as each session's are: a sum of many carries float noise in its last bits.
  if (totals.costUsd !== undefined) totals.costUsd = Math.round(totals.costUsd * 1e9) / 1e9;
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ version: SESSION_SUMMARY_VERSION, sessions: rows, totals, errors }, null, 2)}\n`,
    );
    return 0;
  }
  const modelWidth = Math.min(
    MODEL_WIDTH,
    Math.max('model'.length, ...rows.map((r) => (r.model ?? '-').length)),
  );
  const line = (
    when: string,
    agent: string,
    id: string,
    model: string,
    s: Totals,
    f: Omit<RowFacts, 'prices'>,
  ) =>
    `${when.padEnd(16)} ${agent.padEnd(11)} ${id.padEnd(36)} ${model.padEnd(modelWidth)} ${count(s.turns).padStart(5)} ${count(s.requests).padStart(6)} ${count(s.inputTokens).padStart(14)} ${count(s.outputTokens).padStart(11)} ${count(s.failedTools).padStart(5)} ${(f.costUsd === undefined ? '-' : dollars(f.costUsd)).padStart(10)} ${span(f.activeMs).padStart(12)} ${span(s.durationMs).padStart(12)}\n`;
  const out = [
    `${'last active'.padEnd(16)} ${'agent'.padEnd(11)} ${'session'.padEnd(36)} ${'model'.padEnd(modelWidth)} ${'turns'.padStart(5)} ${'reqs'.padStart(6)} ${'input'.padStart(14)} ${'output'.padStart(11)} ${'fail'.padStart(5)} ${'cost'.padStart(10)} ${'active'.padStart(12)} ${'wall-clock'.padStart(12)}\n`,
  ];
  for (const r of rows)
    out.push(
      line(shortTime(r.lastActivityAt), r.agent, r.id, oneLine(r.model ?? '-', modelWidth), r.summary, r),
    );
  out.push(line('total', '', `${count(rows.length)} sessions`, '', totals, totals));
  process.stdout.write(out.join(''));
  for (const e of errors) process.stderr.write(`cairn: ${e.error}\n`);
  return 0;
}

/** Each session's last activity by its main file's path, as the listing reads it; none when it fails. */
async function lastActivityByPath(
  platform: SessionPlatform,
  agent: string | undefined,
): Promise<Map<string, number>> {
  const times = new Map<string, number>();
  try {
    for await (const entry of listSessions(platform, agent ? { agent } : {}))
      if (!('ref' in entry) && entry.lastActivityAt !== undefined)
        times.set(entry.path, entry.lastActivityAt);
  } catch {
    // Without times the rows keep the order they were found in; the numbers are unaffected.
  }
  return times;
}

/** The model column's widest: as wide as the longest name shown up to this, a longer one cut. */
const MODEL_WIDTH = 32;

/** A row with the facts read of its session, when there are any. */
function withFacts(row: AllRow, facts: RowFacts | undefined): AllRow {
  if (facts === undefined) return row;
  const { prices: _, ...shown } = facts;
  return { ...row, ...shown };
}

/** The numbers' totals, and the cost and active time summed over the sessions that have them. */
type AllTotals = Totals & Omit<RowFacts, 'model' | 'prices'>;

type Totals = Pick<
  SessionSummaryWithPrompts,
  'turns' | 'requests' | 'inputTokens' | 'outputTokens' | 'failedTools' | 'durationMs'
>;

/** The sum of each number over the sessions that record it; absent when none does. */
function totalsOf(summaries: readonly SessionSummaryWithPrompts[]): Totals {
  const keys = ['turns', 'requests', 'inputTokens', 'outputTokens', 'failedTools', 'durationMs'] as const;
  const totals: Totals = {};
  for (const key of keys)
    for (const s of summaries) {
      const n = s[key];
      if (n !== undefined) totals[key] = (totals[key] ?? 0) + n;
    }
  return totals;
}

const cacheFile = (platform: SessionPlatform): string =>
  join(cairnHome(platform.env, platform.homeDir), 'summaries.sqlite');

/** The summary cache, or undefined from source or when it cannot be used (the run goes on without). */
function openCache(platform: SessionPlatform): SummaryCache | undefined {
  const build = buildId();
  if (build === undefined) return undefined;
  const file = cacheFile(platform);
  try {
    return openSummaryCache(file, build);
  } catch (error) {
    if (!isDamaged(error)) {
      warnCache(platform, error, 'every session is read');
      return undefined;
    }
    // Only cairn writes the file and it holds nothing that cannot be counted again.
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
    warnCache(platform, error, 'it is made anew');
    try {
      return openSummaryCache(file, build);
    } catch (again) {
      warnCache(platform, again, 'every session is read');
      return undefined;
    }
  }
}

const isDamaged = (error: unknown): boolean => {
  const code = (error as { code?: unknown }).code;
  return code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT';
};

function warnCache(platform: SessionPlatform, error: unknown, outcome: string): void {
  const why = error instanceof Error ? error.message : String(error);
  process.stderr.write(`cairn: the summary cache ${cacheFile(platform)}: ${why}; ${outcome}\n`);
}

/**
 * Sessions up to this size are read whole: the model and the active time need the lanes and the
 * turns, which the numbers alone lack. A larger one is counted in chunks, in bounded memory, and
 * its model, time and cost are left out rather than holding it all.
 */
const WHOLE_READ_BYTES = SUMMARY_FACTS_MAX_BYTES;

async function readSummary(
  platform: SessionPlatform,
  target: SessionTarget,
): Promise<{ summary: SessionSummaryWithPrompts; facts?: ModelAndTime; transcript?: Transcript }> {
  const prompts = { maxChars: 200 };
  const stamps = await sessionStamps(platform, target);
  const bytes = (stamps ?? []).reduce((n, s) => n + s.size, 0);
  if (bytes > WHOLE_READ_BYTES) {
    const result = await summarizeSession(platform, target, { prompts });
    if (!result.ok) throw new Failure(result.error.message);
    return { summary: result.value };
  }
  const progress = progressBar('reading');
  const loaded = await loadTranscript(platform, target, { onProgress: (b) => progress.update(b) });
  progress.done();
  if (!loaded.ok) throw new Failure(loaded.error.message);
  return {
    summary: foldTranscript(loaded.value, { prompts }),
    facts: modelAndTime(loaded.value),
    transcript: loaded.value,
  };
}

const NOT_READ = `-  (not read: a session over ${WHOLE_READ_BYTES / 1024 / 1024} MB is counted in chunks)`;

/** The model, the time and the cost, beside the summary's numbers in `--json`. */
function factsJson(facts: ModelAndTime | undefined, cost: Priced | undefined): Record<string, unknown> {
  if (!facts || !cost) return {};
  return {
    ...(facts.model !== undefined ? { model: facts.model } : {}),
    models: facts.models,
    ...(facts.reasoningTokens !== undefined ? { reasoningTokens: facts.reasoningTokens } : {}),
    ...(facts.wallMs !== undefined ? { wallMs: facts.wallMs } : {}),
    ...(facts.activeMs !== undefined ? { activeMs: facts.activeMs } : {}),
    ...(cost.usd !== undefined ? { costUsd: cost.usd } : {}),
    prices: cost.source,
  };
}

function renderSummary(
  { agent, id, path, mainFileMissing, summary: s }: Row,
  facts: ModelAndTime | undefined,
  cost: Priced | undefined,
): string {
  const others = facts?.models.slice(1) ?? [];
  const lines = [
    `${agent} ${id}`,
    `  file          ${path}${mainFileMissing ? "  (gone: only its subagents' files remain)" : ''}`,
    `  model         ${facts ? (facts.model ?? '-') : NOT_READ}`,
  ];
  if (facts && others.length > 0)
    lines.push(
      `  models        ${facts.models.map((m) => `${m.model} ${count(m.requests)}`).join(', ')} requests`,
    );
  lines.push(
    `  turns         ${count(s.turns)}`,
    `  requests      ${count(s.requests)}`,
    `  input tokens  ${count(s.inputTokens)}  (cache read ${count(s.cacheReadTokens)}, cache write ${count(s.cacheWriteTokens)})`,
    `  output tokens ${count(s.outputTokens)}`,
    `  reasoning     ${!facts ? NOT_READ : facts.reasoningTokens === undefined ? '-  (not recorded)' : count(facts.reasoningTokens)}`,
    `  cost          ${cost?.text ?? NOT_READ}`,
    `  failed tools  ${count(s.failedTools)}`,
    `  subagents     ${count(s.subagents)}`,
    `  compactions   ${count(s.compactions)}`,
    `  duration      ${span(s.durationMs)} wall-clock${facts ? `, ${span(facts.activeMs)} active (in turns)` : ''}`,
  );
  if (s.contextShape && s.contextShape.length > 0) lines.push(`  context       ${sparkline(s.contextShape)}`);
  for (const [i, p] of (s.prompts ?? []).slice(0, 5).entries())
    lines.push(`  prompt ${i + 1}      ${oneLine(p, 100)}`);
  return `${lines.join('\n')}\n`;
}

function sparkline(values: number[]): string {
  const ticks = '▁▂▃▄▅▆▇█';
  const max = Math.max(...values, 1);
  return values.map((v) => ticks[Math.min(7, Math.floor((v / max) * 8))]).join('');
}
