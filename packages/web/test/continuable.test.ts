// Which sessions offer Continue: those of every agent cairn both reads and drives, each of which
// loads a past session by the id the listing shows (the drive tests load one for each), and no others.
import { describe, expect, it } from 'vitest';
import { BUILT_IN_BRIDGES } from '../../runner/src/bridges.js';
import { builtinSessionAdapters } from '../../transcript/src/adapters/index.js';
import { CONTINUABLE } from '../src/chat/continuable.js';

const read = new Set(builtinSessionAdapters.map((a) => a.id));
const driven = new Set(BUILT_IN_BRIDGES.map((b) => b.key as string));

describe('the agents whose sessions offer Continue', () => {
  it('are every agent that is both read and driven', () => {
    const both = [...read].filter((agent) => driven.has(agent)).sort();
    expect([...CONTINUABLE].sort()).toEqual(both);
  });

  it('include each agent added beside the first three', () => {
    for (const agent of ['opencode', 'qwen-code', 'kilo', 'pi', 'copilot-cli'])
      expect(CONTINUABLE.has(agent)).toBe(true);
  });

  it('leave out a name that is neither read nor driven', () => {
    expect(CONTINUABLE.has('cursor')).toBe(false);
    expect(CONTINUABLE.has('')).toBe(false);
  });
});
