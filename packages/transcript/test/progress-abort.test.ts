// Long reads report progress and stop when asked.
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadTranscript, summarizeSession } from '../src/index.js';
import { corpus, corpusPath } from './corpus.js';
import { corpusPlatform } from './homes.js';

const SESSION = corpusPath('claude/projects/-work-spotter/4d5611e5-241a-462a-8d15-5122611a9569.jsonl');

describe.skipIf(!corpus)('progress and abort', () => {
  const platform = corpusPlatform();

  it('reports the running total of bytes read across the session files', async () => {
    const seen: number[] = [];
    const r = await loadTranscript(platform, { path: SESSION }, { onProgress: (b) => seen.push(b) });
    expect(r.ok).toBe(true);
    const subagents = corpusPath(
      'claude/projects/-work-spotter/4d5611e5-241a-462a-8d15-5122611a9569/subagents',
    );
    const total =
      statSync(SESSION).size +
      statSync(`${subagents}/agent-a2898e3.jsonl`).size +
      statSync(`${subagents}/agent-acompact-e1f845.jsonl`).size;
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.at(-1)).toBe(total);
    // The main file (over a megabyte) in parts, then each subagent's file whole.
    expect(seen.length).toBeGreaterThan(3);
    expect(seen.at(-3)).toBe(statSync(SESSION).size);
  });

  it('rejects with the signal reason when aborted before or during a read', async () => {
    const reason = new Error('stop reading');
    await expect(
      loadTranscript(platform, { path: SESSION }, { signal: AbortSignal.abort(reason) }),
    ).rejects.toBe(reason);
    const controller = new AbortController();
    const pending = summarizeSession(
      platform,
      { path: SESSION },
      {
        signal: controller.signal,
        onProgress: () => controller.abort(reason),
      },
    );
    await expect(pending).rejects.toBe(reason);
  });
});
