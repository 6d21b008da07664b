// The past of a session the agent wrote, as the chat's own messages: each prompt a user message, and
// what the agent did until the next prompt one assistant message whose events are those a live turn
// streams (text, thinking, tool calls with their results). So a continued session shows its tool
// calls, edits and outputs the way the chat draws live ones, not only its text replies.
import type { Transcript, TranscriptEvent } from '@cairn/transcript';

export interface PastMessage {
  readonly role: 'user' | 'assistant';
  readonly content: string;
  /** The turn events of an assistant message, one JSON object a line; '' for a user message. */
  readonly events: string;
  readonly at: number;
}

interface Building {
  text: string;
  events: Record<string, unknown>[];
  at: number;
  thinking: boolean;
}

/** The main lane of a transcript as chat messages, in the order it happened. */
export function pastMessages(transcript: Transcript, now = Date.now()): PastMessage[] {
  const main = transcript.agents.find((a) => a.parentId === undefined)?.id;
  const out: PastMessage[] = [];
  let reply: Building | undefined;
  const flush = () => {
    if (!reply) return;
    closeThinking(reply);
    if (reply.events.length > 0)
      out.push({
        role: 'assistant',
        content: reply.text,
        events: reply.events.map((e) => JSON.stringify(e)).join('\n'),
        at: reply.at,
      });
    reply = undefined;
  };
  const open = (e: TranscriptEvent): Building => {
    reply ??= { text: '', events: [], at: e.timestamp ?? now, thinking: false };
    return reply;
  };

  for (const e of transcript.events) {
    if (e.agentId !== main) continue;
    switch (e.kind) {
      case 'user': {
        const { text, synthetic } = e.payload;
        // Injected context, command output and the like are not prompts the person typed.
        if (synthetic || text.trim() === '') continue;
        flush();
        out.push({ role: 'user', content: text, events: '', at: e.timestamp ?? now });
        break;
      }
      case 'assistant': {
        const { text, synthetic } = e.payload;
        if (synthetic || text.trim() === '') continue;
        const r = open(e);
        closeThinking(r);
        // Separate replies of one turn read as paragraphs, as the reader shows them.
        const delta = r.text === '' ? text : `\n\n${text}`;
        r.text += delta;
        r.events.push({ type: 'text_delta', messageId: '', delta });
        break;
      }
      case 'reasoning': {
        if (e.payload.redacted || e.payload.text.trim() === '') continue;
        const r = open(e);
        if (!r.thinking) r.events.push({ type: 'thinking_start', messageId: '' });
        r.thinking = true;
        r.events.push({ type: 'thinking_delta', messageId: '', delta: e.payload.text });
        break;
      }
      case 'tool_call': {
        const r = open(e);
        closeThinking(r);
        const { callId, name, input } = e.payload;
        r.events.push({ type: 'tool_call', messageId: '', id: callId, name, args: argsOf(input) });
        break;
      }
      case 'tool_result': {
        const { callId, output, isError } = e.payload;
        const r = open(e);
        r.events.push({
          type: 'tool_result',
          messageId: '',
          id: callId,
          result: output ?? null,
          ...(isError ? { isError: true } : {}),
        });
        break;
      }
      default:
        break;
    }
  }
  flush();
  return out;
}

function closeThinking(r: Building): void {
  if (!r.thinking) return;
  r.thinking = false;
  r.events.push({ type: 'thinking_end', messageId: '' });
}

/** The chat draws a call's input from its fields; an input that is bare text (a patch) gets one. */
const argsOf = (input: unknown): unknown =>
  input !== null && typeof input === 'object' ? input : input === undefined ? {} : { input };
