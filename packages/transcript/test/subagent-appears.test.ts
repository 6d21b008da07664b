// A subagent's file that comes to light after the call that spawned it was read (a followed session
// whose subagent starts writing, or a copy that brings its subagents later): the spawning lane's
// items are brought up to date in place, not classified again, and every lane's items, down to
// the order of their fields, are those of the same files read whole.
import { describe, expect, it } from 'vitest';
import {
  type Classification,
  classifyTranscript,
  IncrementalItems,
  openSession,
  type SourceFile,
  type Transcript,
  Translator,
} from '../src/index.js';
import { finishTranscript } from '../src/load.js';
import { corpus, corpusPath } from './corpus.js';
import { corpusPlatform } from './homes.js';

const SESSIONS = ['4d5611e5-241a-462a-8d15-5122611a9569', 'fa812bfe-b295-4cca-9c2f-fdf01028cb46'];
/** The session as written, and with the spawning calls' results naming no agent: then only the
 * lane tells the brief's answer whose it is. */
const CASES = SESSIONS.flatMap((sid) => [
  [sid, 'as written'],
  [sid, 'results naming no agent'],
]) as [string, string][];

function withoutResultAgents(file: SourceFile): SourceFile {
  const text = Buffer.from(file.data).toString('utf8');
  const lines = text
    .split('\n')
    .map((line) =>
      line.includes('"toolUseResult"')
        ? line.replace(/,"agentId":"[^"]*"/g, '').replace(/"agentId":"[^"]*",/g, '')
        : line,
    );
  return { ...file, data: Buffer.from(lines.join('\n')) };
}
const CUTS = 24;

const itemsJson = (c: readonly { laneId: string; classification: Classification }[]) =>
  JSON.stringify(c.map((l) => [l.laneId, l.classification.items]));

function wholeItems(t: Transcript): string {
  return itemsJson(
    t.agents.flatMap((lane) => {
      const c = classifyTranscript(t, lane.parentId === undefined ? {} : { agentId: lane.id });
      return c.ok ? [{ laneId: c.value.subject.id, classification: c.value }] : [];
    }),
  );
}

/** The byte offsets after each line of `data`. */
function lineEnds(data: Uint8Array): number[] {
  const ends: number[] = [];
  for (let at = data.indexOf(10); at !== -1; at = data.indexOf(10, at + 1)) ends.push(at + 1);
  return ends;
}

describe.skipIf(!corpus)('a subagent whose file appears after its spawn was read', () => {
  it.each(CASES)('patches the spawning lane in place at every cut of %s, %s', async (sid, variant) => {
    const path = corpusPath('claude', 'projects', '-work-spotter', `${sid}.jsonl`);
    const opened = await openSession(corpusPlatform(), { agent: 'claude-code', path });
    if (!opened.ok) throw new Error(opened.error.message);
    const { adapter, files } = opened.value;
    expect(files.length, 'the session has subagent files').toBeGreaterThan(1);
    const [written, ...subs] = files as [SourceFile, ...SourceFile[]];
    const main = variant === 'as written' ? written : withoutResultAgents(written);
    expect(main.data.length <= written.data.length).toBe(true);
    const ends = lineEnds(main.data);
    let briefsLinked = 0;
    for (let k = 1; k <= CUTS; k++) {
      const cut = ends[Math.round((k * ends.length) / CUTS) - 1]!;
      const mainCut = { ...main, data: main.data.subarray(0, cut) };
      const translator = new Translator(adapter);
      const items = new IncrementalItems();
      let mainItemsBefore: unknown;
      for (const [step, now] of [[mainCut], [mainCut, ...subs], [main, ...subs]].entries()) {
        mainItemsBefore = items.all(translator.snapshot())[0]?.classification.items;
        const pushed = translator.push(now);
        if (!pushed.ok) throw new Error(pushed.error.message);
        const t = translator.snapshot();
        const change = items.update(t, pushed.value);
        const where = `cut ${k} (byte ${cut}), step ${step}`;
        const once = adapter.translate(now);
        if (!once.ok) throw new Error(once.error.message);
        expect(itemsJson(items.all(t)), where).toBe(wholeItems(finishTranscript(adapter.id, once.value)));
        if (step !== 1) continue;
        // The subagents came to light: their lanes are new; the main lane keeps its items, the
        // very list, not one of a classification started again.
        expect(pushed.value.rewritten, where).toBe(false);
        expect(change.reread.size, where).toBe(0);
        const mainLane = items.all(t)[0]!;
        expect(mainLane.classification.items, where).toBe(mainItemsBefore);
        for (const lane of items.all(t).slice(1)) expect(change.firstNew.get(lane.laneId), where).toBe(0);
        briefsLinked += mainLane.classification.items.filter(
          (i) =>
            i.type === 'message:sub:out' &&
            t.agents.some((a) => a.id === (i as { agent_id?: string }).agent_id),
        ).length;
      }
    }
    // Some cuts fall after a spawn: there the main lane's brief learned its subagent in place.
    expect(briefsLinked).toBeGreaterThan(0);
  });
});
