// Transcript events into the items of the contract's vocabulary, read from one subject's side: the
// session's main lane, or one subagent's lane. Works the same for every agent, since it reads the
// transcript model rather than any agent's files.
import type { TranscriptItem } from '@cairn/protocol';
import type { Lane, ToolResultPayload, Transcript, TranscriptEvent, TranscriptEventOf } from '../model.js';
import { err, ok, type Result } from '../result.js';
import { bookkeepingRule } from './bookkeeping.js';
import {
  isCaveat,
  isCrossSessionMessage,
  isWorkflowResume,
  slashCommandOf,
  tagAttribute,
  tagText,
  taskNotificationOf,
} from './envelopes.js';
import { defined, type Fields, isObject, str } from './fields.js';
import { BARE_IMAGE_NOTE } from './images.js';
import {
  agentStatus,
  isAsyncLaunch,
  outputText,
  resultFields,
  toolTypeName,
  useFields,
} from './tool-fields.js';

type Item = TranscriptItem & Fields;

export interface ClassifyOptions {
  /** The subagent whose side the items are read from; the session's main lane when absent. */
  readonly agentId?: string | undefined;
}

export interface Classification {
  /** The lane the items were read from. */
  readonly subject: Lane;
  /** Whether the subject is the session's main lane. */
  readonly isMain: boolean;
  /** In the transcript's order. */
  readonly items: TranscriptItem[];
  /** For each item (same index), the event it was read from: one reference per item, not a list,
   * since a long lane holds hundreds of thousands of items. */
  readonly sources: readonly TranscriptEvent[];
  /** Events of the subject's lane that became no item, with the rule's reason. */
  readonly bookkept: readonly { readonly event: TranscriptEvent; readonly reason: string }[];
}

export interface SubjectNotFound {
  readonly _tag: 'SubjectNotFound';
  readonly agentId: string;
  readonly message: string;
}

/** Suffix of the `message:sub:*` item read from the same event as its `tool:Agent` twin. */
const SUB_SUFFIX = '#sub';

/** The lane an agent id names: its lane id, or the file stem form `agent-<id>`. */
export function findLane(t: Transcript, agentId: string): Lane | undefined {
  const id = agentId.startsWith('agent-') ? agentId.slice('agent-'.length) : agentId;
  return t.agents.find((a) => a.parentId !== undefined && (a.id === agentId || a.id === id));
}

export const mainLaneOf = (t: Transcript): Lane =>
  t.agents.find((a) => a.parentId === undefined) ?? { id: t.events[0]?.agentId ?? t.session.id };

/** Classifies every event of the subject's lane. */
export function classifyTranscript(
  t: Transcript,
  options: ClassifyOptions = {},
): Result<Classification, SubjectNotFound> {
  const main = mainLaneOf(t);
  let subject = main;
  if (options.agentId !== undefined) {
    const lane = findLane(t, options.agentId);
    if (!lane)
      return err({
        _tag: 'SubjectNotFound',
        agentId: options.agentId,
        message: `no subagent '${options.agentId}' in session ${t.session.id}`,
      });
    subject = lane;
  }
  return ok(new Classifier(t, subject, subject === main).run());
}

interface OpenCall {
  use: Item;
  typeName: string;
  typed: boolean;
  /** The `message:sub:out` twin of an agent spawn. */
  sub?: Item;
  /** The spawned agent, once known. */
  agentId?: string;
  /** The brief's answer, once made. */
  answer?: Item;
  /** The later events that read or changed the brief (results, a background agent's report), in
   * order: what a fresh read of this one call goes through when its lane comes to light. */
  touches?: TranscriptEvent[];
}

