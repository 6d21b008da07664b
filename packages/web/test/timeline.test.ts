// The timeline model over the items the transcript library classifies from real corpus sessions: calls
// drawn with their results, spawns with their lanes, pointers that find each item again. And the
// line diff, the patch reader and the hash routes the views rely on.
import type { TranscriptItem } from '@cairn/protocol';
import {
  classifyTranscript,
  foldTranscript,
  listSessions,
  loadTranscript,
  type SessionHead,
} from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { corpusPlatform } from '../../transcript/test/homes.js';
import { formatRoute, parseRoute } from '../src/route.js';
import { diffLines, parsePatch } from '../src/timeline/diff.js';
import { MAIN_LANE, Timeline } from '../src/timeline/model.js';

interface CorpusSession {
  head: SessionHead;
  items: TranscriptItem[];
  lanes: Map<string, TranscriptItem[]>;
  /** The library's summary count of calls recorded as failed, every lane included. */
  failedTools: number;
}

async function corpusItems(): Promise<CorpusSession[]> {
  const platform = corpusPlatform();
  const out: CorpusSession[] = [];
  for await (const entry of listSessions(platform)) {
    if ('ref' in entry) continue;
    const loaded = await loadTranscript(platform, {
      agent: entry.agent,
      path: entry.path,
      sessionId: entry.id,
    });
    if (!loaded.ok) continue;
    const main = classifyTranscript(loaded.value);
    if (!main.ok) continue;
    const lanes = new Map<string, TranscriptItem[]>();
    for (const lane of loaded.value.agents) {
      if (lane.parentId === undefined) continue;
      const sub = classifyTranscript(loaded.value, { agentId: lane.id });
      if (sub.ok) lanes.set(lane.id, sub.value.items);
    }
    const failedTools = foldTranscript(loaded.value).failedTools ?? 0;
    out.push({ head: entry, items: main.value.items, lanes, failedTools });
  }
  return out;
}

