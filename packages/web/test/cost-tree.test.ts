// The cost tree's rows: each lane at the depth its spawns give it, named by its task, and the
// session's cost as the lanes add it up, unknown (never 0) when a lane that used tokens has no price.
import type { SessionLaneCost } from '@cairn/protocol';
import { describe, expect, it } from 'vitest';
import { sessionCostOf, treeRows } from '../src/views/cost-tree.js';

const lane = (
  id: string,
  parentId: string | undefined,
  extra: Partial<SessionLaneCost> = {},
): SessionLaneCost => ({
  id,
  ...(parentId === undefined ? {} : { parentId }),
  requests: 1,
  inputTokens: 100,
  outputTokens: 10,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  models: ['m'],
  compactions: 0,
  costUsd: 0.5,
  ...extra,
});

describe('the cost tree', () => {
  it('nests each subagent under the lane that started it, at any depth', () => {
    const rows = treeRows([
      lane('main', undefined),
      lane('a', 'main', { title: 'Look around' }),
      lane('a1', 'a', { title: 'Read the tests' }),
      lane('a1x', 'a1'),
      lane('b', 'main', { title: 'Write it\u202e down' }),
    ]);
    expect(rows.map((r) => [r.lane.id, r.depth, r.name, r.parentName])).toEqual([
      ['main', 0, 'Main agent', undefined],
      ['a', 1, 'Look around', 'Main agent'],
      ['a1', 2, 'Read the tests', 'Look around'],
      ['a1x', 3, 'Subagent a1x', 'Read the tests'],
      // A title is the transcript's text: shown, never obeyed (its direction controls made visible).
      ['b', 1, expect.not.stringContaining('\u202e'), 'Main agent'],
    ]);
  });

  it('adds the lanes’ costs up, and leaves the sum unknown when a lane with tokens has no price', () => {
    expect(sessionCostOf([lane('main', undefined), lane('a', 'main', { costUsd: 0.25 })])).toBe(0.75);
    const unpriced = lane('a', 'main', { unpricedModels: ['m'] });
    delete unpriced.costUsd;
    expect(sessionCostOf([lane('main', undefined), unpriced])).toBeUndefined();
    // A lane that used no tokens costs nothing and does not make the sum unknown.
    const idle = lane('b', 'main', { inputTokens: 0, outputTokens: 0, models: [] });
    delete idle.costUsd;
    expect(sessionCostOf([lane('main', undefined), idle])).toBe(0.5);
  });
});
