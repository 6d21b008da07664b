// Full-text results, grouped by session (the session with the best hit first), each group under the
// session's title, each hit with its time, its snippet's matches marked and a link to the exact item
// that carries the query, so the item shows what matched.
import { type OpArgs, type SessionSearchHit, snippetParts } from '@cairn/protocol';
import { useEffect, useState } from 'preact/hooks';
import { useChanges, useServices } from '../context.js';
import { shownText } from '../display.js';
import { formatDateTime, shortPath } from '../format.js';
import { type ListFilters, sessionHref } from '../route.js';
import { dayStart, lastActive } from '../sessions/list.js';
import { marksOf, passesMarks } from '../sessions/marks.js';
import { itemLabel } from '../sessions/type-labels.js';
import { TaggedSessions } from './marks.js';

const PAGE = 50;
const TEXT_TARGETS = ['prompt', 'assistant', 'thinking', 'tool_input'] as const;

interface SearchState {
  readonly hits: SessionSearchHit[];
  readonly next: string | undefined;
  readonly partial: boolean;
  readonly loading: boolean;
  readonly error: string | undefined;
}

interface HitGroup {
  readonly key: string;
  readonly hits: SessionSearchHit[];
}

/** Hits by session, in the order of each session's best hit; within one, best first. */
function groupBySession(hits: readonly SessionSearchHit[]): HitGroup[] {
  const groups = new Map<string, SessionSearchHit[]>();
  for (const h of hits) {
    const key = `${h.workstation ?? ''}/${h.agent}/${h.sid}`;
    const list = groups.get(key);
    if (list) list.push(h);
    else groups.set(key, [h]);
  }
  return [...groups].map(([key, list]) => ({ key, hits: list }));
}

const EMPTY: SearchState = { hits: [], next: undefined, partial: false, loading: true, error: undefined };

export function SearchResults({
  query,
  tools,
  agent,
  filters = {},
}: {
  query: string;
  tools: boolean;
  agent: string | undefined;
  /** The list's filters, which narrow the hits as they narrow the list. */
  filters?: ListFilters;
}) {
  const { conn, directory } = useServices();
  const marks = marksOf(conn);
  useChanges(marks);
  const [state, setState] = useState<SearchState>(EMPTY);
  const { project, since, active, failed, starred, tag } = filters;
  const sinceAt = since === undefined ? undefined : dayStart(since);
  // What the server cannot narrow by (an exact project, activity, failures, the person's marks) is
  // narrowed here, on each hit's session.
  const keepSession = (hitAgent: string, sid: string, cwd: string | undefined): boolean => {
    if (project !== undefined && cwd !== project) return false;
    const head = directory.get(hitAgent, sid);
    if (sinceAt !== undefined && head !== undefined && lastActive(head) < sinceAt) return false;
    if (active && !head?.active) return false;
    if (failed && (head?.failed_tools ?? 0) === 0) return false;
    return passesMarks(marks.of(hitAgent, sid), { ...(starred ? { starred } : {}), ...(tag ? { tag } : {}) });
  };

  const fetchPage = async (
    cursor: string | undefined,
    previous: SessionSearchHit[],
  ): Promise<SearchState> => {
    const args: Record<string, unknown> = { query, limit: PAGE };
    if (!tools) args.targets = [...TEXT_TARGETS];
    if (agent) args.agents = [agent];
    // The project is an exact folder; the server's filter takes any folder containing the text.
    if (project !== undefined) args.cwd = project;
    if (sinceAt !== undefined) args.since_at = sinceAt;
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
  }, [query, tools, agent, project, sinceAt]);

  const kept = state.hits.filter((h) => keepSession(h.agent, h.sid, h.cwd));
  const groups = groupBySession(kept);
  const narrowed =
    project !== undefined || since !== undefined || active || failed || starred || tag !== undefined;
  const sessions = groups.length;
  return (
    <section class="search-results" aria-live="polite">
      <p class="muted summary-line">
        {state.loading
          ? `Searching for “${shownText(query)}”…`
          : state.error
            ? `Search failed: ${state.error}`
            : `${kept.length}${state.next ? '+' : ''} result${kept.length === 1 ? '' : 's'} in ${sessions} session${sessions === 1 ? '' : 's'} for “${shownText(query)}”${tools ? '' : ' (tool output not searched)'}${narrowed ? ' within the filters' : ''}`}
        {state.partial && ' — the index is still being built, so some sessions were not searched yet.'}
      </p>
      <TaggedSessions
        query={query}
        keep={(m) =>
          (agent === undefined || m.agent === agent) &&
          keepSession(m.agent, m.sid, directory.get(m.agent, m.sid)?.cwd)
        }
      />
      <ol class="hit-groups">
        {groups.map((g) => (
          <SessionHits key={g.key} hits={g.hits} query={query} />
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

function SessionHits({ hits, query }: { hits: readonly SessionSearchHit[]; query: string }) {
  const first = hits[0]!;
  const title = shownText(first.title ?? first.sid);
  return (
    <li class="hit-group" data-sid={first.sid}>
      <h2>
        <span class="session-title" title={title}>
          {title.length > 200 ? `${title.slice(0, 199)}…` : title}
        </span>
        <span class={`agent-badge agent-${first.agent}`}>{first.agent}</span>
        {first.workstation !== undefined && (
          <span class="workstation-badge" title={`synced from workstation ${shownText(first.workstation)}`}>
            on {shownText(first.workstation)}
          </span>
        )}
        <span class="muted small">
          {hits.length} hit{hits.length === 1 ? '' : 's'}
          {first.cwd ? ` · ${shortPath(shownText(first.cwd), 3)}` : ''}
        </span>
      </h2>
      <ol class="hits">
        {hits.map((hit) => (
          <Hit
            key={`${hit.item_uuid}/${hit.item_type}/${hit.target}/${hit.agent_id ?? ''}`}
            hit={hit}
            query={query}
          />
        ))}
      </ol>
    </li>
  );
}

function Hit({ hit, query }: { hit: SessionSearchHit; query: string }) {
  const ref = {
    uuid: hit.item_uuid,
    type: hit.item_type,
    query,
    ...(hit.agent_id ? { lane: hit.agent_id } : {}),
  };
  const href = sessionHref(hit.agent, hit.sid, 'timeline', ref);
  const label =
    hit.target === 'tool_output' && hit.item_type.startsWith('tool:')
      ? `${hit.item_type.slice('tool:'.length)} output`
      : itemLabel(hit.item_type);
  return (
    <li class="hit">
      <a href={href} class="hit-link">
        <div class="hit-head">
          <span class="type-badge" title={hit.item_type}>
            {label}
          </span>
          {hit.agent_id && <span class="lane-badge">subagent {hit.agent_id}</span>}
          {hit.at !== undefined && (
            <time class="muted small hit-when" dateTime={new Date(hit.at).toISOString()}>
              {formatDateTime(hit.at)}
            </time>
          )}
        </div>
        <p class="snippet">
          {snippetParts(hit.snippet).map((part, i) =>
            part.match ? <mark key={i}>{shownText(part.text)}</mark> : shownText(part.text),
          )}
        </p>
      </a>
    </li>
  );
}
