// Every agent's sessions, grouped by project with the newest activity first, filtered by agent;
// and the full-text search over all of them.
import type { SessionHead } from '@cairn/protocol';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { useChanges, useServices } from '../context.js';
import { shownText } from '../display.js';
import { formatAgo, formatBytes, formatDateTime, shortPath } from '../format.js';
import { chatHref, formatRoute, type Route, sessionHref } from '../route.js';
import { ContinueButton } from './chat-new.js';
import { SearchResults } from './search.js';

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
  const [draft, setDraft] = useState(route.query);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => setDraft(route.query), [route.query]);

  // Typing searches after a pause; the query lives in the URL so Back and links work.
  useEffect(() => {
    if (draft === route.query) return;
    const t = setTimeout(() => go({ ...route, query: draft.trim() }, true), 350);
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
  const shown = route.agent ? heads.filter((h) => h.agent === route.agent) : heads;
  const projects = useMemo(() => groupByProject(shown), [shown]);
  const activeCount = shown.filter((h) => h.active).length;

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
          aria-label="Search sessions"
          value={draft}
          onInput={(e) => setDraft(e.currentTarget.value)}
        />
        <label class="check">
          <input
            type="checkbox"
            checked={route.tools}
            onChange={(e) => go({ ...route, tools: e.currentTarget.checked }, true)}
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
      {route.query !== '' ? (
        <SearchResults query={route.query} tools={route.tools} agent={route.agent} />
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
              No sessions found. cairn reads Claude Code, Codex and Gemini CLI sessions from their usual
              folders.
            </p>
          )}
          <div class="projects">
            {projects.map((p) => (
              <ProjectGroup key={p.cwd} project={p} />
            ))}
          </div>
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
          <SessionItem key={`${h.agent}/${h.sid}`} head={h} />
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

function SessionItem({ head }: { head: SessionHead }) {
  const title = shownText(head.title ?? head.first_prompt ?? head.sid);
  const at = head.last_activity_at ?? head.started_at;
  return (
    <li class={`session-item ${head.active ? 'active' : ''}`} data-sid={head.sid}>
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
        {head.active && <span class="active-label">active</span>}
        <span class="muted small when" title={at ? formatDateTime(at) : ''}>
          {formatAgo(at)}
        </span>
        <span class="muted small size">{formatBytes(head.size)}</span>
      </a>
      {/* The agent cannot take up a session whose main file is gone. */}
      {!head.main_file_missing && <ContinueButton agent={head.agent} sid={head.sid} cwd={head.cwd} />}
    </li>
  );
}
