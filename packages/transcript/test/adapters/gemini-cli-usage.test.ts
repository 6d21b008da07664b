// The Gemini token rule: a gemini message's `tokens` as cairn's Usage, as ccusage counts them.
import { describe, expect, it } from 'vitest';
import { geminiUsage } from '../../src/adapters/gemini-cli/usage.js';

describe('gemini-cli usage', () => {
  it('keeps input as is when total shows it already includes the cached tokens', () => {
    const tokens = { input: 7269, output: 46, cached: 5811, thoughts: 58, tool: 0, total: 7373 };
    expect(geminiUsage(tokens)).toEqual({
      inputTokens: 7269,
      outputTokens: 104,
      cacheReadTokens: 5811,
      reasoningTokens: 58,
    });
  });

  it('adds cached to input when total shows input excludes them', () => {
    const tokens = { input: 100, output: 10, cached: 40, thoughts: 0, tool: 0, total: 150 };
    expect(geminiUsage(tokens)).toEqual({ inputTokens: 140, outputTokens: 10, cacheReadTokens: 40 });
  });

  it('counts tool prompt tokens as input and what total has beyond the parts as output', () => {
    const tokens = { input: 100, output: 10, cached: 0, thoughts: 5, tool: 7, total: 130 };
    const usage = geminiUsage(tokens)!;
    expect(usage).toEqual({ inputTokens: 107, outputTokens: 23, cacheReadTokens: 0, reasoningTokens: 5 });
    expect(usage.inputTokens + usage.outputTokens).toBe(tokens.total);
  });

  it('records no usage when the CLI wrote only zeros, or no tokens object', () => {
    expect(geminiUsage({ input: 0, output: 0, cached: 0, thoughts: 0, tool: 0, total: 0 })).toBeUndefined();
    expect(geminiUsage(null)).toBeUndefined();
    expect(geminiUsage({ input: 'many' })).toBeUndefined();
  });
});
