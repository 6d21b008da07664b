// The rows of `cairn usage`: every request's tokens and cost, added up by day, week, month, session
// or 5-hour billing window. The JSON uses ccusage's field names, so a script written for its output
// reads cairn's; cairn adds `agents` and `projects` to each row. Tokens are split as ccusage splits
// them: `inputTokens` is the input the cache did not serve, apart from cache reads and writes.
// The CLI prints these rows and the daemon's `usage_read` answers them, so both count alike.
import type { TaskResults } from '@cairn/transcript';
import { requestCost } from './pricing.js';

/** One model request, as the report counts it. */
export interface UsageEntry {
  /** ms since the epoch. */
  at: number;
  agent: string;
  sessionId: string;
  /** The folder the session ran in. */
  project?: string;
  title?: string;
  model: string;
  /** Input the cache did not serve. */
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  reasoningTokens: number;
  /** Dollars; undefined when the catalog has no price for the model. */
  cost: number | undefined;
}

export type UsageReportKind = 'daily' | 'weekly' | 'monthly' | 'session' | 'blocks';
export const REPORT_KINDS: readonly UsageReportKind[] = ['daily', 'weekly', 'monthly', 'session', 'blocks'];

interface Tokens {
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
  reasoningTokens: number;
  totalTokens: number;
  /** Null when a model with tokens has no price: a partial sum would read as the whole. */
  totalCost: number | null;
}

export interface ModelBreakdown {
  modelName: string;
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
  reasoningTokens: number;
  /** Null when the catalog has no price for the model. */
  cost: number | null;
}

export interface AgentBreakdown {
  agent: string;
  totalTokens: number;
  /** Null when a model the agent used has no price. */
  cost: number | null;
}

export interface ProjectBreakdown {
  /** The folder the sessions ran in; empty when the agent did not record one. */
  project: string;
  totalTokens: number;
  /** Null when a model used in the project has no price. */
  cost: number | null;
}

export interface UsageRow extends Tokens {
  /** The row's key: a date, a week's first day, a month, a session id or a window's start. */
  key: string;
  modelsUsed: string[];
  modelBreakdowns: ModelBreakdown[];
  agents: string[];
  /** The row's tokens and cost per agent, largest cost first (the dashboard stacks by agent). */
  agentBreakdowns: AgentBreakdown[];
  projects: string[];
  /** The row's tokens and cost per project, largest cost first (the dashboard stacks by project). */
  projectBreakdowns: ProjectBreakdown[];
  entries: number;
  firstAt: number;
  lastAt: number;
  /** Session rows: its title. Window rows: its end, and whether it is a gap between windows. */
  title?: string;
  endAt?: number;
  isGap?: boolean;
}

const emptyTokens = (): Tokens => ({
  inputTokens: 0,
  outputTokens: 0,
  cacheCreationTokens: 0,
  cacheReadTokens: 0,
  reasoningTokens: 0,
  totalTokens: 0,
  totalCost: 0,
});

function addTokens(t: Tokens, e: UsageEntry): void {
  t.inputTokens += e.inputTokens;
  t.outputTokens += e.outputTokens;
  t.cacheCreationTokens += e.cacheCreationTokens;
  t.cacheReadTokens += e.cacheReadTokens;
  t.reasoningTokens += e.reasoningTokens;
  t.totalTokens += e.inputTokens + e.outputTokens + e.cacheCreationTokens + e.cacheReadTokens;
  if (e.cost === undefined) t.totalCost = null;
  else if (t.totalCost !== null) t.totalCost += e.cost;
}

/** A row's sums, grown one entry at a time in the order the entries come. */
class RowSums {
  readonly row: UsageRow;
  /** The first title among the entries (a session's row shows it). */
  title: string | undefined;
  private readonly models = new Map<string, Tokens>();
  private readonly agents = new Map<string, Tokens>();
  private readonly projects = new Map<string, Tokens>();

  constructor(key: string) {
    this.row = {
      key,
      ...emptyTokens(),
      modelsUsed: [],
      modelBreakdowns: [],
      agents: [],
      agentBreakdowns: [],
      projects: [],
      projectBreakdowns: [],
      entries: 0,
      firstAt: Number.POSITIVE_INFINITY,
      lastAt: Number.NEGATIVE_INFINITY,
    };
  }

