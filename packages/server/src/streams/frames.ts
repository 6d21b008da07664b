// Transcript events as spectral's streamed-turn frames: a reply opens with `message_start`, carries
// its text, thinking and tool calls, and closes with `token_usage` and `message_end`. The agents'
// files hold whole records, so a record's text is one delta. Frames are a pure function of the
// events in stream order, so a resumed stream replays exactly what a live one sent.
import type { TranscriptItem } from '@cairn/protocol';
import {
  isPrompt,
  type Lane,
  type Transcript,
  type TranscriptEvent,
  type TranscriptEventOf,
} from '@cairn/transcript';
import type { LaneItems } from '../indexing/search-docs.js';
import { TURN_END } from '../reader/run-state.js';

export interface StreamFrame {
  type: string;
  session_id: string;
  seq: number;
  /** The subagent lane the frame belongs to; absent for the main lane. */
  agent_id?: string;
  [field: string]: unknown;
}

/**
 * The items each event completes, by event id: the item itself when there is one (most events),
 * a list only when there are more, since a list per event costs a long session megabytes.
 */
export type EventItems = Map<string, TranscriptItem | TranscriptItem[]>;

/** The items event `id` completes, in order. */
export function eventItems(items: EventItems, id: string): readonly TranscriptItem[] {
  const held = items.get(id);
  if (held === undefined) return [];
  return Array.isArray(held) ? held : [held];
}

/** The items each event completes, from whichever lane's side classified it. */
export function itemsByEvent(lanes: readonly LaneItems[]): EventItems {
  const out: EventItems = new Map();
  for (const lane of lanes) addItemsByEvent(out, lane, 0);
  return out;
}

/** Adds a lane's items from index `from` (up to `end`) to a map of the items each event completes. */
export function addItemsByEvent(
  out: EventItems,
  lane: LaneItems,
  from: number,
  end = lane.classification.items.length,
): void {
  const { items, sources } = lane.classification;
  for (let i = from; i < end; i++) {
    const last = sources[i];
    if (!last) continue;
    const held = out.get(last.id);
    if (held === undefined) out.set(last.id, items[i]!);
    else if (Array.isArray(held)) held.push(items[i]!);
    else out.set(last.id, [held, items[i]!]);
  }
}

interface OpenMessage {
  id: string;
  /** Opened by output without a request: the request, when it comes, closes it. */
  anonymous: boolean;
}

type Stop = 'stop' | 'length' | 'toolUse' | 'error' | 'aborted';

const STOPS: Record<string, Stop> = {
  end_turn: 'stop',
  stop: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  length: 'length',
  tool_use: 'toolUse',
  refusal: 'stop',
};

/** Walks events in stream order and answers the frames of each; keep one per replay. */
export class FrameBuilder {
  private readonly open = new Map<string, OpenMessage>();
  private readonly messageOfCall = new Map<string, string>();
  private readonly requests = new Map<string, TranscriptEventOf<'request'>>();
  /** Each request's latest output: the highest seq wins, so that events may be learned in any order. */
  private readonly lastOfRequest = new Map<string, TranscriptEvent>();
  private readonly lanes = new Map<string, Lane>();
  private readonly mainLane: string | undefined;
  private sawPrompt = false;
  /** Subagent lanes whose `subagent_start` went out. */
  private readonly started = new Set<string>();
  /** Calls that start a subagent (their items include its brief) and have no result yet. */
  private readonly spawns: TranscriptEventOf<'tool_call'>[] = [];
  /** The tool calls seen, by event id: what a lane's spawn may name. */
  private readonly calls = new Map<string, TranscriptEventOf<'tool_call'>>();

  /** `learn: false` leaves the transcript's events to be learned by `extend`, before any is framed. */
  constructor(
    t: Transcript,
    private readonly sid: string,
    private items: EventItems,
    learn = true,
  ) {
    this.mainLane = t.agents.find((a) => a.parentId === undefined)?.id ?? t.events[0]?.agentId;
    if (learn) this.extend(t, t.events);
  }

  /** Frames from now on with `items`: the same items of the events framed so far, their fields as now known. */
  useItems(items: EventItems): void {
    this.items = items;
  }

  /** Takes events the transcript `t` gained since the builder was made (and its lanes as they are now). */
  extend(t: Transcript, added: readonly TranscriptEvent[]): void {
    this.lanes.clear();
    for (const lane of t.agents) this.lanes.set(lane.id, lane);
    for (const e of added) {
      if (e.kind === 'tool_call') this.calls.set(e.id, e);
      else if (e.kind === 'request') this.requests.set(e.id, e);
      if (e.requestId === undefined) continue;
      const last = this.lastOfRequest.get(e.requestId);
      if (!last || last.seq <= e.seq) this.lastOfRequest.set(e.requestId, e);
    }
  }

