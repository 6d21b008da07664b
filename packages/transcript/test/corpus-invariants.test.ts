// Invariants every adapter keeps on every real session of the corpus, checked through the
// public API: listing, loading, pointers and summaries.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  countLines,
  foldTranscript,
  listSessions,
  loadTranscript,
  readOriginal,
  type SessionHead,
  summarizeSession,
  type Transcript,
} from '../src/index.js';
import { corpus } from './corpus.js';
import { corpusPlatform } from './homes.js';

describe.skipIf(!corpus)('every corpus session', () => {
  const platform = corpusPlatform();
  const heads: SessionHead[] = [];
  const loaded = new Map<string, Transcript>();

  beforeAll(async () => {
    for await (const entry of listSessions(platform)) {
      if ('ref' in entry) throw new Error(`listing failed: ${entry.error.message}`);
      heads.push(entry);
    }
    for (const h of heads) {
      const r = await loadTranscript(platform, { path: h.path, agent: h.agent });
      if (!r.ok) throw new Error(`${h.path}: ${r.error.message}`);
      loaded.set(h.path, r.value);
    }
  });

  it('lists the sessions of all three agents', () => {
    const agents = new Set(heads.map((h) => h.agent));
    expect([...agents].sort()).toEqual(['claude-code', 'codex', 'gemini-cli']);
    expect(heads.filter((h) => h.agent === 'codex')).toHaveLength(4);
    for (const h of heads) {
      expect(h.id).not.toBe('');
      expect(h.size).toBeGreaterThan(0);
      expect(h.files[0]).toBe(h.path);
    }
  });

  it('accounts for every line of every JSONL file by an event or a skipped record', () => {
    for (const [path, t] of loaded) {
      const head = heads.find((h) => h.path === path)!;
      for (const file of head.files.filter((f) => f.endsWith('.jsonl'))) {
        const lines = new Set<number>();
        for (const e of t.events) if (e.source.file === file) lines.add(e.source.line);
        for (const s of t.skipped) if (s.source.file === file) lines.add(s.source.line);
        expect(lines.size, file).toBe(countLines(readFileSync(file)));
      }
    }
  });

  it('reads every pointer back to the exact original bytes', async () => {
    for (const t of loaded.values()) {
      const files = new Map<string, Buffer>();
      for (const e of [...t.events.map((e) => e.source), ...t.skipped.map((s) => s.source)]) {
        const data = files.get(e.file) ?? readFileSync(e.file);
        files.set(e.file, data);
        const back = await readOriginal(platform, e);
        expect(back.ok).toBe(true);
        if (back.ok)
          expect(Buffer.from(back.value).equals(data.subarray(e.offset, e.offset + e.length))).toBe(true);
      }
    }
  });

  it('gives unique ids, identical across two loads, and seq in order', async () => {
    for (const [path, t] of loaded) {
      const ids = t.events.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(t.events.map((e) => e.seq)).toEqual(t.events.map((_, i) => i));
      const again = await loadTranscript(platform, { path });
      expect(again.ok && again.value.events.map((e) => e.id)).toEqual(ids);
    }
  });

  it('pairs every tool_result with its tool_call or marks it orphan', () => {
    for (const t of loaded.values()) {
      const calls = new Set(t.events.flatMap((e) => (e.kind === 'tool_call' ? [e.payload.callId] : [])));
      for (const e of t.events) {
        if (e.kind === 'tool_result')
          expect(calls.has(e.payload.callId) || e.payload.orphan === true).toBe(true);
      }
    }
  });

  it('references only lanes and events that exist', () => {
    for (const t of loaded.values()) {
      const lanes = new Map(t.agents.map((a) => [a.id, a]));
      const byId = new Map(t.events.map((e) => [e.id, e]));
      expect(t.agents.filter((a) => a.parentId === undefined)).toHaveLength(1);
      for (const e of t.events) {
        expect(lanes.has(e.agentId)).toBe(true);
        if (e.requestId) expect(byId.get(e.requestId)?.kind).toBe('request');
        if (e.shadowedBy) expect(byId.get(e.shadowedBy)?.kind).toBe('compaction');
      }
      for (const lane of t.agents) {
        if (lane.parentId !== undefined) expect(lanes.has(lane.parentId)).toBe(true);
        if (lane.spawnEventId === undefined) continue;
        const spawn = byId.get(lane.spawnEventId);
        expect(['tool_call', 'system']).toContain(spawn?.kind);
        expect(spawn?.agentId).toBe(lane.parentId);
      }
    }
  });

  it('shadows events in compacted sessions', () => {
    const compacted = [...loaded.values()].filter((t) => t.events.some((e) => e.kind === 'compaction'));
    expect(compacted.length).toBeGreaterThanOrEqual(3);
    for (const t of compacted) expect(t.events.some((e) => e.shadowedBy !== undefined)).toBe(true);
  });

  it('summarizes with the same numbers as the fold of the loaded transcript', async () => {
    for (const [path, t] of loaded) {
      const fast = await summarizeSession(platform, { path }, { prompts: true });
      expect(fast.ok && fast.value).toEqual(foldTranscript(t, { prompts: true }));
    }
  });

  it('lists only the capabilities whose numbers it gives', () => {
    for (const t of loaded.values()) {
      const s = foldTranscript(t);
      expect(s.inputTokens === undefined).toBe(!t.capabilities.includes('usage'));
      expect(s.subagents === undefined).toBe(!t.capabilities.includes('subagents'));
      expect(s.turns).toBeGreaterThan(0);
    }
  });
});
