// The records Qwen Code writes to `<home>/projects/<project>/chats/<sessionId>.jsonl`: one JSON
// object a line, `{uuid, parentUuid, sessionId, timestamp, type, subtype?, cwd, version,
// gitBranch?, model?, message{role, parts[]}, usageMetadata?, toolCallResult?, systemPayload?}`,
// appended as the session goes; `parentUuid` makes them a tree. Small readers shared by the
// translation and the listing.
import { valueEnd } from '../../json-ranges.js';
import { type LineSpan, parseJsonLine } from '../../lines.js';
import { isObject, type JsonObject, stringField } from '../gemini-cli/records.js';

export { isObject, type JsonObject, stringField };

export const QWEN_CODE = 'qwen-code';

/** The record types Qwen Code writes. */
export const RECORD_TYPES: ReadonlySet<string> = new Set(['user', 'assistant', 'tool_result', 'system']);

/** Whether a parsed value has the envelope every Qwen Code record carries. */
export const isQwenRecord = (v: unknown): v is JsonObject =>
  isObject(v) && typeof v.uuid === 'string' && typeof v.type === 'string' && 'parentUuid' in v;

/** A record the person typed: a plain user record, or one typed while the agent was working. */
const PROMPT_SUBTYPES: ReadonlySet<string | undefined> = new Set([undefined, 'mid_turn_user_message']);

export const isPromptRecord = (r: JsonObject): boolean =>
  r.type === 'user' && PROMPT_SUBTYPES.has(stringField(r, 'subtype'));

export const parts = (r: JsonObject): unknown[] => {
  const message = isObject(r.message) ? r.message : undefined;
  return Array.isArray(message?.parts) ? message.parts : [];
};

/** The text parts of a record's message (thought parts are reasoning, not text). */
export function partsText(r: JsonObject): string {
  let text = '';
  for (const p of parts(r)) {
    if (isObject(p) && typeof p.text === 'string' && p.thought !== true)
      text += text ? `\n${p.text}` : p.text;
  }
  return text;
}

/**
 * What a user record says: what the person typed (`systemPayload.displayText`, without the hook
 * context the CLI appended to the message), else the message's text.
 */
export function userText(r: JsonObject): string {
  const payload = isObject(r.systemPayload) ? r.systemPayload : undefined;
  const display = payload ? stringField(payload, 'displayText') : undefined;
  return display ?? partsText(r);
}

/**
 * One line as records. Besides a whole record a line may hold several JSON objects written back
 * to back without a newline between them (a writer that lost its newline): each is a record of its
 * own. Undefined when the line is not such a run of objects.
 */
export function gluedRecords(
  data: Uint8Array,
  span: LineSpan,
): { offset: number; length: number; value: JsonObject }[] | undefined {
  const out: { offset: number; length: number; value: JsonObject }[] = [];
  const end = span.offset + span.length;
  let at = span.offset;
  while (at < end) {
    while (at < end && (data[at] === 0x20 || data[at] === 0x09)) at++;
    if (at >= end) break;
    if (data[at] !== 0x7b) return undefined;
    const stop = valueEnd(data.subarray(0, end), at);
    if (stop === -1) return undefined;
    const parsed = parseJsonLine(data, {
      line: span.line,
      offset: at,
      length: stop - at,
      unterminated: false,
    });
    if (!parsed.ok || !isObject(parsed.value)) return undefined;
    out.push({ offset: at, length: stop - at, value: parsed.value });
    at = stop;
  }
  return out.length > 1 ? out : undefined;
}
