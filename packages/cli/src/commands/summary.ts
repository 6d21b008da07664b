// cairn summary: a session's numbers, or every session's with --all.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  cairnHome,
  discoverSessions,
  type FoundSession,
  runInPool,
  SESSION_SUMMARY_VERSION,
  type SessionPlatform,
  type SessionSummaryWithPrompts,
  type SessionTarget,
  sessionStamps,
  summarizeSession,
} from '@cairn/transcript';
import { count, oneLine } from '../format.js';
import { progressBar } from '../progress.js';
import { nameOfPath, resolveRef } from '../refs.js';
import { buildId, type CachedSummary, SummaryCache, stampsKey } from '../summary-cache.js';
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

export async function summaryCommand(platform: SessionPlatform, argv: string[]): Promise<number> {
  const { values, positionals } = parseCommand(
    argv,
    { all: { type: 'boolean' }, agent: { type: 'string' }, json: { type: 'boolean' } },
    USAGE,
  );
  if (Boolean(values.all) === positionals.length > 0 || positionals.length > 1) {
    throw new UsageError(`give one <ref> or --all\nusage: ${USAGE}`);
  }
  if (values.all) return summarizeAll(platform, values.agent, values.json ?? false);

  const { target, head } = await resolveRef(platform, positionals[0]!, values.agent);
  const result = await summarizeSession(platform, target, { prompts: { maxChars: 200 } });
  if (!result.ok) throw new Failure(result.error.message);
  // A path names no session by itself: the homes say whose it is.
  const named = head ?? (await nameOfPath(platform, target));
  const row: Row = {
    agent: named?.agent ?? target.agent ?? '',
    id: named?.id ?? target.sessionId ?? '',
    path: target.path,
    ...(head?.mainFileMissing ? { mainFileMissing: true as const } : {}),
    summary: result.value,
  };
  if (values.json)
    process.stdout.write(`${JSON.stringify({ version: SESSION_SUMMARY_VERSION, ...row }, null, 2)}\n`);
  else process.stdout.write(renderSummary(row));
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
  // By the heads' index: the summary kept for a session unchanged since.
  const kept: (SessionSummaryWithPrompts | undefined)[] = [];
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
            .then((stamps) => stamps && cache.lookup(entry.path, stampsKey(stamps)))
            .catch(() => undefined)
            .then((summary) => {
              kept[i] = summary;
              if (!summary) changed.push([i, target]);
            }),
        );
      else changed.push([i, target]);
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
  const results = await runInPool('stampedSummary', targets(), {
    env: platform.env,
    homeDir: platform.homeDir,
    onDone: (done, total) => progress.update(done, total),
  });
  progress.done();
  const outcomes = new Map(sent.map((head, k) => [head, results[k]!]));
  const rows: Row[] = [];
  const fresh: CachedSummary[] = [];
  for (const [i, h] of heads.entries()) {
    const outcome = outcomes.get(i);
    if (outcome === undefined) {
      rows.push({ agent: h.agent, id: h.id, path: h.path, summary: kept[i]! });
      continue;
    }
    if (!outcome.ok) {
      errors.push({ ref: h.path, error: outcome.error.message });
      continue;
    }
    const { summary, stamps } = outcome.value;
    rows.push({ agent: h.agent, id: h.id, path: h.path, summary });
    fresh.push({ path: h.path, agent: h.agent, stamps: stampsKey(stamps), summary });
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
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ version: SESSION_SUMMARY_VERSION, sessions: rows, errors }, null, 2)}\n`,
    );
    return 0;
  }
  process.stdout.write(
    `${'agent'.padEnd(11)} ${'session'.padEnd(36)} ${'turns'.padStart(5)} ${'reqs'.padStart(5)} ${'input'.padStart(12)} ${'output'.padStart(10)} ${'fail'.padStart(4)}\n`,
  );
  for (const r of rows) {
    const s = r.summary;
    process.stdout.write(
      `${r.agent.padEnd(11)} ${r.id.padEnd(36)} ${count(s.turns).padStart(5)} ${count(s.requests).padStart(5)} ${count(s.inputTokens).padStart(12)} ${count(s.outputTokens).padStart(10)} ${count(s.failedTools).padStart(4)}\n`,
    );
  }
  for (const e of errors) process.stderr.write(`cairn: ${e.error}\n`);
  return 0;
}

const cacheFile = (platform: SessionPlatform): string =>
  join(cairnHome(platform.env, platform.homeDir), 'summaries.sqlite');

/** The summary cache, or undefined from source or when it cannot be used (the run goes on without). */
function openCache(platform: SessionPlatform): SummaryCache | undefined {
  const build = buildId();
  if (build === undefined) return undefined;
  const file = cacheFile(platform);
  try {
    return SummaryCache.open(file, build);
  } catch (error) {
    if (!isDamaged(error)) {
      warnCache(platform, error, 'every session is read');
      return undefined;
    }
    // Only cairn writes the file and it holds nothing that cannot be counted again.
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
    warnCache(platform, error, 'it is made anew');
    try {
      return SummaryCache.open(file, build);
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

function renderSummary({ agent, id, path, mainFileMissing, summary: s }: Row): string {
  const lines = [
    `${agent} ${id}`,
    `  file          ${path}${mainFileMissing ? "  (gone: only its subagents' files remain)" : ''}`,
    `  turns         ${count(s.turns)}`,
    `  requests      ${count(s.requests)}`,
    `  input tokens  ${count(s.inputTokens)}  (cache read ${count(s.cacheReadTokens)}, cache write ${count(s.cacheWriteTokens)})`,
    `  output tokens ${count(s.outputTokens)}`,
    `  failed tools  ${count(s.failedTools)}`,
    `  subagents     ${count(s.subagents)}`,
    `  compactions   ${count(s.compactions)}`,
    `  duration      ${s.durationMs === undefined ? '-' : `${(s.durationMs / 60000).toFixed(1)} min`}`,
  ];
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
