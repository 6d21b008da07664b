// Workstation tickets: which workstation a ticket names. The local workstation's ticket lives
// only in memory; others are kept in `$CAIRN_HOME/workstations.json`, readable by its owner alone.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE = 'workstations.json';

interface TicketFile {
  tickets: Record<string, string>;
}

function read(cairnHome: string): TicketFile {
  try {
    const parsed = JSON.parse(readFileSync(join(cairnHome, FILE), 'utf8')) as Partial<TicketFile>;
    const tickets: Record<string, string> = {};
    for (const [ticket, name] of Object.entries(parsed.tickets ?? {})) {
      if (typeof name === 'string' && name !== '') tickets[ticket] = name;
    }
    return { tickets };
  } catch {
    return { tickets: {} };
  }
}

/** The workstation a stored ticket belongs to, read fresh so a new ticket works at once. */
export function storedTicketOwner(cairnHome: string, ticket: string): string | undefined {
  return Object.hasOwn(read(cairnHome).tickets, ticket) ? read(cairnHome).tickets[ticket] : undefined;
}

/** Makes a ticket for a workstation named `name` and stores it. */
export function issueTicket(cairnHome: string, name: string): string {
  const file = read(cairnHome);
  const ticket = randomBytes(24).toString('base64url');
  file.tickets[ticket] = name;
  mkdirSync(cairnHome, { recursive: true, mode: 0o700 });
  const path = join(cairnHome, FILE);
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, path);
  return ticket;
}
