// Workstation tickets: which workstation a ticket names. Tickets are kept in
// `$CAIRN_HOME/workstations.json`, readable by its owner alone, as SHA-256 digests: the file never
// holds a ticket, and a ticket is found by comparing digests in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OWNER_ONLY_FILE, ownerOnlyDir } from '@cairn/runner/owner-only';

const FILE = 'workstations.json';
const NAME = /^[\w.-]{1,64}$/;

interface StoredTicket {
  readonly name: string;
  /** SHA-256 of the ticket. */
  readonly digest: Buffer;
  /** ISO time; absent for tickets kept by a cairn that did not record it. */
  readonly issuedAt?: string;
}

export interface TicketInfo {
  readonly name: string;
  readonly issuedAt?: string;
}

export type IssueResult =
  | { ok: true; ticket: string; name: string; issuedAt: string; replaced: number }
  | { ok: false; error: { _tag: 'TicketExists'; name: string; message: string } };

export const isWorkstationName = (name: string): boolean => NAME.test(name);

const digestOf = (ticket: string): Buffer => createHash('sha256').update(ticket, 'utf8').digest();

/**
 * The tickets kept for `cairnHome`. A file of the first layout (`{"tickets":{ticket:name}}`) holds
 * the tickets themselves: they are hashed here and the file is written again without them.
 */
function read(cairnHome: string): StoredTicket[] {
  let parsed: { tickets?: unknown; workstations?: unknown };
  try {
    parsed = JSON.parse(readFileSync(join(cairnHome, FILE), 'utf8')) ?? {};
  } catch {
    return [];
  }
  const kept: StoredTicket[] = [];
  if (Array.isArray(parsed.workstations)) {
    for (const entry of parsed.workstations as Record<string, unknown>[]) {
      const { name, sha256, issuedAt } = entry ?? {};
      if (typeof name !== 'string' || !NAME.test(name)) continue;
      if (typeof sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(sha256)) continue;
      kept.push({
        name,
        digest: Buffer.from(sha256, 'hex'),
        ...(typeof issuedAt === 'string' ? { issuedAt } : {}),
      });
    }
  }
  const plain = parsed.tickets !== null && typeof parsed.tickets === 'object' ? parsed.tickets : {};
  const old = Object.entries(plain as Record<string, unknown>);
  for (const [ticket, name] of old) {
    if (typeof name === 'string' && NAME.test(name) && ticket !== '')
      kept.push({ name, digest: digestOf(ticket) });
  }
  if (old.length > 0) {
    try {
      write(cairnHome, kept);
    } catch {
      // Read-only home: the tickets still work, and the next write drops the plain ones.
    }
  }
  return kept;
}

/** Writes the file whole, owner-only: readers see the old list or the new one. */
function write(cairnHome: string, tickets: readonly StoredTicket[]): void {
  ownerOnlyDir(cairnHome);
  const path = join(cairnHome, FILE);
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const workstations = tickets.map((t) => ({
    name: t.name,
    sha256: t.digest.toString('hex'),
    ...(t.issuedAt === undefined ? {} : { issuedAt: t.issuedAt }),
  }));
  try {
    writeFileSync(temp, `${JSON.stringify({ workstations }, null, 2)}\n`, {
      mode: OWNER_ONLY_FILE,
      flag: 'wx',
    });
    renameSync(temp, path);
  } finally {
    rmSync(temp, { force: true });
  }
}

/**
 * The workstation a stored ticket belongs to, read fresh so a new ticket works and a revoked one
 * stops at once. Every kept digest is compared, in constant time, whatever matches.
 */
export function storedTicketOwner(cairnHome: string, ticket: string): string | undefined {
  const digest = digestOf(ticket);
  let owner: string | undefined;
  for (const stored of read(cairnHome)) {
    if (timingSafeEqual(stored.digest, digest) && owner === undefined) owner = stored.name;
  }
  return owner;
}

/**
 * Makes a ticket for the workstation `name` and keeps its digest. A name that already has a ticket
 * is refused unless `replace` is set, which revokes the old ones: one name, one ticket.
 */
export function makeTicket(
  cairnHome: string,
  name: string,
  options: { replace?: boolean; now?: Date } = {},
): IssueResult {
  if (!NAME.test(name)) throw new Error(`not a workstation name: ${JSON.stringify(name)}`);
  const tickets = read(cairnHome);
  const others = tickets.filter((t) => t.name !== name);
  const replaced = tickets.length - others.length;
  if (replaced > 0 && !options.replace) {
    return {
      ok: false,
      error: {
        _tag: 'TicketExists',
        name,
        message: `workstation ${name} already has a ticket; revoke it first, or issue with --replace`,
      },
    };
  }
  const ticket = randomBytes(24).toString('base64url');
  const issuedAt = (options.now ?? new Date()).toISOString();
  write(cairnHome, [...others, { name, digest: digestOf(ticket), issuedAt }]);
  return { ok: true, ticket, name, issuedAt, replaced };
}

/** `makeTicket`'s ticket, for callers that know the name is free (or replace it); throws if not. */
export function issueTicket(cairnHome: string, name: string, options: { replace?: boolean } = {}): string {
  const made = makeTicket(cairnHome, name, options);
  if (!made.ok) throw new Error(made.error.message);
  return made.ticket;
}

/** Removes every ticket of `name`; answers how many there were. */
export function revokeTickets(cairnHome: string, name: string): number {
  const tickets = read(cairnHome);
  const others = tickets.filter((t) => t.name !== name);
  if (others.length !== tickets.length) write(cairnHome, others);
  return tickets.length - others.length;
}

/** The tickets kept, by name and time of issue, oldest first; never the tickets themselves. */
export function listTickets(cairnHome: string): TicketInfo[] {
  return read(cairnHome)
    .map((t) => ({ name: t.name, ...(t.issuedAt === undefined ? {} : { issuedAt: t.issuedAt }) }))
    .sort((a, b) => (a.issuedAt ?? '').localeCompare(b.issuedAt ?? '') || a.name.localeCompare(b.name));
}
