// `session_list`, `session_search` and `session_summary_read`: finding sessions and their numbers.
import {
  CAPABILITIES,
  type Capability,
  type OpRequest,
  type OpResult,
  type SessionHead,
} from '@cairn/protocol';
import { SESSION_SUMMARY_VERSION, summarizeSession } from '@cairn/transcript';
import { OnlyExclusions, type SearchQuery, type SearchRow, TooManyTerms } from '../indexing/search-query.js';
import { SearchTooLong } from '../indexing/search-thread.js';
import type { SessionEntry } from '../reader/catalog.js';
import type { SyncedSearchRow } from '../storage/server-store.js';
import { byActivity, wireHead } from '../streams/sessions-topic.js';
import { SYNCED_ACTIVE_MS, syncedHead } from '../sync/synced-heads.js';
import { laneCosts } from '../usage/lane-costs.js';
import { PRICES_SOURCE } from '../usage/pricing.js';
import {
  done,
  type Failure,
  fail,
  mayUseWorkstations,
  type OpContext,
  type OpHandler,
  type OpOutcome,
  offsetOf,
  sessionOf,
} from './context.js';

const LIST_LIMIT = 200;
const LIST_MAX = 2000;
const SEARCH_LIMIT = 50;
const SEARCH_MAX = 500;

export const sessionList: OpHandler<'session_list'> = (req, ctx) => listSessions(req, ctx, true);

/**
 * The list: the server's own sessions (unless `withCatalog` is false: a member on a team's server)
 * and those synced from the workstations the person may use, each marked with its machine.
 */
export async function listSessions(
  req: OpRequest<'session_list'>,
  ctx: OpContext,
  withCatalog: boolean,
): Promise<OpOutcome<'session_list'>> {
  const offset = offsetOf(req.cursor, 'o');
  if (offset === undefined) return fail('invalid_args', 'not a cursor this server issued', '/cursor');
  const now = Date.now();
  const agents = req.agents ? new Set(req.agents) : undefined;
  const wanted = (head: SessionHead) =>
    (!agents || agents.has(head.agent)) &&
    (req.cwd === undefined || (head.cwd ?? '').includes(req.cwd)) &&
    (req.since_at === undefined || (head.last_activity_at ?? 0) >= req.since_at) &&
    (req.active === undefined || head.active === req.active);
  const limit = Math.min(req.limit ?? LIST_LIMIT, LIST_MAX);
  const rows: { head: SessionHead; e?: SessionEntry }[] = [];
  let total = 0;
  if (withCatalog) {
    // A list is whole or not given: asked while the daemon still lists the sessions, it waits.
    await ctx.catalog.listed();
    for (const e of ctx.catalog.all()) {
      // The page's titles and first prompts come from the index below, once paged.
      const head = wireHead(e, ctx.catalog.active(e, now), undefined);
      if (wanted(head)) rows.push({ head, e });
    }
    total += rows.length;
  }
  if (ctx.synced) {
    // The store pages its own: the first `offset + limit` of them hold every one this page can show.
    const may = await mayUseWorkstations(ctx);
    const workstations = (await ctx.synced.workstationsHeld()).filter(may);
    if (workstations.length > 0) {
      const synced = await ctx.synced.page({
        workstations,
        ...(req.agents ? { agents: req.agents } : {}),
        ...(req.cwd !== undefined ? { cwd: req.cwd } : {}),
        ...(req.since_at !== undefined ? { sinceAt: req.since_at } : {}),
        ...(req.active !== undefined ? { active: req.active } : {}),
        now,
        activeMs: SYNCED_ACTIVE_MS,
        limit: offset + limit,
      });
      for (const r of synced.rows) rows.push({ head: syncedHead(r, now) });
      total += synced.total;
    }
  }
  rows.sort((a, b) => byActivity(a.head, b.head));
  const listed = rows.slice(offset, offset + limit);
  const entries = listed.flatMap(({ e }) => (e ? [e] : []));
  const texts = ctx.catalog.headTexts(entries);
  const page = listed.map(({ e, head }) => (e ? wireHead(e, head.active, texts.get(e.key)) : head));
  const next = offset + page.length;
  return done(next < total ? { sessions: page, total, next_cursor: `o:${next}` } : { sessions: page, total });
}

