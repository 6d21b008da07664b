// The Usage page's smaller sections: how much input the cache served per period, the ten sessions
// that cost the most, and the cost per project. Each is a table of the op's own numbers (the cache
// ratio also as a chart); titles and folders are shown as text, never as markup.
import type { UsageReadResult, UsageRow } from '@cairn/protocol';
import type { ComponentType } from 'preact';
import { useMemo } from 'preact/hooks';
import { shownText } from '../display.js';
import { formatCount, formatExact, shortPath } from '../format.js';
import { sessionHref } from '../route.js';
import { formatCost } from '../sessions/list.js';
import type { ChartProps } from './usage-chart.js';

const cost = (usd: number | null | undefined): string =>
  usd === null || usd === undefined ? '–' : formatCost(usd);

/** Cache reads over all input the model took in; null when the row took in none. */
export function cacheHitRatio(r: Pick<UsageRow, 'inputTokens' | 'cacheReadTokens' | 'cacheCreationTokens'>) {
  const input = r.inputTokens + r.cacheReadTokens + r.cacheCreationTokens;
  return input === 0 ? null : r.cacheReadTokens / input;
}

const percent = (ratio: number | null): string => (ratio === null ? '–' : `${(ratio * 100).toFixed(1)}%`);

export function CacheRatio({
  rows,
  Chart,
}: {
  rows: readonly UsageRow[];
  Chart: ComponentType<ChartProps> | undefined;
}) {
  const ratios = rows.map(cacheHitRatio);
  return (
    <section class="usage-cache" aria-labelledby="usage-cache-title">
      <h2 id="usage-cache-title">Cache hit ratio</h2>
      <p class="muted small">Cache reads ÷ (input + cache reads + cache writes), per period.</p>
      {Chart && (
        <div class="usage-chart-small">
          <Chart
            labels={rows.map((r) => r.key)}
            series={[{ name: 'Cache hit ratio', values: ratios.map((x) => (x ?? 0) * 100) }]}
            format={(v) => `${Math.round(v)}%`}
            title="Cache hit ratio per period; the table below has the same numbers"
          />
        </div>
      )}
      <table class="usage-table usage-cache-table">
        <caption class="visually-hidden">Cache hit ratio per period</caption>
        <thead>
          <tr>
            <th scope="col">Period</th>
            <th scope="col" class="num">
              Cache read
            </th>
            <th scope="col" class="num">
              All input
            </th>
            <th scope="col" class="num">
              Hit ratio
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={r.key} class="usage-cache-row" data-key={r.key} data-ratio={ratios[i] ?? ''}>
              <th scope="row">{r.key}</th>
              <td class="num">{formatExact(r.cacheReadTokens)}</td>
              <td class="num">{formatExact(r.inputTokens + r.cacheReadTokens + r.cacheCreationTokens)}</td>
              <td class="num">{percent(ratios[i] ?? null)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** How many sessions the top list shows. */
export const TOP_SESSIONS = 10;

/** The dearest sessions first; those without a price after every priced one. */
export function topSessions(rows: readonly UsageRow[]): UsageRow[] {
  return [...rows]
    .sort((a, b) => (b.totalCost ?? -1) - (a.totalCost ?? -1) || b.totalTokens - a.totalTokens)
    .slice(0, TOP_SESSIONS);
}

export function TopSessions({ rows }: { rows: readonly UsageRow[] }) {
  const top = useMemo(() => topSessions(rows), [rows]);
  return (
    <section class="usage-top" aria-labelledby="usage-top-title">
      <h2 id="usage-top-title">Top sessions by cost</h2>
      <table class="usage-table usage-top-table">
        <caption class="visually-hidden">The {TOP_SESSIONS} sessions that cost the most</caption>
        <thead>
          <tr>
            <th scope="col">Session</th>
            <th scope="col">Agent</th>
            <th scope="col" class="num">
              Tokens
            </th>
            <th scope="col" class="num">
              Cost
            </th>
          </tr>
        </thead>
        <tbody>
          {top.map((r) => {
            const agent = r.agents[0] ?? '';
            return (
              <tr
                key={`${agent}/${r.key}`}
                class="usage-top-row"
                data-sid={r.key}
                data-cost={r.totalCost ?? ''}
              >
                <th scope="row">
                  <a href={sessionHref(agent, r.key)}>{shownText(r.title ?? r.key)}</a>
                </th>
                <td>{agent}</td>
                <td class="num">{formatCount(r.totalTokens)}</td>
                <td class="num">{cost(r.totalCost)}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

interface ProjectCost {
  project: string;
  totalTokens: number;
  cost: number;
  /** A model without a price was used there: the cost is a floor. */
  unpriced: boolean;
}

/** The periods' project breakdowns added up, the dearest project first. */
export function projectCosts(result: Pick<UsageReadResult, 'rows'>): ProjectCost[] {
  const byProject = new Map<string, ProjectCost>();
  for (const r of result.rows)
    for (const p of r.projectBreakdowns) {
      let sum = byProject.get(p.project);
      if (!sum) {
        sum = { project: p.project, totalTokens: 0, cost: 0, unpriced: false };
        byProject.set(p.project, sum);
      }
      sum.totalTokens += p.totalTokens;
      sum.cost += p.cost ?? 0;
      sum.unpriced ||= p.cost === null;
    }
  return [...byProject.values()].sort(
    (a, b) => b.cost - a.cost || b.totalTokens - a.totalTokens || a.project.localeCompare(b.project),
  );
}

export function ProjectCosts({
  result,
  hrefOf,
}: {
  result: UsageReadResult;
  hrefOf: (project: string) => string;
}) {
  const projects = useMemo(() => projectCosts(result), [result]);
  const dearest = Math.max(0, ...projects.map((p) => p.cost));
  return (
    <section class="usage-projects" aria-labelledby="usage-projects-title">
      <h2 id="usage-projects-title">Cost per project</h2>
      <table class="usage-table usage-projects-table">
        <caption class="visually-hidden">Tokens and cost per project</caption>
        <thead>
          <tr>
            <th scope="col">Project</th>
            <th scope="col" class="num">
              Tokens
            </th>
            <th scope="col" class="num">
              Cost
            </th>
            <th scope="col">
              <span class="visually-hidden">Share of the dearest project</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {projects.map((p) => (
            <tr
              key={p.project}
              class="usage-project-row"
              data-project={p.project}
              data-total-tokens={p.totalTokens}
              data-cost={p.cost}
            >
              <th scope="row" title={p.project}>
                {p.project === '' ? '(no folder)' : <a href={hrefOf(p.project)}>{shortPath(p.project)}</a>}
              </th>
              <td class="num">{formatExact(p.totalTokens)}</td>
              <td class="num">
                {p.unpriced ? '≥ ' : ''}
                {formatCost(p.cost)}
              </td>
              <td class="usage-project-bar-cell" aria-hidden="true">
                <span
                  class="usage-project-bar"
                  style={{ width: `${dearest > 0 ? Math.round((p.cost / dearest) * 100) : 0}%` }}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
