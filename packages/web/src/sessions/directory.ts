// Every session the server knows, kept current: listed on each (re)subscription, then updated live from
// the `sessions` topic (a session appears, becomes active, goes quiet, or its files go away).
import type {
  OpArgs,
  SessionHead,
  SessionRemovedFrame,
  SessionUpsertedFrame,
  WorkstationPresenceFrame,
} from '@cairn/protocol';
import type { Connection } from '../rpc.js';
import { checkSessionsFrame } from '../wire-check.js';

const key = (agent: string, sid: string): string => `${agent}\u0000${sid}`;

// The listing is paged; a machine with more sessions than this shows the newest ones.
const PAGE = 500;
const MAX_PAGES = 20;

export class Directory {
  private readonly heads = new Map<string, SessionHead>();
  private readonly listeners = new Set<() => void>();
  private sorted: SessionHead[] | undefined;
  loaded = false;
  error: string | undefined;
  total: number | undefined;
  private started = false;
  /** Bumped by each listing, so that an older one still paging stops. */
  private listing = 0;
  /** Heads a live frame set or removed while the current listing runs: the frame is newer. */
  private touched = new Set<string>();
  /** Whether each workstation whose sessions are synced here is connected now, as the topic last said. */
  private readonly presence = new Map<string, WorkstationPresenceFrame>();

  constructor(private readonly conn: Connection) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    this.conn.subscribe({
      topic: 'sessions',
      accepts: (f) =>
        f.type === 'session_upserted' || f.type === 'session_removed' || f.type === 'workstation_presence',
      onFrame: (f) => this.frame(f),
      // The topic only says what changes from now on; the listing says what is there, and after a
      // reconnect it also drops what went away meanwhile.
      onSubscribed: () => void this.list(),
    });
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.sorted = undefined;
    for (const l of this.listeners) l();
  }

  /** Newest activity first. */
  all(): readonly SessionHead[] {
    this.sorted ??= [...this.heads.values()].sort(
      (a, b) => (b.last_activity_at ?? b.started_at ?? 0) - (a.last_activity_at ?? a.started_at ?? 0),
    );
    return this.sorted;
  }

  get(agent: string, sid: string): SessionHead | undefined {
    return this.heads.get(key(agent, sid));
  }

  /** Whether a workstation is connected now and when it was last heard; undefined until the server says. */
  presenceOf(workstation: string): WorkstationPresenceFrame | undefined {
    return this.presence.get(workstation);
  }

  private async list(): Promise<void> {
    const run = ++this.listing;
    this.touched = new Set();
    const listed = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const args: Record<string, unknown> = { limit: PAGE };
      if (cursor !== undefined) args.cursor = cursor;
      const reply = await this.conn.request('session_list', args as OpArgs<'session_list'>);
      if (run !== this.listing) return;
      if (!reply.ok) {
        this.error = reply.error.message;
        this.changed();
        return;
      }
      this.total = reply.value.total;
      for (const head of reply.value.sessions) {
        const k = key(head.agent, head.sid);
        listed.add(k);
        if (!this.touched.has(k)) this.heads.set(k, head);
      }
      cursor = reply.value.next_cursor;
      if (cursor === undefined) {
        for (const k of this.heads.keys()) if (!listed.has(k) && !this.touched.has(k)) this.heads.delete(k);
      }
      this.loaded = true;
      this.error = undefined;
      this.changed();
      if (cursor === undefined) return;
    }
  }

  private frame(f: Record<string, unknown>): void {
    const checked = checkSessionsFrame(f);
    if (!checked.ok) {
      this.error = `refused a frame that breaks the contract: ${checked.message}`;
      this.changed();
      return;
    }
    const frame = f as unknown as SessionUpsertedFrame | SessionRemovedFrame | WorkstationPresenceFrame;
    if (frame.type === 'workstation_presence') this.presence.set(frame.workstation, frame);
    else if (frame.type === 'session_upserted') {
      const k = key(frame.head.agent, frame.head.sid);
      this.touched.add(k);
      this.heads.set(k, frame.head);
    } else {
      const k = key(frame.agent, frame.sid);
      this.touched.add(k);
      this.heads.delete(k);
    }
    this.changed();
  }
}
