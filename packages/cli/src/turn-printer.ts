// How `cairn run` shows a turn: the reply as it streams, thinking and tool calls on lines of their
// own, usage at the end; with --json, every event as one JSON line instead.
import type { LoggedEvent } from '@cairn/server';

interface Out {
  write(text: string): unknown;
  isTTY?: boolean;
}

type Block = 'text' | 'thinking' | 'none';

/** The few payload fields the printer shows, all optional: payloads are the agent's own. */
interface ShownFields {
  content?: { type?: string; text?: string };
  title?: string;
  kind?: string;
  status?: string;
  toolCallId?: string;
  toolCall?: { title?: string };
  outcome?: string;
  by?: string;
}

export class TurnPrinter {
  private block: Block = 'none';
  private readonly dim: (s: string) => string;

  constructor(
    private readonly out: Out,
    private readonly err: Out,
    private readonly options: { json: boolean },
  ) {
    this.dim = out.isTTY ? (s) => `\x1b[2m${s}\x1b[22m` : (s) => s;
  }

  opened(frame: {
    sessionRef: string;
    nativeSessionId?: string | null;
    agentInfo?: { name: string; version?: string | null };
  }): void {
    if (this.options.json) {
      this.line({
        event: 'opened',
        sessionRef: frame.sessionRef,
        nativeSessionId: frame.nativeSessionId ?? null,
        agentInfo: frame.agentInfo ?? null,
      });
    } else if (frame.nativeSessionId) {
      this.err.write(this.dim(`session ${frame.nativeSessionId}\n`));
    }
  }

  event(event: LoggedEvent): void {
    if (this.options.json) {
      this.line({ seq: event.seq, event: event.eventName, payload: event.payload });
      return;
    }
    const p = event.payload as ShownFields;
    switch (event.eventName) {
      case 'agent_message_chunk':
        if (p.content?.type === 'text') this.write('text', p.content.text ?? '');
        return;
      case 'agent_thought_chunk':
        if (p.content?.type === 'text') this.write('thinking', p.content.text ?? '');
        return;
      case 'tool_call':
        this.lineOf(`⏺ ${p.title ?? p.kind ?? 'tool'}${p.status ? ` (${p.status})` : ''}`);
        return;
      case 'tool_call_update':
        if (p.status === 'completed' || p.status === 'failed')
          this.lineOf(`  ⎿ ${p.title ?? p.toolCallId} ${p.status}`);
        return;
      case 'permission_request':
        this.lineOf(`? permission: ${p.toolCall?.title ?? 'the agent asks'}`);
        return;
      case 'permission_settled':
        this.lineOf(`  ⎿ ${p.outcome}${p.by === 'timeout' ? ' (no answer in time)' : ''}`);
        return;
      case 'usage_update':
        return;
      case 'agent_turn_done':
        this.endBlock();
        return;
      default:
        return;
    }
  }

  finish(): void {
    if (!this.options.json) this.endBlock();
  }

  private write(block: Block, text: string): void {
    if (this.block !== block) {
      this.endBlock();
      if (block === 'thinking') this.out.write(this.dim('thinking: '));
      this.block = block;
    }
    this.out.write(block === 'thinking' ? this.dim(text) : text);
  }

  private lineOf(text: string): void {
    this.endBlock();
    this.out.write(`${this.dim(text)}\n`);
  }

  private endBlock(): void {
    if (this.block !== 'none') this.out.write('\n');
    this.block = 'none';
  }

  private line(value: unknown): void {
    this.out.write(`${JSON.stringify(value)}\n`);
  }
}
