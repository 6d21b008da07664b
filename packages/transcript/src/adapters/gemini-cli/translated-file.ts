// What translating one session file yields, before the files are put together as lanes.

import type { SourceFile } from '../../adapter.js';
import type { SkippedRecord, SourcePointer, TranscriptEvent } from '../../model.js';
import type { SessionMeta } from './records.js';

export interface TranslatedFile {
  /** The file's session metadata, after every patch. */
  meta: SessionMeta;
  /** Events in order; their agentId is set when the lanes are known. */
  events: TranscriptEvent[];
  skipped: SkippedRecord[];
}

/** The pointer to bytes [offset, offset + length) of a file, starting on `line`. */
export const rangePointer = (
  file: SourceFile,
  offset: number,
  length: number,
  line: number,
): SourcePointer =>
  file.codec
    ? { file: file.path, offset, length, line, codec: file.codec }
    : { file: file.path, offset, length, line };
