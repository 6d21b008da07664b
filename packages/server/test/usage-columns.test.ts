// What the daemon keeps of each session's usage between reports (see usage-columns): the entries it
// gives back are those it was given, field for field, for real sessions of each agent and for the
// cases a price or a folder is missing.
import { loadTranscript, nodePlatform } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { sessionRequests } from '../src/usage/session-requests.js';
import { SessionEntries } from '../src/usage/usage-columns.js';
import { entriesOf, type UsageEntry } from '../src/usage/usage-report.js';

const SESSIONS = [
  {
    agent: 'claude-code',
    path: corpusPath('claude', 'projects', '-work-spotter', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'),
  },
  {
    agent: 'codex',
    path: corpusPath(
      'codex',
      'sessions',
      '2026',
      '02',
      '23',
      'rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl',
    ),
  },
];

const roundTrip = (agent: string, sid: string, entries: UsageEntry[]): UsageEntry[] => {
  const out: UsageEntry[] = [];
  SessionEntries.of(agent, sid, entries).addTo(out);
  return out;
};

describe.skipIf(!corpus)('usage entries kept compact', () => {
  for (const { agent, path } of SESSIONS) {
    it(`gives back every entry of a ${agent} session as it was made`, async () => {
      const platform = nodePlatform({ env: {}, homeDir: '/' });
      const loaded = await loadTranscript(platform, { agent, path });
      if (!loaded.ok) throw new Error(loaded.error.message);
      const t = loaded.value;
      const made = entriesOf(agent, t.session.id, {
        requests: sessionRequests(t),
        ...(t.session.cwd !== undefined ? { cwd: t.session.cwd } : {}),
        ...(t.session.title !== undefined ? { title: t.session.title } : {}),
        stamps: [],
      });
      expect(made.length).toBeGreaterThan(10);
      expect(SessionEntries.of(agent, t.session.id, made).length).toBe(made.length);
      expect(roundTrip(agent, t.session.id, made)).toStrictEqual(made);
    });
  }
});

describe('usage entries kept compact, made by hand', () => {
  const entry = (over: Partial<UsageEntry>): UsageEntry => ({
    at: 1_760_000_000_000,
    agent: 'codex',
    sessionId: 's1',
    project: undefined,
    title: undefined,
    model: 'a-model-with-no-price',
    inputTokens: 12,
    outputTokens: 3,
    cacheReadTokens: 0,
    cacheCreationTokens: 0,
    reasoningTokens: 2,
    cost: undefined,
    ...over,
  });

  it('keeps an unknown price unknown and a zero price zero, and the folder and title absent or given', () => {
    const entries = [entry({}), entry({ at: 1_760_000_000_001, cost: 0, model: 'another' })];
    expect(roundTrip('codex', 's1', entries)).toStrictEqual(entries);
    const named = entries.map((e) => ({ ...e, project: '/w/p', title: 'A title' }));
    expect(roundTrip('codex', 's1', named)).toStrictEqual(named);
    expect(roundTrip('codex', 's1', [])).toStrictEqual([]);
  });

  it('refuses entries of two sessions, naming the session and the entry', () => {
    expect(() => SessionEntries.of('codex', 's1', [entry({}), entry({ title: 'Renamed' })])).toThrow(
      'entry 1 is of another session',
    );
    expect(() => SessionEntries.of('codex', 's1', [entry({}), entry({ sessionId: 's2' })])).toThrow(
      'usage entries of codex s1: entry 1 is of another session, folder or title',
    );
  });
});
