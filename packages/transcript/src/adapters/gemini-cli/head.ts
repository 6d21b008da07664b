// What a listing learns from the first bytes of a session file, without reading the rest: the
// metadata, the first prompt and the start. A legacy document larger than the head is read as
// far as its complete members and messages go.

import { lineAt, lineStarts, scanArray, scanObject, skipWhitespace } from '../../json-ranges.js';
import { parseJsonLine, splitLines } from '../../lines.js';
import { err, ok, type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
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
  userText,
} from './records.js';

export interface HeadInfo {
  meta: SessionMeta;
  firstPrompt?: string;
  /** The first message's time, for files whose metadata has no startTime. */
  firstMessageAt?: number;
}

/** A prompt the person typed, or undefined for any other message. */
function promptOf(msg: JsonObject): string | undefined {
  if (msg.type !== 'user') return undefined;
  const u = userText(msg, false);
  return u.synthetic ? undefined : u.text;
}

/** `complete` says the head is the whole file (so a cut last line is really the file's end). */
export function readHeadInfo(
  path: string,
  head: Uint8Array,
  complete: boolean,
): Result<HeadInfo, UnknownFormatGeneration> {
  return isJsonlFile(path, head) ? jsonlHead(path, head, complete) : legacyHead(path, head, complete);
}

function jsonlHead(
  path: string,
  head: Uint8Array,
  complete: boolean,
): Result<HeadInfo, UnknownFormatGeneration> {
  const info: HeadInfo = { meta: {} };
  // Messages in the order the translation emits them (a checkpoint drops messages from the
  // history but not from the transcript; a rewind drops them from both).
  const messages: { prompt: string | undefined; rewound: boolean }[] = [];
  let live = new Map<string, { prompt: string | undefined; rewound: boolean }>();
  let sawRecord = false;
  for (const span of splitLines(head)) {
    if (span.unterminated && !complete) break;
    const parsed = parseJsonLine(head, span);
    if (!parsed.ok) continue;
    const v = parsed.value;
    if (!sawRecord) {
      sawRecord = true;
      if (!isObject(v) || !isKnownJsonlRecord(v)) {
        const detail = 'the first record is neither session metadata nor a message record';
        return err(unknownFormatGeneration(path, span.line, detail));
      }
    }
    if (!isObject(v)) continue;
    if (typeof v.$rewindTo === 'string') {
      rewindTo(live, v.$rewindTo, (m) => {
        m.rewound = true;
      });
    } else if (typeof v.id === 'string') {
      const known = live.get(v.id);
      if (known) known.prompt = promptOf(v);
      else {
        const m = { prompt: promptOf(v), rewound: false };
        live.set(v.id, m);
        messages.push(m);
      }
      info.firstMessageAt ??= toMillis(v.timestamp);
    } else if (isObject(v.$set)) {
      mergeMeta(info.meta, v.$set);
      if (Array.isArray(v.$set.messages)) {
        const next = new Map<string, { prompt: string | undefined; rewound: boolean }>();
        for (const msg of v.$set.messages) {
          const id = isObject(msg) ? stringField(msg, 'id') : undefined;
          if (id === undefined || next.has(id)) continue;
          // A message that exists only in the checkpoint is a summary, never a prompt.
          const m = live.get(id) ?? { prompt: undefined, rewound: false };
          if (!live.has(id)) messages.push(m);
          next.set(id, m);
        }
        live = next;
      }
    } else if (isMetadataRecord(v)) mergeMeta(info.meta, v);
  }
  const first = messages.find((m) => !m.rewound && m.prompt !== undefined);
  if (first?.prompt !== undefined) info.firstPrompt = first.prompt;
  return ok(info);
}

function legacyHead(
  path: string,
  head: Uint8Array,
  complete: boolean,
): Result<HeadInfo, UnknownFormatGeneration> {
  const info: HeadInfo = { meta: {} };
  const open = skipWhitespace(head, 0);
  const unknownShape = (detail: string) =>
    err(unknownFormatGeneration(path, lineAt(lineStarts(head), open), detail));
  if (open >= head.length) return ok(info);
  if (head[open] !== 0x7b) {
    const whole = complete ? parseBytes(head) : undefined;
    return whole?.ok ? unknownShape('a JSON value that is not a conversation record') : ok(info);
  }
  const doc = scanObject(head, open);
  if (complete && !doc.items.some((m) => CONVERSATION_KEYS.includes(m.key)) && parseBytes(head).ok) {
    return unknownShape(
      'a JSON object with none of sessionId, projectHash, startTime, lastUpdated, messages',
    );
  }
  const fields: JsonObject = {};
  let listAt: number | undefined;
  for (const m of doc.items) {
    if (m.key === 'messages' && head[m.valueOffset] === 0x5b) listAt ??= m.valueOffset;
    else if (m.valueEnd !== -1) {
      const v = parseBytes(head.subarray(m.valueOffset, m.valueEnd));
      if (v.ok) fields[m.key] = v.value;
    }
  }
  mergeMeta(info.meta, fields);
  if (listAt === undefined) return ok(info);
  for (const el of scanArray(head, listAt).items) {
    const v = parseBytes(head.subarray(el.offset, el.offset + el.length));
    if (!v.ok || !isObject(v.value)) continue;
    info.firstMessageAt ??= toMillis(v.value.timestamp);
    const prompt = promptOf(v.value);
    if (prompt !== undefined) {
      info.firstPrompt = prompt;
      break;
    }
  }
  return ok(info);
}
