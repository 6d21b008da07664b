// The session list's choices as pure functions: filters narrow, sorts put the largest first and the
// unknown last, costs never read as a false $0.00, and every choice survives a trip through the URL.
import type { SessionHead } from '@cairn/protocol';
import { describe, expect, it } from 'vitest';
import { formatRoute, parseRoute, type Route } from '../src/route.js';
import { filterHeads, formatCost, shortModel, sortHeads } from '../src/sessions/list.js';

const head = (sid: string, fields: Partial<SessionHead> = {}): SessionHead => ({
  agent: 'claude-code',
  sid,
  path: `/h/${sid}.jsonl`,
  size: 1,
  active: false,
  ...fields,
});

const heads = [
  head('a', {
    cwd: '/p/one',
    last_activity_at: Date.UTC(2026, 1, 10),
    input_tokens: 10,
    output_tokens: 5,
    cost_usd: 0.5,
  }),
  head('b', {
    cwd: '/p/two',
    last_activity_at: Date.UTC(2026, 1, 20),
    input_tokens: 90,
    cost_usd: 2,
    failed_tools: 3,
  }),
  head('c', { cwd: '/p/one', last_activity_at: Date.UTC(2025, 9, 1), active: true, duration_ms: 60_000 }),
];

describe('the session list', () => {
  it('narrows by project, day, activity and failures', () => {
    expect(filterHeads(heads, { project: '/p/one' }).map((h) => h.sid)).toEqual(['a', 'c']);
    expect(filterHeads(heads, { since: '2026-02-01' }).map((h) => h.sid)).toEqual(['a', 'b']);
    expect(filterHeads(heads, { active: true }).map((h) => h.sid)).toEqual(['c']);
    expect(filterHeads(heads, { failed: true }).map((h) => h.sid)).toEqual(['b']);
    expect(filterHeads(heads, {})).toHaveLength(3);
  });

  it('sorts the largest first and sessions without the number last', () => {
    expect(sortHeads(heads, 'tokens').map((h) => h.sid)).toEqual(['b', 'a', 'c']);
    expect(sortHeads(heads, 'cost').map((h) => h.sid)).toEqual(['b', 'a', 'c']);
    expect(sortHeads(heads, 'duration').map((h) => h.sid)).toEqual(['c', 'b', 'a']);
    expect(sortHeads(heads, 'recent').map((h) => h.sid)).toEqual(['b', 'a', 'c']);
  });

  it('shows a cost under a cent as such, and a model without its date', () => {
    expect(formatCost(12.345)).toBe('$12.35');
    expect(formatCost(0.004)).toBe('<$0.01');
    expect(formatCost(0)).toBe('$0.00');
    expect(shortModel('claude-sonnet-4-5-20250929')).toBe('claude-sonnet-4-5');
    expect(shortModel('gpt-5.3-codex')).toBe('gpt-5.3-codex');
  });

  it('keeps the sort and filters in the URL, and a search link’s query on the item it lands on', () => {
    const list: Route = {
      view: 'sessions',
      query: '',
      tools: false,
      agent: 'codex',
      sort: 'cost',
      project: '/p/one two',
      since: '2026-02-01',
      active: true,
      failed: true,
    };
    expect(parseRoute(formatRoute(list))).toEqual(list);
    const landing: Route = {
      view: 'session',
      agent: 'claude-code',
      sid: 's',
      tab: 'timeline',
      item: { uuid: 'u', type: 'tool:Bash', query: 'mix "phx server"' },
    };
    expect(parseRoute(formatRoute(landing))).toEqual(landing);
    expect(parseRoute('#/?sort=bogus&since=yesterday')).toEqual({
      view: 'sessions',
      query: '',
      tools: false,
    });
  });
});
