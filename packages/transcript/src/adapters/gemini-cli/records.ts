// The shapes Gemini CLI writes (ConversationRecord, MessageRecord, JSONL control records) and
// the small readers the translation and the listing share.

import type { MessagePayload } from '../../model.js';
import { type InvalidValue, isWireId, timestampValue } from '../../values.js';

export type JsonObject = Record<string, unknown>;

export const isObject = (v: unknown): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

export const stringField = (o: JsonObject, key: string): string | undefined => {
  const v = o[key];
  return typeof v === 'string' ? v : undefined;
};

/** Fields of a ConversationRecord; an object with none of them is not a session document. */
export const CONVERSATION_KEYS: readonly string[] = [
  'sessionId',
  'projectHash',
  'startTime',
  'lastUpdated',
  'messages',
  'history',
];

/** Session metadata: the first JSONL line, `$set` patches, the legacy document's own fields. */
export interface SessionMeta {
  sessionId?: string;
  projectHash?: string;
  startTime?: string;
  lastUpdated?: string;
  summary?: string;
  kind?: string;
  directories?: string[];
}

/** Copies the known metadata fields of `record` over `meta` (a patch: absent fields stay). */
export function mergeMeta(meta: SessionMeta, record: JsonObject): void {
  for (const key of ['sessionId', 'projectHash', 'startTime', 'lastUpdated', 'summary', 'kind'] as const) {
    const v = stringField(record, key);
    // A session id the contract cannot carry is no id: the file's name stands in for it.
    if (v !== undefined && (key !== 'sessionId' || isWireId(v))) meta[key] = v;
  }
  const dirs = record.directories;
  if (Array.isArray(dirs)) meta.directories = dirs.filter((d): d is string => typeof d === 'string');
}

/** Milliseconds since the epoch from an ISO string or a number (seconds when it is too small for ms). */
export const toMillis = (v: unknown, invalid?: InvalidValue[], field = 'timestamp'): number | undefined =>
  timestampValue(v, field, invalid, 1e12);

/**
 * The text of a PartListUnion (a string, one Part or Part[]): text parts joined as Gemini CLI
 * joins them, thought parts left out (they are reasoning).
 */
export function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  const parts = Array.isArray(content) ? content : [content];
  let text = '';
  for (const part of parts) {
    if (typeof part === 'string') text += part;
    else if (isObject(part) && typeof part.text === 'string' && part.thought !== true) text += part.text;
  }
  return text;
}

const hasFunctionResponse = (content: unknown): boolean =>
  Array.isArray(content) && content.some((p) => isObject(p) && isObject(p.functionResponse));

/**
 * What a user message says, and whether the person typed it. `displayContent` is what the
 * person typed when the CLI expanded it (e.g. @file references) before sending.
 */
export function userText(msg: JsonObject, fromCheckpoint: boolean): MessagePayload {
  const display = partsText(msg.displayContent);
  const text = display !== '' ? display : partsText(msg.content);
  if (fromCheckpoint) return { text, synthetic: true, origin: 'history_checkpoint' };
  if (text.trimStart().startsWith('<session_context>'))
    return { text, synthetic: true, origin: 'session_context' };
  if (text === '' && hasFunctionResponse(msg.content))
    return { text, synthetic: true, origin: 'function_response' };
  return { text };
}

/** The message types a ConversationRecord holds; anything else is an unknown record. */
export const MESSAGE_TYPES: ReadonlySet<string> = new Set(['user', 'gemini', 'info', 'error', 'warning']);

/** The first line of a JSONL session and any later full metadata record. */
export const isMetadataRecord = (r: JsonObject): boolean =>
  typeof r.sessionId === 'string' && typeof r.id !== 'string' && !('$set' in r) && !('$rewindTo' in r);

/** Whether a JSONL record has a shape Gemini CLI writes (decides the format generation of line 1). */
export const isKnownJsonlRecord = (r: JsonObject): boolean =>
  typeof r.$rewindTo === 'string' || typeof r.id === 'string' || isObject(r.$set) || isMetadataRecord(r);

/** Applies `{"$rewindTo": id}` to the messages alive, in order of their first write: that message
 * and every later one are dropped (all of them when the id is unknown), each passed to `drop`. */
export function rewindTo<T>(live: Map<string, T>, id: string, drop: (message: T) => void): void {
  const order = [...live.keys()];
  const at = order.indexOf(id);
  for (const key of at === -1 ? order : order.slice(at)) {
    drop(live.get(key)!);
    live.delete(key);
  }
}