/** Reads one lane's events into items, all at once (run) or as they arrive (push, then result). */
export class Classifier {
  private readonly items: Item[] = [];
  private readonly sources: TranscriptEvent[] = [];
  private readonly bookkept: { event: TranscriptEvent; reason: string }[] = [];
  /** The event last made an item or bookkept: whether the one being read became anything. One
   * reference rather than a set of every event, which on a long lane grew to hundreds of
   * thousands of entries and stalled the thread each time it doubled. */
  private placed: TranscriptEvent | undefined;
  private readonly calls = new Map<string, OpenCall>();
  /** Once items are let go of (letGo): the calls whose item is still whole. */
  private unanswered: OpenCall[] | undefined;
  /** With a bound on calls kept (keepCalls): the answered calls let go of, oldest first, still kept. */
  private answered: string[] | undefined;
  private answeredHead = 0;
  /** Hashes of the ids of answered calls forgotten (keepCalls): a later event naming one is noticed. */
  private forgotten: Set<number> | undefined;
  private keptCalls = 0;
  /**
   * Why the items since the last letGo may not be those a whole read makes: an event named a call
   * forgotten (see keepCalls). A hash shared by two ids only makes this say so without need.
   */
  stale: string | undefined;
  /** Spawning event id → the lane it started. */
  private readonly spawned = new Map<string, Lane>();
  /** Summary texts that a user event of the lane carries, so a compaction does not repeat them. */
  private readonly summaries: string[] = [];
  private turn = 0;
  private at = 0;
  private pushes = 0;
  private lastCommand: string | undefined;
  /** A command the person typed, until something else happens: the system record echoing it is
   * the same prompt, not a second one. */
  private typedCommand: string | undefined;

  constructor(
    private t: Transcript,
    private subject: Lane,
    private readonly isMain: boolean,
  ) {
    this.learnSpawns();
  }

  private learnSpawns(): void {
    this.spawned.clear();
    for (const lane of this.t.agents)
      if (lane.spawnEventId !== undefined) this.spawned.set(lane.spawnEventId, lane);
  }

  /**
   * Takes the session's lanes as they are now, for the events still to come. Calls already read
   * whose lane changed are brought up to date by relink.
   */
  learnLanes(t: Transcript, subject: Lane): void {
    this.t = t;
    this.subject = subject;
    this.learnSpawns();
  }

  /**
   * A spawning call this lane already read, whose lane came to light or changed (a subagent's file
   * appeared, its title changed): its brief and the brief's answer become what a fresh read of
   * the lane would make of them, in place. False when a fresh read would make other items (a call
   * that has a brief only while its lane is known): then the lane must be classified again.
   */
  relink(e: TranscriptEventOf<'tool_call'>): boolean {
    const call = this.calls.get(e.payload.callId);
    if (!call || call.use.uuid !== e.id) return false;
    const hasBrief = call.typeName === 'Agent' || this.spawnedBy(e) !== undefined;
    if (!call.sub) return !hasBrief;
    if (!hasBrief) return false;
    // The call and what touched it, read alone with the lanes as they are now, make the brief's
    // fields (their order included) as the whole lane's read would; only its place in time is the lane's.
    const alone = new Classifier(this.t, this.subject, this.isMain);
    alone.push([e, ...(call.touches ?? [])]);
    const fresh = alone.calls.get(e.payload.callId)!;
    call.agentId = fresh.agentId;
    refill(call.sub, fresh.sub!);
    if (call.answer && fresh.answer) refill(call.answer, fresh.answer);
    return true;
  }

  run(): Classification {
    this.push(this.t.events.filter((e) => e.agentId === this.subject.id));
    return this.result();
  }

  /**
   * Classifies the lane's next events. Items already made may still change in place (a call's
   * item learns its result's); the time before the lane's first dated event is taken from the
   * first events pushed.
   */
  push(events: readonly TranscriptEvent[]): void {
    for (const e of events) {
      if (
        e.kind === 'user' &&
        (e.payload.origin === 'compact_summary' || e.payload.origin === 'history_checkpoint')
      )
        this.summaries.push(e.payload.text);
    }
    if (this.pushes++ === 0)
      this.at = events.find((e) => e.timestamp !== undefined)?.timestamp ?? this.t.session.startedAt ?? 0;
    for (const e of events) {
      if (e.timestamp !== undefined) this.at = e.timestamp;
      this.event(e);
      // A guard against a gap in the rules above: an event that made nothing is shown, not lost.
      if (this.placed !== e) this.unknown(e);
    }
  }

  /** The items so far; the lists are the classifier's own and grow with later pushes. */
  result(): Classification {
    return {
      subject: this.subject,
      isMain: this.isMain,
      items: this.items,
      sources: this.sources,
      bookkept: this.bookkept,
    };
  }

  /**
   * Keeps at most about `count` answered calls once their items are let go of: older ones are
   * forgotten but for a hash of their ids. A long session read a part at a time then holds what its
   * latest calls need rather than every call it made; an event that names a forgotten call (a late
   * second result, a hook long after its call) sets `stale`, and the reader reads the session whole.
   */
  keepCalls(count: number): void {
    this.keptCalls = count;
    this.answered ??= [];
    this.forgotten ??= new Set();
  }

