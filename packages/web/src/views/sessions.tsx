// Every agent's sessions: grouped by project with the newest activity first, or in one list by
// tokens, cost or duration; narrowed by agent, project, date, activity and failures; each row with
// its model, prompts, tokens, cost, duration and branch. And the full-text search over all of them.
import type { SessionHead } from '@cairn/protocol';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useChanges, useServices } from '../context.js';
import { shownText } from '../display.js';
import {
  formatBytes,
  formatCount,
  formatDateTime,
  formatDuration,
  formatWhen,
  shortPath,
} from '../format.js';
import { chatHref, formatRoute, type Route, type SessionSort, sessionHref } from '../route.js';
import {
  filterHeads,
  formatCost,
  lastActive,
  SORT_LABELS,
  shortModel,
  sortHeads,
  totalTokens,
} from '../sessions/list.js';
import { marksOf, passesMarks } from '../sessions/marks.js';
import { ContinueButton } from './chat-new.js';
import { SessionStar, SessionTags, StarredItems } from './marks.js';
import { ActiveFact } from './model-and-time.js';
import { SearchResults } from './search.js';
import { WorkstationBadge } from './workstation-badge.js';

type SessionsRoute = Extract<Route, { view: 'sessions' }>;

const NO_PROJECT = '(no project folder)';
// A project shows this many sessions until it is expanded.
const FOLDED = 8;

interface Project {
  readonly cwd: string;
  readonly sessions: SessionHead[];
  readonly latest: number;
  readonly active: number;
}

function groupByProject(heads: readonly SessionHead[]): Project[] {
  const byCwd = new Map<string, SessionHead[]>();
  for (const h of heads) {
    const cwd = h.cwd ?? NO_PROJECT;
    const list = byCwd.get(cwd);
    if (list) list.push(h);
    else byCwd.set(cwd, [h]);
  }
  // Heads arrive newest first, so each project's first session is its latest.
  return [...byCwd.entries()]
    .map(([cwd, sessions]) => ({
      cwd,
      sessions,
      latest: sessions[0]?.last_activity_at ?? sessions[0]?.started_at ?? 0,
      active: sessions.filter((s) => s.active).length,
    }))
    .sort((a, b) => b.latest - a.latest);
}

const go = (route: SessionsRoute, replace = false) => {
  const hash = formatRoute(route);
  if (replace) history.replaceState(null, '', hash);
  else window.location.hash = hash;
  if (replace) window.dispatchEvent(new HashChangeEvent('hashchange'));
};

