// Pure translation of a rollout into transcript events.
import {
  fileEnd,
  type IncrementalTranslation,
  linePointer,
  type SourceFile,
  type TranslatedSession,
  type TranslationDelta,
} from '../../adapter.js';
import { appendAll } from '../../arrays.js';
import { BARE_IMAGE_NOTE } from '../../items/images.js';
import { nextLineOffset } from '../../lines.js';
import type {
  Capability,
  Lane,
  SkippedRecord,
  SystemPayload,
  TranscriptEvent,
  TranscriptEventKind,
  TranscriptEventPayloads,
  TranscriptSession,
} from '../../model.js';
import { err, ok, type Result, type UnknownFormatGeneration, unknownFormatGeneration } from '../../result.js';
import { countValue, integerValue } from '../../values.js';
import {
  type ClassifiedSession,
  ClassifyState,
  classify,
  type Item,
  idFromPath,
  Prescan,
  SessionFacts,
} from './classify.js';
import { type MessageText, messageText, reasoningText, urlImageNote } from './content.js';
import {
  type CodexRecord,
  isObject,
  type Json,
  num,
  readRecords,
  str,
  unknownGeneration,
} from './records.js';
import { isForked, replayEnd } from './replay.js';
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
  const events = new RolloutEvents(s.id, s.laneTitle);
  events.add(items);
  return ok(events.translated(s, capabilities));
}

/** A rollout's classified records into events, taken in order as they are read. */
export class RolloutEvents {
  readonly agents: Lane[];
  readonly events: TranscriptEvent[] = [];
  readonly skipped: SkippedRecord[] = [];
  private readonly callEvents = new Map<string, string>();
  /** The user event of each user message record, so one whose reading a later record changes
   * (found to be a prompt, or to be none) is read anew in place. */
  private readonly userEvents = new Map<CodexRecord, TranscriptEvent>();
  // Which request produced an output: Codex writes a request's snapshot after its outputs in
  // recent generations and before them in older ones. Outputs wait for the next snapshot; a
  // snapshot that finds none waiting takes the outputs that follow it, until the next input.
  private waiting: TranscriptEvent[] = [];
  private openRequest: string | undefined;
  private shadowFrom = 0;
  private readonly turnStarts = new Map<string, number>();
  /** Skipped records' type tags by envelope and payload type: a long rollout skips hundreds of
   * thousands of mirror lines, and one string per tag rather than per record keeps them small. */
  private readonly recordTypes = new Map<string, Map<string, string>>();

  constructor(
    private readonly main: string,
    laneTitle: string | undefined,
  ) {
    const mainLane: Lane = { id: main };
    if (laneTitle !== undefined) mainLane.title = laneTitle;
    this.agents = [mainLane];
  }

  /** The session as translated so far. */
  translated(s: ClassifiedSession, capabilities: Capability[]): TranslatedSession {
    const session: TranscriptSession = { id: s.id };
    if (s.cwd !== undefined) session.cwd = s.cwd;
    if (s.startedAt !== undefined) session.startedAt = s.startedAt;
    if (s.endedAt !== undefined) session.endedAt = s.endedAt;
    if (s.title !== undefined) session.title = s.title;
    const translated: TranslatedSession = {
      agents: this.agents,
      capabilities,
      events: this.events,
      session,
      skipped: this.skipped,
    };
    if (s.agentVersion !== undefined) translated.agentVersion = s.agentVersion;
    return translated;
  }

  private recordType(r: CodexRecord): string {
    let bySub = this.recordTypes.get(r.type);
    if (!bySub) {
      bySub = new Map();
      this.recordTypes.set(r.type, bySub);
    }
    let tag = bySub.get(r.sub);
    if (tag === undefined) {
      tag = r.sub ? `${r.type}:${r.sub}` : r.type;
      bySub.set(r.sub, tag);
    }
    return tag;
  }

  /** A user message read as injected context that a later record shows to be a prompt. */
  prompt(rec: CodexRecord): TranscriptEvent | undefined {
    const e = this.userEvents.get(rec);
    if (e?.kind !== 'user' || e.payload.origin !== 'injected') return undefined;
    delete e.payload.synthetic;
    delete e.payload.origin;
    return e;
  }

  /** A user message read as a prompt for want of the record after it, which shows it to be injected. */
  unprompt(rec: CodexRecord): TranscriptEvent | undefined {
    const e = this.userEvents.get(rec);
    if (e?.kind !== 'user' || e.payload.origin !== undefined) return undefined;
    // The payload's members in the order a first read gives them.
    const { images, imageNotes } = e.payload;
    delete e.payload.images;
    delete e.payload.imageNotes;
    e.payload.synthetic = true;
    e.payload.origin = 'injected';
    if (images !== undefined) e.payload.images = images;
    if (imageNotes !== undefined) e.payload.imageNotes = imageNotes;
    return e;
  }

