// The agent wire (workstation ↔ server, version 14): frame table, types, codec, version floors.
export * from './codec.js';
export * from './field-rules.js';
export * from './floors.js';
export * from './guards.js';
export * from './shapes.js';
export * from './types.js';
export * from './versions.js';
