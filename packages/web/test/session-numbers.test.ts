// The counts that several views show, said once and said alike: failed calls, subagents and
// compactions over all lanes, grouped numbers in a compaction's divider, the Gemini CLI crumb, and
// list times that carry the time beside the date.
import type { TranscriptItem } from '@cairn/protocol';
import { classifyTranscript, foldTranscript, listSessions, loadTranscript } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { corpusPlatform } from '../../transcript/test/homes.js';
import { formatAgo, formatWhen } from '../src/format.js';
import { projectCrumb } from '../src/session/crumb.js';
import { compactionsText, failedCallsText, numbersParts, subagentsText } from '../src/session/numbers.js';
import { compactionHow } from '../src/timeline/compaction.js';
import { isCompactionBoundary, str } from '../src/timeline/item.js';
import { MAIN_LANE, Timeline } from '../src/timeline/model.js';

const SPOTTER = '4d5611e5-241a-462a-8d15-5122611a9569';

describe('the words for a session’s counts', () => {
  it('name the lanes they cover and agree in number', () => {
    expect(failedCallsText(13)).toBe('13 failed calls, all lanes');
    expect(failedCallsText(1)).toBe('1 failed call, all lanes');
    expect(failedCallsText(12_345)).toBe('12,345 failed calls, all lanes');
    expect(failedCallsText(undefined)).toBeUndefined();
    expect(subagentsText(1)).toBe('1 subagent');
    expect(compactionsText(0)).toBe('0 compactions, all lanes');
    // A count the agent does not record is left out, not shown as 0.
    expect(numbersParts({ failedTools: 2 })).toEqual(['2 failed calls, all lanes']);
    expect(numbersParts(undefined)).toEqual([]);
  });

  it.skipIf(!corpus)(
    'count a corpus session’s failed calls over every lane, where its own lane alone holds fewer',
    async () => {
      const platform = corpusPlatform();
      let found = false;
      for await (const entry of listSessions(platform)) {
        if ('ref' in entry || entry.id !== SPOTTER) continue;
        const loaded = await loadTranscript(platform, {
          agent: entry.agent,
          path: entry.path,
          sessionId: entry.id,
        });
        if (!loaded.ok) throw new Error(loaded.error.message);
        const summary = foldTranscript(loaded.value);
        expect(numbersParts(summary)).toEqual([
          '13 failed calls, all lanes',
          `${summary.subagents} subagents`,
          `${summary.compactions} compaction${summary.compactions === 1 ? '' : 's'}, all lanes`,
        ]);
        expect(summary.subagents).toBe(2);
        // The timeline draws the session's own lane: the failures there are only some of the 13, which
        // is why a count of the rows drawn disagreed with the summary.
        const main = classifyTranscript(loaded.value);
        if (!main.ok) throw new Error(main.error.message);
        const t = new Timeline();
        t.append(MAIN_LANE, main.value.items);
        const { rows, errors } = t.rows({ machinery: true });
        const ownFailed = errors.filter((i) => {
          const row = rows[i]!;
          return row.kind === 'item' && row.item.type !== 'system:api-error';
        }).length;
        expect(ownFailed).toBeLessThan(13);
        // Its compaction's divider groups the size before with the app's number formatter.
        const boundary = main.value.items.find((i: TranscriptItem) => isCompactionBoundary(i));
        expect(boundary).toBeDefined();
        expect(compactionHow(str(boundary!, 'text') ?? '')).toMatch(/^\w+, \d{1,3}(,\d{3})+ tokens before$/);
        found = true;
      }
      expect(found).toBe(true);
    },
  );
});

describe('small things said alike', () => {
  it('groups a compaction’s token count as every other count is grouped', () => {
    expect(compactionHow('context compacted (auto, 170251 tokens before)')).toBe(
      'auto, 170,251 tokens before',
    );
    expect(compactionHow('context compacted (manual)')).toBe('manual');
    expect(compactionHow('context compacted')).toBeUndefined();
  });

  it('shows the time beside an older date, and says a recent one in words', () => {
    const now = Date.parse('2026-03-10T12:00:00Z');
    expect(formatWhen(now - 5 * 60_000, now)).toBe(formatAgo(now - 5 * 60_000, now));
    const older = Date.parse('2026-02-23T09:41:00Z');
    const shown = formatWhen(older, now);
    expect(shown.startsWith(new Date(older).toLocaleDateString())).toBe(true);
    expect(shown).toMatch(/\d{1,2}:\d{2}/);
    expect(formatWhen(undefined, now)).toBe('');
  });

  it.skipIf(!corpus)('gives a Gemini CLI session a project crumb, as the other agents have', async () => {
    const crumbs = new Map<string, string>();
    for await (const entry of listSessions(corpusPlatform())) {
      if ('ref' in entry) continue;
      const crumb = projectCrumb({ cwd: entry.cwd, path: entry.path });
      expect(crumb?.text, entry.path).toBeTruthy();
      crumbs.set(`${entry.agent}/${entry.id}`, crumb!.text);
    }
    expect(crumbs.get('gemini-cli/0b23371a-ce2e-4b1c-81a0-44af5d94d9ce')).toBe('project 2d33ff91…');
    expect(crumbs.get('claude-code/36d9e1bc-63bf-4e97-8a3e-2b20ba8583f2')).toBe(
      '/Users/yoavfarhi/dev/pomodoro/claude',
    );
    expect(projectCrumb({ path: '/somewhere/session.jsonl' })?.text).toBe('no project folder recorded');
  });
});
