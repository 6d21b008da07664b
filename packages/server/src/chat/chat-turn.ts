// A chat session's turn in flight: the agent's chunks and tool calls become the tabs' events here,
// buffered so a tab that arrives mid-turn can rebuild the turn, and the turn's end is timed, costed
// in tokens and kept as a message. A steer the agent takes splits the turn's message in two.
import { randomUUID } from 'node:crypto';
import { AUTH_REQUIRED, type ChatDeps, type Event } from './chat-deps.js';
import type { ImageRow } from './chat-store.js';
import type { RunFlags } from './run-state.js';

export interface Turn {
  messageId: string;
  startedAt: number;
  firstDeltaAt?: number;
  /** Text and thinking chunks streamed so far. */
  deltas?: number;
  events: Event[];
  text: string;
  thinking: boolean;
  /** Each call of the turn as last shown: its name and input. */
  tools: Map<string, { name: string; args: unknown }>;
  usage?: Record<string, unknown>;
}

export type StopReason = 'stop' | 'length' | 'aborted' | 'error';

/** What the turn asks of its session. */
export interface TurnHost {
  readonly sessionId: string;
  readonly deps: ChatDeps;
  broadcast(event: Event): void;
  setFlags(changes: Partial<RunFlags>): void;
  showSignIn(message: string, methods: unknown[]): void;
  appendUser(content: string, images: ImageRow[], isFirstUserMessage: boolean): void;
  /** The turn has ended and is kept: what comes next (the loop, the queue). */
  afterTurn(stopReason: string, text: string): void;
}

export class ChatTurn {
  /** The turn in flight, if one is. */
  current: Turn | undefined;
  contextUsed: number | null = null;
  contextMax: number | null = null;

  constructor(private readonly host: TurnHost) {}

  /** A new turn: its message starts. */
  begin(): void {
    const now = this.host.deps.clock.now();
    this.current = {
      messageId: randomUUID(),
      startedAt: now,
      events: [],
      text: '',
      thinking: false,
      tools: new Map(),
    };
    this.emitTurn({ type: 'message_start', messageId: this.current.messageId, role: 'assistant' });
  }

  /** What the turn has shown so far, for a tab that arrives mid-turn. */
  shown(): { turnId: string; startedAt: number; events: Event[] } | null {
    return this.current
      ? {
          turnId: this.current.messageId,
          startedAt: this.current.startedAt,
          events: [...this.current.events],
        }
      : null;
  }

  /**
   * An agent event that belongs to a turn; outside one it is an agent replaying its history on
   * reopen, which the chat already holds.
   */
  // biome-ignore lint/suspicious/noExplicitAny: an agent's payload, read field by field with checks
  onEvent(eventName: string, p: Record<string, any>): void {
    const turn = this.current;
    if (!turn) return;
    switch (eventName) {
      case 'agent_message_chunk':
        if (p.content?.type !== 'text') return;
        this.endThinking();
        this.firstDelta();
        turn.text += p.content.text;
        this.emitTurn({ type: 'text_delta', messageId: turn.messageId, delta: p.content.text });
        return;
      case 'agent_thought_chunk':
        if (p.content?.type !== 'text') return;
        this.firstDelta();
        if (!turn.thinking) {
          turn.thinking = true;
          this.emitTurn({ type: 'thinking_start', messageId: turn.messageId });
        }
        this.emitTurn({ type: 'thinking_delta', messageId: turn.messageId, delta: p.content.text });
        return;
      case 'tool_call': {
        this.endThinking();
        const id = String(p.toolCallId);
        const shown = { name: String(p.title ?? p.kind ?? 'tool'), args: p.rawInput ?? {} };
        turn.tools.set(id, shown);
        this.emitTurn({
          type: 'tool_call',
          messageId: turn.messageId,
          id,
          ...shown,
          startedAt: this.host.deps.clock.now(),
        });
        return;
      }
      case 'tool_call_update': {
        const id = String(p.toolCallId);
        const known = turn.tools.get(id);
        const title = typeof p.title === 'string' && p.title !== '' ? p.title : undefined;
        // New, or named or given its input only now (an agent may fill a call in as it runs):
        // the call again under its id, which a tab updates in place.
        if (
          known === undefined ||
          (title !== undefined && title !== known.name) ||
          p.rawInput !== undefined
        ) {
          const shown = {
            name: title ?? known?.name ?? String(p.kind ?? 'tool'),
            args: p.rawInput ?? known?.args ?? {},
          };
          turn.tools.set(id, shown);
          this.emitTurn({
            type: 'tool_call',
            messageId: turn.messageId,
            id,
            ...shown,
            startedAt: this.host.deps.clock.now(),
          });
        }
        if (p.status === 'completed' || p.status === 'failed') {
          this.emitTurn({
            type: 'tool_result',
            messageId: turn.messageId,
            id,
            result: p.rawOutput ?? p.content ?? null,
            ...(p.status === 'failed' ? { isError: true } : {}),
            finishedAt: this.host.deps.clock.now(),
          });
        }
        return;
      }
    }
  }

