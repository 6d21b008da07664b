// A person's stars and tags, as the server keeps them: read once per connection, changed through
// `session_marks_write`, and the answer of each change taken as the session's marks from then on.
import type { OpArgs, SessionMarks, StarredItem } from '@cairn/protocol';
import type { Connection } from '../rpc.js';

const key = (agent: string, sid: string): string => `${agent}\u0000${sid}`;

const sameItem = (a: StarredItem, b: StarredItem): boolean =>
  a.item_uuid === b.item_uuid &&
  (a.item_type ?? '') === (b.item_type ?? '') &&
  (a.agent_id ?? '') === (b.agent_id ?? '') &&
  (a.nth ?? 0) === (b.nth ?? 0);

export class Marks {
  private readonly bySession = new Map<string, SessionMarks>();
  private readonly listeners = new Set<() => void>();
  private started = false;
  loaded = false;
  error: string | undefined;

  constructor(private readonly conn: Connection) {}

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    if (!this.started) {
      this.started = true;
      void this.reload();
    }
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const l of this.listeners) l();
  }

  async reload(): Promise<void> {
    const reply = await this.conn.request('session_marks_read', {});
    if (reply.ok) {
      this.bySession.clear();
      for (const m of reply.value.marks) this.bySession.set(key(m.agent, m.sid), m);
      this.error = undefined;
    } else this.error = reply.error.message;
    this.loaded = true;
    this.changed();
  }

  of(agent: string, sid: string): SessionMarks | undefined {
    return this.bySession.get(key(agent, sid));
  }

  all(): SessionMarks[] {
    return [...this.bySession.values()];
  }

  /** Every tag in use, sorted. */
  tags(): string[] {
    return [...new Set(this.all().flatMap((m) => m.tags))].sort();
  }

  isItemStarred(agent: string, sid: string, item: StarredItem): boolean {
    return this.of(agent, sid)?.items.some((i) => sameItem(i, item)) ?? false;
  }

  /** Sends a change; answers the refusal's message, if refused. */
  async write(
    agent: string,
    sid: string,
    change: Omit<OpArgs<'session_marks_write'>, 'agent' | 'sid'>,
  ): Promise<string | undefined> {
    const reply = await this.conn.request('session_marks_write', { agent, sid, ...change });
    if (!reply.ok) return reply.error.message;
    this.bySession.set(key(agent, sid), reply.value.marks);
    this.changed();
    return undefined;
  }
}

const stores = new WeakMap<Connection, Marks>();

/** The marks of the sessions behind one connection, one store per connection. */
export function marksOf(conn: Connection): Marks {
  let store = stores.get(conn);
  if (!store) {
    store = new Marks(conn);
    stores.set(conn, store);
  }
  return store;
}

/** Whether a session passes the list's star and tag filters. */
export function passesMarks(
  marks: SessionMarks | undefined,
  filter: { starred?: boolean; tag?: string },
): boolean {
  // A star on one of its rows counts as a star on the session.
  if (filter.starred && !marks?.starred && (marks?.items.length ?? 0) === 0) return false;
  if (filter.tag !== undefined && !marks?.tags.includes(filter.tag)) return false;
  return true;
}

/** The sessions a query names by tag: every word of the query is (part of) one of its tags. */
export function taggedBy(all: readonly SessionMarks[], query: string): SessionMarks[] {
  const words = query
    .toLowerCase()
    .replace(/^#/, '')
    .split(/\s+/)
    .map((w) => w.replace(/^#/, ''))
    .filter((w) => w !== '');
  if (words.length === 0) return [];
  return all.filter((m) => words.every((w) => m.tags.some((t) => t.toLowerCase().includes(w))));
}
