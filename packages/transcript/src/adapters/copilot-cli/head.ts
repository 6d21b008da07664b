// What a listing learns from the first bytes of an events file without reading the rest: where
// the session ran, when it started, its branch and model, and its first prompt.
import { parseJsonLine, splitLines } from '../../lines.js';
import { err, ok, type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import { toMillis } from '../gemini-cli/records.js';
import {
  dataOf,
  isCopilotEvent,
  type JsonObject,
  parentCallOf,
  startContext,
  stringField,
  userContent,
} from './records.js';

export interface CopilotHeadInfo {
  sessionId?: string;
  cwd?: string;
  gitBranch?: string;
  model?: string;
  /** The model chosen before any answer (a model change, the start's selection). */
  selectedModel?: string;
  startedAt?: number;
  firstPrompt?: string;
}

export const NOT_AN_EVENT_FILE = 'the first record is not a Copilot CLI event (type, data, id, parentId)';

/** `complete` says the head is the whole file (so a cut last line is really the file's end). */
export function readCopilotHead(
  path: string,
  head: Uint8Array,
  complete: boolean,
): Result<CopilotHeadInfo, UnknownFormatGeneration> {
  const info: CopilotHeadInfo = {};
  let sawRecord = false;
  for (const span of splitLines(head)) {
    if (span.unterminated && !complete) break;
    const parsed = parseJsonLine(head, span);
    if (!parsed.ok) continue;
    if (!sawRecord) {
      sawRecord = true;
      if (!isCopilotEvent(parsed.value))
        return err(unknownFormatGeneration(path, span.line, NOT_AN_EVENT_FILE));
    }
    if (isCopilotEvent(parsed.value)) take(info, parsed.value);
  }
  return ok(info);
}

function take(info: CopilotHeadInfo, r: JsonObject): void {
  const data = dataOf(r);
  info.startedAt ??= toMillis(r.timestamp);
  switch (r.type) {
    case 'session.start':
    case 'session.resume': {
      if (r.type === 'session.start') info.sessionId ??= stringField(data, 'sessionId');
      const { cwd, branch } = startContext(data);
      info.cwd ??= cwd;
      info.gitBranch ??= branch;
      info.selectedModel ??= stringField(data, 'selectedModel');
      return;
    }
    case 'session.model_change':
      info.selectedModel ??= stringField(data, 'newModel');
      return;
    case 'assistant.message':
      if (parentCallOf(data) === undefined) info.model ??= stringField(data, 'model');
      return;
    case 'user.message': {
      if (info.firstPrompt !== undefined || parentCallOf(data) !== undefined) return;
      const text = userContent(data);
      if (text.trim() !== '') info.firstPrompt = text;
      return;
    }
  }
}
