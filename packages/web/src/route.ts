// Hash routes: every view and every item has a URL, and the server needs no route table.
//   #/                                    sessions
//   #/?q=words&tools=1&agent=codex        sessions, searching
//   #/s/<agent>/<sid>                     a session's timeline
//   #/s/<agent>/<sid>?item=<uuid>&type=<type>&lane=<agent_id>&n=<k>   …landing on one item
//   #/s/<agent>/<sid>/summary             its numbers
//   #/s/<agent>/<sid>/dump                the dump builder
//   #/chat                                a new chat
//   #/chat/<chatSessionId>                a chat with an agent

export type SessionTab = 'timeline' | 'summary' | 'dump';

/** Points at one item. Items of one record share its uuid, so the type and, for a record holding
 * several items of one type, their order among them (`nth`, from 0) make the pointer exact. */
export interface ItemRef {
  uuid: string;
  type?: string;
  /** The subagent whose lane holds the item; absent on the session's own lane. */
  lane?: string;
  nth?: number;
}

export type Route =
  | { view: 'sessions'; query: string; agent?: string; tools: boolean }
  | { view: 'session'; agent: string; sid: string; tab: SessionTab; item?: ItemRef }
  | { view: 'chat'; id?: string };

const TABS: readonly SessionTab[] = ['timeline', 'summary', 'dump'];

export function parseRoute(hash: string): Route {
  const raw = hash.startsWith('#') ? hash.slice(1) : hash;
  const q = raw.indexOf('?');
  const path = (q === -1 ? raw : raw.slice(0, q)).split('/').filter((p) => p !== '');
  const params = new URLSearchParams(q === -1 ? '' : raw.slice(q + 1));
  if (path[0] === 'chat') {
    return path[1] === undefined ? { view: 'chat' } : { view: 'chat', id: decodeURIComponent(path[1]) };
  }
  if (path[0] === 's' && path[1] !== undefined && path[2] !== undefined) {
    const tab = TABS.find((t) => t === path[3]) ?? 'timeline';
    const route: Route = {
      view: 'session',
      agent: decodeURIComponent(path[1]),
      sid: decodeURIComponent(path[2]),
      tab,
    };
    const uuid = params.get('item');
    if (uuid) {
      const item: ItemRef = { uuid };
      const type = params.get('type');
      const lane = params.get('lane');
      const nth = Number(params.get('n') ?? '');
      if (type) item.type = type;
      if (lane) item.lane = lane;
      if (Number.isInteger(nth) && nth > 0) item.nth = nth;
      route.item = item;
    }
    return route;
  }
  const route: Route = { view: 'sessions', query: params.get('q') ?? '', tools: params.get('tools') === '1' };
  const agent = params.get('agent');
  if (agent) route.agent = agent;
  return route;
}

export function formatRoute(route: Route): string {
  if (route.view === 'sessions') {
    const params = new URLSearchParams();
    if (route.query !== '') params.set('q', route.query);
    if (route.tools) params.set('tools', '1');
    if (route.agent) params.set('agent', route.agent);
    const s = params.toString();
    return s === '' ? '#/' : `#/?${s}`;
  }
  if (route.view === 'chat')
    return route.id === undefined ? '#/chat' : `#/chat/${encodeURIComponent(route.id)}`;
  const base = `#/s/${encodeURIComponent(route.agent)}/${encodeURIComponent(route.sid)}`;
  const path = route.tab === 'timeline' ? base : `${base}/${route.tab}`;
  if (!route.item) return path;
  return `${path}?${itemParams(route.item)}`;
}

function itemParams(ref: ItemRef): string {
  const params = new URLSearchParams({ item: ref.uuid });
  if (ref.type) params.set('type', ref.type);
  if (ref.lane) params.set('lane', ref.lane);
  if (ref.nth) params.set('n', String(ref.nth));
  return params.toString();
}

export const sessionHref = (
  agent: string,
  sid: string,
  tab: SessionTab = 'timeline',
  item?: ItemRef,
): string =>
  formatRoute(item ? { view: 'session', agent, sid, tab, item } : { view: 'session', agent, sid, tab });

export const chatHref = (id?: string): string =>
  formatRoute(id === undefined ? { view: 'chat' } : { view: 'chat', id });
