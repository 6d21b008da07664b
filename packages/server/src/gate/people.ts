// Who is on the other end of a request. One person's daemon knows one token, which acts as an
// admin; a team's server (with a database) also takes each user's own token, so that every
// connection knows its user and role, and what that user may see and drive follows from it.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Role, UserRecord, WorkstationRecord } from '../storage/server-store.js';
import { checkOrigin, type Gate, presentedToken, tokenMatches } from './security.js';

export interface Person {
  readonly name: string;
  readonly role: Role;
  /** Came in with the daemon's own token: the single-user path. */
  readonly daemonToken?: true;
}

/** Whoever shows the daemon's own token: the machine's owner, who sees everything. */
export const DAEMON_PERSON: Person = { name: 'owner', role: 'admin', daemonToken: true };

/** The user a token belongs to, from the store; absent on a daemon without a database. */
export type FindUser = (token: string) => Promise<Pick<UserRecord, 'name' | 'role'> | undefined>;

export type Admission =
  | { ok: true; person: Person }
  | { ok: false; refusal: { status: 401 | 403 | 503; reason: string } };

/**
 * The gate's checks with people: Host and Origin first, then the daemon's token, then a user's.
 * A wrong token is refused exactly as the daemon always refused it.
 */
export async function admit(
  gate: Gate,
  findUser: FindUser | undefined,
  url: URL,
  headers: IncomingHttpHeaders,
): Promise<Admission> {
  const origin = checkOrigin(gate, headers);
  if (origin) return { ok: false, refusal: origin };
  return personWithToken(gate, findUser, presentedToken(url, headers));
}

/** The person a token names: the daemon's own, else a user's, else a refusal. */
export async function personWithToken(
  gate: Gate,
  findUser: FindUser | undefined,
  token: string | undefined,
): Promise<Admission> {
  if (tokenMatches(gate, token)) return { ok: true, person: DAEMON_PERSON };
  if (token !== undefined && token !== '' && findUser !== undefined) {
    let user: Awaited<ReturnType<FindUser>>;
    try {
      user = await findUser(token);
    } catch {
      return {
        ok: false,
        refusal: { status: 503, reason: 'cannot check the token: the database did not answer' },
      };
    }
    if (user) return { ok: true, person: { name: user.name, role: user.role } };
  }
  return { ok: false, refusal: { status: 401, reason: 'missing or wrong token' } };
}

// The person each admitted request came as, for the handlers behind the gate.
const people = new WeakMap<IncomingMessage, Person>();

export function rememberPerson(req: IncomingMessage, person: Person): void {
  people.set(req, person);
}

/** The person a request was admitted as; undefined for one the gate did not admit with a token. */
export const personOf = (req: IncomingMessage): Person | undefined => people.get(req);

/**
 * What a person may see and drive: an admin every workstation; a member their own and the shared
 * ones. A workstation no user owns (one with a ticket of the old kind, the daemon's own) is an
 * admin's alone.
 */
export function mayUse(person: Person, workstation: WorkstationRecord | undefined): boolean {
  if (person.role === 'admin') return true;
  if (workstation === undefined) return false;
  return workstation.owner === person.name || workstation.visibility === 'shared';
}

/** Answers, for one person, which workstations they may use; read from the store each time it is asked. */
export type WorkstationAccess = (person: Person) => Promise<(workstation: string) => boolean>;

export function workstationAccess(records: () => Promise<readonly WorkstationRecord[]>): WorkstationAccess {
  return async (person) => {
    if (person.role === 'admin') return () => true;
    const byName = new Map((await records()).map((w) => [w.name, w]));
    return (workstation) => mayUse(person, byName.get(workstation));
  };
}
