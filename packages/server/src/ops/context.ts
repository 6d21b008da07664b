// What an op handler is given and what it answers.
import type { ErrorBody, OpName, OpRequest, OpResult, Role } from '@cairn/protocol';
import type { Person, WorkstationAccess } from '../gate/people.js';
import type { Catalog, SessionEntry } from '../reader/catalog.js';
import type { MarksStore } from '../storage/marks-store.js';
import type { SyncedSessionRecords } from '../storage/server-store.js';
import type { SessionsTopic } from '../streams/sessions-topic.js';
import type { Streams, Subscriber } from '../streams/streams.js';
import type { DriveAccess } from './driven.js';

export interface Connection extends Subscriber {
  readonly id: number;
  role: Role | undefined;
  /** The session a `session` connection speaks for. */
  sid: string | undefined;
  /** Who came in on it: the daemon's own token, or (on a server with a database) a user's. */
  readonly person?: Person;
}

export interface ServerInfo {
  readonly instance: string;
  readonly version: string;
  readonly startedAt: number;
  /** `$CAIRN_HOME`: the index, dumps, presets. */
  readonly home: string;
  /** Folders a dump must never be written into. */
  readonly agentHomes: readonly string[];
  clients(): number;
  shutdown(): void;
}

export interface OpContext {
  readonly catalog: Catalog;
  readonly streams: Streams;
  readonly sessions: SessionsTopic;
  readonly server: ServerInfo;
  readonly conn: Connection;
  /** The sessions this server drives; absent where nothing is driven (a catalog-only server). */
  readonly drive?: DriveAccess;
  /** Which workstations a person may see and drive (a team's server); every one when absent. */
  readonly access?: WorkstationAccess;
  /** A person's stars and tags, opened when first asked. */
  readonly marks: () => MarksStore;
  /** The sessions workstations synced from their machines; absent on a server that takes none. */
  readonly synced?: SyncedSessionRecords;
}

export type Failure = { ok: false; error: ErrorBody };
export type OpOutcome<Op extends OpName> = { ok: true; result: OpResult<Op> } | Failure;

export type OpHandler<Op extends OpName> = (request: OpRequest<Op>, ctx: OpContext) => Promise<OpOutcome<Op>>;

export const done = <T>(result: T): { ok: true; result: T } => ({ ok: true, result });

export const fail = (code: ErrorBody['code'], message: string, field?: string): Failure => ({
  ok: false,
  error: field === undefined ? { code, message } : { code, message, field },
});

/**
 * The session a request names. A `session` connection reads only its own: another sid is
 * `forbidden` for it, whether or not that session exists.
 */
export async function sessionOf(
  ctx: OpContext,
  sid: string,
  agent: string | undefined,
): Promise<{ ok: true; entry: SessionEntry } | { ok: false; error: ErrorBody }> {
  if (ctx.conn.role === 'session' && ctx.conn.sid !== sid) {
    return fail('forbidden', 'a session connection reads its own session only', '/sid');
  }
  // Asked while the daemon is still listing the sessions on disk: not found means not found yet.
  const entry = await ctx.catalog.findListed(sid, agent);
  if (!entry) {
    const elsewhere = await syncedFrom(ctx, sid, agent);
    return fail(
      'not_found',
      elsewhere === undefined
        ? `no session ${sid}${agent === undefined ? '' : ` of ${agent}`}`
        : `session ${sid} is on workstation ${elsewhere}, which syncs its list entry only: its transcript is read on that machine`,
      '/sid',
    );
  }
  return { ok: true, entry };
}

/** Which workstations the connection's person may use: every one on a daemon without people, none
 * for a connection without a person on a team's server. */
export async function mayUseWorkstations(ctx: OpContext): Promise<(workstation: string) => boolean> {
  const person = ctx.conn.person;
  if (ctx.access === undefined) return () => true;
  return person ? ctx.access(person) : () => false;
}

/** The workstation a session the person may see was synced from, when it was. */
async function syncedFrom(
  ctx: OpContext,
  sid: string,
  agent: string | undefined,
): Promise<string | undefined> {
  if (!ctx.synced) return undefined;
  const may = await mayUseWorkstations(ctx);
  return (await ctx.synced.find(sid, agent)).find((r) => may(r.workstation))?.workstation;
}

/** Offset cursors: `<prefix>:<n>`, n a safe integer (this server issues no other). */
export function offsetOf(cursor: string | undefined, prefix: string): number | undefined {
  if (cursor === undefined) return 0;
  const m = new RegExp(`^${prefix}:(\\d{1,16})$`).exec(cursor);
  const n = m ? Number(m[1]) : undefined;
  return n !== undefined && Number.isSafeInteger(n) ? n : undefined;
}
