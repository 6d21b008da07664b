// A steer splits the running reply where it landed, in the same order live and after a reload; and
// every reply carries the seed's timings, with token counts only when the agent reported them.
import { afterEach, describe, expect, it } from 'vitest';
import { turnTiming } from '../src/chat/chat-session.js';
import { chatServer, closeAll, type Ev } from './support/chat.js';

afterEach(closeAll);

/** The order a tab draws: user messages and the assistant messages they answer, by kind and id. */
function liveOrder(events: readonly Ev[]): string[] {
  const out: string[] = [];
  for (const e of events) {
    if (e.type === 'user_message_appended') out.push(`user:${e.message.content}`);
    if (e.type === 'message_start') out.push(`assistant:${e.messageId}`);
  }
  return out;
}

describe('chat steer and reply stats', () => {
  it('a steer ends the reply so far, stands after it, and the agent goes on in a new message', async () => {
    const c = await chatServer({ WIRE_AGENT_CHUNKS: '30', WIRE_AGENT_DELAY_MS: '30' });
    const id = await c.newChat();
    const tab = await c.tab(id);
    await tab.ready();
    tab.send({ type: 'user_message', content: 'go' });
    await tab.until(() => tab.count('text_delta') >= 3, 'streaming');
    tab.send({ type: 'steer', content: 'and mind the tests' });
    await tab.until(() => tab.count('steer_result') > 0, 'the steer');
    await tab.turnsEnded(1);

    const starts = tab.events.filter((e) => e.type === 'message_start').map((e) => e.messageId as string);
    expect(starts).toHaveLength(2);
    expect(liveOrder(tab.events)).toEqual([
      'user:go',
      `assistant:${starts[0]}`,
      'user:and mind the tests',
      `assistant:${starts[1]}`,
    ]);
    // The first part ended before the steer's message was shown; no delta of it comes later.
    const steerAt = tab.events.findIndex(
      (e) => e.type === 'user_message_appended' && e.message.content !== 'go',
    );
    const firstEnd = tab.events.findIndex((e) => e.type === 'message_end' && e.messageId === starts[0]);
    expect(firstEnd).toBeGreaterThan(-1);
    expect(firstEnd).toBeLessThan(steerAt);
    expect(tab.events.slice(steerAt).some((e) => e.messageId === starts[0])).toBe(false);
    const textOf = (messageId: string) =>
      tab.events
        .filter((e) => e.type === 'text_delta' && e.messageId === messageId)
        .map((e) => e.delta)
        .join('');
    const before = textOf(starts[0]!);
    const after = textOf(starts[1]!);
    expect(before).toMatch(/^t1c0 /);
    expect(after).toMatch(/t1c29 $/);
    // Every chunk once, split between the two parts.
    expect(`${before}${after}`).toBe(Array.from({ length: 30 }, (_, i) => `t1c${i} `).join(''));

    // A reload shows the same order, the cut-off part and the rest as separate messages.
    const again = await c.tab(id);
    const ready = await again.ready();
    expect(ready.history.map((m: Ev) => `${m.role}:${m.role === 'user' ? m.content : m.id}`)).toEqual([
      'user:go',
      `assistant:${starts[0]}`,
      'user:and mind the tests',
      `assistant:${starts[1]}`,
    ]);
    expect(ready.history[1].content).toBe(before);
    expect(ready.history[3].content).toBe(after);
  });

  it('a steer before the agent said anything keeps no empty message', async () => {
    const c = await chatServer({ WIRE_AGENT_CHUNKS: '3', WIRE_AGENT_DELAY_MS: '800' });
    const id = await c.newChat();
    const tab = await c.tab(id);
    await tab.ready();
    tab.send({ type: 'user_message', content: 'go' });
    await tab.until(() => tab.count('message_start') >= 1, 'the turn');
    tab.send({ type: 'steer', content: 'early' });
    await tab.turnsEnded(1);
    expect(tab.events.findIndex((e) => e.type === 'text_delta')).toBeGreaterThan(
      tab.events.findIndex((e) => e.type === 'steer_result'),
    );
    const ready = await (await c.tab(id)).ready();
    expect(ready.history.map((m: Ev) => `${m.role}:${m.content}`)).toEqual([
      'user:go',
      'user:early',
      'assistant:t1c0 t1c1 t1c2 ',
    ]);
  });

  it('a reply of an agent that reports no token counts still has its timings, and no counts', async () => {
    const c = await chatServer({
      WIRE_AGENT_CHUNKS: '5',
      WIRE_AGENT_DELAY_MS: '40',
      WIRE_AGENT_NO_USAGE: '1',
    });
    const id = await c.newChat();
    const tab = await c.tab(id);
    await tab.ready();
    tab.send({ type: 'user_message', content: 'go' });
    await tab.turnsEnded(1);
    const usage = tab.events.find((e) => e.type === 'token_usage');
    expect(usage).toBeDefined();
    expect(usage!.usage).toMatchObject({ inputTokens: 0, outputTokens: 0, totalTokens: 0 });
    // Four pauses of 40 ms lie between the first chunk and the end.
    expect(usage!.ttftMs).toBeGreaterThanOrEqual(0);
    expect(usage!.durationMs).toBeGreaterThanOrEqual(150);
    expect(usage!.tokensPerSecond).toBeNull();
    const ready = await (await c.tab(id)).ready();
    const reply = ready.history.find((m: Ev) => m.role === 'assistant');
    expect(reply).toMatchObject({ outputTokens: null, tokensPerSecond: null, ttftMs: usage!.ttftMs });
    expect(reply.durationMs).toBe(usage!.durationMs);
  });

  it('gives no generation window to a reply that came in one piece', () => {
    expect(
      turnTiming({ startedAt: 1000, firstDeltaAt: 13_000, deltas: 1 }, 13_010, { outputTokens: 80 }),
    ).toEqual({ ttftMs: 12_000, durationMs: null, tokensPerSecond: null });
    expect(
      turnTiming({ startedAt: 1000, firstDeltaAt: 2000, deltas: 40 }, 4000, { outputTokens: 80 }),
    ).toEqual({ ttftMs: 1000, durationMs: 2000, tokensPerSecond: 40 });
  });
});
