// What a listing learns from the first bytes of a session file without reading the rest: where
// the session ran, when it started, its branch and model, its first prompt and its latest title.
import { parseJsonLine, splitLines } from '../../lines.js';
import { err, ok, type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import { toMillis } from '../gemini-cli/records.js';
import {
  gluedRecords,
  isObject,
  isPromptRecord,
  isQwenRecord,
  type JsonObject,
  stringField,
  userText,
} from './records.js';

export interface QwenHeadInfo {
  sessionId?: string;
  cwd?: string;
  gitBranch?: string;
  model?: string;
  startedAt?: number;
  firstPrompt?: string;
  title?: string;
}

/** `complete` says the head is the whole file (so a cut last line is really the file's end). */
export function readQwenHead(
  path: string,
  head: Uint8Array,
  complete: boolean,
): Result<QwenHeadInfo, UnknownFormatGeneration> {
  const info: QwenHeadInfo = {};
  let sawRecord = false;
  for (const span of splitLines(head)) {
    if (span.unterminated && !complete) break;
    const parsed = parseJsonLine(head, span);
    const values: unknown[] = parsed.ok
      ? [parsed.value]
      : (gluedRecords(head, span)?.map((g) => g.value) ?? []);
    for (const v of values) {
      if (!sawRecord) {
        sawRecord = true;
        if (!isQwenRecord(v)) {
          const detail = 'the first record is not a Qwen Code chat record (uuid, parentUuid, type)';
          return err(unknownFormatGeneration(path, span.line, detail));
        }
      }
      if (isQwenRecord(v)) take(info, v);
    }
  }
  return ok(info);
}

function take(info: QwenHeadInfo, r: JsonObject): void {
  info.sessionId ??= stringField(r, 'sessionId');
  info.cwd ??= stringField(r, 'cwd');
  info.gitBranch ??= stringField(r, 'gitBranch');
  info.startedAt ??= toMillis(r.timestamp);
  if (r.type === 'assistant') info.model ??= stringField(r, 'model');
  if (info.firstPrompt === undefined && isPromptRecord(r)) {
    const text = userText(r);
    if (text.trim() !== '') info.firstPrompt = text;
  }
  if (r.type === 'system' && r.subtype === 'custom_title' && isObject(r.systemPayload)) {
    const title = stringField(r.systemPayload, 'customTitle');
    if (title !== undefined) info.title = title;
  }
}
