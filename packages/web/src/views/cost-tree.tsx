// Where a session's tokens and money went: the main agent and each subagent, nested as they spawned,
// with their tokens, cost and share of the session. A table, so every number has a heading; each lane
// is a link that opens it in the reader.
import type { OpArgs, SessionLaneCost } from '@cairn/protocol';
import { useEffect, useState } from 'preact/hooks';
import { shownText } from '../display.js';
import { formatCount, formatExact } from '../format.js';
import { sessionHref } from '../route.js';
import type { Connection } from '../rpc.js';
import { formatCost, shortModel } from '../sessions/list.js';

export type LaneCosts =
  | { loading: true }
  | { loading: false; error: string }
  | { loading: false; lanes: SessionLaneCost[]; prices: string | undefined };

/** The session's lanes with their costs, read once per visit (the server reads the transcript whole). */
export function useLaneCosts(conn: Connection, agent: string, sid: string): LaneCosts {
  const [state, setState] = useState<LaneCosts>({ loading: true });
  useEffect(() => {
    let current = true;
    setState({ loading: true });
    const args = { sid, agent, lanes: true } as OpArgs<'session_summary_read'>;
    void conn.request('session_summary_read', args).then((reply) => {
      if (!current) return;
      setState(
        reply.ok
          ? { loading: false, lanes: reply.value.lanes ?? [], prices: reply.value.prices }
          : { loading: false, error: reply.error.message },
      );
    });
    return () => {
      current = false;
    };
  }, [conn, agent, sid]);
  return state;
}

/** A lane's place in the tree: its depth and the name of the lane that started it. */
export interface TreeRow {
  lane: SessionLaneCost;
  depth: number;
  name: string;
  parentName?: string;
}

const laneTokens = (l: SessionLaneCost): number => l.inputTokens + l.outputTokens;

/** The lanes with their depths; the server answers them depth first, each after its parent. */
export function treeRows(lanes: readonly SessionLaneCost[]): TreeRow[] {
  const byId = new Map<string, TreeRow>();
  const rows: TreeRow[] = [];
  for (const lane of lanes) {
    const parent = lane.parentId === undefined ? undefined : byId.get(lane.parentId);
    const name =
      lane.parentId === undefined ? 'Main agent' : lane.title ? shownText(lane.title) : `Subagent ${lane.id}`;
    const row: TreeRow = {
      lane,
      depth: parent ? parent.depth + 1 : lane.parentId === undefined ? 0 : 1,
      name,
    };
    if (parent) row.parentName = parent.name;
    byId.set(lane.id, row);
    rows.push(row);
  }
  return rows;
}

/**
 * The session's cost as its lanes add it up: undefined when a lane that used tokens has no price
 * (a partial sum would read as the whole).
 */
export function sessionCostOf(lanes: readonly SessionLaneCost[]): number | undefined {
  let total = 0;
  for (const l of lanes) {
    if (laneTokens(l) === 0) continue;
    if (l.costUsd === undefined) return undefined;
    total += l.costUsd;
  }
  return total;
}

const percent = new Intl.NumberFormat(undefined, {
  style: 'percent',
  minimumFractionDigits: 1,
  maximumFractionDigits: 1,
});

/** What a lane ran on, and its compactions, under its name. */
const meta = (lane: SessionLaneCost): string =>
  [
    lane.models.map(shortModel).join(', '),
    lane.compactions > 0
      ? `${formatExact(lane.compactions)} compaction${lane.compactions === 1 ? '' : 's'}`
      : '',
  ]
    .filter((part) => part !== '')
    .join(' · ');
const shareText = (part: number, whole: number): string =>
  whole > 0 ? (part > 0 && part / whole < 0.001 ? '<0.1%' : percent.format(part / whole)) : '—';

/** Deeper lanes are indented up to this depth; deeper still they line up with it. */
const MAX_INDENT = 4;
const BAR = 64;