export const sessionSearch: OpHandler<'session_search'> = (req, ctx) => searchSessions(req, ctx, true);

/**
 * The search: over the server's own sessions (unless `withCatalog` is false: a member on a team's
 * server) and the documents synced from the workstations the person may use, each hit of those
 * marked with its machine.
 */
export async function searchSessions(
  req: OpRequest<'session_search'>,
  ctx: OpContext,
  withCatalog: boolean,
): Promise<OpOutcome<'session_search'>> {
  const offset = offsetOf(req.cursor, 'h');
  if (offset === undefined) return fail('invalid_args', 'not a cursor this server issued', '/cursor');
  // The full-text index reads a NUL as the end of the query.
  if (req.query.includes('\u0000'))
    return fail('invalid_args', 'the query contains a NUL character', '/query');
  if (req.since_at !== undefined && req.until_at !== undefined && req.since_at > req.until_at) {
    return fail('invalid_args', 'until_at is before since_at', '/until_at');
  }
  const limit = Math.min(req.limit ?? SEARCH_LIMIT, SEARCH_MAX);
  const filters = {
    query: req.query,
    ...(req.targets ? { targets: req.targets } : {}),
    ...(req.agents ? { agents: req.agents } : {}),
    ...(req.sid !== undefined ? { sid: req.sid } : {}),
    ...(req.cwd !== undefined ? { cwd: req.cwd } : {}),
    ...(req.since_at !== undefined ? { sinceAt: req.since_at } : {}),
    ...(req.until_at !== undefined ? { untilAt: req.until_at } : {}),
  };
  const may = await mayUseWorkstations(ctx);
  const workstations = ctx.synced ? (await ctx.synced.workstationsHeld()).filter(may) : [];
  // With synced sessions to search too, each side's first offset + limit are merged here.
  const merging = workstations.length > 0;
  let rows: SearchRow[] = [];
  if (withCatalog) {
    const found = await searchRows(ctx, {
      ...filters,
      ...(req.order !== undefined ? { order: req.order } : {}),
      ...(req.count === true ? { count: true } : {}),
      // One more than asked tells whether there is a next page.
      limit: merging ? offset + limit + 1 : limit + 1,
      offset: merging ? 0 : offset,
    });
    if (!Array.isArray(found)) return found;
    rows = found;
  }
  let synced: SyncedSearchRow[] = [];
  let syncedTotal = 0;
  if (merging && ctx.synced) {
    try {
      const found = await ctx.synced.search({
        ...filters,
        workstations,
        limit: offset + limit + 1,
        ...(req.count === true ? { count: true } : {}),
      });
      synced = found.rows;
      syncedTotal = found.total ?? 0;
    } catch (cause) {
      if (cause instanceof TooManyTerms || cause instanceof OnlyExclusions)
        return fail('invalid_args', cause.message, '/query');
      throw cause;
    }
  }
  const catalogHits = catalogSearchHits(ctx, merging ? rows : rows.slice(0, limit));
  const all = [...catalogHits, ...synced.map(syncedSearchHit)];
  if (merging) all.sort(req.order === 'time' ? byTime : byScore);
  const hits = merging ? all.slice(offset, offset + limit) : all;
  const partial = ctx.catalog.indexProgress().state === 'building';
  const result = { hits, partial } as OpResult<'session_search'>;
  const more = merging ? all.length > offset + limit : rows.length > limit;
  if (more) result.next_cursor = `h:${offset + limit}`;
  if (req.count === true) {
    // Every catalog row carries the count; a page past the last match has none to carry it.
    const catalogTotal = rows[0]?.total ?? (offset === 0 || merging ? 0 : undefined);
    if (catalogTotal !== undefined) result.total = catalogTotal + syncedTotal;
  }
  return done(result);
}

type Hit = Record<string, unknown> & { score: number; at?: number };

const byScore = (a: Hit, b: Hit) => b.score - a.score;
/** In the order the items were recorded, those without a time first. */
const byTime = (a: Hit, b: Hit) => (a.at ?? -1) - (b.at ?? -1);

