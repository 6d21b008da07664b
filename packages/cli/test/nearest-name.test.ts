// The agent a mistyped name meant, as `cairn agents install gemini` suggests gemini-cli.
import { describe, expect, it } from 'vitest';
import { nearestName } from '../src/nearest-name.js';

const KEYS = ['claude-code', 'codex', 'gemini-cli', 'opencode', 'qwen-code', 'kilo', 'pi', 'copilot-cli'];

describe('the name meant', () => {
  it('suggests the agent a short name begins', () => {
    expect(nearestName('gemini', KEYS)).toBe('gemini-cli');
    expect(nearestName('claude', KEYS)).toBe('claude-code');
    expect(nearestName('Copilot', KEYS)).toBe('copilot-cli');
  });

  it('suggests the agent a typo is near, and nothing for a name near none', () => {
    expect(nearestName('codx', KEYS)).toBe('codex');
    expect(nearestName('opencod', KEYS)).toBe('opencode');
    expect(nearestName('vim', KEYS)).toBeUndefined();
    expect(nearestName('c', KEYS)).toBeUndefined();
  });
});