export function CostTree({ agent, sid, costs }: { agent: string; sid: string; costs: LaneCosts }) {
  if (costs.loading) return <p class="muted">Adding up each lane’s requests…</p>;
  if ('error' in costs) return <p class="error">Could not read the lanes’ costs: {costs.error}</p>;
  const { lanes, prices } = costs;
  if (lanes.length === 0) return <p class="muted">No lanes recorded.</p>;
  const rows = treeRows(lanes);
  const totalCost = sessionCostOf(lanes);
  const totalTokens = lanes.reduce((n, l) => n + laneTokens(l), 0);
  const sum = (key: 'requests' | 'inputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'outputTokens') =>
    lanes.reduce((n, l) => n + l[key], 0);
  const costText = (l: SessionLaneCost): string =>
    l.costUsd !== undefined
      ? formatCost(l.costUsd)
      : laneTokens(l) === 0
        ? '—'
        : `no price for ${(l.unpricedModels ?? l.models).map(shortModel).join(', ')}`;
  return (
    <div class="cost-tree-wrap">
      <table class="cost-tree" aria-describedby="cost-tree-note">
        <caption class="visually-hidden">
          Tokens and cost of the main agent and each subagent, nested under the lane that started it
        </caption>
        <thead>
          <tr>
            <th scope="col">Lane</th>
            <th scope="col" class="num">
              Requests
            </th>
            <th scope="col" class="num">
              Input
            </th>
            <th scope="col" class="num">
              Cache read
            </th>
            <th scope="col" class="num">
              Cache write
            </th>
            <th scope="col" class="num">
              Output
            </th>
            <th scope="col" class="num">
              Cost
            </th>
            <th scope="col" class="num">
              Share of cost
            </th>
            <th scope="col" class="num">
              Share of tokens
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map(({ lane, depth, name, parentName }) => {
            const share =
              totalCost !== undefined && totalCost > 0 ? (lane.costUsd ?? 0) / totalCost : undefined;
            const href =
              lane.parentId === undefined
                ? sessionHref(agent, sid)
                : lane.landing
                  ? sessionHref(agent, sid, 'timeline', { ...lane.landing, lane: lane.id })
                  : undefined;
            return (
              <tr
                key={lane.id}
                class={`cost-lane depth-${Math.min(depth, MAX_INDENT)}`}
                data-lane={lane.id}
                data-depth={depth}
                data-parent={lane.parentId ?? ''}
                data-tokens={laneTokens(lane)}
                data-cost={lane.costUsd ?? ''}
              >
                <th scope="row">
                  {parentName !== undefined && <span class="visually-hidden">started by {parentName}: </span>}
                  {href ? <a href={href}>{name}</a> : name}
                  {meta(lane) !== '' && <span class="lane-meta muted small">{meta(lane)}</span>}
                </th>
                <td class="num">{formatExact(lane.requests)}</td>
                <td class="num" title={formatExact(lane.inputTokens)}>
                  {formatCount(lane.inputTokens)}
                </td>
                <td class="num" title={formatExact(lane.cacheReadTokens)}>
                  {formatCount(lane.cacheReadTokens)}
                </td>
                <td class="num" title={formatExact(lane.cacheWriteTokens)}>
                  {formatCount(lane.cacheWriteTokens)}
                </td>
                <td class="num" title={formatExact(lane.outputTokens)}>
                  {formatCount(lane.outputTokens)}
                </td>
                <td class={`num${lane.costUsd === undefined ? ' absent' : ''}`}>{costText(lane)}</td>
                <td class="num">
                  <span class="share">
                    {share !== undefined && (
                      <svg
                        class="share-bar"
                        width={BAR}
                        height="8"
                        viewBox={`0 0 ${BAR} 8`}
                        aria-hidden="true"
                      >
                        <rect class="share-track" width={BAR} height="8" rx="2" />
                        <rect class="share-fill" width={(share * BAR).toFixed(1)} height="8" rx="2" />
                      </svg>
                    )}
                    <span>{share !== undefined ? shareText(lane.costUsd ?? 0, totalCost!) : '—'}</span>
                  </span>
                </td>
                <td class="num">{shareText(laneTokens(lane), totalTokens)}</td>
              </tr>
            );
          })}
        </tbody>
        <tfoot>
          <tr class="cost-total" data-tokens={totalTokens} data-cost={totalCost ?? ''}>
            <th scope="row">Whole session</th>
            <td class="num">{formatExact(sum('requests'))}</td>
            <td class="num">{formatCount(sum('inputTokens'))}</td>
            <td class="num">{formatCount(sum('cacheReadTokens'))}</td>
            <td class="num">{formatCount(sum('cacheWriteTokens'))}</td>
            <td class="num">{formatCount(sum('outputTokens'))}</td>
            <td class={`num${totalCost === undefined ? ' absent' : ''}`}>
              {totalCost !== undefined ? formatCost(totalCost) : 'not known'}
            </td>
            <td class="num">{totalCost !== undefined && totalCost > 0 ? percent.format(1) : '—'}</td>
            <td class="num">{totalTokens > 0 ? percent.format(1) : '—'}</td>
          </tr>
        </tfoot>
      </table>
      <p id="cost-tree-note" class="muted small">
        Input includes cache reads and writes; each request priced on its own
        {prices ? ` with ${prices}` : ''}.
        {totalCost === undefined &&
          ' A lane whose model has no price leaves the session’s cost, and so each share of it, unknown.'}
      </p>
    </div>
  );
}