export function SessionsView({ route }: { route: SessionsRoute }) {
  const { directory, conn } = useServices();
  useChanges(directory);
  const marks = marksOf(conn);
  useChanges(marks);
  const [draft, setDraft] = useState(route.query);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => setDraft(route.query), [route.query]);

  // The route as it is now: a choice made while the typing pause runs (the tool-output box, a
  // filter) must survive the query that follows it.
  const latest = useRef(route);
  latest.current = route;
  // Typing searches after a pause; the query lives in the URL so Back and links work.
  useEffect(() => {
    if (draft.trim() === route.query) return;
    const t = setTimeout(() => go({ ...latest.current, query: draft.trim() }, true), 350);
    return () => clearTimeout(t);
  }, [draft]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === '/' && document.activeElement?.tagName !== 'INPUT') {
        e.preventDefault();
        input.current?.focus();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  const heads = directory.all();
  const agents = useMemo(() => {
    const names = new Set<string>(conn.hello?.agents ?? []);
    for (const h of heads) names.add(h.agent);
    return [...names].sort();
  }, [heads, conn.hello]);
  const ofAgent = useMemo(
    () => (route.agent ? heads.filter((h) => h.agent === route.agent) : heads),
    [heads, route.agent],
  );
  const projectNames = useMemo(() => groupByProject(ofAgent).map((p) => p.cwd), [ofAgent]);
  const sort: SessionSort = route.sort ?? 'recent';
  const listed = useMemo(
    () => filterHeads(ofAgent, route),
    [ofAgent, route.project, route.since, route.active, route.failed],
  );
  const shown =
    route.starred || route.tag !== undefined
      ? listed.filter((h) => passesMarks(marks.of(h.agent, h.sid), route))
      : listed;
  const projects = useMemo(() => groupByProject(shown), [shown]);
  const sorted = useMemo(() => (sort === 'recent' ? [] : sortHeads(shown, sort)), [shown, sort]);
  const activeCount = shown.filter((h) => h.active).length;
  const prices = heads.find((h) => h.prices !== undefined)?.prices;
  const narrowed =
    route.project !== undefined ||
    route.since !== undefined ||
    route.active ||
    route.failed ||
    route.starred ||
    route.tag !== undefined;

  return (
    <section class="sessions-view">
      <div class="sessions-head">
        <h1 class="sessions-heading">Sessions</h1>
        <span class="spacer" />
        <button
          type="button"
          class="primary"
          onClick={() => {
            window.location.hash = chatHref();
          }}
        >
          New chat
        </button>
      </div>
      <form
        class="search-bar"
        onSubmit={(e) => {
          e.preventDefault();
          go({ ...route, query: draft.trim() });
        }}
      >
        <input
          ref={input}
          type="search"
          name="q"
          placeholder="Search every session (press / to focus)"
          title={'Every word must occur. "a phrase" · word* for words starting so · -word to leave out'}
          aria-label="Search sessions"
          value={draft}
          onInput={(e) => setDraft(e.currentTarget.value)}
        />
        <label class="check">
          <input
            type="checkbox"
            checked={route.tools}
            onChange={(e) =>
              go({ ...latest.current, query: draft.trim(), tools: e.currentTarget.checked }, true)
            }
          />
          include tool output
        </label>
      </form>
      <nav class="filters" aria-label="Filter by agent">
        <a class={`chip ${route.agent ? '' : 'on'}`} href={formatRoute({ ...route, agent: undefined })}>
          all agents
        </a>
        {agents.map((a) => (
          <a
            key={a}
            class={`chip ${route.agent === a ? 'on' : ''}`}
            href={formatRoute({ ...route, agent: a })}
          >
            {a}
          </a>
        ))}
      </nav>
      {/* The filters stay while searching: they narrow the hits as they narrow the list. */}
      <ListControls
        route={route}
        projects={projectNames}
        tags={marks.tags()}
        narrowed={narrowed === true}
        searching={route.query !== ''}
      />
      {route.query !== '' ? (
        <SearchResults query={route.query} tools={route.tools} agent={route.agent} filters={route} />
      ) : (
        <>
          <p class="muted summary-line">
            {directory.loaded
              ? `${shown.length} session${shown.length === 1 ? '' : 's'} in ${projects.length} project${projects.length === 1 ? '' : 's'}${activeCount > 0 ? ` · ${activeCount} active` : ''}`
              : directory.error
                ? `Could not list sessions: ${directory.error}`
                : 'Listing sessions…'}
          </p>
          {directory.loaded && shown.length === 0 && (
            <p class="empty">
              No sessions found. cairn reads Claude Code, Codex, Gemini CLI, Qwen Code, pi, Copilot CLI,
              OpenCode and Kilo sessions from their usual folders.
            </p>
          )}
          {sort === 'recent' ? (
            <div class="projects">
              {projects.map((p) => (
                <ProjectGroup key={p.cwd} project={p} />
              ))}
            </div>
          ) : (
            <ul class="session-list sorted" aria-label={`Sessions, ${SORT_LABELS[sort]} first`}>
              {sorted.map((h) => (
                <SessionItem key={`${h.workstation ?? ''}/${h.agent}/${h.sid}`} head={h} showProject />
              ))}
            </ul>
          )}
          {prices && (
            <p class="muted small prices-note">
              Costs are estimates from the offline price catalog {prices}; a session whose model it does not
              price shows no cost.
            </p>
          )}
        </>
      )}
    </section>
  );
}

