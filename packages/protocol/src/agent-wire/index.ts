// The agent wire (workstation ↔ server, version 14): frame table, types, codec, version floors.
// The guard building blocks stay under one name so that their short names (`string`, `record`)
// do not reach the package's top level.
export * from './codec.js';
export * from './extensions.js';
export {
  type AgentFieldPath,
  agentFrameValuesAt,
  INTEGER_FIELDS,
  TRUE_OR_ABSENT_FIELDS,
} from './field-rules.js';
export * from './floors.js';
export type {
  FieldGuards,
  Guard,
  GuardFault,
  GuardKind,
  Infer as InferGuard,
  InferFields,
  JsonType,
} from './guards.js';
export * as agentWireGuards from './guards.js';
export * from './shapes.js';
export * from './types.js';
export * from './versions.js';