  frames(e: TranscriptEvent, seq: number): StreamFrame[] {
    const out: StreamFrame[] = [];
    const lane = e.agentId;
    const frame = (type: string, fields: Record<string, unknown>): StreamFrame => {
      const f: StreamFrame = { type, session_id: this.sid, seq, ...fields };
      if (lane !== this.mainLane) f.agent_id = lane;
      out.push(f);
      return f;
    };
    // A subagent starts with its lane's first record. Which call started it may only be written later
    // (with the call's result), so the frame must not wait for that: what a stream sent stays sent.
    const ownLane = this.lanes.get(lane);
    if (ownLane && lane !== this.mainLane && !this.started.has(lane)) {
      this.started.add(lane);
      const linked = ownLane.spawnEventId === undefined ? undefined : this.calls.get(ownLane.spawnEventId);
      const call = linked ?? this.pendingSpawn(ownLane.parentId);
      const start: StreamFrame = {
        type: 'subagent_start',
        session_id: this.sid,
        seq,
        ...subagentStart(call, ownLane),
      };
      if (ownLane.parentId !== undefined && ownLane.parentId !== this.mainLane)
        start.agent_id = ownLane.parentId;
      out.push(start);
    }
    const [item, ...extra] = eventItems(this.items, e.id);
    const withItem = (fields: Record<string, unknown>) => (item === undefined ? fields : { ...fields, item });
    const openFor = (requestId: string | undefined): string => {
      const current = this.open.get(lane);
      if (current && (requestId === undefined || requestId === current.id)) return current.id;
      if (current) this.close(lane, frame);
      const id = requestId ?? e.id;
      this.open.set(lane, { id, anonymous: requestId === undefined });
      frame('message_start', { messageId: id, role: 'assistant' });
      return id;
    };

    switch (e.kind) {
      case 'request': {
        const current = this.open.get(lane);
        if (current?.id === e.id) break;
        if (current?.anonymous) {
          // The request came after its output (Codex writes usage last): it closes that reply.
          frame('token_usage', tokenUsage(current.id, e));
          frame('message_end', messageEnd(current.id, e));
          this.open.delete(lane);
          break;
        }
        openFor(e.id);
        break;
      }
      case 'assistant':
        frame('text_delta', withItem({ messageId: openFor(e.requestId), delta: e.payload.text }));
        this.closeIfLast(e, frame);
        break;
      case 'reasoning': {
        const messageId = openFor(e.requestId);
        frame('thinking_start', { messageId });
        frame('thinking_delta', withItem({ messageId, delta: e.payload.text }));
        frame('thinking_end', { messageId });
        this.closeIfLast(e, frame);
        break;
      }
      case 'tool_call': {
        const messageId = openFor(e.requestId);
        this.messageOfCall.set(e.payload.callId, messageId);
        const call: Record<string, unknown> = {
          messageId,
          id: callIdOf(e),
          name: e.payload.name,
          // The frame says what was recorded; a record without input says null.
          args: e.payload.input ?? null,
        };
        if (e.timestamp !== undefined) call.startedAt = e.timestamp;
        frame('tool_call', withItem(call));
        if (eventItems(this.items, e.id).some((i) => i.type === 'message:sub:out')) this.spawns.push(e);
        this.closeIfLast(e, frame);
        break;
      }
      case 'tool_result': {
        this.close(lane, frame);
        const result: Record<string, unknown> = {
          messageId: (e.payload.callId && this.messageOfCall.get(e.payload.callId)) || callIdOf(e),
          id: callIdOf(e),
          result: e.payload.output ?? null,
        };
        if (e.payload.isError) result.isError = true;
        if (e.timestamp !== undefined) result.finishedAt = e.timestamp;
        frame('tool_result', withItem(result));
        const done = this.spawns.findIndex((c) => c.payload.callId === e.payload.callId);
        if (done !== -1) this.spawns.splice(done, 1);
        const spawned = e.payload.agentId === undefined ? undefined : this.lanes.get(e.payload.agentId);
        if (spawned) frame('subagent_end', this.subagentEnd(e, spawned));
        break;
      }
      case 'user':
        this.close(lane, frame);
        if (isPrompt(e, this.mainLane)) {
          const message: Record<string, unknown> = {
            id: e.id,
            role: 'user',
            content: e.payload.text,
            events: '',
          };
          message.createdAt = e.timestamp ?? 0;
          message.sequence = seq;
          frame('user_message_appended', withItem({ message, isFirstUserMessage: !this.sawPrompt }));
          this.sawPrompt = true;
        } else if (item) frame('item_appended', { item });
        break;
      case 'compaction': {
        this.close(lane, frame);
        const p = e.payload;
        const end: Record<string, unknown> = { summary: p.summary ?? '', tokensBefore: p.preTokens ?? 0 };
        if (p.preTokens !== undefined && p.postTokens !== undefined)
          end.tokensRemoved = p.preTokens - p.postTokens;
        frame('compaction_end', withItem(end));
        break;
      }
      default:
        // A record that ends the turn ends its last reply too.
        if (e.kind === 'system' && TURN_END.has(e.payload.type)) this.close(lane, frame);
        // Hooks, system records and records nobody knows have no spectral frame; their items still
        // reach the timeline.
        if (item) frame('item_appended', { item });
    }
    for (const more of extra) frame('item_appended', { item: more });
    return out;
  }

