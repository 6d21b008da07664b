// A report over many requests is made a step at a time, so that a daemon answers its other clients
// between the steps: every kind pauses once per few tens of thousands of entries (and of sessions'
// rows), and comes to the rows of the report made at once.
import { describe, expect, it } from 'vitest';
import { REPORT_KINDS, type UsageEntry, usageRows, usageRowsPaced } from '../src/usage/usage-report.js';

const MODELS = ['claude-opus-4-5', 'gpt-5-codex', 'gemini-2.5-pro', 'unpriced-model'];
const AGENTS = ['claude-code', 'codex', 'gemini-cli'];

/** `count` requests over 3,000 sessions and about a year, in time order, with idle days between. */
function requests(count: number): UsageEntry[] {
  const entries: UsageEntry[] = [];
  let at = Date.parse('2025-03-01T08:00:00Z');
  for (let i = 0; i < count; i++) {
    // Mostly a minute apart, now and then a night or a few idle days (the billing windows' gaps).
    at += i % 500 === 0 ? 3 * 86_400_000 : i % 97 === 0 ? 9 * 3_600_000 : 61_000;
    const session = i % 3_000;
    entries.push({
      at,
      agent: AGENTS[session % AGENTS.length]!,
      sessionId: `s-${session}`,
      ...(session % 7 === 0 ? {} : { project: `/work/p${session % 40}` }),
      ...(session % 5 === 0 ? { title: `session ${session}` } : {}),
      model: MODELS[i % MODELS.length]!,
      inputTokens: 100 + (i % 13),
      outputTokens: 20 + (i % 7),
      cacheReadTokens: i % 3 === 0 ? 5_000 : 0,
      cacheCreationTokens: i % 11,
      reasoningTokens: i % 5,
      cost: i % MODELS.length === 3 ? undefined : 0.001 * (1 + (i % 17)),
    });
  }
  return entries;
}

describe('a report made a step at a time', () => {
  const entries = requests(90_000);

  it.each(REPORT_KINDS)('%s: pauses between steps and comes to the rows made at once', async (kind) => {
    let pauses = 0;
    const paced = await usageRowsPaced(kind, entries, 'Europe/Paris', async () => {
      pauses++;
    });
    // Four steps of 20,000 entries past the first; the 3,000 session rows add one more.
    expect(pauses).toBeGreaterThanOrEqual(4);
    expect(paced).toEqual(usageRows(kind, entries, 'Europe/Paris'));
    expect(paced.length).toBeGreaterThan(1);
  });

  it('lets other work in while it is made', async () => {
    const order: string[] = [];
    const timer = setInterval(() => order.push('other'), 0);
    try {
      const made = usageRowsPaced(
        'session',
        entries,
        undefined,
        () => new Promise((r) => setImmediate(r)),
      ).then(() => order.push('report'));
      await made;
    } finally {
      clearInterval(timer);
    }
    expect(order.indexOf('other')).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('other')).toBeLessThan(order.indexOf('report'));
  });
});
