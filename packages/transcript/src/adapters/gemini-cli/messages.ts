// One MessageRecord as events. Legacy documents and JSONL files differ only in where a message
// is and which write of it counts; what a message means is decided here.
import type {
  SourcePointer,
  TranscriptEvent,
  TranscriptEventKind,
  TranscriptEventPayloads,
} from '../../model.js';
import type { InvalidValue } from '../../values.js';
import type { EventIds } from './ids.js';
import {
  isObject,
  type JsonObject,
  MESSAGE_TYPES,
  partsText,
  stringField,
  toMillis,
  userText,
} from './records.js';
import { geminiUsage } from './usage.js';

export interface MessagePlace {
  source: SourcePointer;
  /** `<file index>:<byte offset>`: makes a repeated message id unique. */
  where: string;
  /** The message exists only inside a `$set.messages` checkpoint (a summary the CLI made up). */
  fromCheckpoint: boolean;
  /** The compaction that later dropped this message from the history. */
  shadowedBy?: string;
}

interface Extra {
  timestamp?: number | undefined;
  requestId?: string | undefined;
  /** An id reserved beforehand (the request's, which its events name before it exists). */
  id?: string;
}

/** Why a message that makes no event is skipped. */
export const EMPTY_MESSAGE = 'empty message';

/** A tool call that has run to an end has a result, even when the CLI stored none. */
const FINISHED = new Set(['success', 'error', 'cancelled']);

export function messageEvents(msg: unknown, place: MessagePlace, ids: EventIds): TranscriptEvent[] {
  const events: TranscriptEvent[] = [];
  /** Values of the message left out, noted on each of its events. */
  const invalid: InvalidValue[] = [];
  const push = <K extends TranscriptEventKind>(
    kind: K,
    base: string,
    payload: TranscriptEventPayloads[K],
    extra: Extra = {},
  ): string => {
    const id = extra.id ?? ids.make(base, place.where);
    const e = { id, seq: 0, kind, agentId: '', source: place.source, payload } as TranscriptEvent;
    if (extra.timestamp !== undefined) e.timestamp = extra.timestamp;
    if (extra.requestId !== undefined) e.requestId = extra.requestId;
    if (place.shadowedBy !== undefined) e.shadowedBy = place.shadowedBy;
    if (invalid.length > 0) e.invalid = [...invalid];
    events.push(e);
    return id;
  };

  if (!isObject(msg)) {
    push('unknown', place.where, { recordType: '', raw: msg });
    return events;
  }
  const base = stringField(msg, 'id') ?? place.where;
  const type = stringField(msg, 'type');
  const timestamp = toMillis(msg.timestamp, invalid);

  if (type === undefined || !MESSAGE_TYPES.has(type)) {
    push('unknown', base, { recordType: type ?? '', raw: msg }, { timestamp });
    return events;
  }
  if (type === 'user') {
    push('user', base, userText(msg, place.fromCheckpoint), { timestamp });
    return events;
  }
  if (type !== 'gemini') {
    push('system', base, { type, text: partsText(msg.content) }, { timestamp });
    return events;
  }

  const hasTokens = isObject(msg.tokens);
  const requestId = hasTokens ? ids.make(`${base}:request`, place.where) : undefined;
  const thoughts = Array.isArray(msg.thoughts) ? msg.thoughts : [];
  thoughts.forEach((thought, i) => {
    const t: JsonObject = isObject(thought) ? thought : {};
    const subject = stringField(t, 'subject') ?? '';
    const description = stringField(t, 'description') ?? '';
    const text = subject && description ? `${subject}\n${description}` : subject || description;
    const payload = subject ? { text, subject } : { text };
    push('reasoning', `${base}:thought:${i}`, payload, {
      timestamp: toMillis(t.timestamp, invalid, `thoughts.${i}.timestamp`) ?? timestamp,
      requestId,
    });
  });
  const text = partsText(msg.content);
  if (text !== '') {
    const payload = place.fromCheckpoint ? { text, synthetic: true, origin: 'history_checkpoint' } : { text };
    push('assistant', `${base}:text`, payload, { timestamp, requestId });
  }
  const calls = Array.isArray(msg.toolCalls) ? msg.toolCalls : [];
  const results: Array<() => void> = [];
  calls.forEach((call, i) => {
    const c: JsonObject = isObject(call) ? call : {};
    const callId = stringField(c, 'id') ?? `${base}:tool:${i}`;
    const status = stringField(c, 'status');
    const input = {
      callId,
      name: stringField(c, 'name') ?? '',
      input: c.args ?? {},
    } as TranscriptEventPayloads['tool_call'];
    for (const key of ['displayName', 'description', 'agentId'] as const) {
      const v = stringField(c, key);
      if (v !== undefined) input[key] = v;
    }
    if (status !== undefined) input.status = status;
    push('tool_call', `${base}:call:${i}`, input, { timestamp, requestId });
    const hasResult = c.result !== undefined && c.result !== null;
    if (!hasResult && !(status !== undefined && FINISHED.has(status))) return;
    // Results come after the request that asked for them.
    results.push(() => {
      const payload: TranscriptEventPayloads['tool_result'] = { callId, output: toolOutput(c) };
      if (status === 'error') payload.isError = true;
      if (status !== undefined) payload.status = status;
      if (c.resultDisplay !== undefined && typeof c.resultDisplay !== 'string')
        payload.display = c.resultDisplay;
      push('tool_result', `${base}:result:${i}`, payload, {
        timestamp: toMillis(c.timestamp, invalid, `toolCalls.${i}.timestamp`) ?? timestamp,
      });
    });
  });
  if (requestId !== undefined) {
    const payload: TranscriptEventPayloads['request'] = { tokens: msg.tokens };
    const model = stringField(msg, 'model');
    if (model !== undefined) payload.model = model;
    const usage = geminiUsage(msg.tokens, invalid);
    if (usage) payload.usage = usage;
    push('request', `${base}:request`, payload, { timestamp, id: requestId });
  }
  for (const result of results) result();
  return events;
}

/**
 * A tool's output as text: the functionResponse's `output` (or `error`), else the text the CLI
 * showed, else the recorded value as is.
 */
function toolOutput(call: JsonObject): unknown {
  const result = call.result;
  const parts = Array.isArray(result) ? result : result === undefined || result === null ? [] : [result];
  const texts: string[] = [];
  for (const part of parts) {
    if (typeof part === 'string') texts.push(part);
    else if (!isObject(part)) continue;
    else if (isObject(part.functionResponse)) {
      const response = part.functionResponse.response;
      if (isObject(response) && typeof response.output === 'string') texts.push(response.output);
      else if (isObject(response) && typeof response.error === 'string') texts.push(response.error);
      else if (response !== undefined)
        texts.push(typeof response === 'string' ? response : JSON.stringify(response));
    } else if (typeof part.text === 'string') texts.push(part.text);
  }
  if (texts.length > 0) return texts.join('\n');
  if (typeof call.resultDisplay === 'string') return call.resultDisplay;
  return result ?? '';
}
