// The usage and rate limits a failed turn names, in the words each agent was seen to use when its
// provider answered 429 (Claude Code, Codex and Gemini CLI on the fake model), and the providers'
// own bodies; anything else is no limit.
import { describe, expect, it } from 'vitest';
import { isCodexRetryLimit, limitTitle, usageLimitOf } from '../src/chat/usage-limit.js';

describe('usageLimitOf', () => {
  it.each([
    [
      'Claude Code on an Anthropic rate_limit_error',
      'Internal error: API Error: Request rejected (429) · This request would exceed the rate limit for your organization of 50 requests per minute. (rate_limit)',
      { kind: 'rate' },
    ],
    [
      'Claude Code on a spent subscription',
      'Claude AI usage limit reached|1767225600',
      { kind: 'usage', resets: new Date(1767225600 * 1000).toLocaleString() },
    ],
    [
      'Codex on OpenAI insufficient_quota',
      'Internal error: Quota exceeded. Check your plan and billing details. (usageLimitExceeded)',
      { kind: 'usage' },
    ],
    [
      'Codex on a spent plan',
      "You've hit your usage limit. Upgrade to Pro, or try again at 3:15 PM.",
      { kind: 'usage', resets: '3:15 PM' },
    ],
    ['Codex after its retries', 'exceeded retry limit, last status: 429 Too Many Requests', { kind: 'rate' }],
    [
      "OpenAI's rate_limit_exceeded body",
      '{"error":{"message":"Rate limit reached for requests. Please try again in 20s.","type":"rate_limit_exceeded"}}',
      { kind: 'rate', resets: '20s' },
    ],
    [
      "OpenAI's insufficient_quota body",
      '{"error":{"message":"You exceeded your current quota","type":"insufficient_quota"}}',
      { kind: 'usage' },
    ],
    [
      'Gemini CLI on a RESOURCE_EXHAUSTED 429, after its retries',
      'Resource has been exhausted (e.g. check quota). Please retry in 1s.',
      { kind: 'usage', resets: '1s' },
    ],
    [
      "Gemini's RESOURCE_EXHAUSTED",
      '[API Error: {"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota). Please retry in 30s.","status":"RESOURCE_EXHAUSTED"}}]',
      { kind: 'usage', resets: '30s' },
    ],
  ])('%s', (_name, text, expected) => {
    expect(usageLimitOf(text)).toEqual(expected);
  });

  it.each([
    'Internal error: connection refused',
    'the turn failed',
    'ENOENT: no such file /src/429/index.ts',
    '',
  ])('is no limit: %j', (text) => {
    expect(usageLimitOf(text)).toBeNull();
  });

  it('names the limit on the card', () => {
    expect(limitTitle({ kind: 'usage' })).toBe('Usage limit reached');
    expect(limitTitle({ kind: 'rate' })).toBe('Rate limit reached');
  });

  it("tells Codex's rate-limited reply from a reply that mentions one", () => {
    expect(isCodexRetryLimit('exceeded retry limit, last status: 429 Too Many Requests')).toBe(true);
    expect(isCodexRetryLimit('I saw "exceeded retry limit, last status: 429" in the log.')).toBe(false);
  });
});