/** A hit's title: the session's own, else its first prompt, as in the list. */
const hitTitle = (title: string | undefined) =>
  title === undefined ? undefined : title.length > 200 ? `${title.slice(0, 199)}…` : title;

function catalogSearchHits(ctx: OpContext, shown: readonly SearchRow[]): Hit[] {
  const entries = new Map<string, SessionEntry>();
  for (const r of shown) {
    const entry = ctx.catalog.get(r.sessionKey);
    if (entry) entries.set(r.sessionKey, entry);
  }
  const texts = ctx.catalog.headTexts([...entries.values()]);
  return shown.map((r) => {
    const entry = entries.get(r.sessionKey);
    const head = entry && texts.get(entry.key);
    return hitOf(
      { ...r, agentId: r.agentId ?? undefined, at: r.at ?? undefined },
      head?.title ?? head?.firstPrompt,
      entry?.head.cwd,
    );
  });
}

function syncedSearchHit(r: SyncedSearchRow): Hit {
  const hit = hitOf(r, r.head.title ?? r.head.first_prompt, r.head.cwd);
  hit.workstation = r.workstation;
  return hit;
}

/** A hit as the protocol writes it. A session without a title of its own is known by its first
 * prompt, as in the list. */
function hitOf(
  r: Pick<SearchRow, 'agent' | 'sid' | 'itemUuid' | 'itemType' | 'target' | 'snippet' | 'score'> & {
    agentId?: string | undefined;
    at?: number | undefined;
  },
  title: string | undefined,
  cwd: string | undefined,
): Hit {
  const hit: Hit = {
    agent: r.agent,
    sid: r.sid,
    item_uuid: r.itemUuid,
    item_type: r.itemType,
    target: r.target,
    snippet: r.snippet,
    score: r.score,
  };
  if (r.agentId !== undefined) hit.agent_id = r.agentId;
  if (r.at !== undefined) hit.at = r.at;
  const shown = hitTitle(title);
  if (shown !== undefined) hit.title = shown;
  if (cwd !== undefined) hit.cwd = cwd;
  return hit;
}

/** The catalog's rows, or the refusal of a query too long to take or a search stopped for its time. */
async function searchRows(ctx: OpContext, q: SearchQuery): Promise<SearchRow[] | Failure> {
  try {
    return await ctx.catalog.search(q);
  } catch (cause) {
    if (cause instanceof TooManyTerms || cause instanceof OnlyExclusions || cause instanceof SearchTooLong)
      return fail('invalid_args', cause.message, '/query');
    throw cause;
  }
}

export const sessionSummaryRead: OpHandler<'session_summary_read'> = async (req, ctx) => {
  const found = await sessionOf(ctx, req.sid, req.agent);
  if (!found.ok) return found;
  const e = found.entry;
  let summary = ctx.catalog.fullSummary(e);
  let capabilities = e.capabilities;
  if (!summary || !capabilities) {
    const computed = await summarizeSession(
      ctx.catalog.platform(),
      { agent: e.agent, path: e.head.path },
      { prompts: true },
    );
    if (!computed.ok) return fail('not_found', computed.error.message, '/sid');
    summary = computed.value;
    const loaded = await ctx.catalog.load(e.key);
    capabilities = loaded ? [...loaded.transcript.capabilities] : [];
  }
  const { prompts, ...numbers } = summary;
  const known = new Set<string>(CAPABILITIES);
  const result: OpResult<'session_summary_read'> = {
    agent: e.agent,
    sid: e.sid,
    summary: req.prompts ? { ...numbers, prompts: prompts ?? [] } : numbers,
    capabilities: capabilities.filter((c): c is Capability => known.has(c)),
    summary_version: SESSION_SUMMARY_VERSION,
  };
  if (req.lanes) {
    // The lanes need every request, so the transcript is read whole (through the catalog's cache).
    const loaded = await ctx.catalog.load(e.key);
    if (!loaded) return fail('not_found', 'the session’s files could not be read', '/sid');
    result.lanes = laneCosts(e.agent, loaded.transcript, loaded.lanes);
    result.prices = PRICES_SOURCE;
  }
  return done(result);
};
