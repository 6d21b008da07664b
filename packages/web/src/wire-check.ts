// Checks what the server sends against the contract: the build-time compiled checkers answer
// quickly, and only a failure is checked again by the interpreter to name the field at fault.

import {
  chatEventChecks,
  itemCheck,
  presenceCheck,
  responseChecks,
  sessionRemovedCheck,
  sessionUpsertedCheck,
  streamFrameCheck,
} from 'virtual:cairn-checks';
import {
  OP_SCHEMAS,
  type OpName,
  SessionRemovedFrame,
  SessionStreamFrame,
  SessionUpsertedFrame,
  TranscriptItem,
  validate,
  validateServerEvent,
  WorkstationPresenceFrame,
} from '@cairn/protocol';

export type Checked = { ok: true } | { ok: false; message: string; field: string };

type Schema = Parameters<typeof validate>[0];

function explain(schema: Schema, value: unknown): Checked {
  const v = validate(schema, value);
  if (v.ok) return { ok: true };
  return { ok: false, message: v.error.message, field: v.error.field };
}

const check = (compiled: (value: unknown) => boolean, schema: Schema, value: unknown): Checked =>
  compiled(value) ? { ok: true } : explain(schema, value);

export function checkResponse(op: OpName, value: unknown): Checked {
  const compiled = responseChecks[op];
  if (compiled?.(value)) return { ok: true };
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

/** A frame of a session's stream (`session:<agent>:<sid>`), items inline included. */
export const checkStreamFrame = (frame: unknown): Checked =>
  check(streamFrameCheck, SessionStreamFrame, frame);

/** A frame of the `sessions` topic. */
export const checkSessionsFrame = (frame: Record<string, unknown>): Checked =>
  frame.type === 'session_upserted'
    ? check(sessionUpsertedCheck, SessionUpsertedFrame, frame)
    : frame.type === 'workstation_presence'
      ? check(presenceCheck, WorkstationPresenceFrame, frame)
      : check(sessionRemovedCheck, SessionRemovedFrame, frame);

/** A frame of a chat socket (`/chat`), checked against the one member its `type` names. */
export function checkChatEvent(frame: Record<string, unknown>): Checked {
  const type = frame.type;
  const compiled =
    typeof type === 'string' && Object.hasOwn(chatEventChecks, type) ? chatEventChecks[type] : undefined;
  if (compiled?.(frame)) return { ok: true };
  const v = validateServerEvent(frame);
  if (v.ok) return { ok: true };
  return { ok: false, message: v.error.message, field: v.error.field };
}
