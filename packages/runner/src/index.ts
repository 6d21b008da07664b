// The workstation side of driving agents: ACP agents as child processes through the official SDK,
// their journal, and the agent wire to a server.
export * from './acp-session.js';
export * from './agent-keys.js';
export * from './agent-process.js';
export * from './bridges.js';
export * from './driven-session.js';
export * from './install.js';
export * from './journal.js';
export * from './owner-only.js';
export * from './probes.js';
export * from './process-ledger.js';
export * from './roster.js';
export * from './store-errors.js';
export * from './terminals.js';
export * from './wire-client.js';
export * from './workstation.js';
