// A chat with an agent: the conversation as it streams, the permission cards and the sign-in card,
// the run-state badge (the server's word, never derived here), the queue, the agent's config
// options, and the composer.
import { Fragment } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { findChatSession } from '../chat/api.js';
import { ChatSocket, type ChatSocketState, chatSocketUrl } from '../chat/socket.js';
import type { ChatState, Entry, PermissionCard } from '../chat/state.js';
import { isLimitReply, usageLimitOf } from '../chat/usage-limit.js';
import type {
  ChatSessionSummary,
  ClientMessage,
  QueueItem,
  SessionConfigOption,
  WireProject,
} from '../chat/wire.js';
import { useChanges } from '../context.js';
import { shownText } from '../display.js';
import { formatCount } from '../format.js';
import { currentPageToken } from '../rpc.js';
import { PermissionView, SignInCard } from './chat-cards.js';
import { ChatChangesPanel } from './chat-changes.js';
import { Composer } from './chat-composer.js';
import { NewChatView } from './chat-new.js';
import { EntryView } from './chat-parts.js';
import { DevProcessesView } from './chat-processes.js';
import { HandoffButton } from './handoff.js';
import { SessionLinks } from './session-links.js';
import { UsageLimitCard } from './usage-limit-card.js';

export function ChatRouteView({ id }: { id?: string }) {
  if (id === undefined) return <NewChatView />;
  return <ChatView key={id} id={id} />;
}

function useChatSocket(id: string): ChatSocket {
  const [socket] = useState(() => new ChatSocket(id, chatSocketUrl(window.location, id), currentPageToken));
  useEffect(() => {
    socket.start();
    return () => socket.stop();
  }, [socket]);
  useChanges(socket);
  return socket;
}

const PHASE_TEXT: Record<string, string> = {
  idle: 'idle',
  streaming: 'working',
  retrying: 'retrying',
  compacting: 'compacting context',
  looping: 'looping',
  queued: 'queued',
};

const SOCKET_TEXT: Record<ChatSocketState, string> = {
  connecting: 'connecting…',
  open: 'connected',
  closed: 'reconnecting…',
  missing: 'no such chat',
  refused: 'token refused: open the address `cairn url` prints',
};

type Found = { session: ChatSessionSummary; project: WireProject | undefined };

/** How often the heading asks again whether the session's workstation is connected. */
const SUMMARY_REFRESH_MS = 10_000;

