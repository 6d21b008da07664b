// A session's numbers: turns, requests, tokens, duration, failures, subagents, compactions, where the
// cost went lane by lane, and the context shape. A number the agent does not record says so rather
// than showing 0.
import type { OpArgs, SessionSummaryReadResult } from '@cairn/protocol';
import { useEffect, useState } from 'preact/hooks';
import { useChanges, useServices } from '../context.js';
import { shownText } from '../display.js';
import { formatCount, formatDuration, formatExact } from '../format.js';
import { ALL_LANES } from '../session/numbers.js';
import { formatCost, shortModel } from '../sessions/list.js';
import { ContextPlot } from './context-plot.js';
import { CostTree, useLaneCosts } from './cost-tree.js';
import { ACTIVE_NOTE } from './model-and-time.js';

type State =
  | { loading: true }
  | { loading: false; error: string }
  | { loading: false; value: SessionSummaryReadResult };

export function SummaryView({ agent, sid }: { agent: string; sid: string }) {
  const { conn, directory } = useServices();
  useChanges(directory);
  const head = directory.get(agent, sid);
  const [state, setState] = useState<State>({ loading: true });
  const laneCosts = useLaneCosts(conn, agent, sid);
  useEffect(() => {
    let current = true;
    const args = { sid, agent, prompts: true } as OpArgs<'session_summary_read'>;
    void conn.request('session_summary_read', args).then((reply) => {
      if (!current) return;
      setState(
        reply.ok ? { loading: false, value: reply.value } : { loading: false, error: reply.error.message },
      );
    });
    return () => {
      current = false;
    };
  }, [agent, sid]);

  if (state.loading) return <p class="muted pad">Reading the session’s numbers…</p>;
  if ('error' in state) return <p class="error pad">Could not read the summary: {state.error}</p>;
  const { summary: s } = state.value;
  const tokens = (n: number | undefined) => (n === undefined ? undefined : formatCount(n));
  const cards: [string, string | undefined, string?][] = [
    [
      'Model',
      head?.model === undefined ? undefined : shortModel(head.model),
      'the main agent’s; subagents may run others',
    ],
    [
      'Prompts',
      head?.prompts === undefined ? undefined : formatExact(head.prompts),
      'typed messages and slash commands',
    ],
    ['Turns', s.turns === undefined ? undefined : formatExact(s.turns), 'prompts the person typed'],
    ['Requests', s.requests === undefined ? undefined : formatExact(s.requests), 'model calls'],
    [
      'Input tokens',
      tokens(s.inputTokens),
      s.cacheReadTokens !== undefined
        ? `${formatCount(s.cacheReadTokens)} read from cache · ${formatCount(s.cacheWriteTokens ?? 0)} written`
        : undefined,
    ],
    ['Output tokens', tokens(s.outputTokens), 'reasoning included'],
    [
      'Cost',
      head?.cost_usd !== undefined
        ? formatCost(head.cost_usd)
        : head?.model !== undefined
          ? 'no price known for its model'
          : undefined,
      head?.cost_usd !== undefined ? `estimated from ${head.prices ?? 'the price catalog'}` : undefined,
    ],
    [
      'Duration',
      s.durationMs === undefined ? undefined : formatDuration(s.durationMs),
      'wall-clock: first to last record',
    ],
    ['Active time', head?.active_ms === undefined ? undefined : formatDuration(head.active_ms), ACTIVE_NOTE],
    ['Failed tool calls', s.failedTools === undefined ? undefined : formatExact(s.failedTools), ALL_LANES],
    [
      'Subagents',
      s.subagents === undefined ? undefined : formatExact(s.subagents),
      'lanes besides the session’s own',
    ],
    ['Compactions', s.compactions === undefined ? undefined : formatExact(s.compactions), ALL_LANES],
  ];
  return (
    <div class="summary-view pad">
      <dl class="cards">
        {cards.map(([label, value, note]) => (
          <div class="card" key={label} data-number={label}>
            <dt>{label}</dt>
            <dd class={value === undefined ? 'absent' : ''}>{value ?? 'not recorded'}</dd>
            {note && value !== undefined && <dd class="muted small">{note}</dd>}
          </div>
        ))}
      </dl>
      {(s.inputTokens !== undefined || s.requests !== undefined) && (
        <section aria-labelledby="cost-tree-title">
          <h2 id="cost-tree-title">Where the cost went</h2>
          <CostTree agent={agent} sid={sid} costs={laneCosts} />
        </section>
      )}
      <h2>Context shape</h2>
      {s.contextShape ? (
        <ContextPlot
          shape={s.contextShape}
          compactions={s.compactions ?? 0}
          marks={
            'lanes' in laneCosts && laneCosts.lanes[0] ? (laneCosts.lanes[0].contextMarks ?? []) : undefined
          }
        />
      ) : (
        <p class="muted">This agent’s files do not record token usage.</p>
      )}
      {s.prompts && s.prompts.length > 0 && (
        <>
          <h2>Prompts</h2>
          <ol class="prompts">
            {s.prompts.map((p, i) => (
              <li key={i}>{shownText(p.length > 400 ? `${p.slice(0, 399)}…` : p)}</li>
            ))}
          </ol>
        </>
      )}
      <p class="muted small">
        Recorded: {state.value.capabilities.join(', ') || 'nothing beyond the messages'}.
      </p>
    </div>
  );
}