  /** Lets go of the first `count` events; the range a compaction marks starts no earlier than the list. */
  letGo(count: number): void {
    this.events.splice(0, count);
    this.shadowFrom = Math.max(0, this.shadowFrom - count);
  }

  /** Translates the next items; answers the earlier events they changed. */
  add(items: readonly Item[]): TranscriptEvent[] {
    const main = this.main;
    const events = this.events;
    const updated: TranscriptEvent[] = [];
    const from = events.length;
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
      if (this.openRequest !== undefined) e.requestId = this.openRequest;
      else this.waiting.push(e);
    };

    for (const it of items) {
      const r = it.rec;
      const p: Json = r.payload ?? {};
      switch (it.kind) {
        case 'skip': {
          const source = linePointer(r.file, r.span);
          // One literal per shape: a member added afterwards costs every record a second allocation.
          const skip: SkippedRecord = r.type
            ? { source, reason: it.reason, recordType: this.recordType(r) }
            : { source, reason: it.reason };
          this.skipped.push(skip);
          break;
        }
        case 'user': {
          const { text, images, imageNotes } = r.type === 'event_msg' ? umText(p) : messageText(p.content);
          const payload: TranscriptEventPayloads['user'] = { text };
          if (it.origin !== undefined) {
            payload.synthetic = true;
            payload.origin = it.origin;
          }
          if (images > 0) payload.images = images;
          if (imageNotes) payload.imageNotes = imageNotes;
          const e = push(it, 'user', payload);
          if (r.type === 'response_item' && (it.origin === undefined || it.origin === 'injected'))
            this.userEvents.set(r, e);
          this.openRequest = undefined;
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
          if (!this.callEvents.has(it.callId)) this.callEvents.set(it.callId, e.id);
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
          this.openRequest = undefined;
          break;
        }
        case 'request': {
          const payload: TranscriptEventPayloads['request'] = { usage: it.usage };
          if (it.model !== undefined) payload.model = it.model;
          const window = isObject(p.info) ? num(p.info.model_context_window) : undefined;
          if (window !== undefined) payload.contextWindow = window;
          const e = push(it, 'request', payload);
          if (this.waiting.length > 0) {
            for (const w of this.waiting) {
              w.requestId = e.id;
              updated.push(w);
            }
            this.waiting = [];
            this.openRequest = undefined;
          } else this.openRequest = e.id;
          break;
        }
        case 'compaction': {
          const payload: TranscriptEventPayloads['compaction'] = {};
          const summary = str(p.message);
          if (summary) payload.summary = summary;
          if (Array.isArray(p.replacement_history)) payload.replacedItems = p.replacement_history.length;
          const e = push(it, 'compaction', payload);
          for (let j = this.shadowFrom; j < events.length - 1; j++) {
            const prior = events[j]!;
            if (prior.agentId === main && prior.shadowedBy === undefined && CONTEXT_KINDS.has(prior.kind)) {
              prior.shadowedBy = e.id;
              updated.push(prior);
            }
          }
          this.shadowFrom = events.length;
          this.openRequest = undefined;
          break;
        }
        case 'system': {
          const payload = systemPayload(it.type, r, p);
          if (it.type === 'task_started' && payload.turnId !== undefined && r.ts !== undefined)
            this.turnStarts.set(payload.turnId as string, r.ts);
          else if (it.type === 'task_complete' && payload.durationMs === undefined && r.ts !== undefined) {
            // Generations that do not record the duration still date the turn's start and end.
            const started = this.turnStarts.get(payload.turnId as string);
            if (started !== undefined) payload.durationMs = r.ts - started;
          }
          push(it, 'system', payload);
          if (TURN_BOUNDARIES.has(it.type)) {
            this.openRequest = undefined;
            if (it.type !== 'turn_context' && it.type !== 'task_complete') this.waiting = [];
          }
          break;
        }
        case 'spawn': {
          const e = push(it, 'system', systemPayload('collab_agent_spawn_end', r, p));
          if (this.agents.some((a) => a.id === it.laneId)) break;
          const lane: Lane = { id: it.laneId, parentId: main, spawnEventId: e.id };
          const call = it.callId === undefined ? undefined : this.callEvents.get(it.callId);
          if (call !== undefined) lane.spawnEventId = call;
          if (it.title !== undefined) lane.title = it.title;
          this.agents.push(lane);
          break;
        }
        case 'unknown':
          push(it, 'unknown', { recordType: it.recordType, raw: r.value });
          break;
      }
    }
    const fresh = new Set(events.slice(from));
    return updated.filter((e) => !fresh.has(e));
  }
}

/**
 * A rollout read as it grows. Records a later one reads differently (a message it shows to be a
 * prompt) are patched in place; one that would change earlier records beyond that (the first
 * assistant item after event-only messages, a tool's output after its end was taken for it, a
 * user message paired with the record after it) makes the push answer 'rewrite'.
 */
