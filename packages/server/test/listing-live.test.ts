// A followed session's listing facts (model, prompts, cost) and the requests the usage reports count
// are kept up to date read by read: at every cut of real Claude Code and Codex sessions they are
// those a whole read of the same bytes gives.
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTranscript, nodePlatform } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { laneItems } from '../src/indexing/search-docs.js';
import { listingFacts } from '../src/reader/listing.js';
import { LiveTranscript } from '../src/reader/live-transcript.js';
import { sessionRequests } from '../src/usage/session-requests.js';
import { homeEnv, tempDir } from './helpers.js';

const SESSIONS = [
  {
    agent: 'claude-code',
    source: ['claude', 'projects', '-work-spotter', '4d5611e5-241a-462a-8d15-5122611a9569.jsonl'],
    home: ['.claude', 'projects', '-work-spotter'],
  },
  {
    agent: 'codex',
    source: [
      'codex',
      'sessions',
      '2026',
      '02',
      '23',
      'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
    ],
    home: ['.codex', 'sessions', '2026', '02', '23'],
  },
];

describe.skipIf(!corpus)('listing facts read on from the last read', () => {
  for (const s of SESSIONS) {
    it(`equal a whole read's at every cut of ${s.source[s.source.length - 1]}`, async () => {
      const lines = readFileSync(corpusPath(...s.source), 'utf8')
        .split('\n')
        .filter(Boolean);
      const home = tempDir();
      const dir = join(home, ...s.home);
      mkdirSync(dir, { recursive: true });
      const file = join(dir, s.source[s.source.length - 1]!);
      writeFileSync(file, '');
      const platform = nodePlatform({ env: homeEnv(home), homeDir: home });
      const live = new LiveTranscript(s.agent);
      // Cuts of a few records each, as a live session's reads are, and a last one of everything left.
      const step = Math.max(1, Math.floor(lines.length / 60));
      let checked = 0;
      let withCost = 0;
      let requests = 0;
      for (let at = 0; at < lines.length; at += step) {
        appendFileSync(file, `${lines.slice(at, at + step).join('\n')}\n`);
        const read = await live.read(platform, file);
        if (!read.ok) throw new Error(read.error.message);
        const whole = await loadTranscript(platform, { agent: s.agent, path: file });
        if (!whole.ok) throw new Error(whole.error.message);
        const expected = listingFacts(s.agent, whole.value, laneItems(whole.value));
        expect(live.listing(read.value), `after ${at + step} lines`).toEqual(expected);
        expect(live.requests(), `after ${at + step} lines`).toEqual(sessionRequests(whole.value));
        checked++;
        requests = live.requests().length;
        if (expected.costUsd !== undefined) withCost++;
      }
      expect(checked).toBeGreaterThan(30);
      // The cuts reach the part of the session with priced requests and prompts.
      expect(withCost).toBeGreaterThan(10);
      expect(requests).toBeGreaterThan(20);
    }, 60_000);
  }
});
