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
  rawInput?: unknown;
  toolCall?: { title?: string };
  outcome?: string;
  by?: string;
}

export class TurnPrinter {
  private block: Block = 'none';
  private readonly dim: (s: string) => string;
  /** Each call's line as first shown, so its end names the tool, not the call's id. */
  private readonly calls = new Map<string, string>();

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
      case 'tool_call': {
        const label = toolLabel(p);
        if (p.toolCallId) this.calls.set(p.toolCallId, label);
        this.lineOf(`⏺ ${label}${p.status ? ` (${p.status})` : ''}`);
        return;
      }
      case 'tool_call_update': {
        const known = p.toolCallId ? this.calls.get(p.toolCallId) : undefined;
        // A call named or given its input only now is shown with them from here on.
        const label =
          p.rawInput !== undefined || (p.title && known === undefined)
            ? toolLabel(p, known)
            : (known ?? 'tool');
        if (p.toolCallId) this.calls.set(p.toolCallId, label);
        if (p.status === 'completed' || p.status === 'failed') this.lineOf(`  ⎿ ${label} ${p.status}`);
        return;
      }
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

/** A call as one line: its tool's name and the argument that tells calls apart (command, file, …). */
function toolLabel(p: ShownFields, known?: string): string {
  const name = p.title || known || p.kind || 'tool';
  const key = keyArgument(p.rawInput);
  return key === undefined || name.includes(key) ? name : `${name} ${key}`;
}

function keyArgument(input: unknown): string | undefined {
  if (input === null || typeof input !== 'object') return undefined;
  const args = input as Record<string, unknown>;
  const command = args.command ?? args.cmd;
  const value = Array.isArray(command)
    ? command.filter((part) => typeof part === 'string').join(' ')
    : (command ?? args.file_path ?? args.path ?? args.filePath ?? args.pattern ?? args.url ?? args.query);
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  const line = value.trim().split('\n')[0]!;
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
