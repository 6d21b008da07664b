// Incremental translation gives what whole translation gives: every corpus session is fed to a
// Translator one record at a time (records of a session's files interleaved by their times, as an
// agent writes them), and at each cut the events, the items of every lane and the summary equal
// those of the same bytes read whole. Sessions up to 1,000 records are cut at every record; longer
// ones at 100 evenly spread cuts and at every one of their last 40 records. An adapter without an
// incremental translation reads the session whole on every push, so it is pushed at fewer cuts
// (every record up to 100, else 40 spread and the last 10).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copilotCliAdapter } from '../src/adapters/copilot-cli/index.js';
import { piAdapter } from '../src/adapters/pi/index.js';
import { qwenCodeAdapter } from '../src/adapters/qwen-code/index.js';
import {
  type Classification,
  classifyTranscript,
  foldTranscript,
  IncrementalItems,
  listSessions,
  openSession,
  type SessionAdapter,
  type SessionHead,
  type SourceFile,
  SummaryFold,
  type Transcript,
  type TranscriptEvent,
  Translator,
} from '../src/index.js';
import { finishTranscript } from '../src/load.js';
import { corpus, corpusPath } from './corpus.js';
import { corpusPlatform } from './homes.js';

interface CutRecord {
  file: number;
  /** The file's length once this record is in. */
  end: number;
}

/** A session's records in the order an agent writes them: each file's lines in order, files
 * interleaved by the records' times (a record without one follows its predecessor). */
function recordsOf(files: readonly SourceFile[]): CutRecord[] {
  if (files.some((f) => !f.path.endsWith('.jsonl'))) return [{ file: 0, end: files[0]!.data.length }];
  const perFile = files.map((f, file) => {
    const out: (CutRecord & { at: number })[] = [];
    let at = Number.NEGATIVE_INFINITY;
    let start = 0;
    while (start < f.data.length) {
      const nl = f.data.indexOf(10, start);
      const end = nl === -1 ? f.data.length : nl + 1;
      const text = Buffer.from(f.data.subarray(start, end)).toString('utf8');
      const ts = /"timestamp":"([^"]+)"/.exec(text)?.[1];
      const t = ts === undefined ? Number.NaN : Date.parse(ts);
      if (!Number.isNaN(t)) at = t;
      out.push({ file, end, at });
      start = end;
    }
    return out;
  });
  // Each file keeps its order; the file whose next record is earliest goes next.
  const at = perFile.map(() => 0);
  const out: CutRecord[] = [];
  for (;;) {
    let best = -1;
    for (const [file, list] of perFile.entries()) {
      const next = list[at[file]!];
      if (next && (best === -1 || next.at < perFile[best]![at[best]!]!.at)) best = file;
    }
    if (best === -1) break;
    const r = perFile[best]![at[best]!]!;
    at[best]!++;
    out.push({ file: r.file, end: r.end });
  }
  return out;
}

/** The files as they stand after `count` records: each cut to what it holds, files not begun left out. */
function filesAt(files: readonly SourceFile[], ends: readonly number[]): SourceFile[] {
  const out: SourceFile[] = [];
  files.forEach((f, i) => {
    if (i === 0 || (ends[i] ?? 0) > 0) out.push({ ...f, data: f.data.subarray(0, ends[i] ?? 0) });
  });
  return out;
}

function cutsOf(n: number, incremental: boolean): Set<number> {
  const cuts = new Set<number>();
  const [every, spread, last] = incremental ? [1000, 100, 40] : [100, 40, 10];
  if (n <= every) for (let k = 1; k <= n; k++) cuts.add(k);
  else {
    for (let j = 1; j <= spread; j++) cuts.add(Math.round((j * n) / spread));
    for (let k = n - last; k <= n; k++) cuts.add(k);
  }
  return cuts;
}

const itemsJson = (c: readonly { laneId: string; classification: Classification }[]) =>
  JSON.stringify(c.map((l) => [l.laneId, l.classification.items]));

function wholeItems(t: Transcript): string {
  const lanes = t.agents.length > 0 ? t.agents : [undefined];
  return itemsJson(
    lanes.flatMap((lane) => {
      const isMain = lane === undefined || lane.parentId === undefined;
      const c = classifyTranscript(t, isMain ? {} : { agentId: lane.id });
      return c.ok ? [{ laneId: c.value.subject.id, classification: c.value }] : [];
    }),
  );
}

function whole(adapter: SessionAdapter, files: readonly SourceFile[]): Transcript {
  const t = adapter.translate(files);
  if (!t.ok) throw new Error(t.error.message);
  return finishTranscript(adapter.id, t.value);
}