function ProjectGroup({ project }: { project: Project }) {
  const [expanded, setExpanded] = useState(false);
  const list = expanded ? project.sessions : project.sessions.slice(0, FOLDED);
  return (
    <section class="project" aria-label={shownText(project.cwd)}>
      <h2 title={shownText(project.cwd)}>
        <span class="project-name">{shortPath(shownText(project.cwd), 3)}</span>
        <span class="muted small">
          {project.sessions.length} session{project.sessions.length === 1 ? '' : 's'}
          {project.active > 0 ? ` · ${project.active} active` : ''}
        </span>
      </h2>
      <ul class="session-list">
        {list.map((h) => (
          <SessionItem key={`${h.workstation ?? ''}/${h.agent}/${h.sid}`} head={h} />
        ))}
      </ul>
      {project.sessions.length > FOLDED && (
        <button type="button" class="link" onClick={() => setExpanded(!expanded)}>
          {expanded ? 'show fewer' : `show all ${project.sessions.length}`}
        </button>
      )}
    </section>
  );
}

function SessionItem({ head, showProject = false }: { head: SessionHead; showProject?: boolean }) {
  const title = shownText(head.title ?? head.first_prompt ?? head.sid);
  const at = lastActive(head) || undefined;
  const tokens = totalTokens(head);
  return (
    <li class={`session-item ${head.active ? 'active' : ''}`} data-sid={head.sid} data-agent={head.agent}>
      <a href={sessionHref(head.agent, head.sid)}>
        <span
          class={`live-dot ${head.active ? 'on' : ''}`}
          title={head.active ? 'active now' : 'idle'}
          aria-hidden="true"
        />
        <span class="session-title">
          {head.main_file_missing && (
            <span class="muted lost-main" title="the main file is gone; only its subagents' files remain">
              subagents only ·{' '}
            </span>
          )}
          {title.length > 200 ? `${title.slice(0, 199)}…` : title}
        </span>
        <span class={`agent-badge agent-${head.agent}`}>{head.agent}</span>
        {head.workstation !== undefined && <WorkstationBadge workstation={head.workstation} />}
        {head.active && <span class="active-label">active</span>}
        <span class="muted small when" title={at ? formatDateTime(at) : ''}>
          {formatWhen(at)}
        </span>
        <span class="muted small size">{formatBytes(head.size)}</span>
        <span class="session-facts small">
          {showProject && head.cwd && (
            <span class="fact project-fact" title={shownText(head.cwd)}>
              {shortPath(shownText(head.cwd), 2)}
            </span>
          )}
          {head.model && (
            <span class="fact model" data-value={head.model} title={`model: ${shownText(head.model)}`}>
              {shortModel(shownText(head.model))}
            </span>
          )}
          {head.prompts !== undefined && (
            <span
              class="fact prompts"
              data-value={head.prompts}
              title="prompts the person typed, slash commands included"
            >
              {head.prompts} prompt{head.prompts === 1 ? '' : 's'}
            </span>
          )}
          {tokens !== undefined && (
            <span
              class="fact tokens"
              data-value={tokens}
              title={`${formatCount(head.input_tokens ?? 0)} in (cache included) · ${formatCount(head.output_tokens ?? 0)} out`}
            >
              {formatCount(tokens)} tokens
            </span>
          )}
          {head.cost_usd !== undefined && (
            <span
              class="fact cost"
              data-value={head.cost_usd}
              title={`estimated; prices: ${head.prices ?? 'unknown catalog'}`}
            >
              {formatCost(head.cost_usd)}
            </span>
          )}
          <ActiveFact head={head} />
          {head.duration_ms !== undefined && (
            <span
              class="fact duration"
              data-value={head.duration_ms}
              title="wall-clock: first to last record"
            >
              {formatDuration(head.duration_ms)}
            </span>
          )}
          {head.git_branch && (
            <span class="fact branch" title={`git branch ${shownText(head.git_branch)}`}>
              ⎇ {shownText(head.git_branch)}
            </span>
          )}
          {head.failed_tools !== undefined && head.failed_tools > 0 && (
            <span class="fact failures" data-value={head.failed_tools}>
              {head.failed_tools} failed call{head.failed_tools === 1 ? '' : 's'}
            </span>
          )}
        </span>
      </a>
      {/* Marks and Continue act on the server's own sessions; a synced one lives on its machine. */}
      {head.workstation === undefined && (
        <span class="session-marks">
          <SessionStar agent={head.agent} sid={head.sid} />
          <SessionTags agent={head.agent} sid={head.sid} />
          <StarredItems agent={head.agent} sid={head.sid} />
        </span>
      )}
      {/* The agent cannot take up a session whose main file is gone. */}
      {!head.main_file_missing && head.workstation === undefined && (
        <ContinueButton agent={head.agent} sid={head.sid} cwd={head.cwd} />
      )}
    </li>
  );
}

