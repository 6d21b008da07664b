// The page while a chat's agent starts: the history shows at once, the start as a passing notice,
// and the state that follows once the agent is up replaces both with what the agent can do.
import { expect, it } from 'vitest';
import { initialChatState, reduceChat } from '../src/chat/state.js';
import type { ServerEvent } from '../src/chat/wire.js';

const ready = (over: Partial<Extract<ServerEvent, { type: 'session_ready' }>> = {}): ServerEvent => ({
  type: 'session_ready',
  sessionId: 's1',
  history: [
    { id: 'u1', role: 'user', content: 'an earlier question', events: '', createdAt: 1, sequence: 1 },
  ],
  currentTurn: null,
  contextWindowUsed: null,
  contextWindowMax: null,
  configOptions: null,
  supportsImageInput: false,
  ...over,
});

it('shows the pending start as a notice, and the state after the start without it', () => {
  const starting = [
    ready(),
    { type: 'agent_notification', level: 'info', message: 'Starting Claude Code…' },
  ] as const;
  const pending = starting.reduce(reduceChat, initialChatState('s1'));
  expect(pending.ready).toBe(true);
  expect(pending.entries.map((e) => e.kind)).toEqual(['user', 'notice']);
  expect(pending.entries[1]).toMatchObject({ level: 'info', text: 'Starting Claude Code…' });

  const up = reduceChat(pending, ready({ supportsImageInput: true }));
  expect(up.entries.map((e) => e.kind)).toEqual(['user']);
  expect(up.supportsImageInput).toBe(true);

  const failed = reduceChat(pending, {
    type: 'error',
    message: 'claude-code did not start: initialize took longer than 60 s.',
  });
  expect(failed.entries.map((e) => (e.kind === 'notice' ? e.level : e.kind))).toEqual([
    'user',
    'info',
    'error',
  ]);
});
