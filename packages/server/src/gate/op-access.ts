// What each op of the browser wire lets a person do on a team's server, decided in this one place
// before the op runs. The sessions the server reads from its own disk (the catalog) are the server
// machine's, so an admin's alone: a member is answered as if there were none when listing, and
// refused when naming one. A session the server drives runs on a workstation and follows that
// workstation's owner and sharing. Ops that touch no session are open to everyone signed in. On a
// daemon without people (no database) everything is open to its one token, as before.
//
// The table is keyed by every op name, so an op added to the protocol without a rule here does not
// typecheck.
import type { OpName, OpRequest } from '@cairn/protocol';
import { ping } from '../ops/common.js';
import { type Failure, fail, type OpContext, type OpOutcome } from '../ops/context.js';
import { listSessions, searchSessions } from '../ops/sessions.js';
import { PRICES_SOURCE } from '../usage/pricing.js';
import { usageTotals } from '../usage/usage-report.js';
import type { Person } from './people.js';

/** Why a member cannot have one of the server's own sessions. */
export const CATALOG_REFUSAL =
  'forbidden: the sessions this server reads from its own disk are an admin’s alone';

/** Why a member cannot act on the server itself. */
export const ADMIN_REFUSAL = 'forbidden: only an admin acts on the server itself';

/** Why `workstation` is not for this person (the chat's own words for it). */
export const workstationRefusal = (workstation: string): string =>
  `forbidden: workstation ${workstation} is neither yours nor shared`;

/** Let the op run, or answer it here (an empty answer or a refusal). */
export type Verdict<Op extends OpName> = { run: true } | OpOutcome<Op>;

export interface OpRule<Op extends OpName> {
  /** How the rule reads, for people and for the table test. */
  readonly kind: 'open' | 'admin' | 'catalog-list' | 'catalog-session' | 'driven-or-catalog' | 'topic';
  /** Asked only on a team's server, for a person who is not an admin. */
  readonly forMember: (request: OpRequest<Op>, ctx: OpContext, person: Person) => Promise<Verdict<Op>>;
}

const RUN = { run: true } as const;

const refuse = (message: string, field?: string): Failure => fail('forbidden', message, field);

/** Whether a person may read the sessions on the server's own disk: always without people. */
export const mayReadCatalog = (person: Person | undefined, team: boolean): boolean =>
  !team || person?.role === 'admin';

const open = <Op extends OpName>(): OpRule<Op> => ({ kind: 'open', forMember: async () => RUN });

const admin = <Op extends OpName>(): OpRule<Op> => ({
  kind: 'admin',
  forMember: async () => refuse(ADMIN_REFUSAL),
});

/** A member's answer is the op's answer over no sessions at all. */
const catalogList = <Op extends OpName>(none: (request: OpRequest<Op>) => OpOutcome<Op>): OpRule<Op> => ({
  kind: 'catalog-list',
  forMember: async (request) => none(request),
});

/** Refused whether or not the session exists, so that a refusal tells nothing of what is there. */
const catalogSession = <Op extends OpName>(): OpRule<Op> => ({
  kind: 'catalog-session',
  forMember: async () => refuse(CATALOG_REFUSAL, '/sid'),
});

/** A driven session (of the agent named, when one is) follows its workstation; anything else is the
 * catalog's. */
const drivenOrCatalog = <Op extends 'session_kill' | 'session_env_read'>(): OpRule<Op> => ({
  kind: 'driven-or-catalog',
  forMember: async (request, ctx, person) => {
    const { sid, agent } = request as { sid: string; agent?: string };
    const driven = await ctx.drive?.find(sid);
    if (driven === undefined || (agent !== undefined && driven.agentKey !== agent))
      return refuse(CATALOG_REFUSAL, '/sid');
    const may = ctx.access ? await ctx.access(person) : () => true;
    return may(driven.workstation) ? RUN : refuse(workstationRefusal(driven.workstation), '/sid');
  },
});

const done = <T>(result: T) => ({ ok: true as const, result });

/** The zone a usage report would be counted in, or undefined for a name the runtime does not know. */
function zoneOf(name: string | undefined): string | undefined {
  try {
    return new Intl.DateTimeFormat('en-US', name === undefined ? {} : { timeZone: name }).resolvedOptions()
      .timeZone;
  } catch {
    return undefined;
  }
}

export const OP_ACCESS: { readonly [Op in OpName]: OpRule<Op> } = {
  hello: open(),
  // The server's own state, with its index counted as if it held no sessions.
  ping: {
    kind: 'catalog-list',
    forMember: async (request, ctx) => {
      const answer = await ping(request, ctx);
      return answer.ok ? done({ ...answer.result, index: { state: 'ready', sessions: 0 } }) : answer;
    },
  },
  // Stopping the server stops it for everyone.
  shutdown: admin(),
  // A member's `sessions` topic carries the synced sessions of the machines they may use, and none
  // of the catalog's (see topicSubscribe). A session's stream is one of the catalog's sessions.
  topic_subscribe: {
    kind: 'topic',
    forMember: async (request) =>
      request.topic.startsWith('session:') ? refuse(CATALOG_REFUSAL, '/topic') : RUN,
  },
  // Only ever drops the connection's own subscription.
  topic_unsubscribe: open(),
  // The sessions synced from the workstations a member may use, and none of the server's own.
  session_list: {
    kind: 'catalog-list',
    forMember: async (request, ctx) => listSessions(request, ctx, false),
  },
  // The documents synced from the workstations a member may use, and none of the server's own.
  session_search: {
    kind: 'catalog-list',
    forMember: async (request, ctx) => searchSessions(request, ctx, false),
  },
  // Stars and tags are kept beside the catalog, for its sessions.
  session_marks_read: catalogList(() => done({ marks: [] })),
  session_marks_write: catalogSession(),
  // The links file is the server's own, written by hand-offs from its sessions.
  session_links_read: catalogList(() => done({ links: [] })),
  session_handoff_preview: catalogSession(),
  usage_read: catalogList((request) => {
    const timezone = zoneOf(request.timezone);
    if (timezone === undefined)
      return fail('invalid_args', `'${request.timezone}' is not a time zone; give an IANA name`, '/timezone');
    return done({
      kind: request.kind ?? 'daily',
      rows: [],
      totals: usageTotals([]),
      prices: PRICES_SOURCE,
      timezone,
      at: Date.now(),
    });
  }),
  session_summary_read: catalogSession(),
  transcript_read: catalogSession(),
  transcript_items_read: catalogSession(),
  session_dump_write: catalogSession(),
  dump_presets_read: open(),
  session_kill: drivenOrCatalog(),
  session_env_read: drivenOrCatalog(),
  session_fork_origin: catalogSession(),
  session_last_live_remove: catalogSession(),
};

/**
 * Whether the connection's person may make this request: run it, or the answer to give instead.
 * Without people (no `access`) and for an admin, every op runs.
 */
export async function judgeOp<Op extends OpName>(
  op: Op,
  request: OpRequest<Op>,
  ctx: OpContext,
): Promise<Verdict<Op>> {
  const person = ctx.conn.person;
  if (ctx.access === undefined || person?.role === 'admin') return RUN;
  const rule = OP_ACCESS[op] as OpRule<Op>;
  // A connection with nobody behind it on a team's server: nothing beyond the open ops.
  if (person === undefined) return rule.kind === 'open' ? RUN : refuse('forbidden: no person signed in');
  return rule.forMember(request, ctx, person);
}
