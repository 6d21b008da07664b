// A Gemini CLI session's requests without building events: what the usage reports read of a session
// (each request's time, model and usage, the folder and the title), by translate's rules. A request
// is a `gemini` message with `tokens`; the folder is the main file's first directory and the title
// its summary, from its metadata.
//
// Which messages count is decided as translate decides it. A JSONL file keeps the last write of each
// message id at the place of its first, drops what a rewind drops, and lets a checkpoint's `$set`
// bring in messages of its own; a checkpoint at the start drops the set-up messages it leaves out,
// a later one only shadows them (they still count). A legacy document's messages are the elements of
// its `messages` array, each parsed on its own, so a cut-short document still gives every whole one.
import type { SourceFile } from '../../adapter.js';
import { scanArray, scanObject, skipWhitespace } from '../../json-ranges.js';
import { parseJsonLine, splitLines } from '../../lines.js';
import type { PassRequest, PassRequests } from '../claude-code/requests.js';
import { parseBytes } from './legacy.js';
import { isJsonlFile } from './paths.js';
import {
  CONVERSATION_KEYS,
  isKnownJsonlRecord,
  isMetadataRecord,
  isObject,
  type JsonObject,
  mergeMeta,
  rewindTo,
  type SessionMeta,
  stringField,
  toMillis,
} from './records.js';
import { geminiUsage } from './usage.js';

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;

/** The request a message makes, when translate would give it a time, a model and usage. */
function messageRequest(msg: unknown): PassRequest | undefined {
  if (!isObject(msg) || msg.type !== 'gemini' || !isObject(msg.tokens)) return undefined;
  const at = toMillis(msg.timestamp);
  const model = stringField(msg, 'model');
  const usage = geminiUsage(msg.tokens);
  return at !== undefined && model !== undefined && usage !== undefined ? { at, model, usage } : undefined;
}

/** One life of a message id: its last write, until a rewind or a start checkpoint drops it. */
interface Incarnation {
  value: unknown;
  setUp: boolean;
  dropped: boolean;
}

/** A JSONL file's metadata and the messages that stay, in their places; undefined for an unknown generation. */
function jsonlMessages(file: SourceFile): { meta: SessionMeta; messages: unknown[] } | undefined {
  const meta: SessionMeta = {};
  const placed: Incarnation[] = [];
  let live = new Map<string, Incarnation>();
  let sawRecord = false;
  for (const span of splitLines(file.data)) {
    const parsed = parseJsonLine(file.data, span);
    if (!parsed.ok) continue;
    const v = parsed.value;
    if (!sawRecord) {
      sawRecord = true;
      if (!isObject(v) || !isKnownJsonlRecord(v)) return undefined;
    }
    if (!isObject(v)) continue;
    if (typeof v.$rewindTo === 'string') {
      rewindTo(live, v.$rewindTo, (inc) => {
        inc.dropped = true;
      });
    } else if (typeof v.id === 'string') {
      const inc = live.get(v.id);
      if (inc) inc.value = v;
      else {
        const fresh: Incarnation = { value: v, setUp: false, dropped: false };
        live.set(v.id, fresh);
        placed.push(fresh);
      }
    } else if (isObject(v.$set)) {
      mergeMeta(meta, v.$set);
      if (!Array.isArray(v.$set.messages)) continue;
      const atStart = [...live.values()].every((inc) => inc.setUp);
      const next = new Map<string, Incarnation>();
      v.$set.messages.forEach((msg: unknown, i: number) => {
        const key = isObject(msg) && typeof msg.id === 'string' ? msg.id : `${span.line}#${i}`;
        if (next.has(key)) return;
        const carried = live.get(key);
        if (carried) next.set(key, carried);
        else {
          const inc: Incarnation = { value: msg, setUp: atStart, dropped: false };
          next.set(key, inc);
          placed.push(inc);
        }
      });
      // At the start the messages left out are gone; later they are only shadowed, and still count.
      if (atStart) for (const [key, inc] of live) if (!next.has(key)) inc.dropped = true;
      live = next;
    } else if (isMetadataRecord(v)) mergeMeta(meta, v);
  }
  return { meta, messages: placed.filter((inc) => !inc.dropped).map((inc) => inc.value) };
}

/** A legacy document's metadata and messages; undefined when it is a JSON value of another kind. */
function legacyMessages(file: SourceFile): { meta: SessionMeta; messages: unknown[] } | undefined {
  const data = file.data;
  const meta: SessionMeta = {};
  const open = skipWhitespace(data, 0);
  if (open >= data.length) return { meta, messages: [] };
  // Whole JSON that is no conversation record is another generation; bytes that are not JSON are skipped.
  const other = () => (parseBytes(data).ok ? undefined : { meta, messages: [] });
  if (data[open] !== OPEN_BRACE) return other();
  const doc = scanObject(data, open);
  if (!doc.items.some((m) => CONVERSATION_KEYS.includes(m.key))) return other();
  const list = doc.items.find(
    (m) => (m.key === 'messages' || m.key === 'history') && data[m.valueOffset] === OPEN_BRACKET,
  );
  const fields: JsonObject = {};
  for (const m of doc.items) {
    if (m === list || m.valueEnd === -1) continue;
    const v = parseBytes(data.subarray(m.valueOffset, m.valueEnd));
    if (v.ok) fields[m.key] = v.value;
  }
  mergeMeta(meta, fields);
  // An older `history` list holds no messages translate reads as such.
  if (list === undefined || list.key !== 'messages') return { meta, messages: [] };
  const messages: unknown[] = [];
  for (const el of scanArray(data, list.valueOffset).items) {
    const parsed = parseBytes(data.subarray(el.offset, el.offset + el.length));
    if (parsed.ok) messages.push(parsed.value);
  }
  return { meta, messages };
}

/**
 * The requests of a Gemini CLI session's files (main file first, then its subagents'), or 'unsure'
 * when a file is of an unknown generation: the full translation then says what is wrong.
 */
export function geminiRequests(files: readonly SourceFile[]): PassRequests | 'unsure' {
  const out: PassRequests = { requests: [] };
  for (const [i, file] of files.entries()) {
    const read = isJsonlFile(file.path, file.data) ? jsonlMessages(file) : legacyMessages(file);
    if (read === undefined) return 'unsure';
    for (const msg of read.messages) {
      const request = messageRequest(msg);
      if (request) out.requests.push(request);
    }
    if (i > 0) continue;
    const cwd = read.meta.directories?.[0];
    if (cwd !== undefined) out.cwd = cwd;
    if (read.meta.summary !== undefined) out.title = read.meta.summary;
  }
  return out;
}
