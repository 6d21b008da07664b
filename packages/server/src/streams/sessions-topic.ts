// The `sessions` topic: the heads that appeared, changed or went away since the subscriber came, one
// frame each, coalesced so that a burst of writes to one session is one frame. What was there before
// is `session_list`'s to say.
import type { SessionHead } from '@cairn/protocol';
import type { Catalog, SessionEntry } from '../reader/catalog.js';
import { type HeadTexts, withTexts } from '../reader/head-texts.js';
import type {
  SyncedSessionRecord,
  SyncedSessionRecords,
  WorkstationPresence,
} from '../storage/server-store.js';
import { PRESENCE_TIMING, type PresenceTiming } from '../sync/presence.js';
import { syncedHead } from '../sync/synced-heads.js';
import { PRICES_SOURCE } from '../usage/pricing.js';
import type { Subscriber } from './streams.js';

/** A library head as the protocol writes it, with its title and first prompt from `texts`
 * (Catalog.headTexts). */
export function wireHead(e: SessionEntry, active: boolean, texts: HeadTexts | undefined): SessionHead {
  const h = withTexts(e.head, texts);
  const head: SessionHead = {
    agent: e.agent,
    sid: e.sid,
    path: h.path,
    files: [...h.files],
    size: h.size,
    active,
  };
  if (h.cwd !== undefined) head.cwd = h.cwd;
  if (h.title !== undefined) head.title = h.title;
  if (h.firstPrompt !== undefined) head.first_prompt = h.firstPrompt;
  if (h.mainFileMissing) head.main_file_missing = true;
  if (h.startedAt !== undefined) head.started_at = Math.max(0, Math.floor(h.startedAt));
  if (h.lastActivityAt !== undefined) head.last_activity_at = Math.max(0, Math.floor(h.lastActivityAt));
  if (h.gitBranch !== undefined) head.git_branch = h.gitBranch;
  const listing = h.listing;
  if (listing?.model !== undefined) head.model = listing.model;
  if (listing?.prompts !== undefined) head.prompts = listing.prompts;
  if (listing?.activeMs !== undefined) head.active_ms = Math.max(0, Math.round(listing.activeMs));
  if (listing?.costUsd !== undefined) {
    head.cost_usd = listing.costUsd;
    head.prices = PRICES_SOURCE;
  }
  const s = e.summary;
  if (s?.inputTokens !== undefined) head.input_tokens = s.inputTokens;
  if (s?.outputTokens !== undefined) head.output_tokens = s.outputTokens;
  if (s?.durationMs !== undefined) head.duration_ms = Math.max(0, Math.round(s.durationMs));
  if (s?.failedTools !== undefined) head.failed_tools = s.failedTools;
  return head;
}

/** Newest activity first. */
export const byActivity = (a: SessionHead, b: SessionHead): number =>
  (b.last_activity_at ?? 0) - (a.last_activity_at ?? 0) || a.sid.localeCompare(b.sid);

/** What one subscriber sees: the server's own sessions or not, and the synced ones of which machines. */
export interface SessionsView {
  readonly catalog: boolean;
  readonly mayUse: (workstation: string) => boolean;
}

const EVERYTHING: SessionsView = { catalog: true, mayUse: () => true };

/** What the topic last sent of a synced session: enough to tell a change, and when it stops being active. */
interface SentSynced {
  readonly stamp: string;
  readonly active: boolean;
  /** Kept while active, to send it again once it no longer is. */
  readonly record?: SyncedSessionRecord;
}

export class SessionsTopic {
  private readonly subs = new Map<Subscriber, SessionsView>();
  private readonly changed = new Map<string, SessionEntry>();
  private readonly removed = new Map<string, SessionEntry>();
  private readonly activeOf = new Map<string, boolean>();
  private timer: NodeJS.Timeout | undefined;
  private readonly activeTimer: NodeJS.Timeout;
  private readonly stop: () => void;
  /** Synced sessions by workstation, as last sent; a workstation is read when its notice comes. */
  private readonly sentSynced = new Map<string, Map<string, SentSynced>>();
  /** What to read again: by workstation, the sessions named (or 'all' of them); `null` for every
   * workstation. */
  private syncedDirty: Map<string, Set<string> | 'all'> | null = new Map();
  private syncedRunning = false;
  private stopSynced: (() => void) | undefined;
  private closed = false;
  private readonly baseline: Promise<void>;
  /** Each synced workstation's presence as last sent; undefined until first read. */
  private presenceSent: Map<string, WorkstationPresence> | undefined;
  private presenceRunning = false;
  /** A change came while a read was under way: read once more after it. */
  private presenceAgain = false;

