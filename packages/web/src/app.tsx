// The page frame: header with the connection state and index progress, and the view the hash names.
import type { IndexState } from '@cairn/protocol';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { Services } from './context.js';
import { formatCount } from './format.js';
import { formatRoute, parseRoute, type Route } from './route.js';
import { type Connection, type ConnectionState, currentPageToken } from './rpc.js';
import type { Directory } from './sessions/directory.js';
import { chooseTheme, storedTheme, THEME_CHOICES, type ThemeChoice } from './theme.js';
import { ChatRouteView } from './views/chat.js';
import { SessionView } from './views/session.js';
import { SessionsView } from './views/sessions.js';
import { SettingsView } from './views/settings.js';
import { TokenNeeded } from './views/token-needed.js';
import { UsageView } from './views/usage.js';

function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return route;
}

function useConnectionState(conn: Connection): ConnectionState {
  const [state, setState] = useState(conn.state);
  useEffect(() => conn.onState(setState), [conn]);
  return state;
}

/**
 * The index state: polled while the server builds it, and asked again once ready whenever the
 * sessions topic says a session appeared or went away, so the header's count never goes stale.
 */
function useIndexState(conn: Connection, connected: boolean): IndexState | undefined {
  const [index, setIndex] = useState<IndexState | undefined>(undefined);
  useEffect(() => {
    if (!connected) return;
    let stop = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      const reply = await conn.request('ping', {});
      if (stop || !reply.ok) return;
      setIndex(reply.value.index);
      if (reply.value.index?.state === 'building') timer = setTimeout(poll, 1000);
    };
    void poll();
    // A burst of changes (an agent writing) is one question, a moment after it.
    const unsubscribe = conn.subscribe({
      topic: 'sessions',
      accepts: (f) => f.type === 'session_upserted' || f.type === 'session_removed',
      onFrame: () => {
        clearTimeout(timer);
        timer = setTimeout(poll, 500);
      },
    });
    return () => {
      stop = true;
      clearTimeout(timer);
      unsubscribe();
    };
  }, [conn, connected]);
  return index;
}

/**
 * Keeps the list's scroll position across a visit to a session: the offset is recorded while the list
 * scrolls, and put back once the list is drawn again (its rows may arrive a few frames later).
 */
function useListScroll(main: { current: HTMLElement | null }, route: Route): void {
  const offsets = useRef(new Map<string, number>());
  const key = route.view === 'sessions' ? formatRoute(route) : undefined;
  useEffect(() => {
    const el = main.current;
    if (!el || key === undefined) return;
    // Leaving the list clamps the offset to 0 as its rows go: that is not the reader's position.
    const record = () => {
      if (el.querySelector('.sessions-view')) offsets.current.set(key, el.scrollTop);
    };
    el.addEventListener('scroll', record, { passive: true });
    return () => el.removeEventListener('scroll', record);
  }, [key]);
  useLayoutEffect(() => {
    const el = main.current;
    const want = key === undefined ? undefined : offsets.current.get(key);
    if (!el || want === undefined) return;
    let frames = 0;
    let raf = 0;
    const restore = () => {
      el.scrollTop = want;
      // The list may still be short of rows: try again for a moment, until it is tall enough.
      if (Math.abs(el.scrollTop - want) > 1 && ++frames < 60) raf = requestAnimationFrame(restore);
    };
    restore();
    return () => cancelAnimationFrame(raf);
  }, [key]);
}

const THEME_LABELS: Record<ThemeChoice, string> = { system: 'System theme', light: 'Light', dark: 'Dark' };

function ThemePicker() {
  const [choice, setChoice] = useState(storedTheme);
  return (
    <select
      class="theme-picker"
      aria-label="Colour theme"
      title="Colour theme"
      value={choice}
      onChange={(e) => {
        const next = e.currentTarget.value as ThemeChoice;
        setChoice(next);
        chooseTheme(next);
      }}
    >
      {THEME_CHOICES.map((c) => (
        <option key={c} value={c}>
          {THEME_LABELS[c]}
        </option>
      ))}
    </select>
  );
}

const STATE_TEXT: Record<ConnectionState, string> = {
  connecting: 'connecting…',
  open: 'live',
  closed: 'reconnecting…',
  refused: 'token refused: open the address `cairn url` prints',
};

export function App({ conn, directory }: { conn: Connection; directory: Directory }) {
  const route = useRoute();
  const state = useConnectionState(conn);
  const index = useIndexState(conn, state === 'open');
  const main = useRef<HTMLElement>(null);
  useListScroll(main, route);
  return (
    <Services.Provider value={{ conn, directory }}>
      <header class="top">
        <a class="brand" href="#/">
          cairn
        </a>
        <nav class="top-nav">
          <a href="#/" class={route.view === 'sessions' ? 'current' : ''}>
            Sessions
          </a>
          <a href="#/usage" class={route.view === 'usage' ? 'current' : ''}>
            Usage
          </a>
          <a href="#/settings" class={route.view === 'settings' ? 'current' : ''}>
            Settings
          </a>
        </nav>
        <span class="spacer" />
        {index?.state === 'building' && (
          <span class="indexing" role="status">
            indexing sessions {index.done !== undefined && index.total ? `${index.done}/${index.total}` : ''}
            {index.total ? <progress max={index.total} value={index.done ?? 0} /> : null}
          </span>
        )}
        {index?.state === 'ready' && (
          <span class="muted small indexed-count">{formatCount(index.sessions)} sessions indexed</span>
        )}
        <ThemePicker />
        <span class={`conn conn-${state}`} role="status" title="connection to the cairn server">
          <span class="dot" aria-hidden="true" />
          <span class="conn-text">{STATE_TEXT[state]}</span>
        </span>
      </header>
      <main ref={main}>
        {state === 'refused' ? (
          <TokenNeeded hadToken={currentPageToken() !== undefined} />
        ) : route.view === 'sessions' ? (
          <SessionsView route={route} />
        ) : route.view === 'usage' ? (
          <UsageView route={route} />
        ) : route.view === 'settings' ? (
          <SettingsView />
        ) : route.view === 'chat' ? (
          <ChatRouteView id={route.id} />
        ) : (
          <SessionView key={`${route.agent}/${route.sid}`} route={route} />
        )}
      </main>
    </Services.Provider>
  );
}