  add(e: UsageEntry): void {
    const row = this.row;
    row.entries++;
    addTokens(row, e);
    let m = this.models.get(e.model);
    if (!m) {
      m = emptyTokens();
      this.models.set(e.model, m);
    }
    addTokens(m, e);
    let a = this.agents.get(e.agent);
    if (!a) {
      a = emptyTokens();
      this.agents.set(e.agent, a);
    }
    addTokens(a, e);
    const folder = e.project ?? '';
    let p = this.projects.get(folder);
    if (!p) {
      p = emptyTokens();
      this.projects.set(folder, p);
    }
    addTokens(p, e);
    row.firstAt = Math.min(row.firstAt, e.at);
    row.lastAt = Math.max(row.lastAt, e.at);
    if (this.title === undefined) this.title = e.title;
  }

  /** The row, with its breakdowns. */
  finish(): UsageRow {
    const row = this.row;
    row.modelsUsed = [...this.models.keys()];
    row.modelBreakdowns = [...this.models]
      .map(([modelName, t]) => ({
        modelName,
        inputTokens: t.inputTokens,
        outputTokens: t.outputTokens,
        cacheCreationTokens: t.cacheCreationTokens,
        cacheReadTokens: t.cacheReadTokens,
        reasoningTokens: t.reasoningTokens,
        cost: t.totalCost,
      }))
      .sort((a, b) => (b.cost ?? -1) - (a.cost ?? -1) || a.modelName.localeCompare(b.modelName));
    row.agents = [...this.agents.keys()].sort();
    row.agentBreakdowns = [...this.agents]
      .map(([agent, t]) => ({ agent, totalTokens: t.totalTokens, cost: t.totalCost }))
      .sort((a, b) => (b.cost ?? -1) - (a.cost ?? -1) || a.agent.localeCompare(b.agent));
    row.projects = [...this.projects.keys()].filter((p) => p !== '').sort();
    row.projectBreakdowns = [...this.projects]
      .map(([project, t]) => ({ project, totalTokens: t.totalTokens, cost: t.totalCost }))
      .sort((a, b) => (b.cost ?? -1) - (a.cost ?? -1) || a.project.localeCompare(b.project));
    return row;
  }
}

/** Sums entries into one row under `key`. */
function rowOf(key: string, entries: readonly UsageEntry[]): UsageRow {
  const sums = new RowSums(key);
  for (const e of entries) sums.add(e);
  return sums.finish();
}

/** The calendar date of `at` in `timeZone`, as YYYY-MM-DD; throws RangeError for an unknown zone. */
export function dateIn(at: number, timeZone: string | undefined): string {
  const zone = timeZone ?? '';
  if (zone !== dayZone) {
    dayZone = zone;
    dayOfSlice.clear();
  }
  // A report dates tens of thousands of requests, and the zone's formatter takes microseconds a
  // call. Zones move their clocks by whole quarter hours, so the date is the same throughout a
  // quarter hour of UTC that starts and ends on one date: it is looked up once per such slice.
  const slice = Math.floor(at / SLICE_MS);
  let date = dayOfSlice.get(slice);
  if (date === undefined) {
    const format = dateFormat(timeZone);
    const first = format.format(slice * SLICE_MS);
    date = first === format.format(slice * SLICE_MS + SLICE_MS - 1) ? first : '';
    if (dayOfSlice.size >= MAX_SLICES) dayOfSlice.clear();
    dayOfSlice.set(slice, date);
  }
  // A slice the date changes in (midnight, a clock moved across it) is dated request by request.
  return date !== '' ? date : dateFormat(timeZone).format(at);
}

const SLICE_MS = 15 * 60_000;
/** A year of quarter hours: a report over years of history clears and fills it again. */
const MAX_SLICES = 366 * 96;
let dayZone = '';
const dayOfSlice = new Map<number, string>();

