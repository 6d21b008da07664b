// The Usage page: tokens and cost per day, week or month stacked by agent, model or project, the same
// rows as a sortable table, the cache hit ratio, the dearest sessions, the cost per project, the
// 5-hour billing window open now with its burn rate (asked again as sessions grow), and where the
// money went: agent, then project, then session. The numbers are the daemon's `usage_read`, the rows
// `cairn usage --json` prints. The chart is a chunk of its own, loaded here.
import type { OpArgs, UsageActiveBlock, UsageReadResult, UsageRow } from '@cairn/protocol';
import type { ComponentType } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useServices } from '../context.js';
import { shownText } from '../display.js';
import { formatClock, formatCount, formatExact, shortPath } from '../format.js';
import { formatRoute, type Route, sessionHref, type UsageFilters } from '../route.js';
import { formatCost, shortModel } from '../sessions/list.js';
import type { ChartProps } from './usage-chart.js';
import { CacheRatio, ProjectCosts, TopSessions } from './usage-sections.js';

type UsageRoute = Extract<Route, { view: 'usage' }>;

type State =
  | { loading: true }
  | { loading: false; error: string }
  | { loading: false; value: UsageReadResult };
/** The periods and the sessions are asked apart: the periods' table and chart are drawn as soon as
 * their answer comes, without waiting for the longer list of sessions. */
type Loaded = { periods: State; sessions: State };

/** The zone the browser counts days in: the report's days are the reader's days. */
const browserZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Sessions growing ask again after this pause, so a burst of writes is one question. */
const REFRESH_AFTER_CHANGE_MS = 1_000;
/** The open window's minutes left go down without any session changing. */
const REFRESH_EVERY_MS = 60_000;

const cost = (usd: number | null | undefined): string =>
  usd === null || usd === undefined ? '–' : formatCost(usd);

const href = (route: UsageRoute, change: Partial<UsageFilters>): string => {
  const next: UsageRoute = { ...route, ...change };
  for (const [k, v] of Object.entries(change)) if (v === undefined) delete next[k as keyof UsageFilters];
  return formatRoute(next);
};

function useUsage(route: UsageRoute): Loaded {
  const { conn } = useServices();
  const [periods, setPeriods] = useState<State>({ loading: true });
  const [sessions, setSessions] = useState<State>({ loading: true });
  const [tick, setTick] = useState(0);
  const filters = useMemo(() => {
    const f: Record<string, string> = { timezone: browserZone() };
    for (const name of ['agent', 'project', 'model', 'since', 'until'] as const) {
      const v = route[name];
      if (v) f[name] = v;
    }
    return f;
  }, [route.agent, route.project, route.model, route.since, route.until]);

  useEffect(() => {
    let current = true;
    const ask = (kind: 'daily' | 'weekly' | 'monthly' | 'session') =>
      conn.request('usage_read', { ...filters, kind } as OpArgs<'usage_read'>);
    const settle = (set: (s: State) => void) => (reply: Awaited<ReturnType<typeof ask>>) => {
      if (!current) return;
      set(reply.ok ? { loading: false, value: reply.value } : { loading: false, error: reply.error.message });
    };
    // The sessions are asked once the periods' table and chart are on screen: their longer answer,
    // and the sections drawn of it, then hold up neither.
    const periods = ask(route.by).then(settle(setPeriods));
    void Promise.all([periods, chartModule().catch(() => undefined)])
      .then(afterPaint)
      .then(() => (current ? ask('session').then(settle(setSessions)) : undefined));
    return () => {
      current = false;
    };
  }, [filters, route.by, tick]);

  // Live: asked again a moment after sessions change, and every minute for the window's clock.
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unsubscribe = conn.subscribe({
      topic: 'sessions',
      accepts: (f) => f.type === 'session_upserted' || f.type === 'session_removed',
      onFrame: () => {
        clearTimeout(timer);
        timer = setTimeout(() => setTick((n) => n + 1), REFRESH_AFTER_CHANGE_MS);
      },
    });
    const every = setInterval(() => setTick((n) => n + 1), REFRESH_EVERY_MS);
    return () => {
      clearTimeout(timer);
      clearInterval(every);
      unsubscribe();
    };
  }, [conn]);
  return { periods, sessions };
}

