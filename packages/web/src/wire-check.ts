// Checks what the server sends against the contract: the build-time compiled checkers answer
// quickly, and only a failure is checked again by the interpreter to name the field at fault.

import {
  itemCheck,
  responseChecks,
  sessionsFrameCheck,
  transcriptItemsFrameCheck,
} from 'virtual:cairn-checks';
import {
  OP_SCHEMAS,
  type OpName,
  SessionsFrame,
  TranscriptItem,
  TranscriptItemsFrame,
  validate,
} from '@cairn/protocol';

export type Checked = { ok: true } | { ok: false; message: string; field: string };

type Schema = Parameters<typeof validate>[0];

function explain(schema: Schema, value: unknown): Checked {
  const v = validate(schema, value);
  if (v.ok) return { ok: true };
  return { ok: false, message: v.error.message, field: v.error.field };
}

// The session stream topic (`session:<agent>:<sid>`, spectral's frames) is served beside the
// protocol's topics, whose table does not list it yet; its replies are checked as a listed topic's.
const SESSION_STREAM = /^session:[a-z][a-z0-9-]{0,63}:[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;

export function checkResponse(op: OpName, value: unknown): Checked {
  if (
    (op === 'topic_subscribe' || op === 'topic_unsubscribe') &&
    typeof value === 'object' &&
    value !== null
  ) {
    const topic = (value as { topic?: unknown }).topic;
    if (typeof topic === 'string' && SESSION_STREAM.test(topic)) value = { ...value, topic: 'sessions' };
  }
  const check = responseChecks[op];
  if (check?.(value)) return { ok: true };
  return explain(OP_SCHEMAS[op].response, value);
}

export function checkItems(items: readonly unknown[]): Checked {
  for (let i = 0; i < items.length; i++) {
    if (itemCheck(items[i])) continue;
    const bad = explain(TranscriptItem, items[i]);
    if (!bad.ok) return { ok: false, message: `item ${i}: ${bad.message}`, field: `/${i}${bad.field}` };
  }
  return { ok: true };
}

export function checkTopicFrame(frame: unknown): Checked {
  const topic = (frame as { topic?: unknown }).topic;
  if (topic === 'sessions') return sessionsFrameCheck(frame) ? { ok: true } : explain(SessionsFrame, frame);
  if (typeof topic === 'string' && topic.startsWith('transcript_items:')) {
    return transcriptItemsFrameCheck(frame) ? { ok: true } : explain(TranscriptItemsFrame, frame);
  }
  return { ok: true };
}