  /**
   * Forgets the items made so far, for a reader that has taken them (a dump written as it is read).
   * What ties later events to earlier ones (open calls, spawns, summaries) stays.
   */
  letGo(): void {
    this.items.length = 0;
    this.sources.length = 0;
    this.bookkept.length = 0;
    // A call answered keeps of its item only what a later result or relink reads: the item itself,
    // with its input, is the reader's now. Only calls met since the last letGo are looked at.
    const calls = this.unanswered ?? [...this.calls.values()];
    this.unanswered = [];
    for (const call of calls) {
      const { uuid, type, result_item } = call.use;
      if (result_item === undefined || call.sub) this.unanswered.push(call);
      else {
        const id = call.use.tool_use_id;
        call.use = { uuid, type, result_item } as Item;
        if (typeof id === 'string') this.answered?.push(id);
      }
    }
    this.forgetCalls();
  }

  /** Forgets the oldest answered calls past the number kept (see keepCalls). */
  private forgetCalls(): void {
    const answered = this.answered;
    const forgotten = this.forgotten;
    if (!answered || !forgotten) return;
    while (answered.length - this.answeredHead > this.keptCalls) {
      const id = answered[this.answeredHead++]!;
      if (this.calls.delete(id)) forgotten.add(idHash(id));
    }
    if (this.answeredHead > 1024 && this.answeredHead * 2 > answered.length) {
      this.answered = answered.slice(this.answeredHead);
      this.answeredHead = 0;
    }
  }

  /** The call of that id; a forgotten one (see keepCalls) makes the items stale. */
  private callOf(id: string, why: string): OpenCall | undefined {
    const call = this.calls.get(id);
    if (call === undefined && this.forgotten?.has(idHash(id))) this.stale ??= `${why} ${id}, long after it`;
    return call;
  }

  private event(e: TranscriptEvent): void {
    if (e.kind === 'system' && e.payload.type === 'collab_agent_spawn_end' && this.spawned.has(e.id)) {
      this.spawnNotice(e);
      return;
    }
    if (e.kind === 'hook' && this.isAroundCall(e)) {
      this.hook(e);
      return;
    }
    const rule = bookkeepingRule(e);
    if (rule) {
      this.keep(e, rule.reason);
      return;
    }
    switch (e.kind) {
      case 'user':
        this.user(e);
        return;
      case 'assistant':
        this.assistant(e);
        return;
      case 'reasoning':
        this.emit(e, 'thinking', { text: e.payload.text });
        return;
      case 'tool_call':
        this.toolCall(e);
        return;
      case 'tool_result':
        this.toolResult(e);
        return;
      case 'compaction':
        this.compaction(e);
        return;
      case 'hook':
        this.hook(e);
        return;
      case 'system':
        this.system(e);
        return;
      default:
        this.unknown(e);
    }
  }

  private emit(e: TranscriptEvent, type: string, fields: Fields, uuid = e.id): Item {
    const item = { uuid, type, at: this.at, turn: this.turn, ...fields, source: e.source } as Item;
    this.items.push(item);
    this.sources.push(e);
    this.placed = e;
    return item;
  }

  private keep(e: TranscriptEvent, reason: string): void {
    this.bookkept.push({ event: e, reason });
    this.placed = e;
  }

  private unknown(e: TranscriptEvent): void {
    const record =
      e.kind === 'unknown' && isObject(e.payload.raw)
        ? e.payload.raw
        : e.kind === 'unknown'
          ? { recordType: e.payload.recordType, raw: e.payload.raw }
          : { kind: e.kind, ...e.payload };
    this.emit(e, 'system:unknown', { record });
  }

  // --- user ---

