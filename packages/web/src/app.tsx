// The page frame: header with the connection state and index progress, and the view the hash names.
import type { IndexState } from '@cairn/protocol';
import { useEffect, useState } from 'preact/hooks';
import { Services } from './context.js';
import { formatCount } from './format.js';
import { parseRoute, type Route } from './route.js';
import type { Connection, ConnectionState } from './rpc.js';
import type { Directory } from './sessions/directory.js';
import { ChatRouteView } from './views/chat.js';
import { SessionView } from './views/session.js';
import { SessionsView } from './views/sessions.js';

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

/** The index state while the server builds it, polled until it is ready. */
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
    return () => {
      stop = true;
      clearTimeout(timer);
    };
  }, [conn, connected]);
  return index;
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
        </nav>
        <span class="spacer" />
        {index?.state === 'building' && (
          <span class="indexing" role="status">
            indexing sessions {index.done !== undefined && index.total ? `${index.done}/${index.total}` : ''}
            {index.total ? <progress max={index.total} value={index.done ?? 0} /> : null}
          </span>
        )}
        {index?.state === 'ready' && (
          <span class="muted small">{formatCount(index.sessions)} sessions indexed</span>
        )}
        <span class={`conn conn-${state}`} role="status" title="connection to the cairn server">
          <span class="dot" aria-hidden="true" />
          {STATE_TEXT[state]}
        </span>
      </header>
      <main>
        {route.view === 'sessions' ? (
          <SessionsView route={route} />
        ) : route.view === 'chat' ? (
          <ChatRouteView id={route.id} />
        ) : (
          <SessionView key={`${route.agent}/${route.sid}`} route={route} />
        )}
      </main>
    </Services.Provider>
  );
}
