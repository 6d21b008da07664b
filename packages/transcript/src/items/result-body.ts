// A tool call's result as the agent recorded it, read back from the raw record its result item points
// to. Items count what a result held (lines read, matches found) and leave the body in the agent's
// file; a reader that wants the body fetches the record and reads it here, whichever agent wrote it.
import { parseJson } from '../depth.js';
import { type Fields, isObject, str } from './fields.js';

export interface RecordedResult {
  /** What the tool answered, as the text the model was given. */
  readonly text?: string;
  /** The agent recorded the call as failed. */
  readonly isError?: boolean;
  /** Claude Code's structured copy of the result (`toolUseResult`): a Read's file, a Glob's names. */
  readonly structured?: Fields;
  /** A command's exit code, where the agent recorded one. */
  readonly exitCode?: number;
}

/** The result of call `toolUseId` inside a parsed record, or undefined when the record holds none. */
export function recordedResult(record: unknown, toolUseId: string | undefined): RecordedResult | undefined {
  if (!isObject(record)) return undefined;
  return claudeResult(record, toolUseId) ?? codexResult(record, toolUseId);
}

function claudeResult(record: Fields, toolUseId: string | undefined): RecordedResult | undefined {
  const message = isObject(record.message) ? record.message : undefined;
  const content = message && Array.isArray(message.content) ? message.content : [];
  for (const block of content) {
    if (!isObject(block) || block.type !== 'tool_result') continue;
    if (toolUseId !== undefined && block.tool_use_id !== toolUseId) continue;
    const structured = isObject(record.toolUseResult) ? record.toolUseResult : undefined;
    return {
      ...withText(blockText(block.content)),
      ...(block.is_error === true ? { isError: true } : {}),
      ...(structured ? { structured } : {}),
    };
  }
  return undefined;
}

// Codex writes a call's output as a string, sometimes a JSON object with the output and its metadata.
function codexResult(record: Fields, toolUseId: string | undefined): RecordedResult | undefined {
  const payload = isObject(record.payload) ? record.payload : undefined;
  if (!payload || !/_output$/.test(str(payload.type) ?? '')) return undefined;
  if (toolUseId !== undefined && payload.call_id !== undefined && payload.call_id !== toolUseId)
    return undefined;
  const output = payload.output;
  if (typeof output !== 'string') return withText(blockText(output));
  try {
    const parsed: unknown = parseJson(output);
    if (isObject(parsed) && typeof parsed.output === 'string') {
      const meta = isObject(parsed.metadata) ? parsed.metadata : {};
      const exitCode = typeof meta.exit_code === 'number' ? meta.exit_code : undefined;
      return { text: parsed.output, ...(exitCode !== undefined ? { exitCode } : {}) };
    }
  } catch {
    // Plain text output.
  }
  return { text: output };
}

const withText = (text: string | undefined): { text?: string } => (text === undefined ? {} : { text });

/** A tool_result's content, a string or a list of blocks, as text. */
function blockText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    return content === undefined || content === null ? undefined : JSON.stringify(content);
  const parts: string[] = [];
  for (const b of content) {
    if (isObject(b) && typeof b.text === 'string') parts.push(b.text);
    else if (isObject(b) && b.type === 'image') parts.push('[image]');
    else if (b !== undefined) parts.push(JSON.stringify(b));
  }
  return parts.join('\n');
}

// Claude Code wraps the error of a refused or failed call in a tag the model reads.
const ERROR_TAG = /^\s*<tool_use_error>([\s\S]*?)<\/tool_use_error>\s*$/;
// Beyond this an error is cut: the reason is its first lines, the rest is in the record.
const REASON_MAX = 2000;

/** Why a call failed, from the text its result holds: the tag around it removed, cut when very long. */
export function failureText(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  const inner = ERROR_TAG.exec(text)?.[1] ?? text;
  const trimmed = inner.trim();
  if (trimmed === '') return undefined;
  return trimmed.length > REASON_MAX ? `${trimmed.slice(0, REASON_MAX - 1)}…` : trimmed;
}
