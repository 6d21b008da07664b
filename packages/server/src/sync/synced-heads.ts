// A synced session as the server's list and its `sessions` topic show it: the head its workstation
// sent, marked with the machine, active only while the machine's word on it is fresh.
import type { SessionHead } from '@cairn/protocol';
import type { SyncedSessionRecord } from '../storage/server-store.js';

/** A synced head counts as active only while its workstation's word on it is this fresh. */
export const SYNCED_ACTIVE_MS = 60_000;

export function syncedHead(r: SyncedSessionRecord, now: number): SessionHead {
  const active = r.head.active && now - r.syncedAt < SYNCED_ACTIVE_MS;
  return { ...r.head, active, workstation: r.workstation };
}
