// The entries pi writes to `<sessions>/--<cwd>--/<ISO time>_<session id>.jsonl`: line 1 is the
// `session` header ({id, version, cwd, timestamp, parentSession?}); every later line is an entry
// {type, id, parentId, timestamp, …} appended as the session goes. `parentId` makes the entries a
// tree: going back to an earlier point and going on from there leaves the old branch in place.
// Small readers shared by the translation and the listing.

import { isWireId } from '../../values.js';
import { isObject, type JsonObject, stringField, toMillis } from '../gemini-cli/records.js';

export { isObject, type JsonObject, stringField, toMillis };

export const PI = 'pi';

/** The entry types pi writes after the header. */
export const ENTRY_TYPES: ReadonlySet<string> = new Set([
  'message',
  'model_change',
  'thinking_level_change',
  'compaction',
  'branch_summary',
  'custom',
  'custom_message',
  'label',
  'session_info',
]);

/** Whether a parsed value is a session header, which every pi session file starts with. */
export const isPiHeader = (v: unknown): v is JsonObject =>
  isObject(v) &&
  v.type === 'session' &&
  typeof v.id === 'string' &&
  (typeof v.cwd === 'string' || typeof v.version === 'number');

/** The message an entry carries, when it is a message entry. */
export const messageOf = (r: JsonObject): JsonObject | undefined =>
  r.type === 'message' && isObject(r.message) ? r.message : undefined;

/** Text of a content value: a string, or the text blocks of an array joined by newlines. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let text = '';
  for (const block of content) {
    if (isObject(block) && block.type === 'text' && typeof block.text === 'string')
      text += text ? `\n${block.text}` : block.text;
  }
  return text;
}

/** How many image blocks a content array holds. */
export const imageCount = (content: unknown): number =>
  Array.isArray(content) ? content.filter((b) => isObject(b) && b.type === 'image').length : 0;

/** The time of an entry: its ISO `timestamp`, else the message's own (ms since the epoch). */
export function entryTime(r: JsonObject, invalid?: Parameters<typeof toMillis>[1]): number | undefined {
  const at = toMillis(r.timestamp, invalid);
  if (at !== undefined) return at;
  const message = isObject(r.message) ? r.message : undefined;
  return message ? toMillis(message.timestamp, invalid, 'message.timestamp') : undefined;
}

/** The file's name without folders and `.jsonl`. */
const stemOf = (path: string): string => {
  const slash = Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\'));
  return path.slice(slash + 1).replace(/\.jsonl$/, '');
};

/**
 * A session's id: the header's, else what the file name carries after `<time>_` (pi names files
 * `<ISO time>_<id>.jsonl`), else the whole file name.
 */
export function piSessionId(path: string, headerId: string | undefined): string {
  if (headerId !== undefined && isWireId(headerId)) return headerId;
  const stem = stemOf(path);
  const cut = stem.indexOf('_');
  const named = cut === -1 ? stem : stem.slice(cut + 1);
  return isWireId(named) ? named : stem;
}
