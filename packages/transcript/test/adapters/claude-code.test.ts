// The Claude Code adapter's translation of every real session of the corpus, subagent files included.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { countLines } from '../../src/lines.js';
import type { Transcript, TranscriptEventKind, TranscriptEventOf } from '../../src/model.js';
import { foldTranscript } from '../../src/summary.js';
import { corpus } from '../corpus.js';
import { claudeSession, claudeSessions, load, records, translate } from './claude-code-corpus.js';

interface CcusageSession {
  sessionId: string;
  inputTokens: number;
  outputTokens: number;
  cacheCreationTokens: number;
  cacheReadTokens: number;
}

const reference: { sessions: CcusageSession[] } = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../reference/ccusage-claude.json'), 'utf8'),
);

const ofKind = <K extends TranscriptEventKind>(t: Transcript, kind: K): TranscriptEventOf<K>[] =>
  t.events.filter((e) => e.kind === kind) as TranscriptEventOf<K>[];

const message = (r: Record<string, unknown>) => (r.message ?? {}) as Record<string, unknown>;

/** (message.id, requestId) of every real model response line, found without the adapter. */
function responseKeys(path: string): string[] {
  const keys: string[] = [];
  for (const r of records(path)) {
    const m = message(r);
    if (r.type !== 'assistant' || m.model === '<synthetic>' || typeof m.id !== 'string') continue;
    keys.push(`${m.id} ${String(r.requestId)}`);
  }
  return keys;
}

