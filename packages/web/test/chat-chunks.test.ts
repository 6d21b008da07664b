// The chunked opening of a chat socket put back together: chunks inline or gzipped, in index order,
// into one session_ready; missing messages are told, not papered over.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { HistoryAssembler } from '../src/chat/chunks.js';
import { initialChatState, reduceChat } from '../src/chat/state.js';
import type { WireMessage } from '../src/chat/wire.js';

const msg = (n: number): WireMessage => ({
  id: `m${n}`,
  role: n % 2 === 0 ? 'user' : 'assistant',
  content: `message ${n}`,
  events: '',
  createdAt: n,
  sequence: n,
});

const start = {
  type: 'session_ready_start',
  sessionId: 's1',
  contextWindowUsed: null,
  contextWindowMax: null,
  totalChunks: 2,
  totalMessages: 4,
  agent: 'claude-code',
};

describe('the chunked history', () => {
  it('puts inline and gzipped chunks back in order into one session_ready', async () => {
    const h = new HistoryAssembler();
    h.begin(start);
    expect(h.active).toBe(true);
    const payload = gzipSync(Buffer.from(JSON.stringify([msg(2), msg(3)]))).toString('base64');
    await h.add({
      type: 'history_chunk',
      sessionId: 's1',
      index: 1,
      total: 2,
      encoding: 'gzip-base64',
      payload,
    });
    await h.add({ type: 'history_chunk', sessionId: 's1', index: 0, total: 2, messages: [msg(0), msg(1)] });
    const done = h.finish({ type: 'session_ready_end', sessionId: 's1', totalMessages: 4 });
    expect(done.ok).toBe(true);
    if (!done.ok) return;
    expect(done.event).toMatchObject({ type: 'session_ready', sessionId: 's1', agent: 'claude-code' });
    expect(done.event).not.toHaveProperty('totalChunks');
    const state = reduceChat(initialChatState('s1'), done.event);
    expect(state.ready).toBe(true);
    expect(state.entries.map((e) => e.id)).toEqual(['m0', 'm1', 'm2', 'm3']);
    expect(h.active).toBe(false);
  });

  it('says how many messages are missing when a chunk never came', async () => {
    const h = new HistoryAssembler();
    h.begin(start);
    await h.add({ type: 'history_chunk', sessionId: 's1', index: 0, total: 2, messages: [msg(0), msg(1)] });
    const done = h.finish({ type: 'session_ready_end', sessionId: 's1', totalMessages: 4 });
    expect(done).toEqual({ ok: false, message: expect.stringContaining('2 of its 4 messages are missing') });
  });

  it('refuses a chunk whose index is no chunk announced, or one that came before', async () => {
    const h = new HistoryAssembler();
    h.begin(start);
    const chunk = (index: unknown) => ({
      type: 'history_chunk',
      sessionId: 's1',
      index,
      total: 2,
      messages: [msg(0)],
    });
    for (const index of [1.5, -1, 2, '0', undefined]) {
      await expect(h.add(chunk(index)), String(index)).rejects.toThrow(/index/);
    }
    await h.add(chunk(0));
    await expect(h.add(chunk(0))).rejects.toThrow(/came twice/);
  });
});