async function corpusSessions(): Promise<SessionHead[]> {
  const heads: SessionHead[] = [];
  for await (const e of listSessions(corpusPlatform())) if (!('ref' in e)) heads.push(e);
  return heads;
}

const heads = corpus ? await corpusSessions() : [];
/** Agents whose sessions had a push that only marked earlier messages (a compaction's shadow). */
const markedAgents = new Set<string>();

/**
 * Feeds `files` to a Translator a record at a time and checks, at each of the cuts, the events,
 * items and summary against a whole read of the same bytes; answers the records and how many
 * pushes translated the session again from its start.
 */
function cutsMatchWhole(
  adapter: SessionAdapter,
  files: readonly SourceFile[],
): { records: number; rewrites: number } {
  const records = recordsOf(files);
  const cuts = cutsOf(records.length, adapter.incremental !== undefined);
  const translator = new Translator(adapter);
  const items = new IncrementalItems();
  const fold = new SummaryFold();
  const ends = files.map(() => 0);
  let rewrites = 0;
  let marked = 0;
  let markedRereads = 0;
  for (const [k, r] of records.entries()) {
    ends[r.file] = r.end;
    if (!adapter.incremental && !cuts.has(k + 1)) continue;
    const now = filesAt(files, ends);
    const pushed = translator.push(now);
    if (!pushed.ok) throw new Error(pushed.error.message);
    if (pushed.value.rewritten) rewrites++;
    const t = translator.snapshot();
    const change = items.update(t, pushed.value);
    fold.update(t, pushed.value);
    // Messages or results that only gained a mark (a compaction's shadow) change no item: no
    // lane is read again for them.
    const { updated, revised, rewritten } = pushed.value;
    const isMessage = (e: TranscriptEvent) => e.kind === 'user' || e.kind === 'tool_result';
    if (!rewritten && updated.some(isMessage) && !revised.some(isMessage)) {
      marked++;
      if (change.reread.size > 0) markedRereads++;
    }
    if (!cuts.has(k + 1)) continue;
    const w = whole(adapter, now);
    const where = `after ${k + 1} of ${records.length} records`;
    expect(JSON.stringify(t.events), where).toBe(JSON.stringify(w.events));
    expect(JSON.stringify(t.agents), where).toBe(JSON.stringify(w.agents));
    expect(JSON.stringify(t.session), where).toBe(JSON.stringify(w.session));
    expect(t.capabilities, where).toEqual(w.capabilities);
    expect(t.skipped, where).toEqual(w.skipped);
    expect(itemsJson(items.all(t)), where).toBe(wholeItems(w));
    expect(fold.summary(t), where).toEqual(foldTranscript(w, { prompts: true }));
  }
  // A JSONL session is read from where the last push stopped, not again from the start: a
  // Claude Code file never again, a rollout again only where a record changes earlier ones
  // beyond a patch (the first prompt after injected messages, a prompt paired with the record after it).
  expect(markedRereads, `${markedRereads} of ${marked} marking pushes read a lane again`).toBe(0);
  if (marked > 0) markedAgents.add(adapter.id);
  return { records: records.length, rewrites };
}

describe.skipIf(!corpus)('incremental translation', () => {
  it('covers every agent of the corpus', () => {
    expect(heads.length).toBeGreaterThanOrEqual(8);
    expect([...new Set(heads.map((h) => h.agent))].sort()).toEqual(['claude-code', 'codex', 'gemini-cli']);
  });

  it.each(heads.map((h) => [h.path.slice(h.path.lastIndexOf('/') + 1), h] as const))(
    'gives the events, items and summary of a whole read at every cut of %s',
    async (_name, head) => {
      const platform = corpusPlatform();
      const opened = await openSession(platform, { agent: head.agent, path: head.path });
      if (!opened.ok) throw new Error(opened.error.message);
      const { adapter, files } = opened.value;
      const { records, rewrites } = cutsMatchWhole(adapter, files);
      if (adapter.id === 'claude-code' && files.length === 1) expect(rewrites).toBe(1);
      if (adapter.id === 'codex')
        expect(rewrites, `${rewrites} rewrites`).toBeLessThanOrEqual(4 + records / 20);
    },
    // Up to ten seconds a session on a quiet machine; the limit leaves room for a busy one.
    180_000,
  );

  it('saw pushes that only mark earlier messages in sessions of both JSONL agents', () => {
    expect([...markedAgents].sort()).toEqual(['claude-code', 'codex']);
  });
});

/**
 * A long pi session of what its entries can hold: turns with thinking, text and tool calls and
 * their results, `!` commands, a branch back to an earlier entry, compactions keeping part of the
 * path, an entry written twice byte for byte, one id written again with other bytes, a line that
 * does not parse and an entry type pi does not have.
 */
