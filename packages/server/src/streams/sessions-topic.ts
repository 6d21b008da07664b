// The `sessions` topic: the heads that appeared, changed or went away since the subscriber came, one
// frame each, coalesced so that a burst of writes to one session is one frame. What was there before
// is `session_list`'s to say.
import type { SessionHead } from '@cairn/protocol';
import type { Catalog, SessionEntry } from '../reader/catalog.js';
import { type HeadTexts, withTexts } from '../reader/head-texts.js';
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

export class SessionsTopic {
  private readonly subs = new Set<Subscriber>();
  private readonly changed = new Map<string, SessionEntry>();
  private readonly removed = new Map<string, SessionEntry>();
  private readonly activeOf = new Map<string, boolean>();
  private timer: NodeJS.Timeout | undefined;
  private readonly activeTimer: NodeJS.Timeout;
  private readonly stop: () => void;

  constructor(
    private readonly catalog: Catalog,
    private readonly coalesceMs = 100,
  ) {
    this.stop = catalog.onHeads((changed, removed) => {
      for (const e of changed) this.changed.set(e.key, e);
      for (const e of removed) {
        this.changed.delete(e.key);
        this.removed.set(e.key, e);
      }
      this.schedule();
    });
    // Active ends by the clock too: a session written to a minute ago is no longer.
    this.activeTimer = setInterval(() => this.recheckActive(), 5_000);
    this.activeTimer.unref();
  }

  close(): void {
    this.stop();
    clearTimeout(this.timer);
    clearInterval(this.activeTimer);
    this.subs.clear();
  }

  subscribe(sub: Subscriber): void {
    this.subs.add(sub);
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

  private recheckActive(): void {
    const now = Date.now();
    for (const e of this.catalog.all()) {
      if ((this.activeOf.get(e.key) ?? false) !== this.catalog.active(e, now)) this.changed.set(e.key, e);
    }
    if (this.changed.size > 0) this.schedule();
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
    for (const sub of this.subs) {
      for (const head of sessions) sub.send({ type: 'session_upserted', head });
      for (const r of removed) sub.send({ type: 'session_removed', ...r });
    }
  }
}
