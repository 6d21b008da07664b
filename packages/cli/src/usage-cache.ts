// The requests of sessions that have not changed since the last `cairn usage`, kept in
// $CAIRN_HOME/usage.sqlite the way the summary cache keeps numbers (stamped-cache.ts).
import { rmSync } from 'node:fs';
import { type Kept, StampedCache } from './stamped-cache.js';
import type { UsageEntry } from './usage-report.js';

export type CachedEntries = Kept<UsageEntry[]>;
export type UsageCache = StampedCache<UsageEntry[]>;

/** A stored list of entries, or undefined when the text is not one (the session is then read again). */
function parseEntries(text: string): UsageEntry[] | undefined {
  try {
    const entries: unknown = JSON.parse(text);
    return Array.isArray(entries) ? (entries as UsageEntry[]) : undefined;
  } catch {
    return undefined;
  }
}

/** Opens (or makes) the cache; a damaged file is made anew; throws what SQLite or the folder throws. */
export function openUsageCache(file: string, build: string): UsageCache {
  const open = () => StampedCache.open(file, build, 'entries', parseEntries);
  try {
    return open();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== 'SQLITE_NOTADB' && code !== 'SQLITE_CORRUPT') throw error;
    // Only cairn writes the file and it holds nothing that cannot be counted again.
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
    return open();
  }
}