function longPiSession(turns: number): string {
  const lines: unknown[] = [
    {
      type: 'session',
      version: 3,
      id: '019e19b4-eb48-746a-aa6b-8dfcfa37954b',
      timestamp: at(0),
      cwd: '/w/p',
    },
  ];
  let parent: string | null = null;
  let n = 0;
  function add(entry: Record<string, unknown>): string {
    const id = `e${++n}`;
    lines.push({ ...entry, id, parentId: parent, timestamp: at(n) });
    parent = id;
    return id;
  }
  add({ type: 'model_change', provider: 'fake', modelId: 'fake-1' });
  const turnStarts: string[] = [];
  for (let turn = 0; turn < turns; turn++) {
    turnStarts.push(
      add({ type: 'message', message: { role: 'user', content: [{ type: 'text', text: `turn ${turn}` }] } }),
    );
    add({
      type: 'message',
      message: {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: `thinking about ${turn}` },
          { type: 'text', text: `reading ${turn}` },
          { type: 'toolCall', id: `call-${turn}`, name: 'read', arguments: { path: `f${turn}.txt` } },
        ],
        model: 'fake-1',
        usage: { input: 10 + turn, output: 5, cacheRead: 2, cacheWrite: 0, cost: { total: 0.001 } },
        stopReason: 'toolUse',
      },
    });
    add({
      type: 'message',
      message: {
        role: 'toolResult',
        toolCallId: `call-${turn}`,
        toolName: 'read',
        content: [{ type: 'text', text: `body ${turn}` }],
      },
    });
    if (turn % 7 === 3)
      add({
        type: 'message',
        message: { role: 'bashExecution', command: 'ls', output: 'a\nb', exitCode: 0 },
      });
    if (turn % 11 === 5) {
      // Back to an earlier point: the next entry's parent is the turn before's first.
      parent = turnStarts[turn - 1] ?? parent;
      add({ type: 'branch_summary', summary: `left turn ${turn}`, fromId: turnStarts[turn] });
    }
    if (turn % 13 === 9)
      add({
        type: 'compaction',
        summary: `up to ${turn}`,
        firstKeptEntryId: turnStarts[turn - 1],
        tokensBefore: 1000 + turn,
      });
    if (turn === 20) lines.push(lines.at(-1));
    if (turn === 30) lines.push({ ...(lines.at(-1) as object), timestamp: at(n + 0.5) });
    if (turn === 40) lines.push('{"type":"message",');
    if (turn === 50) add({ type: 'what_is_this', data: 1 });
    if (turn === 60) add({ type: 'session_info', name: 'a long one' });
  }
  return `${lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n')}\n`;
}

function at(n: number): string {
  return new Date(Date.UTC(2026, 4, 12, 1, 0, 0) + n * 1000).toISOString();
}

describe.skipIf(!corpus)('incremental translation of a pi session', () => {
  const path =
    '/home/dev/.pi/agent/sessions/--w-p--/2026-05-12T01-00-00-000Z_019e19b4-eb48-746a-aa6b-8dfcfa37954b.jsonl';
  it.each([
    ['the corpus session', () => readFileSync(corpusPath('more', 'pi', 'small.jsonl')), false],
    ['a long one with branches, compactions, repeats and damage', () => Buffer.from(longPiSession(80)), true],
  ] as const)(
    'gives the events, items and summary of a whole read at every cut of %s, reading each line once',
    (_name, bytes, marks) => {
      markedAgents.delete('pi');
      const data = bytes();
      if (marks) {
        // The session holds what it says it does.
        const w = whole(piAdapter, [{ path, data }]);
        const kinds = new Set(w.events.map((e) => e.kind));
        for (const kind of ['reasoning', 'tool_call', 'tool_result', 'compaction', 'unknown'] as const)
          expect(kinds.has(kind), kind).toBe(true);
        expect(w.events.filter((e) => e.shadowedBy !== undefined).length).toBeGreaterThan(20);
        expect(w.skipped.map((r) => r.reason)).toEqual([
          expect.stringMatching(/^repeats entry e\d+ of line \d+ byte for byte$/),
          expect.any(String),
        ]);
        expect(w.session.title).toBe('a long one');
      }
      const { records, rewrites } = cutsMatchWhole(piAdapter, [{ path, data }]);
      expect(records).toBeGreaterThan(8);
      // The first push alone read from the start.
      expect(rewrites).toBe(1);
      // A compaction's shadow on messages read before it is a mark, not a reason to read again.
      expect(markedAgents.has('pi')).toBe(marks);
    },
    180_000,
  );
});

