// A long chat history goes out in the seed's history frames (`session_ready_start`, `history_chunk`s,
// `session_ready_end`), never as one `session_ready` that grows with the session; a short one stays
// one frame. Every frame keeps to the contract, and the chunks put back together are the history.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateServerEvent } from '@cairn/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { HISTORY_LIMITS, historyFrames } from '../src/chat/history-frames.js';
import { tempDir } from './helpers.js';
import { closeAll, type Ev, WIRE_AGENT } from './support/chat.js';
import { chatHarness } from './support/chat-harness.js';

afterEach(closeAll);

const row = (n: number, content: string) => ({
  id: `m${n}`,
  role: n % 2 === 0 ? ('user' as const) : ('assistant' as const),
  content,
  events: '',
  createdAt: 1_700_000_000_000 + n,
  sequence: n,
});

const ready = (history: unknown[]) => ({
  type: 'session_ready',
  sessionId: 's1',
  history,
  totalMessageCount: history.length,
  contextWindowUsed: null,
  contextWindowMax: null,
  agent: 'wire',
  queue: [],
});

describe('the opening frames', () => {
  it('keep a short history whole in session_ready', () => {
    const frames = historyFrames(ready([row(0, 'hi'), row(1, 'hello')]));
    expect(frames.map((f) => f.type)).toEqual(['session_ready']);
  });

  it('split a long one into chunks bounded in bytes and in messages, each frame within the contract', () => {
    const limits = { inlineBytes: 1000, chunkBytes: 1000, chunkMessages: 3, gzipBytes: 600 };
    const history = [
      ...Array.from({ length: 7 }, (_, n) => row(n, 'x'.repeat(50))),
      row(7, 'y'.repeat(5000)),
      row(8, 'z'),
    ];
    const frames = historyFrames(ready(history), limits);
    const types = frames.map((f) => f.type);
    expect(types[0]).toBe('session_ready_start');
    expect(types.at(-1)).toBe('session_ready_end');
    expect(types).not.toContain('session_ready');
    const chunks = frames.filter((f) => f.type === 'history_chunk');
    // 3 + 3 + 1 short ones, the long one alone (gzipped), then the last one.
    expect(chunks.map((c) => c.index)).toEqual([0, 1, 2, 3, 4]);
    expect(chunks.every((c) => c.total === 5)).toBe(true);
    expect(frames[0]).toMatchObject({ totalChunks: 5, totalMessages: 9, agent: 'wire', queue: [] });
    expect(frames[0]).not.toHaveProperty('history');
    expect(chunks[3]).toMatchObject({ encoding: 'gzip-base64' });
    for (const frame of frames) expect(validateServerEvent(frame), frame.type).toMatchObject({ ok: true });
  });
});

it('a long history reaches a tab in chunks, put back together in order', async () => {
  const root = tempDir();
  const cairnHome = join(root, 'cairn');
  const project = join(root, 'project');
  mkdirSync(cairnHome, { recursive: true });
  mkdirSync(project, { recursive: true });
  writeFileSync(
    join(cairnHome, 'config.json'),
    JSON.stringify({ agents: { wire: { name: 'Wire', command: process.execPath, args: [WIRE_AGENT] } } }),
  );
  const h = await chatHarness({
    cairnHome,
    project,
    env: { HOME: root, PATH: process.env.PATH ?? '' },
    agents: ['wire'],
  });
  const id = h.newChat('wire');
  // Twice what one session_ready may hold.
  const count = 8;
  const size = Math.ceil((2 * HISTORY_LIMITS.inlineBytes) / count);
  for (let n = 0; n < count; n++) {
    h.chat.store.addMessage({
      ...row(n, `${n}:${'w'.repeat(size)}`),
      sessionId: id,
      images: [],
      outputTokens: null,
      durationMs: null,
      tokensPerSecond: null,
      ttftMs: null,
    });
  }
  const tab = await h.tab(id);
  const opening = await tab.ready();
  expect(tab.count('session_ready')).toBe(0);
  expect(tab.count('history_chunk')).toBeGreaterThan(1);
  expect(opening.history.map((m: Ev) => m.content.split(':')[0])).toEqual(
    Array.from({ length: count }, (_, n) => String(n)),
  );
  const start = tab.events.find((e) => e.type === 'session_ready_start')!;
  expect(start).toMatchObject({ sessionId: id, agent: 'wire', totalMessages: count });
  for (const e of tab.events)
    expect(JSON.stringify(e).length).toBeLessThan(HISTORY_LIMITS.chunkBytes + size + 1024);
});
