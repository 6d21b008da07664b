// The Codex adapter on every real rollout of the corpus.
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { codexAdapter } from '../../src/adapters/codex/index.js';
import { countLines } from '../../src/lines.js';
import type { Transcript, TranscriptEventKind, TranscriptEventOf } from '../../src/model.js';
import { foldTranscript } from '../../src/summary.js';
import { corpus } from '../corpus.js';
import { load, rollout, rollouts, sourceFile } from './codex-corpus.js';

interface CcusageSession {
  sessionFile: string;
  inputTokens: number;
  cacheReadTokens: number;
  cacheCreationTokens: number;
  outputTokens: number;
  reasoningOutputTokens: number;
}

const reference: { sessions: CcusageSession[] } = JSON.parse(
  readFileSync(join(dirname(fileURLToPath(import.meta.url)), '../reference/ccusage-codex.json'), 'utf8'),
);

const ofKind = <K extends TranscriptEventKind>(t: Transcript, kind: K): TranscriptEventOf<K>[] =>
  t.events.filter((e) => e.kind === kind) as TranscriptEventOf<K>[];

describe.skipIf(!corpus)('the Codex adapter on the corpus', () => {
  it('finds the four rollouts of the corpus', () => {
    expect(rollouts.map((p) => basename(p))).toHaveLength(4);
  });

  it('gives the token totals ccusage gives, per session, with cache reads inside inputTokens', () => {
    expect(reference.sessions.map((s) => `${s.sessionFile}.jsonl`).sort()).toEqual(
      rollouts.map((p) => basename(p)).sort(),
    );
    for (const ref of reference.sessions) {
      const t = load(rollout(ref.sessionFile));
      const summary = foldTranscript(t);
      expect(summary.inputTokens, ref.sessionFile).toBe(
        ref.inputTokens + ref.cacheReadTokens + ref.cacheCreationTokens,
      );
      expect(summary.outputTokens, ref.sessionFile).toBe(ref.outputTokens);
      expect(summary.cacheReadTokens, ref.sessionFile).toBe(ref.cacheReadTokens);
      let reasoning = 0;
      for (const e of t.events) if (e.kind === 'request') reasoning += e.payload.usage?.reasoningTokens ?? 0;
      expect(reasoning, ref.sessionFile).toBe(ref.reasoningOutputTokens);
    }
  });

  it('accounts for every line exactly once, by one event or one skipped record', () => {
    for (const path of rollouts) {
      const t = load(path);
      const data = readFileSync(path);
      const seen = new Map<number, number>();
      for (const s of [...t.events.map((e) => e.source), ...t.skipped.map((s) => s.source)]) {
        expect(s.file).toBe(path);
        expect(s.codec).toBeUndefined();
        seen.set(s.line, (seen.get(s.line) ?? 0) + 1);
        // The pointer's bytes are the whole line.
        const bytes = data.subarray(s.offset, s.offset + s.length);
        expect(bytes[0], `${path}:${s.line}`).toBe(0x7b);
        expect(data[s.offset + s.length] === 0x0a || s.offset + s.length === data.length).toBe(true);
      }
      expect(seen.size, path).toBe(countLines(data));
      expect(
        [...seen.values()].every((n) => n === 1),
        path,
      ).toBe(true);
    }
  });

  it('gives unique event ids that are the same on a second translation', () => {
    for (const path of rollouts) {
      const ids = load(path).events.map((e) => e.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(load(path).events.map((e) => e.id)).toEqual(ids);
    }
  });

  it('pairs every tool result with its call, keeping the tool names and parsing JSON arguments', () => {
    let answeredTotal = 0;
    for (const path of rollouts) {
      const t = load(path);
      const calls = new Map(ofKind(t, 'tool_call').map((e) => [e.payload.callId, e]));
      const results = ofKind(t, 'tool_result');
      answeredTotal += results.length;
      for (const r of results) {
        expect(calls.has(r.payload.callId), `${path} ${r.payload.callId}`).toBe(true);
        expect(r.payload.orphan).toBeUndefined();
        expect(typeof r.payload.output).toBe('string');
      }
      // Only web searches, which have no result record, and a call cut off by the end of the file go unanswered.
      const answered = new Set(results.map((r) => r.payload.callId));
      const unanswered = [...calls.values()].filter((c) => !answered.has(c.payload.callId));
      for (const c of unanswered) expect(['web_search', 'exec_command']).toContain(c.payload.name);
    }
    expect(answeredTotal).toBe(501);
    const cli = load(rollout('2025-10-21T20-02-50'));
    const shell = ofKind(cli, 'tool_call')[0]!;
    expect(shell.payload).toMatchObject({
      name: 'shell',
      callId: 'call_Xadcaju55OrZk0cmKRlq1xCw',
      input: { command: ['zsh', '-lc', 'ls'], workdir: '/Users/yoavfarhi/dev/pomodoro/codex' },
    });
    const patch = ofKind(cli, 'tool_call').find((e) => e.payload.name === 'apply_patch')!;
    expect(String(patch.payload.input)).toMatch(/^\*\*\* Begin Patch/);
    // The shell output of that generation wraps the text with its exit code.
    const ls = ofKind(cli, 'tool_result')[0]!;
    expect(ls.payload).toMatchObject({ callId: shell.payload.callId, output: '', exitCode: 0 });
    expect(ls.payload.isError).toBeUndefined();
  });

  it('counts as turns the prompts the person typed, and marks injected context synthetic', () => {
    const cli = load(rollout('2025-10-21T20-02-50'));
    const users = ofKind(cli, 'user');
    expect(users[0]!.payload).toMatchObject({ synthetic: true, origin: 'environment_context' });
    const prompts = foldTranscript(cli, { prompts: true }).prompts!;
    expect(prompts).toHaveLength(3);
    expect(prompts[0]).toMatch(/^Build a simple Pomodoro timer web app/);
    expect(prompts.slice(1)).toEqual(['add smooth transitions between states', 'add a Pause/Resume feature']);

    // In every rollout, one turn per user_message record the person submitted.
    for (const path of rollouts) {
      const userMessages = readFileSync(path, 'utf8')
        .split('\n')
        .filter(
          (l) => l.includes('"type":"event_msg"') && l.includes('"payload":{"type":"user_message"'),
        ).length;
      const t = load(path);
      expect(foldTranscript(t).turns, path).toBe(userMessages);
      const mirrors = t.skipped.filter((s) => s.recordType === 'event_msg:user_message');
      expect(mirrors.every((s) => s.reason === 'mirrors response_item')).toBe(true);
    }
  });

  it('links assistant, reasoning and tool calls to the request that produced them', () => {
    for (const path of rollouts) {
      const t = load(path);
      const requests = new Set(ofKind(t, 'request').map((e) => e.id));
      for (const e of t.events) {
        if (e.kind !== 'assistant' && e.kind !== 'reasoning' && e.kind !== 'tool_call') continue;
        expect(e.requestId, `${path} ${e.id}`).toBeDefined();
        expect(requests.has(e.requestId!)).toBe(true);
      }
    }
    // The older CLI writes a request's snapshot before its outputs, the newer app after them.
    const cli = load(rollout('2025-10-21T20-02-50'));
    const firstCall = ofKind(cli, 'tool_call')[0]!;
    expect(firstCall.requestId).toBe('L8');
    const app = load(rollout('13-19-38'));
    expect(ofKind(app, 'tool_call')[0]!.requestId).toBe(ofKind(app, 'request')[0]!.id);
    expect(ofKind(app, 'request')[0]!.source.line).toBe(19);
  });

  it('collapses repeated token_count snapshots into one request each', () => {
    const path = rollout('12-54-34');
    const t = load(path);
    const tokenCounts = readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"payload":{"type":"token_count"')).length;
    expect(tokenCounts).toBe(573);
    const requests = ofKind(t, 'request');
    expect(requests.length).toBe(286);
    expect(requests.length).toBeLessThan(tokenCounts);
    const skippedCounts = t.skipped.filter((s) => s.recordType === 'event_msg:token_count');
    expect(requests.length + skippedCounts.length).toBe(tokenCounts);
    expect(skippedCounts.filter((s) => s.reason === 'repeated token_count snapshot')).toHaveLength(286);
    for (const r of requests) expect(r.payload.model).toBe('gpt-5.3-codex');
  });

  it('makes the compacted record one compaction that shadows the context before it', () => {
    const t = load(rollout('12-54-34'));
    const compactions = ofKind(t, 'compaction');
    expect(compactions).toHaveLength(1);
    const c = compactions[0]!;
    expect(c.source.line).toBe(1788);
    expect(c.payload).toMatchObject({ replacedItems: 40 });
    expect(t.skipped.find((s) => s.source.line === 1789)).toMatchObject({
      reason: 'mirrors compaction',
      recordType: 'event_msg:context_compacted',
    });
    const at = t.events.indexOf(c);
    const before = t.events.slice(0, at);
    const context = before.filter((e) => e.kind !== 'request' && e.kind !== 'system');
    expect(context.length).toBeGreaterThan(800);
    for (const e of context) expect(e.shadowedBy, e.id).toBe(c.id);
    for (const e of before)
      if (e.kind === 'request' || e.kind === 'system') expect(e.shadowedBy).toBeUndefined();
    for (const e of t.events.slice(at)) expect(e.shadowedBy).toBeUndefined();
    expect(foldTranscript(t).compactions).toBe(1);
  });

  it('records the session, its version and the capabilities the files show', () => {
    const t = load(rollout('12-54-34'));
    expect(t.session).toMatchObject({
      id: '019c8a59-e9dd-71f0-9ae3-4079fe9726a9',
      cwd: '/redacted/path/59b923df4d',
      startedAt: Date.parse('2026-02-23T11:54:34.334Z'),
    });
    expect(t.agentVersion).toBe('0.104.0-alpha.1');
    expect(t.agents).toEqual([{ id: '019c8a59-e9dd-71f0-9ae3-4079fe9726a9' }]);
    expect(t.capabilities).toEqual(['requests', 'usage', 'durations', 'reasoning', 'compaction']);
    expect(load(rollout('2025-10-21')).capabilities).toEqual(['requests', 'usage', 'durations', 'reasoning']);
    const meta = t.events[0]!;
    expect(meta).toMatchObject({
      kind: 'system',
      payload: { type: 'session_meta', cliVersion: '0.104.0-alpha.1' },
    });
    // This generation does not record a turn's duration; the turn's start and end records give it.
    const done = t.events.find((e) => e.kind === 'system' && e.payload.type === 'task_complete')!;
    const start = t.events.find((e) => e.kind === 'system' && e.payload.type === 'task_started')!;
    expect(done.payload.turnId).toBe(start.payload.turnId);
    expect(done.payload.durationMs).toBe(done.timestamp! - start.timestamp!);
  });

  it('summarizes every rollout to exactly the numbers and prompts of the folded transcript', () => {
    for (const path of rollouts) {
      const fast = codexAdapter.summarize!([sourceFile(path)]);
      expect(fast.ok).toBe(true);
      if (fast.ok) expect(fast.value, path).toEqual(foldTranscript(load(path), { prompts: true }));
    }
  });
});
