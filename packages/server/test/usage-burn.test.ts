// A billing window's burn rate and projection as ccusage's `blocks --json` computes them: from the
// window's first request to its last, spent over the whole minutes left; none on a closed window, a
// gap, or an open window whose requests all came at one moment.
import { describe, expect, it } from 'vitest';
import { blockActivity, type UsageEntry, usageRows } from '../src/usage/usage-report.js';

const MINUTE = 60_000;
const START = Date.parse('2026-03-03T10:00:00Z');

const entry = (at: number, priced = true): UsageEntry => ({
  at,
  agent: 'claude-code',
  sessionId: 's1',
  model: 'claude-sonnet-4-5',
  inputTokens: 100,
  outputTokens: 900,
  cacheReadTokens: 4_000,
  cacheCreationTokens: 0,
  reasoningTokens: 0,
  cost: priced ? 0.5 : undefined,
});

const windows = (entries: UsageEntry[]) => usageRows('blocks', entries, undefined);

describe('a window’s burn rate and projection', () => {
  it('spends the rate from first to last request over the whole minutes left', () => {
    const [row] = windows([entry(START + 10 * MINUTE), entry(START + 70 * MINUTE)]);
    const now = START + 90 * MINUTE + 20_000;
    const a = blockActivity(row!, now);
    expect(a.isActive).toBe(true);
    // 10,000 tokens over 60 minutes; $1 over an hour.
    expect(a.burnRate).toEqual({
      tokensPerMinute: 10_000 / 60,
      tokensPerMinuteForIndicator: 2_000 / 60,
      costPerHour: 1,
    });
    // The window ends at 15:00: 209.67 minutes left, spent as 210.
    expect(a.projection).toEqual({
      totalTokens: Math.round(10_000 + (10_000 / 60) * 210),
      totalCost: Math.round((1 + (1 / 60) * 210) * 100) / 100,
      remainingMinutes: 210,
    });
  });

  it('has no rate while the open window’s requests came at one moment', () => {
    const [row] = windows([entry(START + 5 * MINUTE), entry(START + 5 * MINUTE)]);
    expect(blockActivity(row!, START + 30 * MINUTE)).toEqual({
      isActive: true,
      burnRate: null,
      projection: null,
    });
  });

  it('has none on a closed window or a gap, and no dollars where a model has no price', () => {
    const rows = windows([entry(START), entry(START + 30 * MINUTE), entry(START + 11 * 60 * MINUTE)]);
    expect(rows.map((r) => r.isGap === true)).toEqual([false, true, false]);
    const now = START + 11 * 60 * MINUTE + 10 * MINUTE;
    expect(blockActivity(rows[0]!, now)).toEqual({ isActive: false, burnRate: null, projection: null });
    expect(blockActivity(rows[1]!, now)).toEqual({ isActive: false, burnRate: null, projection: null });
    // Past the window's end, even with a recent request, it is closed.
    expect(blockActivity(rows[2]!, START + 16 * 60 * MINUTE).isActive).toBe(false);
    const [unpriced] = windows([entry(START, false), entry(START + 20 * MINUTE)]);
    const a = blockActivity(unpriced!, START + 30 * MINUTE);
    expect(a.burnRate?.costPerHour).toBeNull();
    expect(a.projection?.totalCost).toBeNull();
    expect(a.projection?.totalTokens).toBeGreaterThan(10_000);
  });
});
