// Pure translation of a rollout into transcript events.
import { linePointer, type TranslatedSession } from '../../adapter.js';
import type {
  Lane,
  SkippedRecord,
  SystemPayload,
  TranscriptEvent,
  TranscriptEventKind,
  TranscriptEventPayloads,
  TranscriptSession,
} from '../../model.js';
import { ok, type Result, type UnknownFormatGeneration } from '../../result.js';
import { countValue, integerValue } from '../../values.js';
import { classify, type Item } from './classify.js';
import { messageText, reasoningText } from './content.js';
import { type CodexRecord, isObject, type Json, num, str } from './records.js';
import { callInput } from './tools.js';

/** Event kinds that stand for something in the model's context, which a compaction replaces. */
const CONTEXT_KINDS: ReadonlySet<TranscriptEventKind> = new Set([
  'user',
  'assistant',
  'reasoning',
  'tool_call',
  'tool_result',
  'compaction',
]);

/** System events after which a new model request starts. */
const TURN_BOUNDARIES: ReadonlySet<string> = new Set([
  'turn_context',
  'task_started',
  'task_complete',
  'turn_aborted',
]);

/** One event per record, so the record's place names it: line, and file when not the first. */
const eventId = (r: CodexRecord): string =>
  r.fileIndex === 0 ? `L${r.span.line}` : `F${r.fileIndex}L${r.span.line}`;

export function translateRollouts(
  files: Parameters<typeof classify>[0],
): Result<TranslatedSession, UnknownFormatGeneration> {
  const classified = classify(files);
  if (!classified.ok) return classified;
  const { items, session: s, capabilities } = classified.value;
  const main = s.id;
  const mainLane: Lane = { id: main };
  if (s.laneTitle !== undefined) mainLane.title = s.laneTitle;
  const agents: Lane[] = [mainLane];
  const events: TranscriptEvent[] = [];
  const skipped: SkippedRecord[] = [];
  const callEvents = new Map<string, string>();

  // Which request produced an output: Codex writes a request's snapshot after its outputs in
  // recent generations and before them in older ones. Outputs wait for the next snapshot; a
  // snapshot that finds none waiting takes the outputs that follow it, until the next input.
  let waiting: TranscriptEvent[] = [];
  let openRequest: string | undefined;
  let shadowFrom = 0;
  const turnStarts = new Map<string, number>();

  const push = <K extends TranscriptEventKind>(it: Item, kind: K, payload: TranscriptEventPayloads[K]) => {
    const e = {
      id: eventId(it.rec),
      seq: 0,
      kind,
      agentId: main,
      source: linePointer(it.rec.file, it.rec.span),
      payload,
    } as TranscriptEvent;
    if (it.rec.ts !== undefined) e.timestamp = it.rec.ts;
    if (it.rec.invalid.length > 0) e.invalid = [...it.rec.invalid];
    events.push(e);
    return e;
  };
  const output = (e: TranscriptEvent) => {
    if (openRequest !== undefined) e.requestId = openRequest;
    else waiting.push(e);
  };

  for (const it of items) {
    const r = it.rec;
    const p: Json = r.payload ?? {};
    switch (it.kind) {
      case 'skip': {
        const skip: SkippedRecord = { source: linePointer(r.file, r.span), reason: it.reason };
        if (r.type) skip.recordType = r.sub ? `${r.type}:${r.sub}` : r.type;
        skipped.push(skip);
        break;
      }
      case 'user': {
        const { text, images } = r.type === 'event_msg' ? umText(p) : messageText(p.content);
        const payload: TranscriptEventPayloads['user'] = { text };
        if (it.origin !== undefined) {
          payload.synthetic = true;
          payload.origin = it.origin;
        }
        if (images > 0) payload.images = images;
        push(it, 'user', payload);
        openRequest = undefined;
        break;
      }
      case 'assistant': {
        const payload: TranscriptEventPayloads['assistant'] =
          r.type === 'event_msg' ? { text: str(p.message) ?? '' } : { text: messageText(p.content).text };
        const phase = str(p.phase);
        if (phase !== undefined) payload.phase = phase;
        output(push(it, 'assistant', payload));
        break;
      }
      case 'reasoning': {
        const text = r.type === 'event_msg' ? (str(p.text) ?? '') : reasoningText(p);
        const payload: TranscriptEventPayloads['reasoning'] = { text };
        if (text === '' && p.encrypted_content) payload.redacted = true;
        output(push(it, 'reasoning', payload));
        break;
      }
      case 'tool_call': {
        const input =
          'arguments' in p
            ? callInput(p.arguments)
            : 'input' in p
              ? p.input
              : 'action' in p
                ? p.action
                : undefined;
        const e = push(it, 'tool_call', { callId: it.callId, name: it.name, input });
        if (!callEvents.has(it.callId)) callEvents.set(it.callId, e.id);
        output(e);
        break;
      }
      case 'tool_result': {
        const payload: TranscriptEventPayloads['tool_result'] = {
          callId: it.callId,
          output: it.result.output,
        };
        if (it.result.failed) payload.isError = true;
        if (it.result.exitCode !== undefined) payload.exitCode = it.result.exitCode;
        push(it, 'tool_result', payload);
        openRequest = undefined;
        break;
      }
      case 'request': {
        const payload: TranscriptEventPayloads['request'] = { usage: it.usage };
        if (it.model !== undefined) payload.model = it.model;
        const window = isObject(p.info) ? num(p.info.model_context_window) : undefined;
        if (window !== undefined) payload.contextWindow = window;
        const e = push(it, 'request', payload);
        if (waiting.length > 0) {
          for (const w of waiting) w.requestId = e.id;
          waiting = [];
          openRequest = undefined;
        } else openRequest = e.id;
        break;
      }
      case 'compaction': {
        const payload: TranscriptEventPayloads['compaction'] = {};
        const summary = str(p.message);
        if (summary) payload.summary = summary;
        if (Array.isArray(p.replacement_history)) payload.replacedItems = p.replacement_history.length;
        const e = push(it, 'compaction', payload);
        for (let j = shadowFrom; j < events.length - 1; j++) {
          const prior = events[j]!;
          if (prior.agentId === main && prior.shadowedBy === undefined && CONTEXT_KINDS.has(prior.kind))
            prior.shadowedBy = e.id;
        }
        shadowFrom = events.length;
        openRequest = undefined;
        break;
      }
      case 'system': {
        const payload = systemPayload(it.type, r, p);
        if (it.type === 'task_started' && payload.turnId !== undefined && r.ts !== undefined)
          turnStarts.set(payload.turnId as string, r.ts);
        else if (it.type === 'task_complete' && payload.durationMs === undefined && r.ts !== undefined) {
          // Generations that do not record the duration still date the turn's start and end.
          const started = turnStarts.get(payload.turnId as string);
          if (started !== undefined) payload.durationMs = r.ts - started;
        }
        push(it, 'system', payload);
        if (TURN_BOUNDARIES.has(it.type)) {
          openRequest = undefined;
          if (it.type !== 'turn_context' && it.type !== 'task_complete') waiting = [];
        }
        break;
      }
      case 'spawn': {
        const e = push(it, 'system', systemPayload('collab_agent_spawn_end', r, p));
        if (agents.some((a) => a.id === it.laneId)) break;
        const lane: Lane = { id: it.laneId, parentId: main, spawnEventId: e.id };
        const call = it.callId === undefined ? undefined : callEvents.get(it.callId);
        if (call !== undefined) lane.spawnEventId = call;
        if (it.title !== undefined) lane.title = it.title;
        agents.push(lane);
        break;
      }
      case 'unknown':
        push(it, 'unknown', { recordType: it.recordType, raw: r.value });
        break;
    }
  }

  const session: TranscriptSession = { id: s.id };
  if (s.cwd !== undefined) session.cwd = s.cwd;
  if (s.startedAt !== undefined) session.startedAt = s.startedAt;
  if (s.endedAt !== undefined) session.endedAt = s.endedAt;
  if (s.title !== undefined) session.title = s.title;
  const translated: TranslatedSession = { agents, capabilities, events, session, skipped };
  if (s.agentVersion !== undefined) translated.agentVersion = s.agentVersion;
  return ok(translated);
}