  /** Settles once the topic hears the synced sessions' changes and holds their baseline. */
  get ready(): Promise<void> {
    return this.baseline;
  }

  constructor(
    private readonly catalog: Catalog,
    private readonly coalesceMs = 100,
    private readonly synced?: SyncedSessionRecords,
    private readonly presence: PresenceTiming = PRESENCE_TIMING,
  ) {
    this.stop = catalog.onHeads((changed, removed) => {
      for (const e of changed) this.changed.set(e.key, e);
      for (const e of removed) {
        this.changed.delete(e.key);
        this.removed.set(e.key, e);
      }
      this.schedule();
    });
    // Once listening, what every workstation holds is the baseline: a notice then sends only what
    // differs, and no change falls between the two.
    this.baseline = synced
      ? synced
          .onChange((change) => {
            if (change === undefined) this.syncedDirty = null;
            else
              this.markSynced(
                change.workstation,
                change.sessions?.map((s) => syncedId(s.agent, s.sid)),
              );
            this.schedule();
          })
          .then(
            (stop) => {
              if (this.closed) stop();
              else this.stopSynced = stop;
              return this.takeBaseline(synced);
            },
            () => {},
          )
      : Promise.resolve();
    // Active ends by the clock too: a session written to a minute ago is no longer.
    this.activeTimer = setInterval(() => this.recheckActive(), 5_000);
    this.activeTimer.unref();
  }

  close(): void {
    this.closed = true;
    this.stop();
    this.stopSynced?.();
    clearTimeout(this.timer);
    clearInterval(this.activeTimer);
    this.subs.clear();
  }

  subscribe(sub: Subscriber, view: SessionsView = EVERYTHING): void {
    this.subs.set(sub, view);
    if (!this.synced) return;
    // What is known now goes at once; a read under way sends what changed to every subscriber.
    for (const p of this.presenceSent?.values() ?? [])
      if (view.mayUse(p.workstation)) sub.send(presenceFrame(p));
    void this.checkPresence();
  }

  unsubscribe(sub: Subscriber): boolean {
    return this.subs.delete(sub);
  }