  private user(e: TranscriptEventOf<'user'>): void {
    const { text, origin } = e.payload;
    if (isCrossSessionMessage(text)) {
      this.emit(
        e,
        'message:session:in',
        defined({
          text: tagText(text, 'cross-session-message') ?? text,
          from: tagAttribute(text, 'cross-session-message', 'from'),
          msg_id: tagAttribute(text, 'cross-session-message', 'mid'),
        }),
      );
      return;
    }
    if (isWorkflowResume(text)) {
      this.emit(e, 'system:resume', { text });
      return;
    }
    switch (origin) {
      case undefined:
      case 'subagent_prompt':
        this.turn++;
        this.typedCommand = undefined;
        this.emit(e, 'message:user:in', promptFields(e));
        return;
      case 'empty':
        this.emit(e, 'message:user:in', promptFields(e));
        return;
      case 'compact_summary':
      case 'history_checkpoint':
        this.emit(e, 'system:compact', { text });
        return;
      case 'command': {
        const c = slashCommandOf(text);
        const command = str(e.payload.command) ?? c.command ?? '';
        this.lastCommand = command;
        this.typedCommand = command;
        // The person typed it, so it is one of their prompts (the turn count stays the agent's own).
        this.emit(
          e,
          'notice:slash',
          defined({
            command,
            args: commandArgs(command, str(e.payload.args) ?? c.args),
            stdout: c.stdout,
            typed: true,
          }),
        );
        return;
      }
      case 'command_output': {
        const c = slashCommandOf(text);
        this.emit(e, 'notice:slash', {
          command: c.command ?? this.lastCommand ?? '',
          stdout: c.stdout ?? text,
        });
        return;
      }
      case 'bash_input':
        this.emit(e, 'notice:slash', { command: '!', args: tagText(text, 'bash-input') ?? text });
        return;
      case 'bash_output': {
        const out = [tagText(text, 'bash-stdout'), tagText(text, 'bash-stderr')].filter((s) => s).join('\n');
        this.emit(e, 'notice:slash', { command: '!', stdout: out || text });
        return;
      }
      case 'interrupt':
        this.emit(e, 'notice:interrupt', { text });
        return;
      case 'task_notification':
        this.taskNotification(e);
        return;
      case 'subagent_notification':
        this.emit(e, 'system:task', { text, event: 'subagent_notification' });
        return;
      case 'hook_output':
        this.emit(e, 'hook:UserPromptSubmit', {
          hook_name: 'UserPromptSubmit',
          outcome: 'additionalContext',
          content: text,
        });
        return;
      case 'meta':
        if (isCaveat(text)) {
          this.emit(e, 'system:caveat', { text });
          return;
        }
        this.attachment(e, 'meta', { text });
        return;
      default:
        // Context the agent injected in the user's voice: instructions, environment, reminders.
        this.attachment(e, origin, { text });
    }
  }

  private attachment(e: TranscriptEvent, kind: string, attachment: Fields): void {
    this.emit(e, `system:attachment:${segment(kind)}`, { attachment });
  }

  private taskNotification(e: TranscriptEventOf<'user'>): void {
    const n = taskNotificationOf(e.payload.text);
    const call = n.toolUseId === undefined ? undefined : this.calls.get(n.toolUseId);
    if (call?.sub) touched(call, e);
    if (call?.sub && call.sub.result_item === undefined && n.result !== undefined) {
      // A background agent reporting back: its answer, linked to the brief that started it.
      const answer = this.emit(
        e,
        'message:sub:in',
        defined({
          role: 'result',
          parent_item: call.sub.uuid,
          text: n.result,
          agent_id: call.agentId,
          status: n.status,
        }),
      );
      call.sub.result_item = answer.uuid;
      call.answer = answer;
      return;
    }
    this.emit(
      e,
      'system:task',
      defined({ text: n.summary ?? e.payload.text, task_id: n.taskId, event: n.status }),
    );
  }

  // --- assistant ---

  private assistant(e: TranscriptEventOf<'assistant'>): void {
    const { text, origin } = e.payload;
    if (origin === undefined || !e.payload.synthetic) {
      this.emit(e, 'message:user:out', { text });
      return;
    }
    if (origin === 'api_error' || text.startsWith('API Error')) {
      this.emit(e, 'system:api-error', { text });
      return;
    }
    if (origin === 'history_checkpoint') {
      this.emit(e, 'system:compact', { text });
      return;
    }
    this.unknown(e);
  }

  // --- tools ---

  private spawnedBy(e: TranscriptEvent): Lane | undefined {
    const lane = this.spawned.get(e.id);
    return lane && lane.id !== this.subject.id ? lane : undefined;
  }

