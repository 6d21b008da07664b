// Every session of the corpus, classified from every lane's side: items that validate against the
// contract, calls and results linked both ways, and no event lost.
import { matches, TranscriptItem, validate } from '@cairn/protocol';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  BOOKKEEPING_EVENTS,
  type Classification,
  classifyTranscript,
  foldTranscript,
  listSessions,
  loadTranscript,
  type Transcript,
} from '../../src/index.js';
import { corpus, corpusPath } from '../corpus.js';
import { corpusPlatform } from '../homes.js';

type Fields = Record<string, unknown>;

const SPOTTER = corpusPath('claude/projects/-work-spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl');

describe.skipIf(!corpus)('classifying the corpus', () => {
  const platform = corpusPlatform();
  const transcripts = new Map<string, Transcript>();
  /** Per session, the classification of each lane (main lane first). */
  const byLane = new Map<string, Classification[]>();

  beforeAll(async () => {
    for await (const head of listSessions(platform)) {
      if ('ref' in head) throw new Error(head.error.message);
      const loaded = await loadTranscript(platform, { path: head.path, agent: head.agent });
      if (!loaded.ok) throw new Error(loaded.error.message);
      transcripts.set(head.path, loaded.value);
      const lanes: Classification[] = [];
      for (const lane of loaded.value.agents) {
        const c = classifyTranscript(loaded.value, lane.parentId === undefined ? {} : { agentId: lane.id });
        if (!c.ok) throw new Error(c.error.message);
        lanes.push(c.value);
      }
      byLane.set(head.path, lanes);
    }
  });

  it('reads sessions of all three agents', () => {
    expect(new Set([...transcripts.values()].map((t) => t.agent))).toEqual(
      new Set(['claude-code', 'codex', 'gemini-cli']),
    );
  });

  it('makes only items that validate against the contract, each with a pointer to its record', () => {
    let n = 0;
    for (const lanes of byLane.values())
      for (const c of lanes)
        for (const item of c.items) {
          n++;
          if (!matches(TranscriptItem, item)) {
            const why = validate(TranscriptItem, item);
            throw new Error(`${JSON.stringify(item).slice(0, 300)}: ${why.ok ? '' : why.error.message}`);
          }
          expect(item.source?.line).toBeGreaterThan(0);
          expect(Number.isInteger(item.at)).toBe(true);
        }
    expect(n).toBeGreaterThan(1000);
  });

  it('gives every item of a lane its own uuid', () => {
    for (const lanes of byLane.values())
      for (const c of lanes) {
        const uuids = c.items.map((i) => i.uuid);
        expect(new Set(uuids).size).toBe(uuids.length);
      }
  });

  it('links every call with a result both ways', () => {
    let linked = 0;
    for (const lanes of byLane.values())
      for (const c of lanes) {
        const byUuid = new Map(c.items.map((i) => [i.uuid, i as Fields]));
        const answered = new Set<string>();
        for (const item of c.items as Fields[]) {
          if (item.role !== 'result') continue;
          const use = byUuid.get(item.parent_item as string);
          expect(use?.role, String(item.uuid)).toBe('use');
          expect(use?.type).toBe(item.type === 'message:sub:in' ? 'message:sub:out' : item.type);
          answered.add(item.parent_item as string);
        }
        for (const item of c.items as Fields[]) {
          if (item.role !== 'use') continue;
          if (answered.has(item.uuid as string)) {
            const result = byUuid.get(item.result_item as string);
            expect(result?.parent_item, String(item.uuid)).toBe(item.uuid);
            linked++;
          } else expect(item.result_item).toBeUndefined();
        }
      }
    expect(linked).toBeGreaterThan(500);
  });

  it('puts every event in some item or in the documented bookkeeping list', () => {
    const reasons = new Set(BOOKKEEPING_EVENTS.map((r) => r.reason));
    reasons.add('mirrors the spawning call, which is the tool item');
    for (const [path, t] of transcripts) {
      const placed = new Set<string>();
      for (const c of byLane.get(path)!) {
        for (const e of c.sources) placed.add(e.id);
        for (const b of c.bookkept) {
          expect(reasons.has(b.reason), b.reason).toBe(true);
          placed.add(b.event.id);
        }
      }
      const missing = t.events.filter((e) => !placed.has(e.id));
      expect(
        missing.map((e) => `${e.kind} ${e.id}`),
        path,
      ).toEqual([]);
    }
  });

  it('numbers turns as the summary counts them: one per prompt of the main lane', () => {
    for (const [path, t] of transcripts) {
      const main = byLane.get(path)![0]!;
      const last = Math.max(0, ...main.items.map((i) => i.turn ?? 0));
      expect(last, path).toBe(foldTranscript(t).turns);
    }
  });

  it('counts per type add up to the items', () => {
    for (const lanes of byLane.values())
      for (const c of lanes) {
        const counts: Record<string, number> = {};
        for (const i of c.items) counts[i.type] = (counts[i.type] ?? 0) + 1;
        expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(c.items.length);
      }
  });

  it('reads a Claude Code session: prompts, tools by their own names, an agent spawn, a compaction, hooks', () => {
    const [main] = byLane.get(SPOTTER)!;
    const types = new Map<string, number>();
    for (const i of main!.items) types.set(i.type, (types.get(i.type) ?? 0) + 1);
    expect(types.get('message:user:in')).toBe(2);
    expect(types.get('tool:Bash')).toBe(134);
    expect(types.get('tool:Agent')).toBe(2);
    expect(types.get('message:sub:out')).toBe(1);
    expect(types.get('message:sub:in')).toBe(1);
    expect(types.get('system:compact')).toBeGreaterThanOrEqual(1);
    expect(types.get('hook:Stop')).toBe(12);
    expect(types.get('system:task')).toBe(1);
    const spawn = main!.items.find((i) => i.type === 'message:sub:out') as Fields;
    expect(spawn.agent_id).toBe('a2898e3');
    const last = main!.items.at(-1)!;
    expect(last.turn).toBe(2);
  });

  it('flags the result of every call the agent recorded as failed: as many as the summary counts', () => {
    /** A tool result saying its call failed, in `ok` where its type has one, else in `is_error`. */
    const failed = (i: Fields) =>
      i.role === 'result' && String(i.type).startsWith('tool:') && (i.is_error === true || i.ok === false);
    const inSpotter = byLane.get(SPOTTER)!.flatMap((c) => c.items as Fields[]);
    expect(foldTranscript(transcripts.get(SPOTTER)!).failedTools).toBe(13);
    expect(inSpotter.filter(failed)).toHaveLength(13);
    // A failed shell call keeps its error text, and a typed result with `ok` carries no second flag.
    expect(
      inSpotter.some((i) => i.type === 'tool:Bash' && i.is_error === true && typeof i.stderr === 'string'),
    ).toBe(true);
    for (const i of inSpotter) if ('ok' in i) expect(i.is_error).toBeUndefined();
    for (const [path, lanes] of byLane) {
      const flagged = lanes.flatMap((c) => c.items as Fields[]).filter(failed).length;
      expect(flagged, path).toBe(foldTranscript(transcripts.get(path)!).failedTools);
    }
  });

  it('reads a subagent from its own side: its brief is message:user:in, its answer message:user:out', () => {
    const [main, sub] = byLane.get(SPOTTER)!;
    expect(sub!.subject.id).toBe('a2898e3');
    const spawn = main!.items.find((i) => i.type === 'message:sub:out') as Fields;
    const answer = main!.items.find((i) => i.type === 'message:sub:in') as Fields;
    const brief = sub!.items.find((i) => i.type === 'message:user:in') as Fields;
    expect(brief.text).toBe(spawn.prompt);
    const outs = sub!.items.filter((i) => i.type === 'message:user:out') as Fields[];
    expect(String(answer.text)).toContain(String(outs.at(-1)!.text).slice(0, 200));
    expect(sub!.items.some((i) => i.type === 'tool:Read')).toBe(true);
  });

  it('keeps Codex and Gemini CLI tool names as the agents spell them', () => {
    const all = new Set<string>();
    for (const [path, t] of transcripts) {
      if (t.agent === 'claude-code') continue;
      for (const i of byLane.get(path)![0]!.items) all.add(i.type);
    }
    for (const name of [
      'tool:exec_command',
      'tool:apply_patch',
      'tool:update_plan',
      'tool:write_file',
      'tool:replace',
    ])
      expect(all.has(name), name).toBe(true);
  });
});