/** The session's row and project, for the heading; absent until known. */
function useSummary(id: string): Found | undefined {
  const [found, setFound] = useState<Found>();
  useEffect(() => {
    let stop = false;
    const load = () =>
      void findChatSession(id).then((r) => {
        if (!stop && r.ok && r.value) setFound(r.value);
      });
    load();
    const timer = setInterval(load, SUMMARY_REFRESH_MS);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, [id]);
  return found;
}

function ChatView({ id }: { id: string }) {
  const socket = useChatSocket(id);
  const summary = useSummary(id);
  const state = socket.state;
  const [send] = useState(() => (m: ClientMessage) => socket.send(m));
  const named = state.title ?? (summary?.session.title || undefined);
  // The agent's title or the first prompt, with bidi and invisible characters as code points.
  const title = shownText(named ?? firstPrompt(state) ?? 'Chat');
  const projectPath = summary?.project ? shownText(summary.project.path) : undefined;
  useEffect(() => {
    document.title = `${title.slice(0, 60)} · cairn`;
  }, [title]);

  const scroller = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  // Follows the conversation's end while the reader is there; a reader scrolled up stays put.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  });

  const cards = placeCards(state);
  // The entries the history held when the page opened: a limit among them is not acted on by itself.
  const historical = useRef<ReadonlySet<string> | null>(null);
  if (historical.current === null && state.ready)
    historical.current = new Set(state.entries.map((e) => e.id));
  const phase = state.runState?.phase ?? 'idle';
  return (
    <section class="chat-view">
      <header class="chat-head">
        <div class="crumbs">
          <a href="#/">Sessions</a> <span aria-hidden="true">/</span>{' '}
          <span class="muted" title={projectPath}>
            {projectPath ?? 'chat'}
          </span>
        </div>
        <div class="chat-title-line">
          <h1 title={title}>{title.length > 200 ? `${title.slice(0, 199)}…` : title}</h1>
          {state.agent && <span class={`agent-badge agent-${state.agent}`}>{state.agent}</span>}
          {summary && (summary.session.workstation !== 'local' || !summary.session.workstationOnline) && (
            <span
              class={`workstation-badge ${summary.session.workstationOnline ? '' : 'offline'}`}
              data-online={summary.session.workstationOnline ? 'yes' : 'no'}
              title={
                summary.session.workstationOnline
                  ? `runs on the workstation ${summary.session.workstation}`
                  : `the workstation ${summary.session.workstation} is not connected: the history stays, new messages wait for it`
              }
            >
              on {summary.session.workstation}
              {summary.session.workstationOnline ? '' : ' · offline'}
            </span>
          )}
          <span
            class={`run-badge phase-${phase}`}
            role="status"
            aria-label="run state"
            data-phase={phase}
            data-busy={state.runState?.busy ? 'yes' : 'no'}
          >
            {PHASE_TEXT[phase] ?? phase}
          </span>
          {state.contextWindowUsed !== null && (
            <span class="muted small" title="context window used">
              context {formatCount(state.contextWindowUsed)}
              {state.contextWindowMax !== null ? ` / ${formatCount(state.contextWindowMax)}` : ''}
            </span>
          )}
          <span class="spacer" />
          <span class={`conn conn-${socket.socketState === 'open' && state.ready ? 'open' : 'closed'}`}>
            <span class="dot" aria-hidden="true" />
            {socket.socketState === 'open' && !state.ready ? 'loading…' : SOCKET_TEXT[socket.socketState]}
          </span>
        </div>
        <div class="chat-links-line">
          <SessionLinks sid={summary?.session.nativeSessionId} />
          {summary?.session.nativeSessionId && (
            <HandoffButton
              source={{ agent: summary.session.agent, sid: summary.session.nativeSessionId }}
              exclude={summary.session.agent}
            />
          )}
        </div>
        {state.configOptions.length > 0 && <ConfigOptions options={state.configOptions} send={send} />}
      </header>
      <ChatChangesPanel entries={state.entries} />
      <div
        class="chat-scroll"
        ref={scroller}
        onScroll={(e) => {
          const el = e.currentTarget;
          pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
        }}
      >
        <div class="chat-log" data-ready={state.ready ? 'yes' : 'no'}>
          {socket.socketState === 'missing' ? (
            <p class="empty" role="alert">
              There is no chat session {id} on this server. <a href="#/chat">Start a new chat</a>.
            </p>
          ) : (
            !state.ready && state.entries.length === 0 && <p class="muted">Opening the session…</p>
          )}
          {state.ready && state.entries.length === 0 && (
            <p class="muted empty">No messages yet. Write the first one below.</p>
          )}
          {state.entries.map((e) => {
            const limit = limitOf(e);
            return (
              <Fragment key={e.id}>
                <EntryView entry={e} cards={cards.of(e)} send={send} />
                {limit && (
                  <UsageLimitCard
                    limit={limit}
                    chatId={id}
                    agent={state.agent ?? summary?.session.agent ?? ''}
                    live={historical.current !== null && !historical.current.has(e.id)}
                  />
                )}
              </Fragment>
            );
          })}
          {cards.unplaced().map((p) => (
            <PermissionView key={p.requestId} card={p} send={send} />
          ))}
          {state.signIn && <SignInCard signIn={state.signIn} send={send} />}
          <LoopLine state={state} />
        </div>
      </div>
      <DevProcessesView processes={state.devProcesses} send={send} />
      {state.queue.length > 0 && <QueueView queue={state.queue} send={send} />}
      {state.steer && (
        <p class="muted small steer-line" role="status">
          {state.steer.ok
            ? state.steer.outcome === 'queued'
              ? 'The agent takes no steering now: the message was queued.'
              : 'Steering sent to the agent.'
            : `Steering failed: ${state.steer.error ?? ''}`}
        </p>
      )}
      <Composer state={state} send={send} />
    </section>
  );
}

const NO_CARDS: readonly PermissionCard[] = [];

/** Each permission card goes under the tool call it asks about; one whose call is not shown goes
 * at the end of the conversation. */
function placeCards(state: ChatState): {
  of(e: Entry): readonly PermissionCard[];
  unplaced(): readonly PermissionCard[];
} {
  if (state.permissions.length === 0) return { of: () => NO_CARDS, unplaced: () => NO_CARDS };
  const owner = new Map<string, string>();
  for (const e of state.entries) {
    if (e.kind !== 'assistant') continue;
    for (const p of e.parts) if (p.kind === 'tool') owner.set(p.id, e.id);
  }
  const byEntry = new Map<string, PermissionCard[]>();
  const rest: PermissionCard[] = [];
  for (const card of state.permissions) {
    const at = owner.get(card.toolCall.id);
    if (at === undefined) rest.push(card);
    else byEntry.set(at, [...(byEntry.get(at) ?? []), card]);
  }
  return { of: (e) => byEntry.get(e.id) ?? NO_CARDS, unplaced: () => rest };
}

/** The limit that stopped a turn, from the agent's words; null for any other entry. */
function limitOf(e: Entry) {
  if (e.kind !== 'assistant' || e.streaming) return null;
  const text = e.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('');
  return usageLimitOf(e.errorMessage ?? (isLimitReply(text) ? text : undefined));
}

/** Until the server names the session, its first prompt does. */
function firstPrompt(state: ChatState): string | undefined {
  const first = state.entries.find((e) => e.kind === 'user');
  const line = first?.kind === 'user' ? first.content.trim().split('\n', 1)[0] : undefined;
  return line === '' ? undefined : line;
}

function LoopLine({ state }: { state: ChatState }) {
  const parts: string[] = [];
  if (state.loop) {
    const l = state.loop;
    parts.push(
      l.ended === 'done'
        ? `Loop done after ${l.iteration} iteration${l.iteration === 1 ? '' : 's'}`
        : l.ended === 'max'
          ? `Loop stopped at its cap of ${l.iteration} iterations`
          : l.ended === 'stopped'
            ? `Loop stopped at iteration ${l.iteration} of ${l.maxIterations}`
            : `Loop iteration ${l.iteration} of ${l.maxIterations}`,
    );
  }
  if (state.interval) {
    const i = state.interval;
    parts.push(
      i.active
        ? `Repeats every ${i.minutes ?? '?'} min · ${i.launches} run${i.launches === 1 ? '' : 's'}${i.lastSkipped ? ' · last tick skipped (busy)' : ''}`
        : 'Interval stopped',
    );
  }
  if (parts.length === 0) return null;
  return (
    <p class="muted small loop-line" role="status">
      {parts.join(' · ')}
    </p>
  );
}

function QueueView({ queue, send }: { queue: readonly QueueItem[]; send: (m: ClientMessage) => boolean }) {
  return (
    <section class="chat-queue" aria-label="Queued messages">
      <div class="queue-head">
        <span class="small">
          {queue.length} queued message{queue.length === 1 ? '' : 's'} · sent when the agent is done
        </span>
        <span class="spacer" />
        <button type="button" class="link small" onClick={() => send({ type: 'queue_clear' })}>
          Clear all
        </button>
      </div>
      <ol class="queue-list">
        {queue.map((q) => (
          <QueueRow key={q.id} item={q} send={send} />
        ))}
      </ol>
    </section>
  );
}

function QueueRow({ item, send }: { item: QueueItem; send: (m: ClientMessage) => boolean }) {
  const [draft, setDraft] = useState<string | null>(null);
  return (
    <li class="queue-item" data-id={item.id}>
      {draft === null ? (
        <>
          <span class="queue-text">{item.content}</span>
          {item.images && item.images.length > 0 && (
            <span class="muted small"> · {item.images.length} image(s)</span>
          )}
          <button type="button" class="link small" onClick={() => setDraft(item.content)}>
            Edit
          </button>
          <button
            type="button"
            class="link small"
            onClick={() => send({ type: 'queue_remove', id: item.id })}
          >
            Remove
          </button>
        </>
      ) : (
        <form
          class="queue-edit"
          onSubmit={(e) => {
            e.preventDefault();
            if (send({ type: 'queue_edit', id: item.id, content: draft })) setDraft(null);
          }}
        >
          <input aria-label="Queued message" value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
          <button type="submit" class="small">
            Save
          </button>
          <button type="button" class="link small" onClick={() => setDraft(null)}>
            Cancel
          </button>
        </form>
      )}
    </li>
  );
}

function ConfigOptions({
  options,
  send,
}: {
  options: readonly SessionConfigOption[];
  send: (m: ClientMessage) => boolean;
}) {
  return (
    <div class="config-options">
      {options.map((o) =>
        o.type === 'select' ? (
          <label key={o.id} class="small config-option" title={o.description ?? ''}>
            {o.name}{' '}
            <select
              aria-label={o.name}
              data-config={o.id}
              data-category={o.category ?? undefined}
              value={o.currentValue}
              onChange={(e) =>
                send({ type: 'set_config_option', configId: o.id, value: e.currentTarget.value })
              }
            >
              {o.options.map((x) =>
                'group' in x ? (
                  <optgroup key={x.group} label={x.name}>
                    {x.options.map((y) => (
                      <option key={y.value} value={y.value}>
                        {y.name}
                      </option>
                    ))}
                  </optgroup>
                ) : (
                  <option key={x.value} value={x.value}>
                    {x.name}
                  </option>
                ),
              )}
            </select>
          </label>
        ) : (
          <label key={o.id} class="check small config-option" title={o.description ?? ''}>
            <input
              type="checkbox"
              data-config={o.id}
              checked={o.currentValue}
              onChange={(e) =>
                send({ type: 'set_config_option', configId: o.id, value: e.currentTarget.checked })
              }
            />
            {o.name}
          </label>
        ),
      )}
    </div>
  );
}
