// Hash routes: every view and every item has a URL, and the server needs no route table.
//   #/                                    sessions
//   #/?q=words&tools=1&agent=codex        sessions, searching
//   #/?sort=cost&project=<cwd>&since=2026-02-01&active=1&failed=1   sessions, sorted and filtered
//   #/?starred=1&tag=<tag>                 sessions the person starred or tagged
//   #/s/<agent>/<sid>                     a session's timeline
//   #/s/<agent>/<sid>?item=<uuid>&type=<type>&lane=<agent_id>&n=<k>   …landing on one item
//   #/s/<agent>/<sid>/summary             its numbers
//   #/s/<agent>/<sid>/files               the files it changed
//   #/s/<agent>/<sid>/dump                the dump builder
//   #/usage?by=weekly&stack=model&show=tokens&agent=codex&since=2026-02-01   the usage dashboard
//   #/chat                                a new chat
//   #/chat/<chatSessionId>                a chat with an agent
//   #/settings                            settings: the permission rules remembered per project

export type SessionTab = 'timeline' | 'summary' | 'files' | 'dump';

/** Points at one item. Items of one record share its uuid, so the type and, for a record holding
 * several items of one type, their order among them (`nth`, from 0) make the pointer exact. */
export interface ItemRef {
  uuid: string;
  type?: string;
  /** The subagent whose lane holds the item; absent on the session's own lane. */
  lane?: string;
  nth?: number;
  /** The search that led here, so the item can show what matched. */
  query?: string;
}

/** How the session list is ordered. */
export type SessionSort = 'recent' | 'tokens' | 'cost' | 'duration';
const SORTS: readonly SessionSort[] = ['recent', 'tokens', 'cost', 'duration'];

/** What the session list shows: each field narrows it, absent shows all. */
export interface ListFilters {
  sort?: SessionSort;
  /** One project's working directory. */
  project?: string;
  /** Active on or after this day (`YYYY-MM-DD`, local time). */
  since?: string;
  active?: boolean;
  /** Only sessions with a failed tool call. */
  failed?: boolean;
  /** Only sessions the person starred. */
  starred?: boolean;
  /** Only sessions the person gave this tag. */
  tag?: string;
}

/** The usage dashboard's period, what its chart stacks by and measures, and its filters. */
export type UsagePeriod = 'daily' | 'weekly' | 'monthly';
export type UsageStack = 'agent' | 'model' | 'project';
export type UsageMeasure = 'cost' | 'tokens';
export interface UsageFilters {
  by: UsagePeriod;
  stack: UsageStack;
  show: UsageMeasure;
  agent?: string;
  project?: string;
  model?: string;
  /** Days, `YYYY-MM-DD`, in the browser's time zone. */
  since?: string;
  until?: string;
}
const USAGE_PERIODS: readonly UsagePeriod[] = ['daily', 'weekly', 'monthly'];

export type Route =
  | ({ view: 'sessions'; query: string; agent?: string; tools: boolean } & ListFilters)
  | ({ view: 'usage' } & UsageFilters)
  | { view: 'session'; agent: string; sid: string; tab: SessionTab; item?: ItemRef }
  | { view: 'chat'; id?: string }
  | { view: 'settings' };

const TABS: readonly SessionTab[] = ['timeline', 'summary', 'files', 'dump'];

export function parseRoute(hash: string): Route {
  const raw = hash.startsWith('#') ? hash.slice(1) : hash;
  const q = raw.indexOf('?');
  const path = (q === -1 ? raw : raw.slice(0, q)).split('/').filter((p) => p !== '');
  const params = new URLSearchParams(q === -1 ? '' : raw.slice(q + 1));
  if (path[0] === 'chat') {
    return path[1] === undefined ? { view: 'chat' } : { view: 'chat', id: decodeURIComponent(path[1]) };
  }
  if (path[0] === 'usage') return parseUsage(params);
  if (path[0] === 'settings') return { view: 'settings' };
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
      const query = params.get('q');
      if (query) item.query = query;
      route.item = item;
    }
    return route;
  }
  const route: Route = { view: 'sessions', query: params.get('q') ?? '', tools: params.get('tools') === '1' };
  const agent = params.get('agent');
  if (agent) route.agent = agent;
  const sort = SORTS.find((x) => x === params.get('sort'));
  if (sort && sort !== 'recent') route.sort = sort;
  const project = params.get('project');
  if (project) route.project = project;
  const since = params.get('since');
  if (since && /^\d{4}-\d{2}-\d{2}$/.test(since)) route.since = since;
  if (params.get('active') === '1') route.active = true;
  if (params.get('failed') === '1') route.failed = true;
  if (params.get('starred') === '1') route.starred = true;
  const tag = params.get('tag');
  if (tag) route.tag = tag;
  return route;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;

const USAGE_STACKS: readonly UsageStack[] = ['agent', 'model', 'project'];

function parseUsage(params: URLSearchParams): Route {
  const route: Route = {
    view: 'usage',
    by: USAGE_PERIODS.find((p) => p === params.get('by')) ?? 'daily',
    stack: USAGE_STACKS.find((s) => s === params.get('stack')) ?? 'agent',
    show: params.get('show') === 'tokens' ? 'tokens' : 'cost',
  };
  for (const name of ['agent', 'project', 'model'] as const) {
    const value = params.get(name);
    if (value) route[name] = value;
  }
  for (const name of ['since', 'until'] as const) {
    const value = params.get(name);
    if (value && DAY.test(value)) route[name] = value;
  }
  return route;
}

function formatUsage(route: { view: 'usage' } & UsageFilters): string {
  const params = new URLSearchParams();
  if (route.by !== 'daily') params.set('by', route.by);
  if (route.stack !== 'agent') params.set('stack', route.stack);
  if (route.show !== 'cost') params.set('show', route.show);
  for (const name of ['agent', 'project', 'model', 'since', 'until'] as const) {
    const value = route[name];
    if (value) params.set(name, value);
  }
  const s = params.toString();
  return s === '' ? '#/usage' : `#/usage?${s}`;
}

export function formatRoute(route: Route): string {
  if (route.view === 'sessions') {
    const params = new URLSearchParams();
    if (route.query !== '') params.set('q', route.query);
    if (route.tools) params.set('tools', '1');
    if (route.agent) params.set('agent', route.agent);
    if (route.sort && route.sort !== 'recent') params.set('sort', route.sort);
    if (route.project) params.set('project', route.project);
    if (route.since) params.set('since', route.since);
    if (route.active) params.set('active', '1');
    if (route.failed) params.set('failed', '1');
    if (route.starred) params.set('starred', '1');
    if (route.tag) params.set('tag', route.tag);
    const s = params.toString();
    return s === '' ? '#/' : `#/?${s}`;
  }
  if (route.view === 'usage') return formatUsage(route);
  if (route.view === 'settings') return '#/settings';
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
  if (ref.query) params.set('q', ref.query);
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
