// The markers a session's timeline draws where its work was handed off or forked: right after the
// item it left at, one per link, at the end while that item is not read; never counted as an item.
import type { SessionLink, TranscriptItem } from '@cairn/protocol';
import { classifyTranscript, listSessions, loadTranscript } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { corpusPlatform } from '../../transcript/test/homes.js';
import { matchingRows } from '../src/find/text.js';
import { markerPlaces, outgoingLinks } from '../src/timeline/link-markers.js';
import { MAIN_LANE, type Row, Timeline } from '../src/timeline/model.js';

const SID = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';

async function corpusSession(id: string): Promise<TranscriptItem[]> {
  const platform = corpusPlatform();
  for await (const entry of listSessions(platform)) {
    if ('ref' in entry || entry.id !== id) continue;
    const loaded = await loadTranscript(platform, {
      agent: entry.agent,
      path: entry.path,
      sessionId: entry.id,
    });
    if (!loaded.ok) throw new Error(`cannot load ${id}`);
    const main = classifyTranscript(loaded.value);
    if (!main.ok) throw new Error(`cannot classify ${id}`);
    return main.value.items;
  }
  throw new Error(`no corpus session ${id}`);
}

const link = (kind: 'fork' | 'handoff', to: string, at_item?: string): SessionLink => ({
  kind,
  from: { agent: 'claude', sid: SID },
  to: { agent: kind === 'fork' ? 'claude' : 'codex', sid: to },
  ...(at_item === undefined ? {} : { at_item }),
  created_at: 1,
});

const markers = (rows: readonly Row[]) =>
  rows.flatMap((r, i) => (r.kind === 'link' ? [{ i, sid: r.link.to.sid }] : []));

describe.skipIf(!corpus)('link markers in a corpus session', () => {
  it('puts a fork marker right after its prompt and a hand-off marker after its last item', async () => {
    const items = await corpusSession(SID);
    const t = new Timeline();
    t.append(MAIN_LANE, items);
    const plain = t.rows({ machinery: false });
    const promptIndexes = items.flatMap((item, i) => (item.type === 'message:user:in' ? [i] : []));
    expect(promptIndexes.length).toBeGreaterThan(1);
    const prompt = items[promptIndexes[1]!]!;
    const last = items[items.length - 1]!;
    const links = [link('fork', 'fork-1', prompt.uuid), link('handoff', 'handoff-1', last.uuid)];
    const marked = t.rows({ machinery: false, links });

    // One row more per link, each right after the row of the item it left at.
    expect(marked.rows).toHaveLength(plain.rows.length + 2);
    const [fork, handoff] = markers(marked.rows);
    const promptRow = marked.rows[fork!.i - 1]!;
    expect(promptRow.kind === 'item' && promptRow.item).toBe(t.items()[promptIndexes[1]!]);
    expect(fork!.sid).toBe('fork-1');
    expect(handoff!.sid).toBe('handoff-1');
    expect(handoff!.i).toBe(marked.rows.length - 1);

    // Not an item: the prompts and errors are the same rows, the counts the same, find passes it by.
    const itemKeys = (rows: readonly Row[]) => rows.filter((r) => r.kind === 'item').map((r) => r.key);
    expect(itemKeys(marked.rows)).toEqual(itemKeys(plain.rows));
    expect(marked.prompts.map((i) => marked.rows[i]!.key)).toEqual(
      plain.prompts.map((i) => plain.rows[i]!.key),
    );
    expect(marked.errors.map((i) => marked.rows[i]!.key)).toEqual(
      plain.errors.map((i) => plain.rows[i]!.key),
    );
    expect(marked.machineryHidden).toBe(plain.machineryHidden);
    for (const [key, at] of marked.rowOf)
      expect(marked.rows[at]!.key).toBe(plain.rows[plain.rowOf.get(key)!]!.key);
    expect(matchingRows(marked.rows, 'forked into')).toEqual([]);
    expect(matchingRows(marked.rows, 'fork-1')).toEqual([]);
  });

  it('keeps a marker at the end while its item is not read, and moves it after the item once it is', async () => {
    const items = await corpusSession(SID);
    const at = Math.floor(items.length / 2);
    const cut = items[at - 50]!;
    const page = new Timeline();
    page.replaceLane(MAIN_LANE, items.slice(at, at + 200), at);
    const links = [link('fork', 'fork-early', cut.uuid)];
    const onPage = page.rows({ machinery: true, links });
    expect(markers(onPage.rows)).toEqual([{ i: onPage.rows.length - 1, sid: 'fork-early' }]);
    const markerKey = onPage.rows[onPage.rows.length - 1]!.key;

    // The whole history takes the page's place: the marker, under the same key, follows its item.
    page.replaceLane(MAIN_LANE, items, 0);
    const whole = page.rows({ machinery: true, links });
    const [marker] = markers(whole.rows);
    expect(whole.rows[marker!.i]!.key).toBe(markerKey);
    const before = whole.rows[marker!.i - 1]!;
    // The row before it draws the cut item, or the last item before it that has a row.
    const cutIndex = page.items().findLastIndex((item) => item.uuid === cut.uuid);
    expect(before.kind).toBe('item');
    expect(before.kind === 'item' && before.index).toBeLessThanOrEqual(cutIndex);
    const next = whole.rows[marker!.i + 1];
    expect(next?.kind === 'item' && next.index).toBeGreaterThan(cutIndex);
  });
});