  private firstDelta(): void {
    if (!this.current) return;
    this.current.deltas = (this.current.deltas ?? 0) + 1;
    if (this.current.firstDeltaAt === undefined) this.current.firstDeltaAt = this.host.deps.clock.now();
  }

  private endThinking(): void {
    if (this.current?.thinking) {
      this.current.thinking = false;
      this.emitTurn({ type: 'thinking_end', messageId: this.current.messageId });
    }
  }

  // biome-ignore lint/suspicious/noExplicitAny: the turn end's payload, read field by field with checks
  onTurnDone(p: Record<string, any>): void {
    if (!this.current) return;
    if (p.status === 'completed') {
      this.finishTurn(p.stopReason === 'max_tokens' ? 'length' : 'stop');
    } else if (p.status === 'cancelled') {
      this.finishTurn('aborted');
    } else {
      if (p.errorCode === AUTH_REQUIRED)
        this.host.showSignIn(String(p.error ?? 'sign-in needed'), p.authMethods ?? []);
      this.finishTurn('error', String(p.error ?? 'the turn failed'));
    }
  }

  /** Ends the turn: message_end, token_usage, the persisted message, then what comes next. */
  finishTurn(stopReason: StopReason, errorMessage?: string): void {
    const turn = this.current;
    if (!turn) return;
    this.endThinking();
    const end = this.host.deps.clock.now();
    this.emitTurn({
      type: 'message_end',
      messageId: turn.messageId,
      stopReason,
      ...(stopReason === 'length' ? { truncated: true } : {}),
      ...(errorMessage ? { errorMessage } : {}),
    });
    const timing = turnTiming(turn, end, usageOf(turn.usage));
    // The timings are the chat's own and known for every agent that streamed; the token counts
    // only when the agent reported them (all zero otherwise, which a tab reads as not known).
    if (turn.usage || timing.ttftMs !== null) {
      const usage = usageOf(turn.usage);
      this.emitTurn({
        type: 'token_usage',
        messageId: turn.messageId,
        usage: { ...usage, cost: null, creditsUsed: 0 },
        contextWindowUsed: this.contextUsed,
        contextWindowMax: this.contextMax,
        ...timing,
      });
    }
    if (errorMessage) this.emitTurn({ type: 'error', message: errorMessage });
    this.host.deps.store.addMessage({
      id: turn.messageId,
      sessionId: this.host.sessionId,
      role: 'assistant',
      content: turn.text,
      events: turn.events.map((e) => JSON.stringify(e)).join('\n'),
      createdAt: turn.startedAt,
      images: [],
      outputTokens: turn.usage ? usageOf(turn.usage).outputTokens : null,
      durationMs: timing.durationMs,
      tokensPerSecond: timing.tokensPerSecond,
      ttftMs: timing.ttftMs,
    });
    this.current = undefined;
    this.host.broadcast({ type: 'agent_end' });
    this.host.setFlags({ streaming: false });
    this.host.afterTurn(stopReason, turn.text);
  }

