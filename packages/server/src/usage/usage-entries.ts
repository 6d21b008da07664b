// Every request of every listed session, for the usage reports. An indexed session's requests come
// from the index, which keeps them from its last read (so a restarted daemon reads no transcript for
// a report). One the index has not read yet (a cold index under way) is read here, once; later
// reports take its requests from memory for as long as its files keep the stamps they had.
import {
  nodePlatform,
  runInPool,
  type SessionFileStamp,
  type SessionPlatform,
  type SessionTarget,
  sessionStamps,
} from '@cairn/transcript';
import type { Catalog, SessionEntry } from '../reader/catalog.js';
import { SessionEntries } from './usage-columns.js';
import { entriesOf, type UsageEntry } from './usage-report.js';

/** A session whose requests the index keeps, as the reports name it. */
export interface UsageSession {
  key: string;
  agent: string;
  sid: string;
}

export interface UsageRead {
  /**
   * Every request as an object, oldest first: made anew at each call (memory keeps them compact),
   * awaiting `pause` every few tens of thousands made, so that a daemon answers others meanwhile.
   */
  entries(pause?: () => Promise<unknown>): Promise<UsageEntry[]>;
  /** Sessions that could not be read, each with why. */
  errors: { ref: string; error: string }[];
}

/** A read kept as its sessions' compact entries. */
class KeptRead implements UsageRead {
  /** Where each entry goes in time order, once a first report has sorted them: the reports after it
   * (another kind, a filter) put the entries in order without sorting them again. */
  private order: Uint32Array | undefined;

  constructor(
    private readonly sessions: readonly SessionEntries[],
    readonly errors: { ref: string; error: string }[],
  ) {}

  async entries(pause?: () => Promise<unknown>): Promise<UsageEntry[]> {
    const made: UsageEntry[] = [];
    let since = 0;
    for (const s of this.sessions) {
      since += s.length;
      s.addTo(made);
      if (pause && since >= ENTRIES_PER_PAUSE) {
        since = 0;
        await pause();
      }
    }
    if (!this.order) {
      // One order whatever came from memory: the rows' model lists and sums do not depend on it.
      const order = Array.from(made.keys());
      order.sort((i, j) => made[i]!.at - made[j]!.at || made[i]!.sessionId.localeCompare(made[j]!.sessionId));
      this.order = Uint32Array.from(order);
    }
    const entries = new Array<UsageEntry>(made.length);
    for (let i = 0; i < made.length; i++) entries[i] = made[this.order[i]!]!;
    return entries;
  }
}

/** Entries made between two pauses (see UsageRead.entries). */
const ENTRIES_PER_PAUSE = 20_000;

const stampsKey = (stamps: readonly SessionFileStamp[]): string =>
  JSON.stringify(stamps.map((s) => [s.path, s.size, s.mtimeMs]));

/** Sessions are read on two worker threads: the daemon keeps the rest of the machine for its clients. */
const READ_THREADS = 2;

/** Sessions whose requests are read from the index one query each; more are read in one pass. */
const ONE_BY_ONE = 32;

export class UsageEntries {
  private readonly kept = new Map<string, { stamps: string; entries: SessionEntries }>();
  /** The entries made of each indexed session's requests, with the index's version of them. */
  private readonly made = new Map<string, { version: string; made: SessionEntries | { error: string } }>();
  /** The last report's requests when all came from the index, with what they were made of. */
  private last: { signature: string; read: UsageRead } | undefined;
  /** One report at a time: two pages asking at once do not read the same sessions twice. */
  private turn: Promise<unknown> = Promise.resolve();
  private readonly platform: SessionPlatform;

  constructor(
    private readonly catalog: Catalog,
    platform: SessionPlatform,
  ) {
    // A platform of its own: these reads leave the catalog's file cache and counts alone.
    this.platform = nodePlatform({ env: platform.env, homeDir: platform.homeDir });
  }

  /** The requests of the sessions listed now (of `agent` alone when given), oldest first. */
  read(agent?: string): Promise<UsageRead> {
    const next = this.turn.then(() => this.readNow(agent));
    this.turn = next.catch(() => undefined);
    return next;
  }

  /**
   * The entries of the sessions the index has read, made again only for those whose requests it
   * wrote since the last report; the others go to `unread`.
   */
  private fromIndex(
    sessions: readonly SessionEntry[],
    unread: SessionEntry[],
  ): { ref: string; made: SessionEntries | { error: string } }[] {
    const out: { ref: string; made: SessionEntries | { error: string } }[] = [];
    const versions = new Map<string, string>();
    const stale: string[] = [];
    for (const entry of sessions) {
      if (!entry.indexed) continue;
      const version = this.catalog.usageVersion(entry.key);
      versions.set(entry.key, version);
      if (this.made.get(entry.key)?.version !== version) stale.push(entry.key);
    }
    this.make(
      stale.map((key) => {
        const { agent, sid } = this.catalog.get(key)!;
        return { key, agent, sid };
      }),
      versions,
    );
    for (const entry of sessions) {
      const made = entry.indexed ? this.made.get(entry.key) : undefined;
      if (!made) {
        unread.push(entry);
        continue;
      }
      this.kept.delete(entry.key);
      out.push({ ref: entry.head.path, made: made.made });
    }
    return out;
  }

