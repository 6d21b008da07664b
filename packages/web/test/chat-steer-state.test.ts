// A turn a steer split in two: a call that was running when the steer landed gets its result in
// the part drawn above the steer, live and when the turn is read back from the history.
import { describe, expect, it } from 'vitest';
import { type AssistantEntry, initialChatState, reduceChat } from '../src/chat/state.js';
import type { ServerEvent, WireMessage } from '../src/chat/wire.js';

const call = { type: 'tool_call', messageId: 'a1', id: 'call-1', name: 'Bash', args: { command: 'sleep 5' } };
const result = { type: 'tool_result', messageId: 'a2', id: 'call-1', result: 'done' };

const tools = (entries: readonly { kind: string }[]) =>
  entries
    .filter((e): e is AssistantEntry => e.kind === 'assistant')
    .map((e) => e.parts.filter((p) => p.kind === 'tool').map((p) => `${p.id}:${p.name}:${p.done}`));

describe('a call running across a steer', () => {
  it('takes its result in the message it was drawn in, live', () => {
    const events = [
      { type: 'message_start', messageId: 'a1', role: 'assistant' },
      call,
      { type: 'message_end', messageId: 'a1' },
      {
        type: 'user_message_appended',
        message: { id: 'u2', role: 'user', content: 'steer', events: '', createdAt: 2 },
      },
      { type: 'message_start', messageId: 'a2', role: 'assistant' },
      result,
      { type: 'text_delta', messageId: 'a2', delta: 'after' },
    ] as ServerEvent[];
    const s = events.reduce(reduceChat, initialChatState('s1'));
    expect(s.entries.map((e) => e.kind)).toEqual(['assistant', 'user', 'assistant']);
    expect(tools(s.entries)).toEqual([['call-1:Bash:true'], []]);
  });

  it('and the same when read back from the history', () => {
    const line = (e: object) => JSON.stringify(e);
    const history: WireMessage[] = [
      { id: 'a1', role: 'assistant', content: '', events: line(call), createdAt: 1, sequence: 1 },
      { id: 'u2', role: 'user', content: 'steer', events: '', createdAt: 2, sequence: 2 },
      {
        id: 'a2',
        role: 'assistant',
        content: 'after',
        events: [result, { type: 'text_delta', messageId: 'a2', delta: 'after' }].map(line).join('\n'),
        createdAt: 3,
        sequence: 3,
      },
    ];
    const s = reduceChat(initialChatState('s1'), {
      type: 'session_ready',
      sessionId: 's1',
      history,
    } as ServerEvent);
    expect(tools(s.entries)).toEqual([['call-1:Bash:true'], []]);
  });

  it('leaves no empty message when the steer came before the first word', () => {
    const events = [
      { type: 'message_start', messageId: 'a1', role: 'assistant' },
      { type: 'message_end', messageId: 'a1' },
      {
        type: 'user_message_appended',
        message: { id: 'u2', role: 'user', content: 'steer', events: '', createdAt: 2 },
      },
      { type: 'message_start', messageId: 'a2', role: 'assistant' },
      { type: 'text_delta', messageId: 'a2', delta: 'after' },
    ] as ServerEvent[];
    const s = events.reduce(reduceChat, initialChatState('s1'));
    expect(s.entries.map((e) => `${e.kind}:${e.id}`)).toEqual(['user:u2', 'assistant:a2']);
  });
});
