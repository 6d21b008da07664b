// The summary pass gives foldTranscript's numbers without building events.
import { describe, expect, it } from 'vitest';
import type { SourceFile } from '../../src/adapter.js';
import { claudeCodeAdapter } from '../../src/adapters/claude-code/index.js';
import { finishTranscript } from '../../src/load.js';
import { foldTranscript } from '../../src/summary.js';
import { corpus } from '../corpus.js';
import { claudeSession, claudeSessions, load, sourceFiles } from './claude-code-corpus.js';

const folded = (files: SourceFile[]) => {
  const r = claudeCodeAdapter.translate(files);
  if (!r.ok) throw new Error(r.error.message);
  return foldTranscript(finishTranscript('claude-code', r.value), { prompts: true });
};

const summarize = (files: SourceFile[]) => {
  const r = claudeCodeAdapter.summarize!(files);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

describe.skipIf(!corpus)('the Claude Code summary pass', () => {
  it('equals the fold of the translation on every corpus session, subagent files included', () => {
    for (const s of claudeSessions) {
      const fold = foldTranscript(load(s), { prompts: true });
      expect(summarize(sourceFiles(s)), s.id).toEqual(fold);
    }
  });

  it('gives every number the capabilities allow', () => {
    const fast = summarize(sourceFiles(claudeSession('4d5611e5')));
    expect(Object.keys(fast).sort()).toEqual(
      [
        'cacheReadTokens',
        'cacheWriteTokens',
        'compactions',
        'contextShape',
        'durationMs',
        'failedTools',
        'inputTokens',
        'outputTokens',
        'prompts',
        'requests',
        'subagents',
        'turns',
      ].sort(),
    );
    expect(fast).toMatchObject({ compactions: 1, subagents: 2, turns: 2, requests: 152 });
    expect(fast.contextShape!.length).toBeGreaterThan(50);
  });

  it('equals the fold when a file ends in a line still being written', () => {
    // Cut every corpus main file inside its last tool result and inside its last assistant line.
    for (const s of claudeSessions) {
      const files = sourceFiles(s);
      const main = files[0]!;
      const text = new TextDecoder().decode(main.data);
      for (const marker of ['"toolUseResult":', '"type":"assistant"', '"hook_progress"']) {
        const at = text.lastIndexOf(marker);
        if (at === -1) continue;
        const cut = new TextEncoder().encode(text.slice(0, at + marker.length + 3));
        const damaged = [{ path: main.path, data: cut }, ...files.slice(1)];
        expect(summarize(damaged), `${s.id} ${marker}`).toEqual(folded(damaged));
      }
    }
  });

  it('equals the fold when lines are missing, so that responses lose their first or last lines', () => {
    for (const s of claudeSessions.filter((s) => s.files.length > 1)) {
      const files = sourceFiles(s).map((f) => {
        const lines = new TextDecoder().decode(f.data).split('\n');
        const kept = lines.filter((_, i) => i % 7 !== 3).join('\n');
        return { path: f.path, data: new TextEncoder().encode(kept) };
      });
      expect(summarize(files), s.id).toEqual(folded(files));
    }
  });
});