  private head(e: SessionEntry, now: number, texts: Map<string, HeadTexts>): SessionHead {
    const active = this.catalog.active(e, now);
    this.activeOf.set(e.key, active);
    return wireHead(e, active, texts.get(e.key));
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => this.flush(), this.coalesceMs);
  }

  /** A workstation came or left through this process: its subscribers hear it now, not at the next check. */
  presenceChanged(): void {
    if (this.subs.size === 0) return;
    if (this.presenceRunning) this.presenceAgain = true;
    else void this.checkPresence();
  }

  /** Reads which synced workstations are connected now and sends each one that changed. */
  private async checkPresence(): Promise<void> {
    if (!this.synced || this.presenceRunning || this.closed) return;
    this.presenceRunning = true;
    this.presenceAgain = false;
    try {
      const rows = await this.synced.presence(Date.now(), this.presence.freshMs);
      const first = this.presenceSent === undefined;
      this.presenceSent ??= new Map();
      const sent = this.presenceSent;
      for (const p of rows) {
        const was = sent.get(p.workstation);
        if (!first && was?.online === p.online) continue;
        sent.set(p.workstation, p);
        for (const [sub, view] of this.subs) if (view.mayUse(p.workstation)) sub.send(presenceFrame(p));
      }
    } catch {
      // The store away for a moment: the next check reads again.
    } finally {
      this.presenceRunning = false;
      if (this.presenceAgain) void this.checkPresence();
    }
  }

  private recheckActive(): void {
    if (this.subs.size > 0) void this.checkPresence();
    const now = Date.now();
    for (const e of this.catalog.all()) {
      if ((this.activeOf.get(e.key) ?? false) !== this.catalog.active(e, now)) this.changed.set(e.key, e);
    }
    for (const [workstation, sent] of this.sentSynced)
      for (const s of sent.values())
        if (s.active && s.record && !syncedHead(s.record, now).active)
          this.markSynced(workstation, [syncedId(s.record.agent, s.record.sid)]);
    if (this.changed.size > 0 || this.syncedDirty === null || this.syncedDirty.size > 0) this.schedule();
  }

  private flush(): void {
    this.timer = undefined;
    const now = Date.now();
    const changed = [...this.changed.values()];
    const texts = this.subs.size > 0 ? this.catalog.headTexts(changed) : new Map<string, HeadTexts>();
    const sessions = changed.map((e) => this.head(e, now, texts)).sort(byActivity);
    const removed = [...this.removed.values()].map((e) => ({ agent: e.agent, sid: e.sid }));
    for (const e of this.removed.values()) this.activeOf.delete(e.key);
    this.changed.clear();
    this.removed.clear();
    for (const [sub, view] of this.subs) {
      if (!view.catalog) continue;
      for (const head of sessions) sub.send({ type: 'session_upserted', head });
      for (const r of removed) sub.send({ type: 'session_removed', ...r });
    }
    if (this.syncedDirty === null || this.syncedDirty.size > 0) void this.flushSynced();
  }

  private async takeBaseline(synced: SyncedSessionRecords): Promise<void> {
    try {
      const now = Date.now();
      for (const r of await synced.list()) {
        const sent = this.sentSynced.get(r.workstation) ?? new Map<string, SentSynced>();
        this.sentSynced.set(r.workstation, sent);
        const active = syncedHead(r, now).active;
        sent.set(syncedId(r.agent, r.sid), { stamp: r.stamp, active, ...(active ? { record: r } : {}) });
      }
    } catch {
      // Unread, every synced session counts as new when its workstation's first notice comes.
    }
  }

  private markSynced(workstation: string, ids: readonly string[] | undefined): void {
    const dirty = this.syncedDirty;
    if (dirty === null) return;
    const marked = dirty.get(workstation);
    if (ids === undefined || marked === 'all') dirty.set(workstation, 'all');
    else dirty.set(workstation, new Set([...(marked ?? []), ...ids]));
  }

  /**
   * Reads what changed of the synced sessions and sends what differs from what was sent: the
   * sessions a notice named, or a workstation's all when it named none.
   */
  private async flushSynced(): Promise<void> {
    if (!this.synced || this.syncedRunning) return;
    this.syncedRunning = true;
    await this.baseline;
    const dirty = this.syncedDirty;
    this.syncedDirty = new Map();
    try {
      const now = Date.now();
      if (dirty === null) {
        const rows = await this.synced.list();
        for (const workstation of new Set([...this.sentSynced.keys(), ...rows.map((r) => r.workstation)]))
          this.sendSynced(
            workstation,
            undefined,
            rows.filter((r) => r.workstation === workstation),
            now,
          );
      } else
        for (const [workstation, ids] of dirty) {
          const named = ids === 'all' ? undefined : [...ids];
          const rows = named
            ? await this.synced.get(workstation, named.map(sessionOfId))
            : await this.synced.list([workstation]);
          this.sendSynced(workstation, named, rows, now);
        }
    } catch {
      // The store away for a moment: the next notice or check reads again.
      if (dirty === null) this.syncedDirty = null;
      else
        for (const [workstation, ids] of dirty)
          this.markSynced(workstation, ids === 'all' ? undefined : [...ids]);
    } finally {
      this.syncedRunning = false;
      if (this.syncedDirty === null || this.syncedDirty.size > 0) this.schedule();
    }
  }

  /** Sends one workstation's changes: `rows` are what it holds now of the sessions `named` (of all of
   * them when none are). */
  private sendSynced(
    workstation: string,
    named: readonly string[] | undefined,
    rows: readonly SyncedSessionRecord[],
    now: number,
  ): void {
    const sent = this.sentSynced.get(workstation) ?? new Map<string, SentSynced>();
    const upserted: SessionHead[] = [];
    const held = new Set<string>();
    for (const r of rows) {
      const head = syncedHead(r, now);
      const id = syncedId(r.agent, r.sid);
      held.add(id);
      const latest = { stamp: r.stamp, active: head.active, ...(head.active ? { record: r } : {}) };
      const was = sent.get(id);
      sent.set(id, latest);
      if (was?.stamp !== latest.stamp || was.active !== latest.active) upserted.push(head);
    }
    const gone = (named ?? [...sent.keys()]).filter((id) => !held.has(id) && sent.has(id));
    for (const id of gone) sent.delete(id);
    if (sent.size > 0) this.sentSynced.set(workstation, sent);
    else this.sentSynced.delete(workstation);
    for (const [sub, view] of this.subs) {
      if (!view.mayUse(workstation)) continue;
      for (const head of upserted) sub.send({ type: 'session_upserted', head });
      for (const id of gone) sub.send({ type: 'session_removed', ...sessionOfId(id), workstation });
    }
  }
}

const presenceFrame = (p: WorkstationPresence) => ({
  type: 'workstation_presence',
  workstation: p.workstation,
  online: p.online,
  heard_at: Math.max(0, Math.floor(p.heardAt)),
});

const syncedId = (agent: string, sid: string): string => `${agent}\u0000${sid}`;

function sessionOfId(id: string): { agent: string; sid: string } {
  const [agent, sid] = id.split('\u0000') as [string, string];
  return { agent, sid };
}