describe.skipIf(!corpus)('the Claude Code adapter on the corpus', () => {
  it('finds the six sessions, three of them with subagent files', () => {
    expect(claudeSessions).toHaveLength(6);
    expect(claudeSessions.filter((s) => s.files.length > 1).map((s) => s.id.slice(0, 8))).toEqual([
      '4d5611e5',
      'fa812bfe',
    ]);
  });

  it('gives the token totals ccusage gives, per session, with the cache inside inputTokens', () => {
    // ccusage names a session by its main file, as cairn does, and counts its subagent files in it.
    expect(reference.sessions.map((s) => s.sessionId).sort()).toEqual(claudeSessions.map((s) => s.id).sort());
    for (const ref of reference.sessions) {
      const summary = foldTranscript(load(claudeSession(ref.sessionId)));
      expect(summary.inputTokens, ref.sessionId).toBe(
        ref.inputTokens + ref.cacheCreationTokens + ref.cacheReadTokens,
      );
      expect(summary.outputTokens, ref.sessionId).toBe(ref.outputTokens);
      expect(summary.cacheReadTokens, ref.sessionId).toBe(ref.cacheReadTokens);
      expect(summary.cacheWriteTokens, ref.sessionId).toBe(ref.cacheCreationTokens);
    }
  });

  it('counts one request per distinct (message.id, requestId) over the main and subagent files', () => {
    for (const s of claudeSessions) {
      const lines = s.files.flatMap(responseKeys);
      const t = load(s);
      expect(ofKind(t, 'request'), s.id).toHaveLength(new Set(lines).size);
      // Streaming writes one line per block: far fewer requests than response lines.
      if (s.id.startsWith('4d5611e5')) expect(lines.length).toBeGreaterThan(new Set(lines).size * 1.5);
    }
  });

  it('keeps the largest usage of a response, found on its later lines', () => {
    const s = claudeSession('short');
    const outputs = records(s.files[0]!)
      .filter((r) => r.type === 'assistant')
      .map((r) => (message(r).usage as { output_tokens: number }).output_tokens);
    const t = load(s);
    const [request] = ofKind(t, 'request');
    expect(request?.payload.usage?.outputTokens).toBe(Math.max(...outputs));
    expect(request?.payload.model).toBe('claude-opus-4-6');
  });

  it('places each request before the events of its response, which carry its id', () => {
    for (const s of claudeSessions) {
      const t = load(s);
      const position = new Map(t.events.map((e, i) => [e.id, i]));
      for (const e of t.events) {
        if (e.kind !== 'assistant' && e.kind !== 'reasoning' && e.kind !== 'tool_call') continue;
        expect(e.requestId, e.id).toBeDefined();
        const request = t.events[position.get(e.requestId!)!]!;
        expect(request.kind).toBe('request');
        expect(position.get(request.id)!).toBeLessThan(position.get(e.id)!);
        expect(request.agentId).toBe(e.agentId);
      }
    }
  });

  it('accounts for every line of every file exactly once, by events or one skipped record', () => {
    for (const s of claudeSessions) {
      const t = load(s);
      for (const file of s.files) {
        const eventLines = new Set(t.events.filter((e) => e.source.file === file).map((e) => e.source.line));
        const skippedLines = t.skipped.filter((k) => k.source.file === file).map((k) => k.source.line);
        expect(new Set(skippedLines).size, file).toBe(skippedLines.length);
        for (const line of skippedLines) expect(eventLines.has(line), `${file}:${line}`).toBe(false);
        expect(eventLines.size + skippedLines.length, file).toBe(countLines(readFileSync(file)));
      }
    }
  });

  it('points every event at the bytes of its line', () => {
    const s = claudeSession('fa812bfe');
    const t = load(s);
    const data = new Map(s.files.map((f) => [f, readFileSync(f)]));
    for (const e of t.events) {
      const line = data
        .get(e.source.file)!
        .subarray(e.source.offset, e.source.offset + e.source.length)
        .toString('utf8');
      const r = JSON.parse(line) as Record<string, unknown>;
      if (e.kind !== 'request' && typeof r.uuid === 'string')
        expect(e.id.startsWith(r.uuid), e.id).toBe(true);
    }
  });

  it('gives unique ids, the same on a second translation of the same bytes', () => {
    for (const s of claudeSessions) {
      const ids = translate(s).events.map((e) => e.id);
      expect(new Set(ids).size, s.id).toBe(ids.length);
      expect(translate(s).events.map((e) => e.id)).toEqual(ids);
    }
  });

  it('chains each event to the one it follows in the record tree, on its own lane', () => {
    for (const s of claudeSessions) {
      const t = load(s);
      const byId = new Map(t.events.map((e) => [e.id, e]));
      const chained = t.events.filter((e) => e.parentId !== undefined);
      expect(chained.length, s.id).toBeGreaterThan(t.events.length / 2);
      for (const e of chained) {
        const parent = byId.get(e.parentId!);
        expect(parent, e.id).toBeDefined();
        expect(parent?.agentId).toBe(e.agentId);
      }
    }
  });

  it('pairs every tool result with a tool call of the session', () => {
    for (const s of claudeSessions) {
      const t = load(s);
      const calls = new Set(ofKind(t, 'tool_call').map((e) => e.payload.callId));
      const results = ofKind(t, 'tool_result');
      expect(results.length, s.id).toBeGreaterThan(0);
      for (const r of results) {
        expect(calls.has(r.payload.callId), r.id).toBe(true);
        expect(r.payload.orphan).toBeUndefined();
      }
    }
  });

  it('makes a lane of each subagent file, linked to the Task call that spawned it', () => {
    for (const s of claudeSessions) {
      const t = load(s);
      expect(t.agents, s.id).toHaveLength(s.files.length);
      expect(t.agents[0]).toEqual({ id: s.id });
      const byId = new Map(t.events.map((e) => [e.id, e]));
      for (const lane of t.agents.slice(1)) {
        expect(lane.parentId).toBe(s.id);
        expect(t.events.some((e) => e.agentId === lane.id)).toBe(true);
        if (lane.id.startsWith('acompact')) {
          // Nothing in the log starts the compaction agent, so it has no spawn event.
          expect(lane).toEqual({ id: lane.id, parentId: s.id, title: 'compaction' });
          continue;
        }
        const spawn = byId.get(lane.spawnEventId!);
        expect(spawn?.kind, lane.id).toBe('tool_call');
        expect(spawn?.agentId).toBe(lane.parentId);
        if (spawn?.kind === 'tool_call') {
          expect(spawn.payload.name).toBe('Task');
          expect(lane.title).toBe((spawn.payload.input as { description: string }).description);
          const result = ofKind(t, 'tool_result').find((r) => r.payload.callId === spawn.payload.callId);
          expect(result?.payload.agentId).toBe(lane.id);
        }
      }
      expect(t.capabilities.includes('subagents')).toBe(s.files.length > 1);
    }
  });

  it('shadows what each compaction removed and gives it the summary that replaced it', () => {
    for (const [prefix, preTokens] of [
      ['4d5611e5', 170251],
      ['fa812bfe', 167117],
    ] as const) {
      const t = load(claudeSession(prefix));
      const [compaction, ...more] = ofKind(t, 'compaction');
      expect(more).toHaveLength(0);
      expect(compaction?.payload).toMatchObject({ trigger: 'auto', preTokens });
      expect(compaction?.payload.summary).toMatch(
        /^This session is being continued from a previous conversation/,
      );
      const main = t.events.filter((e) => e.agentId === t.agents[0]!.id);
      const at = main.indexOf(compaction!);
      expect(at).toBeGreaterThan(100);
      for (const e of main.slice(0, at)) expect(e.shadowedBy, e.id).toBe(compaction!.id);
      for (const e of main.slice(at)) expect(e.shadowedBy).toBeUndefined();
      // Subagent lanes keep their own context.
      expect(t.events.filter((e) => e.agentId !== t.agents[0]!.id && e.shadowedBy)).toHaveLength(0);
      const summary = ofKind(t, 'user').find((e) => e.payload.origin === 'compact_summary');
      expect(summary?.payload.synthetic).toBe(true);
      expect(summary?.payload.text).toBe(compaction?.payload.summary);
      expect(t.capabilities).toEqual(expect.arrayContaining(['compaction', 'compactionTokens']));
    }
    for (const s of claudeSessions.filter((s) => s.files.length === 1)) {
      const t = load(s);
      expect(t.events.some((e) => e.shadowedBy)).toBe(false);
      expect(t.capabilities).not.toContain('compaction');
    }
  });

  it('makes a hook event of every hook progress line and every hook of a stop summary', () => {
    for (const s of claudeSessions) {
      let expected = 0;
      for (const file of s.files)
        for (const r of records(file)) {
          if (r.type === 'progress' && (r.data as { type?: string }).type === 'hook_progress') expected++;
          if (r.type === 'system' && r.subtype === 'stop_hook_summary')
            expected += Math.max(1, (r.hookInfos as unknown[]).length);
        }
      const t = load(s);
      const hooks = ofKind(t, 'hook');
      expect(hooks, s.id).toHaveLength(expected);
      expect(t.capabilities.includes('hooks')).toBe(expected > 0);
    }
    const hooks = ofKind(load(claudeSession('4d5611e5')), 'hook');
    expect(hooks.length).toBeGreaterThan(800);
    expect(hooks.find((h) => h.payload.event === 'PostToolUse')?.payload.name).toMatch(/^PostToolUse:/);
    const stop = hooks.filter((h) => h.payload.event === 'Stop' && h.payload.status === 'summary');
    expect(stop).toHaveLength(12);
    expect(stop[0]?.payload.command).toBe('/home/USER/.claude/hooks/tmux-waiting.sh mark');
  });

  it('tells the prompts the person typed from text the CLI wrote as the user', () => {
    const prompts = (prefix: string) =>
      ofKind(load(claudeSession(prefix)), 'user')
        .filter((e) => !e.payload.synthetic && e.agentId === claudeSession(prefix).id)
        .map((e) => e.payload.text);
    expect(prompts('short')).toEqual(['mix phx.server doesnt seem to start']);
    expect(prompts('tool_heavy')).toEqual([
      'start phoenix in background',
      expect.stringMatching(/^scrolling back in xterm.js/),
    ]);
    expect(prompts('36d9e1bc')).toHaveLength(3);
    const origins = (prefix: string) =>
      ofKind(load(claudeSession(prefix)), 'user')
        .filter((e) => e.payload.synthetic)
        .map((e) => e.payload.origin);
    expect(origins('tool_heavy').sort()).toEqual([
      'command',
      'command_output',
      'interrupt',
      'interrupt',
      'meta',
    ]);
    expect(origins('36d9e1bc').sort()).toEqual(['bash_input', 'bash_output', 'meta']);
    const command = ofKind(load(claudeSession('subagent')), 'user').find(
      (e) => e.payload.origin === 'command',
    );
    expect(command?.payload).toMatchObject({ command: '/handgemacht:create-beads', synthetic: true });
    expect(command?.payload.text).toContain('<command-name>/handgemacht:create-beads</command-name>');
    const t = load(claudeSession('4d5611e5'));
    for (const e of ofKind(t, 'user').filter((e) => e.agentId !== t.agents[0]!.id))
      expect(e.payload.synthetic, e.id).toBe(true);
  });

  it('keeps thinking as reasoning, marked redacted when only its signature was kept', () => {
    const t = load(claudeSession('short'));
    const [reasoning] = ofKind(t, 'reasoning');
    expect(reasoning?.payload.text).toMatch(/^The user is having trouble starting their Phoenix server/);
    expect(reasoning?.payload.redacted).toBeUndefined();
    expect(t.capabilities).toContain('reasoning');
    for (const s of claudeSessions)
      for (const e of ofKind(load(s), 'reasoning'))
        expect(e.payload.redacted === true).toBe(e.payload.text === '');
  });

  it('reads tool calls and results with their names, inputs, outputs and errors', () => {
    const t = load(claudeSession('short'));
    const [call] = ofKind(t, 'tool_call');
    expect(call?.payload).toMatchObject({
      name: 'Bash',
      input: { command: 'mix phx.server 2>&1 | head -80' },
    });
    const failed = ofKind(load(claudeSession('4d5611e5')), 'tool_result').filter((r) => r.payload.isError);
    expect(failed.length).toBeGreaterThan(0);
    for (const r of failed) expect(typeof r.payload.output).toBe('string');
  });

  it('records the session: id, cwd, start and end, CLI version', () => {
    const t = load(claudeSession('short'));
    expect(t.session).toEqual({
      id: 'short',
      cwd: '/home/marco/projects/spotter',
      startedAt: Date.parse('2026-02-10T21:11:52.438Z'),
      endedAt: t.session.endedAt,
    });
    expect(t.session.endedAt).toBe(Math.max(...t.events.map((e) => e.timestamp ?? 0)));
    expect(t.agentVersion).toBe('2.1.38');
    expect(t.capabilities).toEqual(['requests', 'usage', 'durations', 'reasoning', 'hooks']);
  });

  it('orders the events of all files by time, each file in its own order', () => {
    const s = claudeSession('fa812bfe');
    const t = load(s);
    for (const file of s.files) {
      const lines = t.events.filter((e) => e.source.file === file).map((e) => e.source.line);
      expect(lines).toEqual([...lines].sort((a, b) => a - b));
    }
    // A subagent's events sit between the Task call that spawned it and that call's result.
    const lane = t.agents[1]!;
    const spawnAt = t.events.findIndex((e) => e.id === lane.spawnEventId);
    const firstOfLane = t.events.findIndex((e) => e.agentId === lane.id);
    expect(firstOfLane).toBeGreaterThan(spawnAt);
  });
});