  /**
   * The agent took a steer into its running turn. What it said so far ends there, kept as a message
   * of its own; the steer's message follows it; what the agent says next is a new message of the
   * same turn. So the three read in the order they happened, live and after a reload alike, and the
   * cut-off text never runs into the reply that follows.
   */
  splitTurnAt(content: string, images: ImageRow[]): void {
    const turn = this.current;
    if (!turn) {
      this.host.appendUser(content, images, false);
      return;
    }
    this.endThinking();
    const end = this.host.deps.clock.now();
    // No stop reason: the part was not stopped, the turn goes on after the steer.
    this.emitTurn({ type: 'message_end', messageId: turn.messageId });
    // A part with nothing in it yet (the steer came before the agent's first word) is not kept;
    // a tab drops the empty message it ended.
    const said = turn.events.some((e) => e.type !== 'message_start' && e.type !== 'message_end');
    const timing = turnTiming(turn, end, { outputTokens: 0 });
    if (said)
      this.host.deps.store.addMessage({
        id: turn.messageId,
        sessionId: this.host.sessionId,
        role: 'assistant',
        content: turn.text,
        events: turn.events.map((e) => JSON.stringify(e)).join('\n'),
        createdAt: turn.startedAt,
        images: [],
        outputTokens: null,
        durationMs: timing.durationMs,
        tokensPerSecond: null,
        ttftMs: timing.ttftMs,
      });
    this.host.appendUser(content, images, false);
    turn.messageId = randomUUID();
    turn.startedAt = end;
    turn.firstDeltaAt = undefined;
    turn.deltas = 0;
    turn.events = [];
    turn.text = '';
    this.emitTurn({ type: 'message_start', messageId: turn.messageId, role: 'assistant' });
  }

  /** An event of the turn: buffered for tabs that arrive later, and sent to those here now. */
  private emitTurn(event: Event): void {
    this.current?.events.push(event);
    this.host.broadcast(event);
  }
}

interface Usage {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  totalTokens: number;
}

/** An agent's usage object in the browser's terms; agents spell the fields differently. */
function usageOf(raw: Record<string, unknown> | undefined): Usage {
  const n = (...keys: string[]) => {
    for (const key of keys) {
      const value = raw?.[key];
      if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return Math.trunc(value);
    }
    return 0;
  };
  const inputTokens = n('inputTokens', 'input_tokens');
  const outputTokens = n('outputTokens', 'output_tokens');
  const cacheReadTokens = n('cachedReadTokens', 'cacheReadTokens', 'cache_read_input_tokens');
  const cacheWriteTokens = n('cachedWriteTokens', 'cacheWriteTokens', 'cache_creation_input_tokens');
  const totalTokens =
    n('totalTokens', 'total_tokens') || inputTokens + outputTokens + cacheReadTokens + cacheWriteTokens;
  return { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, totalTokens };
}

/**
 * The seed's timing numbers: time to first delta from message_start, the generation window from
 * the first delta to message_end, and output tokens per second over that window (one decimal).
 * A reply that came in one piece was not streamed: it has no generation window to give.
 */
export function turnTiming(
  turn: { startedAt: number; firstDeltaAt?: number; deltas?: number },
  end: number,
  usage: { outputTokens: number },
): { ttftMs: number | null; durationMs: number | null; tokensPerSecond: number | null } {
  if (turn.firstDeltaAt === undefined) return { ttftMs: null, durationMs: null, tokensPerSecond: null };
  const ttftMs = Math.max(0, turn.firstDeltaAt - turn.startedAt);
  if (turn.deltas === 1) return { ttftMs, durationMs: null, tokensPerSecond: null };
  const durationMs = Math.max(0, end - turn.firstDeltaAt);
  const tokensPerSecond =
    usage.outputTokens > 0 && durationMs > 0
      ? Math.round((usage.outputTokens / (durationMs / 1000)) * 10) / 10
      : null;
  return { ttftMs, durationMs, tokensPerSecond };
}
