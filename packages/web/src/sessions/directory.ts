// Every session the server knows, kept current: listed once, then updated live from the `sessions`
// topic (a session appears, becomes active, goes quiet, or its files go away).
import type {
  OpArgs,
  SessionHead,
  SessionRemovedFrame,
  SessionsFrame,
  SessionUpsertedFrame,
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

  constructor(private readonly conn: Connection) {}

  start(): void {
    if (this.started) return;
    this.started = true;
    this.conn.subscribe({
      topic: 'sessions',
      accepts: (f) => f.type === 'session_upserted' || f.type === 'session_removed',
      onFrame: (f) => this.frame(f),
    });
    void this.list();
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

  private async list(): Promise<void> {
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const args: Record<string, unknown> = { limit: PAGE };
      if (cursor !== undefined) args.cursor = cursor;
      const reply = await this.conn.request('session_list', args as OpArgs<'session_list'>);
      if (!reply.ok) {
        this.error = reply.error.message;
        this.changed();
        return;
      }
      this.total = reply.value.total;
      // A live update may already hold a newer state of a head than this page.
      for (const head of reply.value.sessions) {
        const k = key(head.agent, head.sid);
        const known = this.heads.get(k);
        if (!known || (known.last_activity_at ?? 0) <= (head.last_activity_at ?? 0)) this.heads.set(k, head);
      }
      this.loaded = true;
      this.error = undefined;
      this.changed();
      cursor = reply.value.next_cursor;
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
    const frame = f as unknown as SessionUpsertedFrame | SessionRemovedFrame | SessionsFrame;
    if ('ev' in frame) {
      for (const head of frame.data.sessions) this.heads.set(key(head.agent, head.sid), head);
      for (const r of frame.data.removed ?? []) this.heads.delete(key(r.agent, r.sid));
      if (frame.snapshot === true) this.loaded = true;
    } else if (frame.type === 'session_upserted') {
      this.heads.set(key(frame.head.agent, frame.head.sid), frame.head);
    } else this.heads.delete(key(frame.agent, frame.sid));
    this.changed();
  }
}
