// `cairn run --json`'s last line: one object that sums up the turn for a script (the session to
// continue, how it ended, tokens, time, tool calls and the files they changed).
import type { LoggedEvent } from '@cairn/server';

export interface ToolCallSummary {
  id: string;
  title: string | null;
  kind: string | null;
  status: string | null;
}

export interface TurnSummaryLine {
  event: 'summary';
  agent: string;
  /** The agent's own id of the session: what `cairn run --session` continues. */
  sessionId: string | null;
  status: string;
  stopReason: string | null;
  error?: string;
  durationMs: number;
  /** The agent's token counts for the turn, as it names them; absent when it reports none. */
  tokens?: Record<string, number>;
  toolCalls: ToolCallSummary[];
  /** Files the turn's completed edits, deletions and moves acted on, in the order first seen. */
  filesChanged: string[];
}

/** The few tool call fields read here; payloads are the agent's own. */
interface CallFields {
  toolCallId?: unknown;
  title?: unknown;
  kind?: unknown;
  status?: unknown;
  content?: unknown;
  locations?: unknown;
}

interface CallState extends ToolCallSummary {
  paths: Set<string>;
}

const CHANGING_KINDS = new Set(['edit', 'delete', 'move']);

export class TurnSummary {
  private readonly calls = new Map<string, CallState>();
  private tokens: Record<string, number> | undefined;
  private startedAt = Date.now();

  constructor(
    private readonly agent: string,
    private sessionId: string | null = null,
  ) {}

  /** The turn starts now: its duration counts from the prompt. */
  started(sessionId: string | null): void {
    this.sessionId = sessionId;
    this.startedAt = Date.now();
  }

  event(event: LoggedEvent): void {
    const payload = event.payload as Record<string, unknown>;
    switch (event.eventName) {
      case 'tool_call':
      case 'tool_call_update':
        this.call(payload as CallFields);
        return;
      case 'permission_request':
        // Some agents describe a call only in the question (Gemini CLI sends no tool_call first).
        this.call({ ...(payload.toolCall as CallFields), status: undefined });
        return;
      case 'turn_usage': {
        const usage = payload.usage as Record<string, unknown> | undefined;
        const counts = Object.entries(usage ?? {}).filter(
          (entry): entry is [string, number] => typeof entry[1] === 'number',
        );
        if (counts.length > 0) this.tokens = Object.fromEntries(counts);
        return;
      }
      default:
        return;
    }
  }

  line(end: { status: string; stopReason?: string | null; error?: string | null }): TurnSummaryLine {
    const calls = [...this.calls.values()];
    const filesChanged = new Set<string>();
    for (const call of calls) {
      if (call.status === 'completed' && call.kind !== null && CHANGING_KINDS.has(call.kind)) {
        for (const path of call.paths) filesChanged.add(path);
      }
    }
    return {
      event: 'summary',
      agent: this.agent,
      sessionId: this.sessionId,
      status: end.status,
      stopReason: end.stopReason ?? null,
      ...(end.error ? { error: end.error } : {}),
      durationMs: Date.now() - this.startedAt,
      ...(this.tokens ? { tokens: this.tokens } : {}),
      toolCalls: calls.map(({ id, title, kind, status }) => ({ id, title, kind, status })),
      filesChanged: [...filesChanged],
    };
  }

  private call(fields: CallFields): void {
    if (typeof fields.toolCallId !== 'string') return;
    let call = this.calls.get(fields.toolCallId);
    if (!call) {
      call = { id: fields.toolCallId, title: null, kind: null, status: null, paths: new Set() };
      this.calls.set(fields.toolCallId, call);
    }
    if (typeof fields.title === 'string' && fields.title !== '') call.title = fields.title;
    if (typeof fields.kind === 'string') call.kind = fields.kind;
    if (typeof fields.status === 'string') call.status = fields.status;
    for (const block of Array.isArray(fields.content) ? fields.content : []) {
      const diff = block as { type?: unknown; path?: unknown };
      if (diff.type === 'diff' && typeof diff.path === 'string') call.paths.add(diff.path);
    }
    for (const location of Array.isArray(fields.locations) ? fields.locations : []) {
      const path = (location as { path?: unknown }).path;
      if (typeof path === 'string') call.paths.add(path);
    }
  }
}
