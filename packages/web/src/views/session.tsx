// One session: its heading, and the timeline, summary, files changed or dump builder under it. The
// items are read once per visit and shared by the tabs.
import type { SessionHead } from '@cairn/protocol';
import { useEffect, useState } from 'preact/hooks';
import { useChanges, useServices } from '../context.js';
import { shownText } from '../display.js';
import { formatBytes, formatDateTime, formatWhen } from '../format.js';
import { type Route, type SessionTab, sessionHref } from '../route.js';
import { projectCrumb } from '../session/crumb.js';
import { SessionFeed } from '../session/feed.js';
import { useSessionNumbers } from '../session/numbers.js';
import { Timeline } from '../timeline/model.js';
import { ContinueButton } from './chat-new.js';
import { DumpView } from './dump.js';
import { FilesView } from './files.js';
import { HandoffButton, HandoffPanel } from './handoff.js';
import { HeadModelAndTime } from './model-and-time.js';
import { ResumeCommand } from './resume-command.js';
import { SessionLinks } from './session-links.js';
import { SummaryView } from './summary.js';
import { type TimelinePosition, TimelineView } from './timeline.js';
import { WorkstationBadge } from './workstation-badge.js';

type SessionRoute = Extract<Route, { view: 'session' }>;

const TABS: [SessionTab, string][] = [
  ['timeline', 'Timeline'],
  ['summary', 'Summary'],
  ['files', 'Files changed'],
  ['dump', 'Dump'],
];

export function SessionView({ route }: { route: SessionRoute }) {
  const { conn, directory } = useServices();
  useChanges(directory);
  const [timeline] = useState(() => new Timeline());
  const [feed] = useState(() => new SessionFeed(conn, route.agent, route.sid, timeline));
  // Where the timeline was left, so that coming back from the summary or the dump finds it again.
  const [position] = useState<TimelinePosition>(() => ({}));
  useEffect(() => {
    // A link to one of the session's own items, or a session being written (followed at its tail),
    // opens on that page of a long history rather than on its start.
    const item = route.item;
    const known = directory.get(route.agent, route.sid);
    // A session synced from another machine has no transcript here to read.
    if (known?.workstation !== undefined) return;
    const live = known?.active === true;
    feed.start(
      item && item.lane === undefined
        ? { uuid: item.uuid }
        : live && item === undefined
          ? { tail: true }
          : undefined,
    );
    return () => feed.stop();
  }, [feed]);

  const numbers = useSessionNumbers(conn, route.agent, route.sid);
  // The prompt a fork was asked from in the timeline, whose panel shows under the heading.
  const [forkAt, setForkAt] = useState<string | null>(null);

  const head = directory.get(route.agent, route.sid);
  // Transcript text, drawn in the heading, its tooltip and the tab's title: bidi and invisible
  // characters as code points.
  const title = shownText(head?.title ?? head?.first_prompt ?? route.sid);
  useEffect(() => {
    document.title = `${title.slice(0, 60)} · cairn`;
  }, [title]);

  if (head?.workstation !== undefined)
    return <SyncedSessionView route={route} head={head} workstation={head.workstation} title={title} />;

  return (
    <section class={`session-view tab-${route.tab}`}>
      <header class="session-head">
        <Crumbs head={head} />
        <h1 title={title}>
          {head?.active && <span class="live-dot on" title="active now" aria-hidden="true" />}
          <span class="title-text">{title.length > 300 ? `${title.slice(0, 299)}…` : title}</span>
        </h1>
        <div class="meta muted small">
          <span class={`agent-badge agent-${route.agent}`}>{route.agent}</span> <code>{route.sid}</code>
          {head?.started_at !== undefined && <span> · started {formatDateTime(head.started_at)}</span>}
          {head?.last_activity_at !== undefined && (
            <span> · last activity {formatWhen(head.last_activity_at)}</span>
          )}
          {head && <span> · {formatBytes(head.size)}</span>}
          <HeadModelAndTime head={head} />
          {head?.active && <span class="active-label">active</span>}{' '}
          <ContinueButton agent={route.agent} sid={route.sid} cwd={head?.cwd} />{' '}
          <ResumeCommand agent={route.agent} sid={route.sid} cwd={head?.cwd} />{' '}
          <HandoffButton source={{ agent: route.agent, sid: route.sid }} />
        </div>
        {forkAt !== null && (
          <HandoffPanel
            key={forkAt}
            source={{ agent: route.agent, sid: route.sid }}
            forkAt={forkAt}
            onClose={() => setForkAt(null)}
          />
        )}
        <SessionLinks sid={route.sid} />
        <nav class="tabs" aria-label="Session views">
          {TABS.map(([tab, label]) => (
            <a
              key={tab}
              href={sessionHref(route.agent, route.sid, tab)}
              class={route.tab === tab ? 'current' : ''}
              aria-current={route.tab === tab ? 'page' : undefined}
            >
              {label}
            </a>
          ))}
        </nav>
      </header>
      {route.tab === 'timeline' && (
        <TimelineView
          feed={feed}
          timeline={timeline}
          item={route.item}
          active={head?.active === true}
          position={position}
          numbers={numbers}
          onFork={setForkAt}
        />
      )}
      {route.tab === 'summary' && <SummaryView agent={route.agent} sid={route.sid} />}
      {route.tab === 'files' && <FilesView agent={route.agent} sid={route.sid} />}
      {route.tab === 'dump' && (
        <DumpView agent={route.agent} sid={route.sid} timeline={timeline} numbers={numbers} />
      )}
    </section>
  );
}