/** Settles once what was drawn so far is painted; a hidden page, which paints nothing, goes on
 * after a moment. */
const afterPaint = (): Promise<void> =>
  new Promise((resolve) => {
    requestAnimationFrame(() => setTimeout(resolve, 0));
    setTimeout(resolve, 250);
  });

/** The chart's chunk, asked for by the page's first drawing, while the numbers are asked for too. */
let chartChunk: Promise<typeof import('./usage-chart.js')> | undefined;

function chartModule(): Promise<typeof import('./usage-chart.js')> {
  // A chunk that failed to load is asked for again by the page's next drawing.
  chartChunk ??= import('./usage-chart.js').catch((error: unknown) => {
    chartChunk = undefined;
    throw error;
  });
  return chartChunk;
}

/** The chart component; undefined until its chunk arrives. */
function useChart(): ComponentType<ChartProps> | undefined {
  const [chart, setChart] = useState<ComponentType<ChartProps> | undefined>(undefined);
  const chunk = chartModule();
  useEffect(() => {
    let current = true;
    void chunk.then(
      (m) => current && setChart(() => m.UsageChart),
      // Without the chart the table still holds every number.
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, []);
  return chart;
}

const modelTokens = (m: UsageRow['modelBreakdowns'][number]): number =>
  m.inputTokens + m.outputTokens + m.cacheCreationTokens + m.cacheReadTokens;

/** The chart's series: a row's share per agent or per model, of its cost or its tokens. */
function seriesOf(rows: readonly UsageRow[], route: UsageRoute): ChartProps['series'] {
  const byName = new Map<string, number[]>();
  const put = (name: string, i: number, v: number) => {
    let values = byName.get(name);
    if (!values) {
      values = rows.map(() => 0);
      byName.set(name, values);
    }
    values[i]! += v;
  };
  rows.forEach((r, i) => {
    if (route.stack === 'agent')
      for (const a of r.agentBreakdowns)
        put(a.agent, i, route.show === 'cost' ? (a.cost ?? 0) : a.totalTokens);
    else if (route.stack === 'project')
      for (const p of r.projectBreakdowns)
        put(
          p.project === '' ? '(no folder)' : shortPath(p.project),
          i,
          route.show === 'cost' ? (p.cost ?? 0) : p.totalTokens,
        );
    else
      for (const m of r.modelBreakdowns)
        put(shortModel(m.modelName), i, route.show === 'cost' ? (m.cost ?? 0) : modelTokens(m));
  });
  // The largest first, so that the same colours go to the same names while the filters stay.
  return [...byName]
    .map(([name, values]) => ({ name, values, sum: values.reduce((a, b) => a + b, 0) }))
    .sort((a, b) => b.sum - a.sum || a.name.localeCompare(b.name))
    .map(({ name, values }) =>
      route.stack === 'agent' ? { name, values, colour: `usage-agent-${name}` } : { name, values },
    );
}

type Column =
  | 'key'
  | 'inputTokens'
  | 'outputTokens'
  | 'cacheCreationTokens'
  | 'cacheReadTokens'
  | 'totalTokens'
  | 'totalCost';
const COLUMNS: { id: Column; label: string }[] = [
  { id: 'key', label: 'Period' },
  { id: 'inputTokens', label: 'Input' },
  { id: 'outputTokens', label: 'Output' },
  { id: 'cacheCreationTokens', label: 'Cache write' },
  { id: 'cacheReadTokens', label: 'Cache read' },
  { id: 'totalTokens', label: 'Total tokens' },
  { id: 'totalCost', label: 'Cost' },
];

function UsageTable({ rows, totals }: { rows: readonly UsageRow[]; totals: UsageReadResult['totals'] }) {
  const [sort, setSort] = useState<{ column: Column; descending: boolean }>({
    column: 'key',
    descending: false,
  });
  const sorted = useMemo(() => {
    const value = (r: UsageRow) => (sort.column === 'key' ? r.key : (r[sort.column] ?? -1));
    const out = [...rows].sort((a, b) => {
      const x = value(a);
      const y = value(b);
      return x < y ? -1 : x > y ? 1 : 0;
    });
    return sort.descending ? out.reverse() : out;
  }, [rows, sort]);
  const cell = (r: UsageRow | UsageReadResult['totals'], c: Column) =>
    c === 'totalCost' ? cost(r.totalCost) : c === 'key' ? '' : formatExact(r[c]);
  return (
    <table class="usage-table">
      <caption class="visually-hidden">Tokens and cost per period</caption>
      <thead>
        <tr>
          {COLUMNS.map((c) => {
            const current = sort.column === c.id;
            return (
              <th
                key={c.id}
                scope="col"
                class={c.id === 'key' ? '' : 'num'}
                aria-sort={current ? (sort.descending ? 'descending' : 'ascending') : 'none'}
              >
                <button
                  type="button"
                  class="usage-sort"
                  onClick={() =>
                    setSort({ column: c.id, descending: current ? !sort.descending : c.id !== 'key' })
                  }
                >
                  {c.label}
                  <span aria-hidden="true">{current ? (sort.descending ? ' ▼' : ' ▲') : ''}</span>
                </button>
              </th>
            );
          })}
          <th scope="col">Models</th>
        </tr>
      </thead>
      <tbody>
        {sorted.map((r) => (
          <tr
            key={r.key}
            class="usage-row"
            data-key={r.key}
            data-total-tokens={r.totalTokens}
            data-cost={r.totalCost ?? ''}
          >
            <th scope="row">{r.key}</th>
            {COLUMNS.slice(1).map((c) => (
              <td key={c.id} class="num">
                {cell(r, c.id)}
              </td>
            ))}
            <td class="usage-models">{r.modelsUsed.map(shortModel).join(', ')}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">Total</th>
          {COLUMNS.slice(1).map((c) => (
            <td key={c.id} class="num">
              {cell(totals, c.id)}
            </td>
          ))}
          <td />
        </tr>
      </tfoot>
    </table>
  );
}

function ActiveWindow({ active }: { active: UsageActiveBlock | undefined }) {
  if (!active)
    return (
      <section class="usage-window" aria-labelledby="usage-window-title">
        <h2 id="usage-window-title">Billing window</h2>
        <p class="muted">No 5-hour window is open: no request in the last five hours.</p>
      </section>
    );
  const { row, burnRate, projection } = active;
  return (
    <section class="usage-window usage-window-open" aria-labelledby="usage-window-title">
      <h2 id="usage-window-title">
        Billing window {formatClock(Date.parse(row.key))}–{formatClock(row.endAt ?? Date.parse(row.key))}
      </h2>
      <dl class="usage-facts">
        <dt>Tokens</dt>
        <dd data-value={row.totalTokens}>{formatExact(row.totalTokens)}</dd>
        <dt>Cost</dt>
        <dd>{cost(row.totalCost)}</dd>
        <dt>Burn rate</dt>
        <dd class="usage-burn">
          {burnRate
            ? `${formatCount(Math.round(burnRate.tokensPerMinute))} tokens/min · ${cost(burnRate.costPerHour)}/h`
            : 'one request so far'}
        </dd>
        <dt>Projected by the window’s end</dt>
        <dd class="usage-projection">
          {projection
            ? `${formatExact(projection.totalTokens)} tokens · ${cost(projection.totalCost)} · ${projection.remainingMinutes} min left`
            : '–'}
        </dd>
      </dl>
      <ul class="usage-window-sessions">
        {active.sessions.map((s) => (
          <li key={`${s.agent}/${s.sid}`}>
            <a href={sessionHref(s.agent, s.sid)}>{shownText(s.title ?? s.sid)}</a>
            <span class="muted small">
              {' '}
              · {s.agent} · last request {formatClock(s.lastAt)}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}

interface TreeNode {
  name: string;
  cost: number;
  /** A model without a price was used below this node: its cost is a floor. */
  unpriced: boolean;
  tokens: number;
}

/** Agent, then project, then session, each the largest cost first. */
function CostTree({ rows, route }: { rows: readonly UsageRow[]; route: UsageRoute }) {
  const tree = useMemo(() => {
    const agents = new Map<
      string,
      TreeNode & { projects: Map<string, TreeNode & { sessions: UsageRow[] }> }
    >();
    const add = (n: TreeNode, r: UsageRow) => {
      n.cost += r.totalCost ?? 0;
      n.unpriced ||= r.totalCost === null;
      n.tokens += r.totalTokens;
    };
    for (const r of rows) {
      const agentName = r.agents[0] ?? '?';
      const projectName = r.projects[0] ?? '';
      let a = agents.get(agentName);
      if (!a) {
        a = { name: agentName, cost: 0, unpriced: false, tokens: 0, projects: new Map() };
        agents.set(agentName, a);
      }
      let p = a.projects.get(projectName);
      if (!p) {
        p = { name: projectName, cost: 0, unpriced: false, tokens: 0, sessions: [] };
        a.projects.set(projectName, p);
      }
      add(a, r);
      add(p, r);
      p.sessions.push(r);
    }
    const byCost = (x: TreeNode, y: TreeNode) => y.cost - x.cost || y.tokens - x.tokens;
    return [...agents.values()].sort(byCost).map((a) => ({
      ...a,
      projects: [...a.projects.values()].sort(byCost).map((p) => ({
        ...p,
        sessions: [...p.sessions].sort((x, y) => (y.totalCost ?? 0) - (x.totalCost ?? 0)),
      })),
    }));
  }, [rows]);
  const amount = (n: TreeNode) =>
    `${n.unpriced ? '≥ ' : ''}${formatCost(n.cost)} · ${formatCount(n.tokens)} tokens`;
  return (
    <section class="usage-tree" aria-labelledby="usage-tree-title">
      <h2 id="usage-tree-title">Where the cost went</h2>
      <ul class="usage-tree-agents">
        {tree.map((a) => (
          <li key={a.name}>
            <details open={tree.length === 1}>
              <summary>
                <span class={`agent-${a.name}`}>{a.name}</span> <span class="muted">{amount(a)}</span>
              </summary>
              <ul>
                {a.projects.map((p) => (
                  <li key={p.name}>
                    <details open={a.projects.length === 1}>
                      <summary>
                        <span title={p.name}>{p.name === '' ? '(no folder)' : shortPath(p.name)}</span>{' '}
                        <span class="muted">{amount(p)}</span>
                        {p.name !== '' && route.project !== p.name && (
                          <a class="small usage-only" href={href(route, { project: p.name })}>
                            only this project
                          </a>
                        )}
                      </summary>
                      <ul>
                        {p.sessions.map((s) => (
                          <li key={s.key} class="usage-tree-session" data-sid={s.key}>
                            <a href={sessionHref(a.name, s.key, 'summary')}>{shownText(s.title ?? s.key)}</a>{' '}
                            <span class="muted">
                              {cost(s.totalCost)} · {formatCount(s.totalTokens)} tokens
                            </span>
                          </li>
                        ))}
                      </ul>
                    </details>
                  </li>
                ))}
              </ul>
            </details>
          </li>
        ))}
      </ul>
    </section>
  );
}

function Choice<T extends string>({
  label,
  value,
  options,
  hrefOf,
}: {
  label: string;
  value: T;
  options: readonly { value: T; label: string }[];
  hrefOf: (v: T) => string;
}) {
  return (
    <nav class="usage-choice" aria-label={label}>
      {options.map((o) => (
        <a key={o.value} href={hrefOf(o.value)} aria-current={o.value === value ? 'true' : undefined}>
          {o.label}
        </a>
      ))}
    </nav>
  );
}

function Filters({ route, agents }: { route: UsageRoute; agents: readonly string[] }) {
  const go = (change: Partial<UsageFilters>) => {
    window.location.hash = href(route, change);
  };
  return (
    <div class="usage-filters">
      <Choice
        label="Period"
        value={route.by}
        options={[
          { value: 'daily', label: 'Day' },
          { value: 'weekly', label: 'Week' },
          { value: 'monthly', label: 'Month' },
        ]}
        hrefOf={(by) => href(route, { by })}
      />
      <Choice
        label="Chart shows"
        value={route.show}
        options={[
          { value: 'cost', label: 'Cost' },
          { value: 'tokens', label: 'Tokens' },
        ]}
        hrefOf={(show) => href(route, { show })}
      />
      <Choice
        label="Stacked by"
        value={route.stack}
        options={[
          { value: 'agent', label: 'By agent' },
          { value: 'model', label: 'By model' },
          { value: 'project', label: 'By project' },
        ]}
        hrefOf={(stack) => href(route, { stack })}
      />
      <label>
        Agent{' '}
        <select
          class="usage-agent"
          value={route.agent ?? ''}
          onChange={(e) => go({ agent: e.currentTarget.value || undefined })}
        >
          <option value="">All agents</option>
          {agents.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </label>
      <label>
        From{' '}
        <input
          type="date"
          class="usage-since"
          value={route.since ?? ''}
          onChange={(e) => go({ since: e.currentTarget.value || undefined })}
        />
      </label>
      <label>
        To{' '}
        <input
          type="date"
          class="usage-until"
          value={route.until ?? ''}
          onChange={(e) => go({ until: e.currentTarget.value || undefined })}
        />
      </label>
      {route.project && (
        <a class="usage-chip" href={href(route, { project: undefined })} title="Show every project">
          project {shortPath(route.project)} ✕
        </a>
      )}
      {route.model && (
        <a class="usage-chip" href={href(route, { model: undefined })} title="Show every model">
          model {route.model} ✕
        </a>
      )}
    </div>
  );
}

export function UsageView({ route }: { route: UsageRoute }) {
  const { periods: state, sessions: sessionsState } = useUsage(route);
  const Chart = useChart();
  // The agent menu keeps every agent seen, so choosing one does not empty it of the others.
  const [agents, setAgents] = useState<string[]>([]);
  const value = 'value' in state ? state.value : undefined;
  const sessions = 'value' in sessionsState ? sessionsState.value : undefined;
  useEffect(() => {
    if (!sessions) return;
    const seen = new Set(agents);
    for (const r of sessions.rows) for (const a of r.agents) seen.add(a);
    if (seen.size !== agents.length) setAgents([...seen].sort());
  }, [sessions]);
  const series = useMemo(() => (value ? seriesOf(value.rows, route) : []), [value, route.stack, route.show]);
  return (
    <div class="usage-view">
      <h1 class="usage-title">Usage</h1>
      <Filters route={route} agents={agents} />
      {state.loading ? (
        <p class="muted" role="status">
          Counting every session’s requests…
        </p>
      ) : 'error' in state ? (
        <p class="error" role="alert">
          Could not count the usage: {state.error}
        </p>
      ) : (
        <>
          <p class="usage-summary">
            <span class="usage-total-cost">{cost(state.value.totals.totalCost)}</span> ·{' '}
            {formatExact(state.value.totals.totalTokens)} tokens ·{' '}
            <span class="muted small">
              prices from {state.value.prices}; days in {state.value.timezone}
            </span>
          </p>
          <ActiveWindow active={state.value.active} />
          <section class="usage-periods" aria-labelledby="usage-periods-title">
            <h2 id="usage-periods-title">{route.show === 'cost' ? 'Cost' : 'Tokens'} per period</h2>
            {state.value.rows.length === 0 ? (
              <p class="muted">No request with tokens matches.</p>
            ) : (
              <>
                {Chart ? (
                  <Chart
                    labels={state.value.rows.map((r) => r.key)}
                    series={series}
                    format={route.show === 'cost' ? formatCost : formatCount}
                    title={`${route.show === 'cost' ? 'Cost' : 'Tokens'} per ${route.by === 'daily' ? 'day' : route.by === 'weekly' ? 'week' : 'month'}, stacked by ${route.stack}; the table below has the same numbers`}
                  />
                ) : (
                  <div class="usage-chart usage-chart-waiting" aria-hidden="true" />
                )}
                <UsageTable rows={state.value.rows} totals={state.value.totals} />
              </>
            )}
          </section>
          {state.value.rows.length > 0 && <CacheRatio rows={state.value.rows} Chart={Chart} />}
          {sessions ? (
            <TopSessions rows={sessions.rows} />
          ) : 'error' in sessionsState ? (
            <p class="error" role="alert">
              Could not count the sessions’ usage: {sessionsState.error}
            </p>
          ) : (
            <p class="muted" role="status">
              Counting each session…
            </p>
          )}
          <ProjectCosts result={state.value} hrefOf={(project) => href(route, { project })} />
          {sessions && <CostTree rows={sessions.rows} route={route} />}
        </>
      )}
    </div>
  );
}