const formats = new Map<string, Intl.DateTimeFormat>();
function dateFormat(timeZone: string | undefined): Intl.DateTimeFormat {
  const key = timeZone ?? '';
  let f = formats.get(key);
  if (!f) {
    // en-CA writes dates as YYYY-MM-DD.
    f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formats.set(key, f);
  }
  return f;
}

/** The Sunday that starts the week of a YYYY-MM-DD date, as ccusage's weekly report starts it;
 * reckoned once per date, since a report asks it of every request. */
function weekOf(date: string): string {
  let week = weeks.get(date);
  if (week === undefined) {
    const d = new Date(`${date}T00:00:00Z`);
    d.setUTCDate(d.getUTCDate() - d.getUTCDay());
    week = d.toISOString().slice(0, 10);
    if (weeks.size >= MAX_SLICES) weeks.clear();
    weeks.set(date, week);
  }
  return week;
}
const weeks = new Map<string, string>();

const FIVE_HOURS = 5 * 3_600_000;
const HOUR = 3_600_000;

/** Entries counted between two pauses of a paced report (see usageRowsPaced). */
const ENTRIES_PER_STEP = 20_000;
/** Rows finished between two pauses. */
const ROWS_PER_STEP = 2_000;

/**
 * ccusage's billing windows: a window opens at the hour its first request falls in and lasts five
 * hours; a request after the window's end, or more than five hours after the one before it, opens
 * the next. Between windows more than five hours apart, a gap row stands for the idle time.
 */
function* blocksOf(entries: readonly UsageEntry[]): Generator<void, UsageRow[]> {
  const sorted = [...entries].sort((a, b) => a.at - b.at);
  const windows: { start: number; last: number; sums: RowSums }[] = [];
  for (const [i, e] of sorted.entries()) {
    if (i > 0 && i % ENTRIES_PER_STEP === 0) yield;
    const open = windows.at(-1);
    if (open && e.at - open.start <= FIVE_HOURS && e.at - open.last <= FIVE_HOURS) {
      open.sums.add(e);
      open.last = e.at;
    } else {
      const start = Math.floor(e.at / HOUR) * HOUR;
      const sums = new RowSums(new Date(start).toISOString());
      sums.add(e);
      windows.push({ start, last: e.at, sums });
    }
  }
  const rows: UsageRow[] = [];
  for (const [i, w] of windows.entries()) {
    if (i > 0 && i % ROWS_PER_STEP === 0) yield;
    const prev = i > 0 ? windows[i - 1]! : undefined;
    if (prev) {
      const prevLast = prev.last;
      const next = w.sums.row.firstAt;
      // The gap runs from five hours after the last request to the next request itself.
      if (next - prevLast > FIVE_HOURS) {
        const gap = rowOf(`gap-${new Date(prevLast + FIVE_HOURS).toISOString()}`, []);
        gap.firstAt = prevLast + FIVE_HOURS;
        gap.lastAt = gap.firstAt;
        gap.endAt = next;
        gap.isGap = true;
        rows.push(gap);
      }
    }
    const row = w.sums.finish();
    row.endAt = w.start + FIVE_HOURS;
    rows.push(row);
  }
  return rows;
}

/** The report's rows, a step at a time: each `yield` is a place to let other work in. */
function* rowSteps(
  kind: UsageReportKind,
  entries: readonly UsageEntry[],
  timeZone: string | undefined,
): Generator<void, UsageRow[]> {
  if (kind === 'blocks') return yield* blocksOf(entries);
  const groups = new Map<string, RowSums>();
  const keyOf = (e: UsageEntry): string => {
    if (kind === 'session') return `${e.agent}\u0000${e.sessionId}`;
    const date = dateIn(e.at, timeZone);
    return kind === 'daily' ? date : kind === 'weekly' ? weekOf(date) : date.slice(0, 7);
  };
  for (const [i, e] of entries.entries()) {
    if (i > 0 && i % ENTRIES_PER_STEP === 0) yield;
    const key = keyOf(e);
    let sums = groups.get(key);
    if (!sums) {
      // A session's row is keyed by its id.
      sums = new RowSums(kind === 'session' ? e.sessionId : key);
      groups.set(key, sums);
    }
    sums.add(e);
  }
  const rows: UsageRow[] = [];
  for (const sums of groups.values()) {
    if (rows.length > 0 && rows.length % ROWS_PER_STEP === 0) yield;
    const row = sums.finish();
    if (kind === 'session' && sums.title !== undefined) row.title = sums.title;
    rows.push(row);
  }
  return kind === 'session'
    ? rows.sort((a, b) => a.lastAt - b.lastAt || a.key.localeCompare(b.key))
    : rows.sort((a, b) => a.key.localeCompare(b.key));
}