  /** The latest call of `parent` that starts a subagent and has not been answered. */
  private pendingSpawn(parent: string | undefined): TranscriptEventOf<'tool_call'> | undefined {
    for (let i = this.spawns.length - 1; i >= 0; i--)
      if (this.spawns[i]!.agentId === parent) return this.spawns[i];
    return undefined;
  }

  /** Closes the reply of `e`'s request when `e` is its last record so far and the request ended. */
  private closeIfLast(
    e: TranscriptEvent,
    frame: (type: string, fields: Record<string, unknown>) => StreamFrame,
  ) {
    if (e.requestId === undefined || this.lastOfRequest.get(e.requestId)?.id !== e.id) return;
    if (this.requests.get(e.requestId)?.payload.stopReason === undefined) return;
    this.close(e.agentId, frame);
  }

  private close(lane: string, frame: (type: string, fields: Record<string, unknown>) => StreamFrame): void {
    const current = this.open.get(lane);
    if (!current) return;
    this.open.delete(lane);
    const request = this.requests.get(current.id);
    if (request) frame('token_usage', tokenUsage(current.id, request));
    frame('message_end', messageEnd(current.id, request));
  }

  private subagentEnd(e: TranscriptEventOf<'tool_result'>, lane: Lane): Record<string, unknown> {
    const total = {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cost: 0,
      turns: 0,
    };
    let model: string | undefined;
    for (const r of this.requests.values()) {
      if (r.agentId !== lane.id) continue;
      total.turns++;
      model ??= r.payload.model;
      const u = r.payload.usage;
      if (!u) continue;
      total.inputTokens += u.inputTokens;
      total.outputTokens += u.outputTokens;
      total.cacheReadTokens += u.cacheReadTokens ?? 0;
      total.cacheWriteTokens += u.cacheWriteTokens ?? 0;
    }
    const output =
      typeof e.payload.output === 'string' ? e.payload.output : JSON.stringify(e.payload.output ?? '');
    const result: Record<string, unknown> = {
      agent: lane.title ?? lane.id,
      agentSource: 'unknown',
      task: lane.title ?? '',
      exitCode: e.payload.isError ? 1 : 0,
      output,
      usage: total,
    };
    if (model !== undefined) result.model = model;
    const end: Record<string, unknown> = {
      toolCallId: callIdOf(e),
      mode: 'single',
      results: [result],
      totalUsage: total,
      subagent_id: lane.id,
    };
    if (e.timestamp !== undefined) end.finishedAt = e.timestamp;
    return end;
  }
}

/** The id a call's frames carry: its own, or the event's when the record gave the call none. */
const callIdOf = (e: TranscriptEventOf<'tool_call' | 'tool_result'>): string => e.payload.callId || e.id;

function subagentStart(
  call: TranscriptEventOf<'tool_call'> | undefined,
  lane: Lane,
): Record<string, unknown> {
  const input = (call?.payload.input ?? {}) as Record<string, unknown>;
  const start: Record<string, unknown> = {
    toolCallId: call?.payload.callId ?? '',
    mode: 'single',
    subagent_id: lane.id,
  };
  const agent = typeof input.subagent_type === 'string' ? input.subagent_type : lane.title;
  if (agent !== undefined) start.agent = agent;
  const task = typeof input.description === 'string' ? input.description : (input.prompt ?? lane.title);
  if (typeof task === 'string') start.task = task;
  if (call?.timestamp !== undefined) start.startedAt = call.timestamp;
  return start;
}

function tokenUsage(messageId: string, r: TranscriptEventOf<'request'>): Record<string, unknown> {
  const u = r.payload.usage;
  const input = u?.inputTokens ?? 0;
  const output = u?.outputTokens ?? 0;
  return {
    messageId,
    usage: {
      inputTokens: input,
      outputTokens: output,
      cacheReadTokens: u?.cacheReadTokens ?? 0,
      cacheWriteTokens: u?.cacheWriteTokens ?? 0,
      totalTokens: input + output,
      cost: null,
      creditsUsed: 0,
    },
    contextWindowUsed: u ? input : null,
    contextWindowMax: null,
  };
}

function messageEnd(messageId: string, r: TranscriptEventOf<'request'> | undefined): Record<string, unknown> {
  const stop = r?.payload.stopReason === undefined ? undefined : STOPS[r.payload.stopReason];
  return stop === undefined ? { messageId } : { messageId, stopReason: stop };
}
