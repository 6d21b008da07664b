// Incremental translation gives what whole translation gives: every corpus session is fed to a
// Translator one record at a time (records of a session's files interleaved by their times, as an
// agent writes them), and at each cut the events, the items of every lane and the summary equal
// those of the same bytes read whole. Sessions up to 1,000 records are cut at every record; longer
// ones at 100 evenly spread cuts and at every one of their last 40 records. An adapter without an
// incremental translation reads the session whole on every push, so it is pushed at fewer cuts
// (every record up to 100, else 40 spread and the last 10).
import { describe, expect, it } from 'vitest';
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
import { corpus } from './corpus.js';
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
      if (adapter.id === 'claude-code' && files.length === 1) expect(rewrites).toBe(1);
      if (adapter.id === 'codex')
        expect(rewrites, `${rewrites} rewrites`).toBeLessThanOrEqual(4 + records.length / 20);
    },
    // Up to ten seconds a session on a quiet machine; the limit leaves room for a busy one.
    180_000,
  );

  it('saw pushes that only mark earlier messages in sessions of both JSONL agents', () => {
    expect([...markedAgents].sort()).toEqual(['claude-code', 'codex']);
  });
});