/** The report's rows, oldest first (sessions by their last activity). */
export function usageRows(
  kind: UsageReportKind,
  entries: readonly UsageEntry[],
  timeZone: string | undefined,
): UsageRow[] {
  const steps = rowSteps(kind, entries, timeZone);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * usageRows, awaiting `pause` every few tens of thousands of entries: a daemon making a report over
 * hundreds of thousands of requests answers its other clients meanwhile.
 */
export async function usageRowsPaced(
  kind: UsageReportKind,
  entries: readonly UsageEntry[],
  timeZone: string | undefined,
  pause: () => Promise<unknown>,
): Promise<UsageRow[]> {
  const steps = rowSteps(kind, entries, timeZone);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await pause();
  }
}

/** The sum of every row (gap rows add nothing). */
export function usageTotals(rows: readonly UsageRow[]): Tokens {
  const t = emptyTokens();
  for (const r of rows) {
    t.inputTokens += r.inputTokens;
    t.outputTokens += r.outputTokens;
    t.cacheCreationTokens += r.cacheCreationTokens;
    t.cacheReadTokens += r.cacheReadTokens;
    t.reasoningTokens += r.reasoningTokens;
    t.totalTokens += r.totalTokens;
    if (r.totalCost === null) t.totalCost = null;
    else if (t.totalCost !== null) t.totalCost += r.totalCost;
  }
  return t;
}

const tokensJson = (r: Tokens) => ({
  inputTokens: r.inputTokens,
  outputTokens: r.outputTokens,
  cacheCreationTokens: r.cacheCreationTokens,
  cacheReadTokens: r.cacheReadTokens,
  totalTokens: r.totalTokens,
  totalCost: r.totalCost,
  reasoningTokens: r.reasoningTokens,
});

/** The window's spend per minute (tokens) and per hour (dollars), as ccusage reports it. */
export interface BurnRate {
  tokensPerMinute: number;
  /** Input and output alone, cache reads and writes left out. */
  tokensPerMinuteForIndicator: number;
  /** Null when a model used has no price. */
  costPerHour: number | null;
}

/** The window's totals at its end if the rate holds; tokens whole, dollars to the cent. */
export interface Projection {
  totalTokens: number;
  totalCost: number | null;
  remainingMinutes: number;
}

export interface BlockActivity {
  isActive: boolean;
  burnRate: BurnRate | null;
  projection: Projection | null;
}

/**
 * Whether a window is still open at `now` and, when it is, its burn rate and projection, as
 * ccusage's `blocks --json` gives them: the rate runs from the window's first request to its last
 * (none when they are the same moment), and the projection spends it over the whole minutes left.
 */
export function blockActivity(r: UsageRow, now: number): BlockActivity {
  const isActive = !r.isGap && r.entries > 0 && now - r.lastAt < FIVE_HOURS && now < r.endAt!;
  const minutes = (r.lastAt - r.firstAt) / 60_000;
  if (!isActive || minutes <= 0) return { isActive, burnRate: null, projection: null };
  const burnRate: BurnRate = {
    tokensPerMinute: r.totalTokens / minutes,
    tokensPerMinuteForIndicator: (r.inputTokens + r.outputTokens) / minutes,
    costPerHour: r.totalCost === null ? null : (r.totalCost / minutes) * 60,
  };
  const remainingMinutes = Math.round(Math.max(0, (r.endAt! - now) / 60_000));
  const projection: Projection = {
    totalTokens: Math.round(r.totalTokens + burnRate.tokensPerMinute * remainingMinutes),
    totalCost:
      r.totalCost === null || burnRate.costPerHour === null
        ? null
        : Math.round((r.totalCost + (burnRate.costPerHour / 60) * remainingMinutes) * 100) / 100,
    remainingMinutes,
  };
  return { isActive, burnRate, projection };
}

