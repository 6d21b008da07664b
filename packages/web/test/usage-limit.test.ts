// The usage and rate limits a failed turn names, in the words each agent was seen to use when its
// provider answered 429 (Claude Code, Codex, Gemini CLI, Qwen Code, OpenCode, Kilo and Copilot CLI
// on the fake model), and the providers' own bodies; anything else is no limit.
import { describe, expect, it } from 'vitest';
import { isLimitReply, limitTitle, usageLimitOf } from '../src/chat/usage-limit.js';

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
    ['Qwen Code on any 429, a spent quota too', 'Rate limit exceeded. Try again later.', { kind: 'rate' }],
    [
      'OpenCode and Kilo on OpenAI insufficient_quota',
      'Internal error: You exceeded your current quota, please check your plan and billing details.',
      { kind: 'usage' },
    ],
    [
      'OpenCode and Kilo on OpenAI rate_limit_exceeded',
      'Internal error: Rate limit reached for requests. Please try again in 1s.',
      { kind: 'rate', resets: '1s' },
    ],
    [
      "OpenCode on Anthropic's spent usage limit",
      'Internal error: This request would exceed your organization’s usage limit.',
      { kind: 'usage' },
    ],
    [
      "OpenCode on Anthropic's rate limit",
      'Internal error: This request would exceed the rate limit for your organization of 50 requests per minute.',
      { kind: 'rate' },
    ],
    [
      'Copilot CLI on OpenAI insufficient_quota',
      'Error: Failed to get response from the AI model; retried 5 times (total retry wait time: 10.83 seconds) Last error: 429 You exceeded your current quota, please check your plan and billing details.',
      { kind: 'usage' },
    ],
    [
      'Copilot CLI on OpenAI rate_limit_exceeded',
      'Error: Failed to get response from the AI model; retried 5 times (total retry wait time: 10.88 seconds) Last error: 429 Rate limit reached for requests. Please try again in 2s.',
      { kind: 'rate', resets: '2s' },
    ],
    [
      "Copilot CLI on Anthropic's usage limit, after a warning of its own",
      'Warning: No token count multiplier is known for Anthropic model "scripted". Token estimates will use the 1.0 fallback; configure a recognized canonical model ID to enable model-specific token counting.Error: Failed to get response from the AI model; retried 5 times (total retry wait time: 5.60 seconds) Last error: 429 This request would exceed your organization’s usage limit.',
      { kind: 'usage' },
    ],
    [
      "pi's store on OpenAI insufficient_quota (pi-acp says nothing)",
      '429 You exceeded your current quota, please check your plan and billing details.',
      { kind: 'usage' },
    ],
    [
      "pi's store on OpenAI rate_limit_exceeded",
      '429 Rate limit reached for requests. Please try again in 1s.',
      { kind: 'rate', resets: '1s' },
    ],
  ])('%s', (_name, text, expected) => {
    expect(usageLimitOf(text)).toEqual(expected);
  });

  it.each([
    'Internal error: connection refused',
    'the turn failed',
    'ENOENT: no such file /src/429/index.ts',
    "Internal error: Invalid 'messages': empty array.",
    "Internal error: 400 Invalid 'messages': empty array.",
    "Error: 400 Invalid 'messages': empty array.",
    '',
  ])('is no limit: %j', (text) => {
    expect(usageLimitOf(text)).toBeNull();
  });

  it('names the limit on the card', () => {
    expect(limitTitle({ kind: 'usage' })).toBe('Usage limit reached');
    expect(limitTitle({ kind: 'rate' })).toBe('Rate limit reached');
  });

  it("tells Codex's rate-limited reply from a reply that mentions one", () => {
    expect(isLimitReply('exceeded retry limit, last status: 429 Too Many Requests')).toBe(true);
    expect(isLimitReply('I saw "exceeded retry limit, last status: 429" in the log.')).toBe(false);
  });

  it("tells Copilot CLI's failure reply, alone or after its warning, from a reply that quotes one", () => {
    const failed =
      'Error: Failed to get response from the AI model; retried 5 times (total retry wait time: 5.60 seconds) Last error: 429 Too Many Requests';
    expect(isLimitReply(failed)).toBe(true);
    expect(isLimitReply(`Warning: an unknown model.${failed}`)).toBe(true);
    expect(isLimitReply(`Warning: an unknown model.\n${failed}\n`)).toBe(true);
    expect(isLimitReply(`The log said "${failed}" twice.`)).toBe(false);
    expect(isLimitReply(`${failed}\nSo I stopped.`)).toBe(false);
    // Its other failures are replies too, and no limit.
    expect(isLimitReply("Error: 400 Invalid 'messages': empty array.")).toBe(false);
  });
});
