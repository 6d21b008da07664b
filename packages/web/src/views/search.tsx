// Full-text results: best first, each with its snippet's matches marked and a link to the exact item.
import { type OpArgs, type SessionSearchHit, snippetParts } from '@cairn/protocol';
import { useEffect, useState } from 'preact/hooks';
import { useServices } from '../context.js';
import { shownText } from '../display.js';
import { formatAgo, formatDateTime, shortPath } from '../format.js';
import { sessionHref } from '../route.js';

const PAGE = 50;
const TEXT_TARGETS = ['prompt', 'assistant', 'thinking', 'tool_input'] as const;

interface SearchState {
  readonly hits: SessionSearchHit[];
  readonly next: string | undefined;
  readonly partial: boolean;
  readonly loading: boolean;
  readonly error: string | undefined;
}

const EMPTY: SearchState = { hits: [], next: undefined, partial: false, loading: true, error: undefined };

export function SearchResults({
  query,
  tools,
  agent,
}: {
  query: string;
  tools: boolean;
  agent: string | undefined;
}) {
  const { conn } = useServices();
  const [state, setState] = useState<SearchState>(EMPTY);

  const fetchPage = async (
    cursor: string | undefined,
    previous: SessionSearchHit[],
  ): Promise<SearchState> => {
    const args: Record<string, unknown> = { query, limit: PAGE };
    if (!tools) args.targets = [...TEXT_TARGETS];
    if (agent) args.agents = [agent];
    if (cursor) args.cursor = cursor;
    const reply = await conn.request('session_search', args as OpArgs<'session_search'>);
    if (!reply.ok) return { ...EMPTY, hits: previous, loading: false, error: reply.error.message };
    return {
      hits: [...previous, ...reply.value.hits],
      next: reply.value.next_cursor,
      partial: reply.value.partial,
      loading: false,
      error: undefined,
    };
  };

  useEffect(() => {
    let current = true;
    setState(EMPTY);
    void fetchPage(undefined, []).then((s) => {
      if (current) setState(s);
    });
    return () => {
      current = false;
    };
  }, [query, tools, agent]);

  return (
    <section class="search-results" aria-live="polite">
      <p class="muted summary-line">
        {state.loading
          ? `Searching for “${query}”…`
          : state.error
            ? `Search failed: ${state.error}`
            : `${state.hits.length}${state.next ? '+' : ''} result${state.hits.length === 1 ? '' : 's'} for “${query}”${tools ? '' : ' (tool output not searched)'}`}
        {state.partial && ' — the index is still being built, so some sessions were not searched yet.'}
      </p>
      <ol class="hits">
        {state.hits.map((hit) => (
          <Hit key={`${hit.agent}/${hit.sid}/${hit.item_uuid}/${hit.item_type}/${hit.target}`} hit={hit} />
        ))}
      </ol>
      {state.next && (
        <button
          type="button"
          class="link"
          onClick={() => {
            const next = state.next;
            setState({ ...state, loading: true });
            void fetchPage(next, state.hits).then(setState);
          }}
        >
          more results
        </button>
      )}
    </section>
  );
}

function Hit({ hit }: { hit: SessionSearchHit }) {
  const ref = { uuid: hit.item_uuid, type: hit.item_type, ...(hit.agent_id ? { lane: hit.agent_id } : {}) };
  const href = sessionHref(hit.agent, hit.sid, 'timeline', ref);
  return (
    <li class="hit">
      <a href={href} class="hit-link">
        <div class="hit-head">
          <span class="session-title">{shownText(hit.title ?? hit.sid)}</span>
          <span class={`agent-badge agent-${hit.agent}`}>{hit.agent}</span>
          {hit.agent_id && <span class="lane-badge">subagent {hit.agent_id}</span>}
          <span class="type-badge">{hit.item_type}</span>
          {hit.at !== undefined && (
            <span class="muted small" title={formatDateTime(hit.at)}>
              {formatAgo(hit.at)}
            </span>
          )}
        </div>
        <p class="snippet">
          {snippetParts(hit.snippet).map((part, i) =>
            part.match ? <mark key={i}>{shownText(part.text)}</mark> : shownText(part.text),
          )}
        </p>
        {hit.cwd && <div class="muted small">{shortPath(shownText(hit.cwd), 3)}</div>}
      </a>
    </li>
  );
}