describe.skipIf(!corpus)('incremental translation of a Qwen Code session', () => {
  const dir = corpus ? corpusPath('more', 'qwen') : '';
  const files = corpus
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.jsonl'))
        .map((name) => join(dir, name))
    : [];
  it('has sessions to read', () => expect(files.length).toBeGreaterThanOrEqual(5));
  it.each(files.map((path) => [path.slice(path.lastIndexOf('/') + 1), path] as const))(
    'gives the events, items and summary of a whole read at every cut of %s, reading each line once',
    (_name, path) => {
      const { records, rewrites } = cutsMatchWhole(qwenCodeAdapter, [{ path, data: readFileSync(path) }]);
      expect(records).toBeGreaterThanOrEqual(1);
      // The first push alone read from the start, unless the session is named by a later record.
      expect(rewrites).toBeLessThanOrEqual(2);
    },
    180_000,
  );

  it('reads glued records on a line past the first read as a whole read does', () => {
    // Records of three sessions in one file: a line of glued records comes after the first push.
    const names = [
      '019f0000-0000-7000-8000-000000000004.jsonl',
      '019f0000-0000-7000-8000-000000000005.jsonl',
    ];
    const data = Buffer.concat(names.map((name) => readFileSync(join(dir, name))));
    const path = join(dir, '019f0000-0000-7000-8000-000000000001.jsonl');
    const { records, rewrites } = cutsMatchWhole(qwenCodeAdapter, [{ path, data }]);
    expect(records).toBe(10);
    expect(rewrites).toBe(1);
  });
});

describe.skipIf(!corpus)('incremental translation of a Copilot CLI session', () => {
  const dir = corpus ? corpusPath('more', 'copilot') : '';
  const files = corpus
    ? [
        ...readdirSync(dir)
          .filter((name) => name.endsWith('.jsonl'))
          .map((name) => join(dir, name)),
        join(dir, 'subdir_v1', 'aaaabbbb-1111-2222-3333-ccccddddeeee', 'events.jsonl'),
      ]
    : [];
  const lines = () => readFileSync(join(dir, 'small.jsonl'), 'utf8').split(/(?<=\n)/);
  const at = (all: string[], type: string) => all.findIndex((l) => l.includes(`"type":"${type}"`));

  it('has sessions to read', () => expect(files.length).toBeGreaterThanOrEqual(4));
  it.each(files.map((path) => [path.slice(dir.length + 1), path] as const))(
    'gives the events, items and summary of a whole read at every cut of %s, reading each line once',
    (_name, path) => {
      const { records, rewrites } = cutsMatchWhole(copilotCliAdapter, [{ path, data: readFileSync(path) }]);
      expect(records).toBeGreaterThanOrEqual(5);
      // The first push alone read from the start, and in schema_drift the message that asks for a
      // call an execution start written before it already made.
      expect(rewrites).toBe(path.endsWith('schema_drift.jsonl') ? 2 : 1);
    },
    180_000,
  );

  it('reads the file again when a message asks for a call an execution start already made', () => {
    // The start of the call before the message that asks for it: read alone, the start is the call.
    const all = lines();
    const message = at(all, 'assistant.message');
    const [asking] = all.splice(message, 1);
    all.splice(at(all, 'tool.execution_start') + 1, 0, asking!);
    const path = join(dir, 'small.jsonl');
    const { rewrites } = cutsMatchWhole(copilotCliAdapter, [{ path, data: Buffer.from(all.join('')) }]);
    expect(rewrites).toBe(2);
  });

  it('takes the usage of an earlier shutdown written again, in place', () => {
    const all = lines();
    const shutdown = all[at(all, 'session.shutdown')]!;
    const path = join(dir, 'small.jsonl');
    const data = Buffer.from(all.join('') + shutdown);
    const translator = new Translator(copilotCliAdapter);
    const { records } = cutsMatchWhole(copilotCliAdapter, [{ path, data }]);
    expect(records).toBe(all.length + 1);
    // Pushed in two: the second shutdown supersedes the first one's requests.
    const first = Buffer.from(all.join(''));
    translator.push([{ path, data: first }]);
    const pushed = translator.push([{ path, data }]);
    if (!pushed.ok) throw new Error(pushed.error.message);
    expect(pushed.value.rewritten).toBe(false);
    const superseded = pushed.value.updated.filter((e) => e.kind === 'request');
    expect(superseded.length).toBeGreaterThan(0);
    expect(superseded.every((e) => e.kind === 'request' && e.payload.superseded !== undefined)).toBe(true);
    expect(pushed.value.revised).toEqual(pushed.value.updated);
  });
});