describe('placing link markers', () => {
  const item = (uuid: string, type: string, extra: Record<string, unknown> = {}) =>
    ({ uuid, type, at: 1, ...extra }) as unknown as TranscriptItem;
  const items = [
    item('p1', 'message:user:in', { text: 'first' }),
    item('a1', 'message:user:out', { text: 'reply' }),
    item('c1', 'tool:Bash', { role: 'use', tool_use_id: 't1', command: 'ls' }),
    item('r1', 'tool:Bash', { role: 'result', tool_use_id: 't1', output: 'x' }),
    item('p2', 'message:user:in', { text: 'second' }),
    item('a2#0', 'message:user:out', { text: 'one' }),
    item('a2#1', 'message:user:out', { text: 'two' }),
  ];

  it('draws one marker for each link at the same item, in the order they were made', () => {
    const t = new Timeline();
    t.append(MAIN_LANE, items);
    const links = [link('fork', 'f1', 'p2'), link('handoff', 'h1', 'p2'), link('fork', 'f2', 'p1')];
    const { rows } = t.rows({ machinery: true, links });
    expect(
      rows.map((r) => (r.kind === 'item' ? r.item.uuid : `>${r.kind === 'link' ? r.link.to.sid : ''}`)),
    ).toEqual(['p1', '>f2', 'a1', 'c1', 'p2', '>f1', '>h1', 'a2#0', 'a2#1']);
    expect(new Set(rows.map((r) => r.key)).size).toBe(rows.length);
  });

  it('marks a result folded into its call after that row, and a record by its last item', () => {
    const t = new Timeline();
    t.append(MAIN_LANE, items);
    const { rows } = t.rows({
      machinery: true,
      links: [link('fork', 'f', 'r1'), link('handoff', 'h', 'a2')],
    });
    const order = rows.map((r) => (r.kind === 'link' ? `>${r.link.to.sid}` : r.key));
    expect(order).toEqual(['#0', '#1', '#2', '>f', '#4', '#5', '#6', '>h']);
  });

  it('marks at the end a link whose item is not in the session, or that names none', () => {
    const t = new Timeline();
    t.append(MAIN_LANE, items.slice(0, 2));
    const links = [link('fork', 'gone', 'nowhere'), link('handoff', 'plain')];
    expect(markers(t.rows({ machinery: true, links }).rows)).toEqual([
      { i: 2, sid: 'gone' },
      { i: 3, sid: 'plain' },
    ]);
    expect(markerPlaces(items, [])).toBeUndefined();
  });

  it('leaves out, in a window of a long session, a link cut at an item the window does not hold', () => {
    const t = new Timeline();
    // The session's last four items of ten, held as a window: p1 is outside it.
    t.replaceLane(MAIN_LANE, items.slice(3), 6);
    t.setWindowTotal(10);
    const links = [link('fork', 'early', 'p1'), link('fork', 'held', 'p2'), link('handoff', 'plain')];
    const rows = t.rows({ machinery: true, links }).rows;
    const marked = markers(rows).map((m) => m.sid);
    expect(marked).toEqual(['held', 'plain']);
    // The one it holds follows its item; the one that names none is at the end, after the gaps.
    const held = rows.findIndex((r) => r.kind === 'link' && r.link.to.sid === 'held');
    expect(rows[held - 1]).toMatchObject({ kind: 'item', item: { uuid: 'p2' } });
    expect(rows.at(-1)).toMatchObject({ kind: 'link', link: { to: { sid: 'plain' } } });
  });

  it('keeps only the links that left this session, not those that came into it', () => {
    const into: SessionLink = { ...link('handoff', SID), from: { agent: 'codex', sid: 'elsewhere' } };
    expect(outgoingLinks([link('fork', 'f', 'p1'), into], SID).map((l) => l.to.sid)).toEqual(['f']);
  });
});