/** Sort order and the filters beyond the agent; each choice is in the URL. */
function ListControls({
  route,
  projects,
  tags,
  narrowed,
  searching,
}: {
  route: SessionsRoute;
  projects: readonly string[];
  tags: readonly string[];
  narrowed: boolean;
  /** Hits come best first, so the list's orders do not apply to them. */
  searching: boolean;
}) {
  const set = (change: Partial<SessionsRoute>) => go({ ...route, ...change }, true);
  return (
    <form class="list-controls" aria-label="Sort and filter sessions" onSubmit={(e) => e.preventDefault()}>
      <label hidden={searching}>
        Sort by{' '}
        <select
          name="sort"
          value={route.sort ?? 'recent'}
          onChange={(e) => set({ sort: e.currentTarget.value as SessionSort })}
        >
          {(Object.keys(SORT_LABELS) as SessionSort[]).map((s) => (
            <option key={s} value={s}>
              {SORT_LABELS[s]}
            </option>
          ))}
        </select>
      </label>
      <label>
        Project{' '}
        <select
          name="project"
          value={route.project ?? ''}
          onChange={(e) => set({ project: e.currentTarget.value || undefined })}
        >
          <option value="">all projects</option>
          {projects.map((p) => (
            <option key={p} value={p === NO_PROJECT ? '' : p} disabled={p === NO_PROJECT}>
              {shortPath(shownText(p), 3)}
            </option>
          ))}
        </select>
      </label>
      <label>
        Active since{' '}
        <input
          type="date"
          name="since"
          value={route.since ?? ''}
          onChange={(e) => set({ since: e.currentTarget.value || undefined })}
        />
      </label>
      <label class="check">
        <input
          type="checkbox"
          name="active"
          checked={route.active === true}
          onChange={(e) => set({ active: e.currentTarget.checked || undefined })}
        />{' '}
        active now
      </label>
      <label class="check">
        <input
          type="checkbox"
          name="failed"
          checked={route.failed === true}
          onChange={(e) => set({ failed: e.currentTarget.checked || undefined })}
        />{' '}
        has failed calls
      </label>
      <label class="check">
        <input
          type="checkbox"
          name="starred"
          checked={route.starred === true}
          onChange={(e) => set({ starred: e.currentTarget.checked || undefined })}
        />{' '}
        starred
      </label>
      {(tags.length > 0 || route.tag !== undefined) && (
        <label>
          Tag{' '}
          <select
            name="tag"
            value={route.tag ?? ''}
            onChange={(e) => set({ tag: e.currentTarget.value || undefined })}
          >
            <option value="">any tag</option>
            {[...new Set([...tags, ...(route.tag ? [route.tag] : [])])].map((t) => (
              <option key={t} value={t}>
                {shownText(t)}
              </option>
            ))}
          </select>
        </label>
      )}
      {narrowed && (
        <button
          type="button"
          class="link"
          onClick={() =>
            set({
              project: undefined,
              since: undefined,
              active: undefined,
              failed: undefined,
              starred: undefined,
              tag: undefined,
            })
          }
        >
          clear filters
        </button>
      )}
    </form>
  );
}
