// Workstation tickets kept in the server's store (a team's database) for the agent wire, whose
// checks are synchronous: a ticket is looked up in the store when a workstation connects, its owner
// kept here, and every ticket kept is asked again every few seconds, so a ticket revoked from any
// process (or the command line) cuts its workstation at a heartbeat soon after. The names that hold
// a ticket are kept too, for the lists of workstations known while offline.
import type { TicketRecords } from '../storage/server-store.js';

export class StoreTickets {
  /** Tickets the store confirmed, with their workstation; a refused ticket is never kept. */
  private readonly known = new Map<string, string>();
  private named: readonly string[] = [];
  private readonly timer: NodeJS.Timeout;
  private rechecking = false;
  private closed = false;

  constructor(
    private readonly tickets: TicketRecords,
    private readonly log: (line: string) => void = () => {},
    recheckMs = 5_000,
  ) {
    this.timer = setInterval(() => void this.recheck(), recheckMs);
    this.timer.unref();
    void this.recheck();
  }

  /** The workstations that held a ticket when the store was last asked. */
  names = (): readonly string[] => this.named;

  /** The workstation of a ticket the store confirmed last time it was asked. */
  owner = (ticket: string): string | undefined => this.known.get(ticket);

  /** Asks the store about a ticket and keeps the answer. */
  async check(ticket: string): Promise<string | undefined> {
    const owner = await this.tickets.owner(ticket);
    if (owner === undefined) this.known.delete(ticket);
    else this.known.set(ticket, owner);
    return owner;
  }

  close(): void {
    this.closed = true;
    clearInterval(this.timer);
    this.known.clear();
  }

  private async recheck(): Promise<void> {
    if (this.rechecking || this.closed) return;
    this.rechecking = true;
    try {
      this.named = (await this.tickets.list()).map((t) => t.name);
      for (const ticket of [...this.known.keys()]) await this.check(ticket);
    } catch (error) {
      // The database away for a moment: the tickets known stay as they were until it answers.
      if (!this.closed)
        this.log(`agent wire: cannot check the workstations' tickets: ${(error as Error).message}`);
    } finally {
      this.rechecking = false;
    }
  }
}