export class CodexTranslation implements IncrementalTranslation {
  /** The rollout's records; those before `releasedTo` (but the session_meta) are let go. */
  private readonly recs: (CodexRecord | undefined)[] = [];
  /** Records before this index have been let go (see release). */
  private releasedTo = 0;
  private path: string | undefined;
  private offset = 0;
  private nextLine = 1;
  private endsOpen = false;
  private firstIndex = -1;
  private copyEnd = 0;
  private readonly scan = new Prescan();
  private readonly state = new ClassifyState();
  private readonly facts = new SessionFacts();
  private session: ClassifiedSession | undefined;
  private events: RolloutEvents | undefined;

  push(files: readonly SourceFile[]): Result<TranslationDelta | 'rewrite', UnknownFormatGeneration> {
    const file = files[0];
    if (files.length !== 1 || !file) return ok('rewrite');
    if (this.path !== undefined) {
      const end = fileEnd(file);
      const grownPastOpenLine = this.endsOpen && end > this.offset;
      if (file.path !== this.path || end < this.offset || grownPastOpenLine) return ok('rewrite');
    }
    // A part translated alone names its records by their lines in the file (see SourceFile.line).
    if (this.path === undefined) this.nextLine = file.line ?? 1;
    this.path = file.path;
    this.session ??= { id: idFromPath(file.path) };
    const from = this.recs.length;
    const fresh = readRecords(file, 0, this.offset, this.nextLine, this.firstIndex !== -1);
    appendAll(this.recs, fresh);
    const last = fresh[fresh.length - 1]?.span;
    if (last) {
      this.offset = nextLineOffset(file, last);
      this.nextLine = last.line + 1;
      this.endsOpen = last.unterminated;
    }
    if (this.firstIndex === -1) {
      this.firstIndex = this.recs.findIndex((r) => r !== undefined && r.reason === undefined);
      const first = this.recs[this.firstIndex];
      const why = first && unknownGeneration(first);
      if (first && why) return err(unknownFormatGeneration(file.path, first.span.line, why));
    }
    const copyEnd = this.firstIndex === -1 ? 0 : replayEnd(this.recs, this.firstIndex);
    // A copied parent history that now ends elsewhere among records already read.
    if (Math.min(copyEnd, from) !== Math.min(this.copyEnd, from)) return ok('rewrite');
    this.copyEnd = copyEnd;
    const changes = this.scan.add(this.recs, this.firstIndex, copyEnd, from);
    if (changes === 'rewrite') return ok('rewrite');

    const items: Item[] = [];
    for (let i = from; i < this.recs.length; i++)
      items.push(this.state.item(this.session, this.recs, i, this.firstIndex, copyEnd, this.scan));
    this.facts.add(items);
    this.facts.finish(this.session);
    if (this.events && this.session.id !== this.events.agents[0]!.id) return ok('rewrite');
    this.events ??= new RolloutEvents(this.session.id, this.session.laneTitle);
    const before = this.events.events.length;
    const updated = this.events.add(items);
    const revised: TranscriptEvent[] = [];
    for (const i of changes.prompted) {
      const e = this.events.prompt(this.recs[i]!);
      if (e) revised.push(e);
    }
    for (const i of changes.unprompted) {
      const e = this.events.unprompt(this.recs[i]!);
      if (e) revised.push(e);
    }
    appendAll(updated, revised);
    this.release();
    return ok({ from: before, added: this.events.events.slice(before), updated, revised });
  }

  /**
   * Lets go of the records no later push reads: every one but the session_meta and the last parsed
   * one (a user_message after it pairs with it). A user message's record stays only as the key its
   * event is patched by, without its parsed line. Without this a long rollout's records, though
   * small, held as much memory as its events. A forked rollout keeps them all, as where its copy
   * of the parent's history ends is found again from its records at every push.
   */
  private release(): void {
    const meta = this.recs[this.firstIndex];
    if (!meta || (meta.type === 'session_meta' && isForked(meta.payload))) return;
    let last = this.recs.length - 1;
    while (last >= 0 && this.recs[last]!.reason !== undefined) last--;
    for (let i = this.releasedTo; i < last; i++) {
      if (i === this.firstIndex) continue;
      this.recs[i]!.release();
      this.recs[i] = undefined;
    }
    this.releasedTo = Math.max(this.releasedTo, last);
  }

  letGo(count: number): void {
    this.events?.letGo(count);
  }

  snapshot(): TranslatedSession {
    const session = this.session ?? { id: '' };
    const events = this.events ?? new RolloutEvents(session.id, session.laneTitle);
    return events.translated(session, this.facts.capabilities(this.state.sawUsage));
  }
}

function umText(p: Json): MessageText {
  // `images` holds data URLs; `local_images` holds paths, which say nothing of type or size.
  const imageNotes = [
    ...(Array.isArray(p.images) ? p.images.map(urlImageNote) : []),
    ...(Array.isArray(p.local_images) ? p.local_images.map(() => BARE_IMAGE_NOTE) : []),
  ];
  const text = str(p.message) ?? '';
  return imageNotes.length > 0 ? { text, images: imageNotes.length, imageNotes } : { text, images: 0 };
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
