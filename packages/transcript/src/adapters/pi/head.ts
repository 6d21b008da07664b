// What a listing learns from the first bytes of a session file without reading the rest: the
// session's id, folder and start (the header), its first prompt, the model of its first answer,
// and its latest name.
import { parseJsonLine, splitLines } from '../../lines.js';
import { err, ok, type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import {
  contentText,
  isObject,
  isPiHeader,
  type JsonObject,
  messageOf,
  stringField,
  toMillis,
} from './records.js';
import { NOT_A_HEADER } from './translate.js';

export interface PiHeadInfo {
  sessionId?: string;
  cwd?: string;
  startedAt?: number;
  firstPrompt?: string;
  model?: string;
  /** The model a model_change chose, for a head that holds no answer. */
  chosenModel?: string;
  title?: string;
  parentSession?: string;
}

/** `complete` says the head is the whole file (so a cut last line is really the file's end). */
export function readPiHead(
  path: string,
  head: Uint8Array,
  complete: boolean,
): Result<PiHeadInfo, UnknownFormatGeneration> {
  const info: PiHeadInfo = {};
  let sawRecord = false;
  for (const span of splitLines(head)) {
    if (span.unterminated && !complete) break;
    const parsed = parseJsonLine(head, span);
    if (!parsed.ok) continue;
    const v = parsed.value;
    if (!sawRecord) {
      sawRecord = true;
      if (!isPiHeader(v)) return err(unknownFormatGeneration(path, span.line, NOT_A_HEADER));
      info.sessionId = stringField(v, 'id');
      info.cwd = stringField(v, 'cwd');
      info.startedAt = toMillis(v.timestamp);
      info.parentSession = stringField(v, 'parentSession');
      continue;
    }
    if (isObject(v)) take(info, v);
  }
  return ok(info);
}

function take(info: PiHeadInfo, r: JsonObject): void {
  const m = messageOf(r);
  if (m?.role === 'user' && info.firstPrompt === undefined) {
    const text = contentText(m.content);
    if (text.trim() !== '') info.firstPrompt = text;
  } else if (m?.role === 'assistant') info.model ??= stringField(m, 'model');
  else if (r.type === 'model_change') info.chosenModel ??= stringField(r, 'modelId');
  else if (r.type === 'session_info') info.title = stringField(r, 'name')?.trim() || undefined;
}
