// @cairn/server: the daemon behind `cairn serve` and the web UI.
export { type Loaded, type SessionEntry, sessionKey } from './catalog.js';
export {
  type DaemonRecord,
  daemonRecordPath,
  processAlive,
  readDaemonRecord,
} from './daemon-record.js';
export { type DemoHome, makeDemoHome } from './demo.js';
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
export { INDEX_SCHEMA_VERSION, IndexDb } from './index-db.js';
export { CONTENT_SECURITY_POLICY, keptToken, TOKEN_COOKIE } from './security.js';
export { type RunningServer, SERVER_VERSION, type ServerOptions, startServer } from './server.js';
