// A request a permission rule answered, in the page's state: it becomes a settled card that carries
// the rule (drawn as a line), the agent's settling keeps the rule on it, and a reload's
// session_ready brings the same card back from the settled permissions.
import { describe, expect, it } from 'vitest';
import { type ChatState, initialChatState, reduceChat } from '../src/chat/state.js';
import type { ServerEvent } from '../src/chat/wire.js';

const run = (events: ServerEvent[], state: ChatState = initialChatState('s1')): ChatState =>
  events.reduce(reduceChat, state);

const applied: ServerEvent = {
  type: 'permission_rule_applied',
  requestId: 'r1',
  toolCall: { id: 'call-1', title: 'npm test', kind: 'execute' },
  optionId: 'allow',
  applied: { rule: 'Bash(npm test*)', effect: 'allow', source: 'project' },
};

describe('a request a rule answered', () => {
  it('is a settled card with its rule, once, and stays so when the agent settles it', () => {
    const state = run([
      applied,
      applied,
      { type: 'permission_settled', requestId: 'r1', optionId: 'allow', by: 'answer' },
    ]);
    expect(state.permissions).toEqual([
      {
        requestId: 'r1',
        toolCall: { id: 'call-1', title: 'npm test', kind: 'execute' },
        options: [],
        settled: { optionId: 'allow', by: 'answer' },
        rule: { rule: 'Bash(npm test*)', effect: 'allow', source: 'project' },
      },
    ]);
  });

  it('comes back from session_ready with the rule that answered it', () => {
    const request = {
      requestId: 'r2',
      toolCall: { id: 'call-2', title: 'Write notes.txt', kind: 'edit' },
      options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' as const }],
    };
    const state = run([
      {
        type: 'session_ready',
        sessionId: 's1',
        history: [],
        contextWindowUsed: null,
        contextWindowMax: null,
        settledPermissions: [
          {
            request,
            optionId: 'allow',
            by: 'answer',
            rule: { rule: 'Write', effect: 'allow', source: 'config.json' },
          },
          { request: { ...request, requestId: 'r3' }, optionId: 'allow', by: 'answer' },
        ],
      },
    ]);
    expect(state.permissions.map((p) => [p.requestId, p.rule?.rule ?? null])).toEqual([
      ['r2', 'Write'],
      ['r3', null],
    ]);
  });
});