describe.skipIf(!corpus)('the timeline over corpus sessions', () => {
  it('draws every answered call with its result in one row, and every item in exactly one row', async () => {
    const sessions = await corpusItems();
    expect(sessions.length).toBeGreaterThan(5);
    let paired = 0;
    for (const { items } of sessions) {
      const t = new Timeline();
      t.append(MAIN_LANE, items);
      const { rows, rowOf } = t.rows({ machinery: true });
      // Every item is drawn by some row.
      for (let i = 0; i < items.length; i++) expect(rowOf.has(`${MAIN_LANE}#${i}`)).toBe(true);
      for (const row of rows) {
        if (row.kind !== 'item' || row.item.type.startsWith('message:sub')) continue;
        const resultUuid = (row.item as { result_item?: string }).result_item;
        if (resultUuid === undefined || !row.item.type.startsWith('tool:')) continue;
        const result = items.find(
          (i) =>
            i.uuid === resultUuid &&
            (i as { tool_use_id?: string }).tool_use_id ===
              (row.item as { tool_use_id?: string }).tool_use_id,
        );
        if (!result) continue;
        expect(row.result).toBe(result);
        paired++;
      }
      // A result folded into its call has no row of its own.
      const drawn = rows
        .filter((r) => r.kind === 'item')
        .map((r) => (r.kind === 'item' ? r.item : undefined));
      for (const r of rows) if (r.kind === 'item' && r.result) expect(drawn).not.toContain(r.result);
    }
    expect(paired).toBeGreaterThan(100);
  });

  it("keys a page read from the middle of a session as the whole session's rows, so one stands for the other", async () => {
    const sessions = await corpusItems();
    const spotter = sessions.find((s) => s.head.id === 'fa812bfe-b295-4cca-9c2f-fdf01028cb46')!;
    const whole = new Timeline();
    whole.append(MAIN_LANE, spotter.items);
    const wholeRows = whole.rows({ machinery: true });
    const at = Math.floor(spotter.items.length / 2);
    const page = new Timeline();
    page.append(MAIN_LANE, spotter.items.slice(0, 10));
    page.replaceLane(MAIN_LANE, spotter.items.slice(at, at + 300), at);
    expect(page.items(MAIN_LANE)).toHaveLength(300);
    expect(page.baseOf(MAIN_LANE)).toBe(at);
    const { rows } = page.rows({ machinery: true });
    // Every row of the page is the whole session's row of the same key, but for a result whose call
    // came before the page (drawn on its own there, folded into its call in the whole).
    let same = 0;
    for (const row of rows) {
      if (row.kind !== 'item') continue;
      const there = wholeRows.rows[wholeRows.rowOf.get(row.key)!]!;
      expect(there.kind).toBe('item');
      if (there.key !== row.key) continue;
      expect(there.kind === 'item' && there.item.uuid).toBe(row.item.uuid);
      expect(there.kind === 'item' && there.item.type).toBe(row.item.type);
      same++;
    }
    expect(same).toBeGreaterThan(rows.length * 0.8);
    // An item of the page is found, and keyed, where the whole session has it.
    const probe = spotter.items[at + 120]!;
    const found = page.find({ uuid: probe.uuid, type: probe.type })!;
    const foundWhole = whole.find({ uuid: probe.uuid, type: probe.type })!;
    expect(page.keyOf(found.lane, found.index)).toBe(whole.keyOf(foundWhole.lane, foundWhole.index));
  });

  it('marks as failed the calls the agent recorded as failed, as many as the summary counts', async () => {
    const sessions = await corpusItems();
    const failedRows = ({ items, lanes }: CorpusSession): number => {
      let n = 0;
      for (const laneItems of [items, ...lanes.values()]) {
        const t = new Timeline();
        t.append(MAIN_LANE, laneItems);
        const { rows, errors } = t.rows({ machinery: true });
        const failed = errors
          .map((i) => rows[i]!)
          .filter((r) => r.kind === 'item' && r.item.type !== 'system:api-error');
        n += failed.length;
      }
      return n;
    };
    const spotter = sessions.find((s) => s.head.id === '4d5611e5-241a-462a-8d15-5122611a9569')!;
    expect(spotter.failedTools).toBe(13);
    expect(failedRows(spotter)).toBe(13);
    for (const s of sessions) expect(failedRows(s), s.head.path).toBe(s.failedTools);
  });

  it('draws the hooks that ran around a call on its row, in the order they ran, and no row of their own', async () => {
    const sessions = await corpusItems();
    const spotter = sessions.find((s) => s.head.id === 'fa812bfe-b295-4cca-9c2f-fdf01028cb46')!;
    const t = new Timeline();
    t.append(MAIN_LANE, spotter.items);
    const { rows } = t.rows({ machinery: true });
    const calls = new Set(
      spotter.items
        .filter((i) => (i as { role?: string }).role === 'use')
        .map((i) => (i as { tool_use_id?: string }).tool_use_id),
    );
    const aroundCalls = spotter.items.filter(
      (i) =>
        i.type.startsWith('hook:') &&
        (i as { tool_use_id?: string }).tool_use_id !== undefined &&
        calls.has((i as { tool_use_id?: string }).tool_use_id),
    );
    expect(aroundCalls.length).toBe(428 + 685 + 14);
    let onRows = 0;
    for (const row of rows) {
      if (row.kind !== 'item') continue;
      // No hook that ran around a call is drawn as a row of its own.
      expect(aroundCalls).not.toContain(row.item);
      const call = row.agentCall ?? row.item;
      for (const h of row.hooks)
        expect((h as { tool_use_id?: string }).tool_use_id).toBe(
          (call as { tool_use_id?: string }).tool_use_id,
        );
      const order = row.hooks.map((h) => spotter.items.indexOf(h));
      expect(order).toEqual([...order].sort((a, b) => a - b));
      onRows += row.hooks.length;
    }
    // Every one is on its call's row (a spawn's row carries its agent call's).
    expect(onRows).toBe(aroundCalls.length);
  });

  it('draws a compaction as one row: its boundary with the summary the agent continued from', async () => {
    const sessions = await corpusItems();
    for (const id of ['4d5611e5-241a-462a-8d15-5122611a9569', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46']) {
      const s = sessions.find((x) => x.head.id === id)!;
      const t = new Timeline();
      t.append(MAIN_LANE, s.items);
      const compactRows = t
        .rows({ machinery: true })
        .rows.filter((r) => r.kind === 'item' && r.item.type === 'system:compact');
      expect(compactRows).toHaveLength(1);
      const row = compactRows[0]!;
      expect(row.kind === 'item' && (row.item as { text?: string }).text).toMatch(
        /^context compacted \(auto, \d+ tokens before\)$/,
      );
      expect(row.kind === 'item' && (row.result as { text?: string } | undefined)?.text).toMatch(
        /^This session is being continued from a previous conversation/,
      );
    }
  });

  it('draws a spawn as one row that opens its subagent lane in place', async () => {
    const sessions = await corpusItems();
    const withLanes = sessions.filter((s) => s.items.some((i) => i.type === 'message:sub:out'));
    expect(withLanes.length).toBeGreaterThan(0);
    for (const { items, lanes } of withLanes) {
      const t = new Timeline();
      t.append(MAIN_LANE, items);
      const spawnRows = t
        .rows({ machinery: false })
        .rows.filter((r) => r.kind === 'item' && r.item.type === 'message:sub:out');
      // The tool:Agent call of the same record is drawn in the spawn's row, not beside it.
      const drawn = new Set(
        t.rows({ machinery: false }).rows.map((r) => (r.kind === 'item' ? r.item : undefined)),
      );
      for (const row of spawnRows) {
        if (row.kind !== 'item') continue;
        expect(row.agentCall?.type).toBe('tool:Agent');
        expect(drawn.has(row.agentCall)).toBe(false);
      }
      for (const row of spawnRows) {
        if (row.kind !== 'item' || row.spawns === undefined) continue;
        const laneItems = lanes.get(row.spawns);
        if (!laneItems) continue;
        t.setOpen(row.spawns, true);
        t.append(row.spawns, laneItems);
        const { rows } = t.rows({ machinery: true });
        const at = rows.findIndex((r) => r.key === row.key);
        expect(rows[at + 1]).toMatchObject({ kind: 'lane-start', lane: row.spawns, count: laneItems.length });
        const laneRows = rows.filter((r) => r.kind === 'item' && r.lane === row.spawns);
        expect(laneRows.length).toBeGreaterThan(0);
        expect(laneRows.every((r) => r.depth === 1)).toBe(true);
        t.setOpen(row.spawns, false);
        expect(t.rows({ machinery: true }).rows.some((r) => r.lane === row.spawns)).toBe(false);
      }
    }
  });

  it('finds every item again from the pointer it links with', async () => {
    for (const { items } of await corpusItems()) {
      const t = new Timeline();
      t.append(MAIN_LANE, items);
      items.forEach((item, i) => {
        const ref = t.refOf(MAIN_LANE, i)!;
        expect(ref.uuid).toBe(item.uuid);
        expect(t.find(ref)).toEqual({ lane: MAIN_LANE, index: i });
        const route = parseRoute(
          formatRoute({ view: 'session', agent: 'claude-code', sid: 's', tab: 'timeline', item: ref }),
        );
        expect(route).toMatchObject({ view: 'session', item: ref });
      });
    }
  });
});

describe('hooks on their calls', () => {
  const at = 1;
  const call = { uuid: 'u1', type: 'tool:Edit', at, role: 'use', tool_use_id: 'toolu_1', file_path: '/x' };
  const hook = (uuid: string, fields: Record<string, unknown>) =>
    ({
      uuid,
      type: 'hook:PostToolUse',
      at,
      hook_name: 'PostToolUse:Edit',
      tool_use_id: 'toolu_1',
      ...fields,
    }) as unknown as TranscriptItem;

  it('keeps one entry per hook run: an outcome recorded after the start replaces it', () => {
    const t = new Timeline();
    t.append(MAIN_LANE, [
      call as unknown as TranscriptItem,
      hook('h1', { outcome: 'output', status: 'started', command: 'fmt' }),
      hook('h2', { outcome: 'output', status: 'started', command: 'lint', hook_name: 'PostToolUse:Edit#2' }),
      hook('h3', { outcome: 'output', content: 'formatted', exit_code: 0 }),
    ]);
    const { rows, rowOf } = t.rows({ machinery: true });
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(row.kind === 'item' && row.hooks.map((h) => h.uuid)).toEqual(['h3', 'h2']);
    // Every hook item still leads to the call's row.
    for (let i = 0; i < 4; i++) expect(rowOf.get(`${MAIN_LANE}#${i}`)).toBe(0);
  });

  it('draws a hook of no call of its lane as a row of its own', () => {
    const t = new Timeline();
    t.append(MAIN_LANE, [
      call as unknown as TranscriptItem,
      hook('h9', { tool_use_id: 'toolu_other', outcome: 'output' }),
    ]);
    expect(t.rows({ machinery: true }).rows).toHaveLength(2);
  });
});

describe('line diffs and patches', () => {
  it('keeps unchanged lines and marks what was removed and added', () => {
    const d = diffLines('a\nb\nc\nd', 'a\nB\nc\nd\ne');
    expect(d).toEqual([
      { op: ' ', text: 'a' },
      { op: '-', text: 'b' },
      { op: '+', text: 'B' },
      { op: ' ', text: 'c' },
      { op: ' ', text: 'd' },
      { op: '+', text: 'e' },
    ]);
    expect(diffLines('', 'x')).toEqual([{ op: '+', text: 'x' }]);
    expect(diffLines('x\ny', 'x\ny')).toEqual([
      { op: ' ', text: 'x' },
      { op: ' ', text: 'y' },
    ]);
  });

  it('rebuilds both sides exactly from any diff', () => {
    const before = Array.from({ length: 60 }, (_, i) => `line ${i % 7} ${i % 3}`).join('\n');
    const after = before
      .split('\n')
      .filter((_, i) => i % 5 !== 0)
      .map((l, i) => (i % 9 === 0 ? `${l}!` : l))
      .join('\n');
    const d = diffLines(before, after);
    expect(
      d
        .filter((l) => l.op !== '+')
        .map((l) => l.text)
        .join('\n'),
    ).toBe(before);
    expect(
      d
        .filter((l) => l.op !== '-')
        .map((l) => l.text)
        .join('\n'),
    ).toBe(after);
  });

  it('reads the files of an apply_patch patch', () => {
    const files = parsePatch(
      '*** Begin Patch\n*** Update File: src/a.ts\n@@ fn\n-old\n+new\n keep\n*** Add File: b.md\n+hello\n*** End Patch',
    );
    expect(files).toEqual([
      {
        path: 'src/a.ts',
        action: 'update',
        lines: [
          { op: ' ', text: '@@ fn' },
          { op: '-', text: 'old' },
          { op: '+', text: 'new' },
          { op: ' ', text: 'keep' },
        ],
      },
      { path: 'b.md', action: 'add', lines: [{ op: '+', text: 'hello' }] },
    ]);
  });

  it('reads and writes the routes of every view', () => {
    expect(parseRoute('#/')).toEqual({ view: 'sessions', query: '', tools: false });
    expect(parseRoute('#/?q=a%20b&tools=1&agent=codex')).toEqual({
      view: 'sessions',
      query: 'a b',
      tools: true,
      agent: 'codex',
    });
    expect(parseRoute('#/s/codex/abc/dump')).toEqual({
      view: 'session',
      agent: 'codex',
      sid: 'abc',
      tab: 'dump',
    });
    const r = {
      view: 'session' as const,
      agent: 'claude-code',
      sid: 'x.y',
      tab: 'timeline' as const,
      item: { uuid: 'u#sub', type: 'message:sub:out', lane: 'a1', nth: 2 },
    };
    expect(parseRoute(formatRoute(r))).toEqual(r);
  });
});
