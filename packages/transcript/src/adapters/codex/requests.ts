// A rollout's requests without classifying its records into events: what the usage reports read of
// a Codex session (each request's time, model and usage, the folder and the title), by classify's
// rules. A request is a token_count snapshot that moved the running totals; its model is the last
// turn_context's. A forked or spawned rollout's copy of its parent moves the totals and the model
// but counts nothing, and ends where replayEnd says.
//
// Response items, most of a rollout's bytes, count for none of that: a line that Codex's envelope
// names one (`{"timestamp":"…","type":"response_item",…`) is not parsed. Every other line is.
import type { SourceFile } from '../../adapter.js';
import { bytesOf } from '../../bytes.js';
import { parseJsonLine, splitLines } from '../../lines.js';
import type { PassRequest, PassRequests } from '../claude-code/requests.js';
import { CodexRecord, isObject, recordShape, str, timeOf, unknownGenerationOf } from './records.js';
import { replayEnd } from './replay.js';
import { SnapshotReader } from './usage.js';

const HEAD = bytesOf('{"timestamp":"');
const RESPONSE_ITEM = bytesOf('","type":"response_item",');
/** Codex writes its times as `2026-02-23T11:41:32.239Z`. */
const TIME_LENGTH = 24;

/** Whether the line starts with the envelope of a response item, as Codex writes it. */
function isResponseItemLine(data: Uint8Array, offset: number, length: number): boolean {
  if (length < HEAD.length + TIME_LENGTH + RESPONSE_ITEM.length) return false;
  for (let i = 0; i < HEAD.length; i++) if (data[offset + i] !== HEAD[i]) return false;
  const at = offset + HEAD.length + TIME_LENGTH;
  for (let i = 0; i < RESPONSE_ITEM.length; i++) if (data[at + i] !== RESPONSE_ITEM[i]) return false;
  return true;
}

/**
 * The requests of a rollout (a Codex session is one file), or 'unsure' when only the full
 * translation can say: a first record of no known generation, or more than one file.
 */
export function codexRequests(files: readonly SourceFile[]): PassRequests | 'unsure' {
  if (files.length !== 1) return 'unsure';
  const file = files[0]!;
  const origin = { path: file.path };
  const records: CodexRecord[] = [];
  let firstIndex = -1;
  for (const span of splitLines(file.data)) {
    if (firstIndex !== -1 && isResponseItemLine(file.data, span.offset, span.length)) continue;
    const parsed = parseJsonLine(file.data, span);
    if (!parsed.ok) continue;
    const value = parsed.value;
    const first = firstIndex === -1;
    if (first && unknownGenerationOf(value) !== undefined) return 'unsure';
    if (first) firstIndex = records.length;
    const shape = isObject(value) ? recordShape(value, first) : { type: '', sub: '', payload: undefined };
    const ts = isObject(value) ? timeOf(value.timestamp) : undefined;
    records.push(new CodexRecord(origin, 0, span, value, shape.type, shape.sub, shape.payload, ts));
  }
  const out: PassRequests = { requests: [] };
  if (firstIndex === -1) return out;
  const copyEnd = replayEnd(records, firstIndex);
  const snapshots = new SnapshotReader();
  const requests: PassRequest[] = out.requests;
  let model: string | undefined;
  let cwd: string | undefined;
  let title: string | undefined;
  for (const [i, r] of records.entries()) {
    const p = r.payload ?? {};
    if (i > firstIndex && i < copyEnd) {
      // The parent's records: nothing of them is counted, but the running totals move on.
      if (r.type === 'event_msg' && r.sub === 'token_count') snapshots.next(p.info);
      else if (r.type === 'turn_context') model = str(p.model) ?? model;
      continue;
    }
    if (r.type === 'session_meta') {
      if (i === firstIndex) cwd = str(p.cwd) ?? cwd;
    } else if (r.type === 'turn_context') {
      model = str(p.model) ?? model;
      cwd ??= str(p.cwd);
    } else if (r.type === 'event_msg' && r.sub === 'token_count') {
      const snap = snapshots.next(p.info);
      if (snap.ok && r.ts !== undefined && model !== undefined)
        requests.push({ at: r.ts, model, usage: snap.usage });
    } else if (r.type === 'event_msg' && r.sub === 'thread_name_updated')
      title = str(p.thread_name) ?? str(p.name) ?? title;
  }
  if (cwd !== undefined) out.cwd = cwd;
  if (title !== undefined) out.title = title;
  return out;
}