  private toolCall(e: TranscriptEventOf<'tool_call'>): void {
    const typeName = toolTypeName(e.payload.name);
    const { typed, fields } = useFields(typeName, e.payload);
    const use = this.emit(e, `tool:${typeName}`, { role: 'use', tool_use_id: e.payload.callId, ...fields });
    const call: OpenCall = { use, typeName, typed };
    const lane = this.spawnedBy(e);
    if (lane) call.agentId = lane.id;
    if (typeName === 'Agent' || lane) {
      const input = isObject(e.payload.input) ? e.payload.input : {};
      const prompt =
        str(input.prompt) ?? str(input.message) ?? str(input.task) ?? JSON.stringify(e.payload.input ?? null);
      call.sub = this.emit(
        e,
        'message:sub:out',
        defined({
          role: 'use',
          prompt,
          agent_id: call.agentId,
          subagent_type: str(input.subagent_type) ?? str(input.agent_type),
          name: str(input.name),
          description: str(input.description) ?? lane?.title,
        }),
        `${e.id}${SUB_SUFFIX}`,
      );
    }
    if (
      e.payload.callId !== '' &&
      this.callOf(e.payload.callId, 'another call with the id of call') === undefined
    ) {
      this.calls.set(e.payload.callId, call);
      this.unanswered?.push(call);
    }
  }

  private toolResult(e: TranscriptEventOf<'tool_result'>): void {
    const call = this.callOf(e.payload.callId, 'a result of call');
    if (!call) {
      // A result whose call this lane never made: it cannot name a parent, so it is shown as found.
      this.unknown(e);
      return;
    }
    const result = this.emit(e, call.use.type, {
      role: 'result',
      parent_item: call.use.uuid,
      tool_use_id: e.payload.callId,
      ...resultFields(call.typeName, call.typed, e.payload),
    });
    call.use.result_item ??= result.uuid;
    if (!call.sub) return;
    touched(call, e);
    const agentId = str(e.payload.agentId) ?? call.agentId;
    if (agentId !== undefined) {
      call.agentId = agentId;
      call.sub.agent_id ??= agentId;
    }
    if (isAsyncLaunch(e.payload) || call.sub.result_item !== undefined) return;
    const answer = this.emit(
      e,
      'message:sub:in',
      defined({
        role: 'result',
        parent_item: call.sub.uuid,
        text: answerText(e.payload),
        agent_id: call.agentId,
        status: agentStatus(e.payload),
        duration_ms: durationOf(e.payload.durationMs),
      }),
      `${e.id}${SUB_SUFFIX}`,
    );
    call.sub.result_item = answer.uuid;
    call.answer = answer;
  }

  /** A spawn recorded only as a system event (no call of its own): the brief is all there is. */
  private spawnNotice(e: TranscriptEventOf<'system'>): void {
    const lane = this.spawned.get(e.id)!;
    const call = str(e.payload.callId);
    if (call !== undefined && this.callOf(call, 'a spawn of call') !== undefined) {
      this.keep(e, 'mirrors the spawning call, which is the tool item');
      return;
    }
    this.emit(
      e,
      'message:sub:out',
      defined({ role: 'use', prompt: e.payload.text ?? '', agent_id: lane.id, description: lane.title }),
    );
  }

  // --- compaction, hooks, system ---

  private compaction(e: TranscriptEventOf<'compaction'>): void {
    const summary = e.payload.summary;
    const repeated = summary !== undefined && this.summaries.some((s) => s !== '' && summary.includes(s));
    if (summary !== undefined && summary !== '' && !repeated) {
      this.emit(e, 'system:compact', { text: summary });
      return;
    }
    const how = [
      e.payload.trigger,
      e.payload.preTokens === undefined ? undefined : `${e.payload.preTokens} tokens before`,
    ]
      .filter((s) => s !== undefined)
      .join(', ');
    this.emit(e, 'system:compact', { text: `context compacted${how ? ` (${how})` : ''}` });
  }

  /** A hook that ran around one of the lane's tool calls: an item even when all it recorded is that it
   * started, so a reader sees which hooks ran for each call. */
  private isAroundCall(e: TranscriptEventOf<'hook'>): boolean {
    const callId = str(e.payload.toolUseId);
    return callId !== undefined && this.callOf(callId, 'a hook of call') !== undefined;
  }