function umText(p: Json): { text: string; images: number } {
  const images =
    (Array.isArray(p.images) ? p.images.length : 0) +
    (Array.isArray(p.local_images) ? p.local_images.length : 0);
  return { text: str(p.message) ?? '', images };
}

function systemPayload(type: string, r: CodexRecord, p: Json): SystemPayload {
  const out: SystemPayload = { type };
  const set = (key: string, v: unknown) => {
    if (v !== undefined) out[key] = v;
  };
  if (type === 'session_meta') {
    set('sessionId', str(p.id));
    set('cwd', str(p.cwd));
    set('cliVersion', str(p.cli_version));
    set('originator', str(p.originator));
    set('source', p.source);
    set('modelProvider', str(p.model_provider));
    set('forkedFromId', str(p.forked_from_id));
    set('git', isObject(p.git) ? p.git : undefined);
    return out;
  }
  if (r.type === 'turn_context') {
    set('model', str(p.model));
    set('cwd', str(p.cwd));
    set('effort', str(p.effort));
  }
  set('turnId', str(p.turn_id));
  set('callId', str(p.call_id));
  set(
    'text',
    str(p.message) ?? str(p.last_agent_message) ?? str(p.reason) ?? str(p.thread_name) ?? str(p.prompt),
  );
  set('durationMs', countValue(p.duration_ms, 'payload.duration_ms', r.invalid));
  set('exitCode', integerValue(p.exit_code, 'payload.exit_code', r.invalid));
  set('modelContextWindow', num(p.model_context_window));
  return out;
}
