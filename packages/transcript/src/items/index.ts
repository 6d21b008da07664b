// Transcript items, selections, presets and dumps: pure, so a browser can import them too.
export {
  boundDepth,
  DEEP_VALUE_PLACEHOLDER,
  MAX_VALUE_DEPTH,
  nestsDeeperThan,
  parseJson,
  tryStringify,
} from '../depth.js';
export { BOOKKEEPING_EVENTS, type BookkeepingRule, bookkeepingRule } from './bookkeeping.js';
export {
  type Classification,
  type ClassifyOptions,
  classifyTranscript,
  findLane,
  mainLaneOf,
  type SubjectNotFound,
} from './classify.js';
export {
  type BuildDumpOptions,
  type BuiltDump,
  buildDump,
  type DumpError,
  type DumpInvalidArgs,
  type DumpNotFound,
  dumpSelection,
  isOfRecord,
} from './dump.js';
export { IdsLedger, idsLedger, type LedgerOptions } from './ids.js';
export {
  BARE_IMAGE_NOTE,
  base64Bytes,
  byteSize,
  fromDataUrl,
  type ImageStub,
  imageNote,
  imagesIn,
  isImageStub,
  type RecordedImage,
  recordedImage,
  withoutImageBytes,
} from './images.js';
export { type DiffLine, diffCounts, diffLines } from './line-diff.js';
export {
  codeSpan,
  fenced,
  markdownHeadBlocks,
  markdownIdsBlocks,
  markdownItemBlocks,
  renderDumpMarkdown,
} from './markdown.js';
export {
  BUILTIN_PRESETS,
  checkPresets,
  mergePresets,
  type PresetConfigError,
  presetLookup,
  presetsOfConfig,
} from './presets.js';
export { failureText, type RecordedResult, recordedResult } from './result-body.js';
export {
  type BadSelector,
  DEFAULT_SELECTION,
  decide,
  expandSelectors,
  ITEM_ROOTS,
  isSelector,
  NO_AGENT,
  NO_THINKING,
  type PresetCycle,
  type PresetLookup,
  reaches,
  type Selection,
  type SelectionAsk,
  type SelectionError,
  selectItems,
  selection,
  selectionOf,
  type UnknownPreset,
} from './select.js';
export { toolTypeName } from './tool-fields.js';