  private hook(e: TranscriptEventOf<'hook'>): void {
    const p = e.payload;
    const name = p.name ?? p.event;
    const event = segment(p.event || name.split(':')[0] || 'unknown');
    const status = str(p.status);
    const blocked =
      status === 'blocking_error' ||
      p.preventedContinuation === true ||
      (p.exitCode === 2 && p.isError === true);
    // A run known only to have started is still a run of its event, under `hook:<Event>` like the
    // others; it says `status: 'started'` and states no outcome, since none was recorded.
    const started = status === 'started' && !blocked;
    const outcome = started
      ? undefined
      : blocked
        ? 'block'
        : status === 'additional_context'
          ? 'additionalContext'
          : 'output';
    this.emit(
      e,
      `hook:${event}`,
      defined({
        hook_name: name || event,
        outcome,
        content: p.output,
        command: p.command,
        exit_code: Number.isInteger(p.exitCode) ? p.exitCode : undefined,
        stderr: str(p.stderr),
        duration_ms: durationOf(p.durationMs),
        tool_use_id: str(p.toolUseId),
        // Only that it ran is known: the agent recorded no outcome for this run.
        status: started ? 'started' : undefined,
      }),
    );
  }

  private system(e: TranscriptEventOf<'system'>): void {
    const p = e.payload;
    const text = p.text ?? '';
    if (p.type.startsWith('attachment:')) {
      const attachment = isObject(p.attachment) ? p.attachment : { ...p };
      this.emit(e, `system:attachment:${segment(p.type.slice('attachment:'.length) || 'unknown')}`, {
        attachment,
      });
      return;
    }
    switch (p.type) {
      case 'local_command': {
        const c = slashCommandOf(text);
        const command = c.command ?? this.lastCommand ?? '';
        if (c.command) this.lastCommand = c.command;
        // A command recorded only as a system record was typed too; one echoing a typed command is not.
        const typed = c.command !== undefined && c.command !== this.typedCommand;
        if (c.command !== undefined) this.typedCommand = undefined;
        this.emit(
          e,
          'notice:slash',
          defined({
            command,
            args: commandArgs(command, c.args),
            stdout: c.stdout ?? (c.command ? undefined : text),
            typed: typed || undefined,
          }),
        );
        return;
      }
      case 'api_error':
      case 'error':
      case 'stream_error':
        this.emit(e, 'system:api-error', { text: text || JSON.stringify(p) });
        return;
      case 'turn_aborted':
        this.emit(e, 'notice:interrupt', defined({ text: p.text }));
        return;
      case 'rewind':
        this.emit(e, 'notice:slash', defined({ command: '/rewind', args: str(p.messageId), stdout: p.text }));
        return;
      default:
        this.unknown(e);
    }
  }
}

/** A prompt's text, and a note per image it carried (the bytes stay in the record). */
function promptFields(e: TranscriptEventOf<'user'>): Fields {
  const { text, images, imageNotes } = e.payload;
  if (Array.isArray(imageNotes) && imageNotes.length > 0 && imageNotes.every((n) => typeof n === 'string'))
    return { text, images: imageNotes };
  const count = typeof images === 'number' && Number.isInteger(images) && images > 0 ? images : 0;
  return count > 0
    ? { text, images: Array.from({ length: Math.min(count, 1000) }, () => BARE_IMAGE_NOTE) }
    : { text };
}

/** Notes an event that read or changed the call's brief. */
function touched(call: OpenCall, e: TranscriptEvent): void {
  if (call.touches) call.touches.push(e);
  else call.touches = [e];
}

/** Gives `item` the fields of `like`, in their order, keeping its own place in time. */
function refill(item: Item, like: Item): void {
  const { at, turn } = item;
  for (const key of Object.keys(item)) delete (item as Fields)[key];
  Object.assign(item, like, { at, turn });
}

/** What a spawned agent answered, as text. */
function answerText(r: ToolResultPayload): string {
  const text = outputText(r);
  if (text !== undefined) return text;
  return r.output === undefined ? '' : JSON.stringify(r.output);
}

const durationOf = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : undefined;

/** A command's arguments, without the bare name Claude Code repeats in `<command-message>`. */
const commandArgs = (command: string, args: string | undefined): string | undefined =>
  args === undefined || args === command.replace(/^\//, '') ? undefined : args;

/** A name reduced to what one type segment may hold. */
const segment = (s: string): string => s.replace(/[^A-Za-z0-9_.-]/g, '-') || 'unknown';

/**
 * A 52-bit hash of an id (two FNV-1a passes, 32 and 20 bits), kept in place of the id where a false
 * match only costs a second look. Among a million ids, two share one about once in ten thousand.
 */
export function idHash(id: string): number {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x000193c5);
  }
  return (a >>> 0) * 0x100000 + (b >>> 12);
}