/**
 * A row in ccusage's JSON form for the report, plus cairn's `agents` and `projects`. Windows say
 * whether they are open at `now`, with their burn rate and projection when they are.
 */
export function rowJson(
  kind: UsageReportKind,
  r: UsageRow,
  breakdown: boolean,
  now = Date.now(),
): Record<string, unknown> {
  const extra = { agents: r.agents, projects: r.projects };
  const models = { modelsUsed: r.modelsUsed, ...(breakdown ? { modelBreakdowns: r.modelBreakdowns } : {}) };
  switch (kind) {
    case 'daily':
      return { date: r.key, period: r.key, ...tokensJson(r), ...models, ...extra };
    case 'weekly':
      return { week: r.key, period: r.key, ...tokensJson(r), ...models, ...extra };
    case 'monthly':
      return { month: r.key, period: r.key, ...tokensJson(r), ...models, ...extra };
    case 'session':
      return {
        sessionId: r.key,
        ...(r.title !== undefined ? { title: r.title } : {}),
        firstActivity: new Date(r.firstAt).toISOString(),
        lastActivity: new Date(r.lastAt).toISOString(),
        ...tokensJson(r),
        ...models,
        ...extra,
      };
    case 'blocks':
      return {
        id: r.key,
        startTime: r.isGap ? new Date(r.firstAt).toISOString() : r.key,
        endTime: new Date(r.endAt!).toISOString(),
        actualEndTime: r.isGap ? null : new Date(r.lastAt).toISOString(),
        isGap: r.isGap === true,
        ...blockActivity(r, now),
        entries: r.entries,
        tokenCounts: {
          inputTokens: r.inputTokens,
          outputTokens: r.outputTokens,
          cacheCreationInputTokens: r.cacheCreationTokens,
          cacheReadInputTokens: r.cacheReadTokens,
        },
        totalTokens: r.totalTokens,
        costUSD: r.totalCost,
        models: r.modelsUsed,
        reasoningTokens: r.reasoningTokens,
        ...(breakdown ? { modelBreakdowns: r.modelBreakdowns } : {}),
        ...extra,
      };
  }
}

/** The JSON array's name in ccusage's output for each report. */
export const JSON_KEY: Readonly<Record<UsageReportKind, string>> = {
  daily: 'daily',
  weekly: 'weekly',
  monthly: 'monthly',
  session: 'sessions',
  blocks: 'blocks',
};

/** A session's requests as report entries: those with tokens, each priced on its own. */
export function entriesOf(agent: string, sessionId: string, read: TaskResults['requests']): UsageEntry[] {
  const out: UsageEntry[] = [];
  for (const { at, model, usage } of read.requests) {
    if (usage.inputTokens + usage.outputTokens === 0) continue;
    const cacheRead = usage.cacheReadTokens ?? 0;
    const cacheWrite = usage.cacheWriteTokens ?? 0;
    // Every field in the one literal (the folder and title undefined when unknown): a field added
    // later gives each entry a second block of memory, and a daemon keeps one entry per request.
    out.push({
      at,
      agent,
      sessionId,
      project: read.cwd,
      title: read.title,
      model: sharedModelName(model),
      inputTokens: Math.max(0, usage.inputTokens - cacheRead - cacheWrite),
      outputTokens: usage.outputTokens,
      cacheReadTokens: cacheRead,
      cacheCreationTokens: cacheWrite,
      reasoningTokens: usage.reasoningTokens ?? 0,
      cost: requestCost(agent, model, usage),
    });
  }
  return out;
}

/** One copy of each model's name across every entry: each read makes its own, and they are few. */
const modelNames = new Map<string, string>();
const MODEL_NAMES_KEPT = 1_000;

function sharedModelName(model: string): string {
  const kept = modelNames.get(model);
  if (kept !== undefined) return kept;
  if (modelNames.size < MODEL_NAMES_KEPT) modelNames.set(model, model);
  return model;
}
