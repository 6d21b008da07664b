// A reply's figures as the page keeps them: the timings of every reply, and token counts only when
// the agent reported some (a usage of all zeros is an agent that reports none).
import { describe, expect, it } from 'vitest';
import { type AssistantEntry, initialChatState, reduceChat } from '../src/chat/state.js';
import type { ServerEvent } from '../src/chat/wire.js';

const reply = (usage: { inputTokens: number; outputTokens: number; totalTokens: number }) => {
  const events: ServerEvent[] = [
    { type: 'message_start', messageId: 'a1', role: 'assistant' } as ServerEvent,
    { type: 'text_delta', messageId: 'a1', delta: 'hello' } as ServerEvent,
    { type: 'message_end', messageId: 'a1', stopReason: 'stop' },
    {
      type: 'token_usage',
      messageId: 'a1',
      usage,
      contextWindowUsed: null,
      contextWindowMax: null,
      ttftMs: 1200,
      durationMs: 700,
      tokensPerSecond: null,
    },
  ];
  const state = events.reduce(reduceChat, initialChatState('s1'));
  return state.entries.find((e): e is AssistantEntry => e.kind === 'assistant')!;
};

describe('reply figures', () => {
  it('keeps the timings and leaves out counts the agent did not report', () => {
    const usage = reply({ inputTokens: 0, outputTokens: 0, totalTokens: 0 }).usage!;
    expect(usage.inputTokens).toBeUndefined();
    expect(usage.outputTokens).toBeUndefined();
    expect(usage).toMatchObject({ ttftMs: 1200, durationMs: 700 });
  });

  it('keeps the counts an agent reported', () => {
    expect(reply({ inputTokens: 40, outputTokens: 6, totalTokens: 46 }).usage).toMatchObject({
      inputTokens: 40,
      outputTokens: 6,
      ttftMs: 1200,
    });
  });
});
