// @cairn/server: the daemon behind `cairn serve` and the web UI.

export { type DemoHome, makeDemoHome } from './demo/demo-home.js';
export { AgentWireServer, type DriveNotice } from './drive/agent-wire-server.js';
export { EventLog, type LoggedEvent } from './drive/event-log.js';
export { LOCAL_WORKSTATION, type LocalDrive, startLocalDrive } from './drive/local-drive.js';
export { linkInProcess } from './drive/local-link.js';
export {
  type IssueResult,
  issueTicket,
  isWorkstationName,
  listTickets,
  makeTicket,
  revokeTickets,
  type TicketInfo,
} from './drive/tickets.js';
export { DEFAULT_WIRE_LIMITS, TRY_AGAIN_LATER, type WireLimits } from './drive/wire-limits.js';
export { CONTENT_SECURITY_POLICY, keptToken, TOKEN_COOKIE } from './gate/security.js';
export { INDEX_SCHEMA_VERSION, IndexDb } from './indexing/index-db.js';
export { type Loaded, type SessionEntry, sessionKey } from './reader/catalog.js';
export { type RunningServer, SERVER_VERSION, type ServerOptions, startServer } from './server.js';
export {
  type DaemonRecord,
  daemonRecordPath,
  processAlive,
  readDaemonRecord,
} from './storage/daemon-record.js';
export {
  openTeamStore,
  type Role,
  StoreRefused,
  type UserRecord,
  type Visibility,
  type WorkstationRecord,
} from './storage/open-team-store.js';
export { type MachineSync, startMachineSync } from './sync/machine-sync.js';
export { SessionSync, type SyncCounts } from './sync/sync-client.js';
