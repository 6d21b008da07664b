// The records GitHub Copilot CLI appends to `<home>/session-state/<sessionId>/events.jsonl` (and,
// before workspace folders, to a flat `<sessionId>.jsonl`): one event a line, `{type, data, id,
// timestamp, parentId}`, where `type` is namespaced (`session.start`, `user.message`,
// `assistant.message`, `tool.execution_complete`, …) and `parentId` chains each event to the one
// before it. Small readers shared by the translation and the listing.
import { isObject, type JsonObject, stringField } from '../gemini-cli/records.js';

export { isObject, type JsonObject, stringField };

export const COPILOT_CLI = 'copilot-cli';

/** A Copilot event type: dotted lowercase names, plus the bare `abort`. */
const EVENT_TYPE = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$|^abort$/;

/** Whether a parsed value has the envelope every Copilot CLI event carries. */
export const isCopilotEvent = (v: unknown): v is JsonObject =>
  isObject(v) &&
  typeof v.type === 'string' &&
  EVENT_TYPE.test(v.type) &&
  'id' in v &&
  'parentId' in v &&
  (v.data === undefined || isObject(v.data));

/** An event's payload; an event without one has an empty payload. */
export const dataOf = (r: JsonObject): JsonObject => (isObject(r.data) ? r.data : {});

/** The subagent an event belongs to: the call that started it, when the event names one. */
export const parentCallOf = (data: JsonObject): string | undefined => {
  const id = stringField(data, 'parentToolCallId');
  return id === undefined || id === '' ? undefined : id;
};

/** What a user message says: its text as typed. */
export const userContent = (data: JsonObject): string => stringField(data, 'content') ?? '';

/** `session.start`'s working folder and branch live in its `context`. */
export function startContext(data: JsonObject): { cwd?: string; branch?: string } {
  const ctx = isObject(data.context) ? data.context : {};
  const out: { cwd?: string; branch?: string } = {};
  const cwd = stringField(ctx, 'cwd');
  const branch = stringField(ctx, 'branch');
  if (cwd !== undefined && cwd !== '') out.cwd = cwd;
  if (branch !== undefined && branch !== '') out.branch = branch;
  return out;
}