  /** Makes the entries of `sessions` from what the index keeps of them, at `versions`. */
  private make(sessions: readonly UsageSession[], versions: ReadonlyMap<string, string>): void {
    if (sessions.length === 0) return;
    const read = this.catalog.usage(sessions.length <= ONE_BY_ONE ? sessions.map((s) => s.key) : undefined);
    for (const { key, agent, sid } of sessions) {
      const usage = read.get(key);
      if (!usage) {
        this.made.delete(key);
        continue;
      }
      const made =
        'error' in usage
          ? usage
          : SessionEntries.of(
              agent,
              sid,
              entriesOf(agent, sid, {
                requests: usage.requests,
                ...(usage.project !== undefined ? { cwd: usage.project } : {}),
                ...(usage.title !== undefined ? { title: usage.title } : {}),
                stamps: [],
              }),
            );
      this.made.set(key, { version: versions.get(key)!, made });
    }
  }

  /**
   * Makes the entries of `sessions` (those the index keeps usage of, as it lists them) a few at a
   * time with a pause between for the event loop: at a start, while the catalog lists the sessions,
   * so that the first report finds them made and the daemon keeps answering meanwhile.
   */
  async prime(sessions: readonly UsageSession[]): Promise<void> {
    for (let i = 0; i < sessions.length; i += ONE_BY_ONE) {
      await new Promise((resolve) => setImmediate(resolve));
      const versions = new Map<string, string>();
      const stale: UsageSession[] = [];
      for (const session of sessions.slice(i, i + ONE_BY_ONE)) {
        const version = this.catalog.usageVersion(session.key);
        if (this.made.get(session.key)?.version === version) continue;
        versions.set(session.key, version);
        stale.push(session);
      }
      // In turn with the reports, so that one never sees half a batch.
      const next = this.turn.then(() => this.make(stale, versions));
      this.turn = next.catch(() => undefined);
      await next;
    }
  }

  /**
   * Makes the entries of every indexed session listed whose requests are not made yet (see prime),
   * then the list a report takes, once, when the index holds every session listed (a session it has
   * not read yet is left for a report to read: reading it here would race the index for the
   * machine). A session the index writes again later is made again at the next report.
   */
  async warm(): Promise<UsageRead | undefined> {
    await this.catalog.listed();
    await this.prime(
      this.catalog
        .all()
        .filter((e) => e.indexed)
        .map((e) => ({ key: e.key, agent: e.agent, sid: e.sid })),
    );
    return this.catalog.all().every((e) => e.indexed) ? this.read() : undefined;
  }

  /** What a report's list is made of: the sessions and the versions of their requests, in any order. */
  private signatureOf(agent: string | undefined, sessions: readonly { key: string }[]): string {
    const keys = sessions.map((e) => `${e.key} ${this.catalog.usageVersion(e.key)}`).sort();
    return `${agent ?? ''}\n${keys.join('\n')}`;
  }

  /**
   * The list of every agent's requests made of `sessions` alone (see prime), kept as the last
   * report's: a report once the catalog has listed the same sessions, their requests unchanged,
   * takes it as it is. Undefined, and nothing kept, when one of them could not be read or is not made.
   */
  assemble(sessions: readonly UsageSession[]): UsageRead | undefined {
    const made: SessionEntries[] = [];
    for (const { key } of sessions) {
      const one = this.made.get(key)?.made;
      if (one === undefined || 'error' in one) return undefined;
      made.push(one);
    }
    const read = new KeptRead(made, []);
    this.last = { signature: this.signatureOf(undefined, sessions), read };
    return read;
  }

  private async readNow(agent: string | undefined): Promise<UsageRead> {
    await this.catalog.listed();
    const sessions = this.catalog.all().filter((e) => agent === undefined || e.agent === agent);
    const entries: SessionEntries[] = [];
    const errors: UsageRead['errors'] = [];
    const changed: { entry: SessionEntry; target: SessionTarget }[] = [];
    const unread: SessionEntry[] = [];
    const fromIndex = this.fromIndex(sessions, unread);
    // Nothing changed since the last report: its requests, already in order.
    const signature = unread.length > 0 ? undefined : this.signatureOf(agent, sessions);
    if (signature !== undefined && this.last?.signature === signature) return this.last.read;
    for (const entry of fromIndex) {
      if ('error' in entry.made) errors.push({ ref: entry.ref, error: entry.made.error });
      else entries.push(entry.made);
    }
    await Promise.all(
      unread.map(async (entry) => {
        const target: SessionTarget = { agent: entry.agent, path: entry.head.path, sessionId: entry.sid };
        const kept = this.kept.get(entry.key);
        if (kept) {
          const stamps = await sessionStamps(this.platform, target).catch(() => undefined);
          if (stamps && stampsKey(stamps) === kept.stamps) {
            entries.push(kept.entries);
            return;
          }
        }
        changed.push({ entry, target });
      }),
    );
    const results = await runInPool(
      'requests',
      changed.map((c) => c.target),
      { env: this.platform.env, homeDir: this.platform.homeDir, concurrency: READ_THREADS },
    );
    for (const [i, { entry }] of changed.entries()) {
      const outcome = results[i]!;
      if (!outcome.ok) {
        this.kept.delete(entry.key);
        errors.push({ ref: entry.head.path, error: outcome.error.message });
        continue;
      }
      const mine = SessionEntries.of(
        entry.agent,
        entry.sid,
        entriesOf(entry.agent, entry.sid, outcome.value),
      );
      entries.push(mine);
      // Without stamps the next report could not tell the files unchanged: it reads them again.
      if (outcome.value.stamps.length > 0)
        this.kept.set(entry.key, { stamps: stampsKey(outcome.value.stamps), entries: mine });
      else this.kept.delete(entry.key);
    }
    // Sessions no longer listed are forgotten.
    const listed = new Set(this.catalog.all().map((e) => e.key));
    for (const key of this.kept.keys()) if (!listed.has(key)) this.kept.delete(key);
    for (const key of this.made.keys()) if (!listed.has(key)) this.made.delete(key);
    const read = new KeptRead(entries, errors);
    this.last = signature === undefined ? undefined : { signature, read };
    return read;
  }
}
