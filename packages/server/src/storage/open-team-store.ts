// The team's store for the command line (`cairn server user …`): the PostgreSQL client is loaded
// only when a command asks for it, as the daemon loads it only for a shared database.
import type { ServerStore } from './server-store.js';

export type { Role, UserRecord, Visibility, WorkstationRecord } from './server-store.js';
export { StoreRefused } from './server-store.js';

/** Connects to the database at `connectionString`, bringing its schema up to date. */
export async function openTeamStore(connectionString: string): Promise<ServerStore> {
  const { PostgresServerStore } = await import('./postgres-store.js');
  return PostgresServerStore.open({ connectionString, maxConnections: 2 });
}
