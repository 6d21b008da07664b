// @cairn/transcript: every agent's sessions as one typed transcript model.

export {
  type ActivityFile,
  fileLastRecordAt,
  lastLineTime,
  type RecordTime,
  sessionLastActivity,
} from './activity.js';
export type * from './adapter.js';
export { fileEnd, linePointer } from './adapter.js';
export { builtinSessionAdapters } from './adapters/index.js';
export { isStoreFileName, splitStorePath, storeSessionPath } from './adapters/opencode/paths.js';
export {
  exportStoreSession,
  type StoreStamp,
  storeSessionStamp,
  storeSessionStamps,
} from './adapters/opencode/sqlite.js';
export { StoreSessionTail, type StoreTailRead } from './adapters/opencode/store-tail.js';
export { adapterTable, agentHomes, findAdapter, knownAgentNames } from './catalog.js';
export { discoverSessions } from './discover.js';
export {
  type ConfigUnreadable,
  cairnHome,
  configPath,
  type DumpPathRefused,
  type DumpWriteFailed,
  insideAny,
  instanceId,
  readCairnConfig,
  readDumpPresets,
  type WriteDumpError,
  type WriteDumpOptions,
  writeAtomic,
  writeDump,
} from './dump-io.js';
export { type StreamOptions, streamDumpItems, writeDumpStreamed } from './dump-streamed.js';
export { type StreamEventsOptions, type StreamedEvents, streamEvents } from './events-streamed.js';
export { agentForkCut, type ForkCut } from './fork-cut.js';
export {
  BYTES_PER_TOKEN,
  buildHandoff,
  type HandoffDocument,
  type HandoffRequest,
  type HandoffSource,
} from './handoff.js';
export { lineParts, type TranscriptDelta, Translator } from './incremental.js';
export {
  IncrementalItems,
  type ItemsChange,
  type LaneClassification,
  sameItem,
} from './incremental-items.js';
export { SummaryFold } from './incremental-summary.js';
export * from './items/index.js';
export { type LaneItem, type LaneItemsPart, type LaneItemsStep, laneItemsInParts } from './lanes-streamed.js';
export { countLines, decodeUtf8, type LineSpan, parseJsonLine, splitLines } from './lines.js';
export { type ListSessionsOptions, listSessions } from './list.js';
export { type LoadTranscriptOptions, loadTranscript } from './load.js';
export type * from './model.js';
export { CAPABILITIES, promptSnapshot, SESSION_SUMMARY_VERSION, TRANSCRIPT_EVENT_KINDS } from './model.js';
export { type ModelAndTime, type ModelShare, modelAndTime, TurnClock } from './model-and-time.js';
export { findSession, type OpenedSession, type OpenOptions, openSession, readSessionFiles } from './open.js';
export { readOriginal } from './original.js';
export type * from './platform.js';
export { type NodePlatformOptions, nodePlatform } from './platform-node.js';
export { type PoolOptions, runInPool } from './pool.js';
export { type FilePart, HEAD_BYTES, heldLinesFrom, readParts, readSourceFile } from './read.js';
export {
  describeRedactions,
  findSecrets,
  type RedactedTexts,
  type RedactionCounts,
  redactionMarker,
  redactText,
  redactTexts,
  redactValue,
} from './redact/redact.js';
export {
  maskSecret,
  type RedactionFinding,
  type ReviewedParts,
  type ReviewPart,
  reviewRedactions,
} from './redact/review.js';
export type * from './result.js';
export { err, ok, sessionNotFound } from './result.js';
export { CONTEXT_SHAPE_POINTS, downsampleMax } from './shape.js';
export { type SessionFileStamp, sessionStamps } from './stamps.js';
export {
  foldTranscript,
  isPrompt,
  type SessionPromptsOptions,
  type SummarizeSessionOptions,
  sessionPrompts,
  summarizeSession,
} from './summary.js';
export { SUMMARY_FACTS_MAX_BYTES, type SummaryFacts, type TaskName, type TaskResults } from './tasks.js';
export { markTurnErrors, markTurnErrorsOnNode, type TurnErrorCheck } from './turn-errors.js';
