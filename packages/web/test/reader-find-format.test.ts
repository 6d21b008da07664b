// Find in session over a real corpus session's timeline (every item's text, folded results included,
// ids and times left out), and the reader's dates: relative for the last day only, days named.
import { classifyTranscript, listSessions, loadTranscript } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { corpusPlatform } from '../../transcript/test/homes.js';
import { matchingRows, rowText } from '../src/find/text.js';
import { formatAgo, formatDay, localDay } from '../src/format.js';
import { MAIN_LANE, type Row, Timeline } from '../src/timeline/model.js';

async function corpusRows(sid: string): Promise<readonly Row[]> {
  const platform = corpusPlatform();
  for await (const entry of listSessions(platform)) {
    if ('ref' in entry || entry.id !== sid) continue;
    const loaded = await loadTranscript(platform, {
      agent: entry.agent,
      path: entry.path,
      sessionId: entry.id,
    });
    if (!loaded.ok) throw new Error(`cannot load ${sid}`);
    const classified = classifyTranscript(loaded.value);
    if (!classified.ok) throw new Error(`cannot classify ${sid}`);
    const timeline = new Timeline();
    timeline.append(MAIN_LANE, classified.value.items);
    return timeline.rows({ machinery: false }).rows;
  }
  throw new Error(`no session ${sid} in the corpus`);
}

describe.skipIf(!corpus)('find in session', () => {
  it('finds, ignoring case, every row whose items hold the words, and only those', async () => {
    const rows = await corpusRows('tool_heavy');
    const found = matchingRows(rows, '  PHOENIX ');
    expect(found.length).toBeGreaterThanOrEqual(3);
    // The session opens with the prompt that names it.
    expect(found[0]).toBe(0);
    for (let i = 0; i < rows.length; i++) {
      expect(found.includes(i)).toBe(rowText(rows[i]!).includes('phoenix'));
    }
    // A call is found by what it was given as well as by its text: the Bash call that starts the server.
    const bash = found.map((i) => rows[i]!).find((r) => r.kind === 'item' && r.item.type === 'tool:Bash');
    expect(bash).toBeDefined();
  });

  it('finds nothing for no words, and does not match ids or times', async () => {
    const rows = await corpusRows('tool_heavy');
    expect(matchingRows(rows, '')).toEqual([]);
    expect(matchingRows(rows, '   ')).toEqual([]);
    const first = rows.find((r) => r.kind === 'item');
    if (first?.kind !== 'item') throw new Error('no item row');
    expect(matchingRows(rows, first.item.uuid)).toEqual([]);
  });
});

describe('dates', () => {
  const now = new Date(2026, 1, 24, 9, 30).getTime();
  const minutes = (n: number) => n * 60_000;

  it('says how long ago for the last day, and gives the date before that', () => {
    expect(formatAgo(now - 10_000, now)).toBe('just now');
    expect(formatAgo(now - minutes(5), now)).toBe('5 minutes ago');
    expect(formatAgo(now - minutes(180), now)).toBe('3 hours ago');
    const twoDays = now - minutes(2 * 24 * 60);
    expect(formatAgo(twoDays, now)).toBe(new Date(twoDays).toLocaleDateString());
    expect(formatAgo(undefined, now)).toBe('');
  });

  it('names a day by its date, said as today or yesterday when it is one', () => {
    const full = (at: number) => new Intl.DateTimeFormat(undefined, { dateStyle: 'full' }).format(at);
    expect(formatDay(now - minutes(60), now)).toBe(`Today · ${full(now - minutes(60))}`);
    const lastNight = new Date(2026, 1, 23, 23, 50).getTime();
    expect(formatDay(lastNight, now)).toBe(`Yesterday · ${full(lastNight)}`);
    const before = new Date(2026, 1, 10, 21, 11).getTime();
    expect(formatDay(before, now)).toBe(full(before));
  });

  it('changes the local day exactly at local midnight', () => {
    const late = new Date(2026, 1, 23, 23, 59, 59).getTime();
    expect(localDay(late)).toBe(20260223);
    expect(localDay(late + 1000)).toBe(20260224);
  });
});
