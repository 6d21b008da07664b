// Every request of every listed session, for the usage reports. A session is read once; later
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
import { entriesOf, type UsageEntry } from './usage-report.js';

export interface UsageRead {
  entries: UsageEntry[];
  /** Sessions that could not be read, each with why. */
  errors: { ref: string; error: string }[];
}

const stampsKey = (stamps: readonly SessionFileStamp[]): string =>
  JSON.stringify(stamps.map((s) => [s.path, s.size, s.mtimeMs]));

/** Sessions are read on two worker threads: the daemon keeps the rest of the machine for its clients. */
const READ_THREADS = 2;

export class UsageEntries {
  private readonly kept = new Map<string, { stamps: string; entries: UsageEntry[] }>();
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

  private async readNow(agent: string | undefined): Promise<UsageRead> {
    await this.catalog.listed();
    const sessions = this.catalog.all().filter((e) => agent === undefined || e.agent === agent);
    const entries: UsageEntry[] = [];
    const errors: UsageRead['errors'] = [];
    const changed: { entry: SessionEntry; target: SessionTarget }[] = [];
    await Promise.all(
      sessions.map(async (entry) => {
        const target: SessionTarget = { agent: entry.agent, path: entry.head.path, sessionId: entry.sid };
        const kept = this.kept.get(entry.key);
        if (kept) {
          const stamps = await sessionStamps(this.platform, target).catch(() => undefined);
          if (stamps && stampsKey(stamps) === kept.stamps) {
            entries.push(...kept.entries);
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
      const mine = entriesOf(entry.agent, entry.sid, outcome.value);
      entries.push(...mine);
      // Without stamps the next report could not tell the files unchanged: it reads them again.
      if (outcome.value.stamps.length > 0)
        this.kept.set(entry.key, { stamps: stampsKey(outcome.value.stamps), entries: mine });
      else this.kept.delete(entry.key);
    }
    // Sessions no longer listed are forgotten.
    const listed = new Set(this.catalog.all().map((e) => e.key));
    for (const key of this.kept.keys()) if (!listed.has(key)) this.kept.delete(key);
    // One order whatever came from memory: the rows' model lists and sums do not depend on it.
    entries.sort((a, b) => a.at - b.at || a.sessionId.localeCompare(b.sessionId));
    return { entries, errors };
  }
}
