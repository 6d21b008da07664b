// The sign-in card's life in the page's state: a failed try stays on the card with its reason, a
// kept key or a finished sign-in replaces the card with a word saying so.
import { expect, it } from 'vitest';
import { initialChatState, reduceChat } from '../src/chat/state.js';
import type { ServerEvent } from '../src/chat/wire.js';

const required: ServerEvent = {
  type: 'sign_in_required',
  agent: 'gemini-cli',
  message: 'Gemini API key is missing or not configured.',
  methods: [{ id: 'gemini-api-key', name: 'Gemini API key' }],
};

it('keeps the card with the reason of a failed try, and gives way to a word once signed in', () => {
  const carded = reduceChat(initialChatState('s1'), required);
  expect(carded.signIn?.methods.map((m) => m.id)).toEqual(['gemini-api-key']);

  const failed = reduceChat(carded, {
    type: 'sign_in_result',
    agent: 'gemini-cli',
    methodId: 'gemini-api-key',
    ok: false,
    message: 'an API key is one word, without spaces',
  });
  expect(failed.signIn?.failure).toBe('an API key is one word, without spaces');

  const kept = reduceChat(failed, {
    type: 'sign_in_result',
    agent: 'gemini-cli',
    methodId: 'gemini-api-key',
    ok: true,
    message: 'The key is kept for Gemini CLI. Send your message again.',
  });
  expect(kept.signIn).toBeNull();
  expect(kept.entries.at(-1)).toMatchObject({ kind: 'notice', level: 'info', text: /key is kept/ });
});