/**
 * A session synced from another machine: what its workstation sent (the list's facts) and the
 * command that resumes it there. Its transcript, summary and dump stay on that machine, and neither
 * Continue nor a hand-off can run it here.
 */
function SyncedSessionView({
  route,
  head,
  workstation,
  title,
}: {
  route: SessionRoute;
  head: SessionHead;
  workstation: string;
  title: string;
}) {
  const { directory } = useServices();
  const machine = shownText(workstation);
  const presence = directory.presenceOf(workstation);
  return (
    <section class="session-view synced-session">
      <header class="session-head">
        <Crumbs head={head} />
        <h1 title={title}>
          <span class="title-text">{title.length > 300 ? `${title.slice(0, 299)}…` : title}</span>
        </h1>
        <div class="meta muted small">
          <span class={`agent-badge agent-${route.agent}`}>{route.agent}</span> <code>{route.sid}</code>{' '}
          <WorkstationBadge workstation={workstation} />
          {head.started_at !== undefined && <span> · started {formatDateTime(head.started_at)}</span>}
          {head.last_activity_at !== undefined && (
            <span> · last activity {formatWhen(head.last_activity_at)}</span>
          )}
          <span> · {formatBytes(head.size)}</span>
          <HeadModelAndTime head={head} />{' '}
          <ResumeCommand agent={route.agent} sid={route.sid} cwd={head.cwd} />
        </div>
      </header>
      {presence?.online === false ? (
        <p class="synced-notice" data-presence="offline">
          Workstation <strong>{machine}</strong> is offline
          {presence.heard_at !== undefined && <> (last heard {formatWhen(presence.heard_at)})</>}. This is
          what it synced before it went; the command above resumes the session there once it is back.
        </p>
      ) : (
        <p class="synced-notice" data-presence={presence?.online ? 'online' : 'unknown'}>
          This session is on workstation <strong>{machine}</strong>
          {presence?.online ? ', online now, which' : ', which'} syncs its list entry here. Its transcript,
          summary and dump are read on that machine; the command above resumes it there.
        </p>
      )}
    </section>
  );
}

/** The way back to the list, and the session's project. */
function Crumbs({ head }: { head: SessionHead | undefined }) {
  const crumb = projectCrumb(head);
  return (
    <div class="crumbs">
      <a href="#/">Sessions</a> <span aria-hidden="true">/</span>{' '}
      <span class="muted project-crumb" title={shownText(crumb?.title ?? '')}>
        {shownText(crumb?.text ?? '')}
      </span>
    </div>
  );
}
