// A session file too large to hold is summarized a chunk at a time: the same numbers as the pass
// over the whole file, with memory that does not grow with the file.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeCodeAdapter } from '../src/adapters/claude-code/index.js';
import { codexAdapter } from '../src/adapters/codex/index.js';
import { foldTranscript, readSourceFile, splitLines, summarizeSession } from '../src/index.js';
import { finishTranscript } from '../src/load.js';
import { readLines } from '../src/read.js';
import { STREAM_FROM_BYTES } from '../src/summary.js';
import { bigClaudeSession, claudeSource } from './big-sessions.js';
import { corpus, corpusPath } from './corpus.js';
import { tempHome, tempPlatform } from './homes.js';

describe('readLines', () => {
  it("gives splitLines's lines, whatever the chunk size, long lines, CRLF and a cut last line included", async () => {
    const home = tempHome();
    const path = join(home, 'lines.jsonl');
    writeFileSync(path, `a\r\n${'b'.repeat(5000)}\n\nccc\r\n{"cut`);
    const platform = tempPlatform(home);
    const whole = (await readSourceFile(platform, path)).data;
    const want = [...splitLines(whole)].map((s) => ({
      ...s,
      text: Buffer.from(whole.subarray(s.offset, s.offset + s.length)).toString(),
    }));
    for (const chunk of [1, 3, 64, 4096, 1 << 20]) {
      const got = [];
      for await (const { data, span } of readLines(platform, path, chunk))
        got.push({
          line: span.line,
          length: span.length,
          unterminated: span.unterminated,
          text: Buffer.from(data.subarray(span.offset, span.offset + span.length)).toString(),
        });
      expect(got, `chunk ${chunk}`).toEqual(want.map(({ offset: _, ...rest }) => rest));
    }
  });
});

describe.skipIf(!corpus)('a very large Claude Code session', () => {
  it('is summarized in chunks with the numbers of the pass over the whole file', async () => {
    const home = tempHome();
    const copies = Math.ceil((STREAM_FROM_BYTES * 1.3) / Buffer.byteLength(claudeSource()));
    const { path } = bigClaudeSession(home, copies);
    const platform = tempPlatform(home);
    const streamed = await summarizeSession(platform, { path, agent: 'claude-code' }, { prompts: true });
    const whole = claudeCodeAdapter.summarize!([await readSourceFile(platform, path)]);
    expect(streamed).toEqual(whole);
    const one = claudeCodeAdapter.summarize!([{ path, data: Buffer.from(claudeSource()) }]);
    if (!one.ok || !streamed.ok) throw new Error('not read');
    expect(streamed.value.requests).toBe(copies * one.value.requests!);
    expect(streamed.value.outputTokens).toBe(copies * one.value.outputTokens!);
  });

  it('of 200 MB is summarized under a 64 MB heap with far less memory than the file', () => {
    const home = tempHome();
    const copies = Math.ceil((200 * 1024 * 1024) / Buffer.byteLength(claudeSource()));
    const { path } = bigClaudeSession(home, copies);
    // From the build, in a process of its own, its heap capped: holding the file or its records fails.
    const dist = new URL('../dist/index.js', import.meta.url).href;
    const script = `
      const { nodePlatform, summarizeSession } = await import(${JSON.stringify(dist)});
      const r = await summarizeSession(nodePlatform({ env: { HOME: ${JSON.stringify(home)} } }), { path: ${JSON.stringify(path)}, agent: 'claude-code' });
      if (!r.ok) throw new Error(r.error.message);
      process.stdout.write(JSON.stringify({ requests: r.value.requests, maxRssMb: process.resourceUsage().maxRSS / 1024 }));`;
    const out = JSON.parse(
      execFileSync(process.execPath, ['--max-old-space-size=64', '--input-type=module', '-e', script], {
        encoding: 'utf8',
      }),
    ) as { requests: number; maxRssMb: number };
    expect(out.requests).toBeGreaterThan(copies * 10);
    expect(out.maxRssMb).toBeLessThan(160);
  }, 120_000);
});

const ROLLOUT =
  'codex/sessions/2026/02/23/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';
const rolloutSource = () => readFileSync(corpusPath(ROLLOUT), 'utf8');

/** A Codex rollout of its session_meta and `copies` copies of the corpus rollout's other lines,
 * each copy's tool calls with call ids of their own. */
function bigRollout(home: string, copies: number): string {
  const dir = join(home, '.codex/sessions/2026/02/23');
  mkdirSync(dir, { recursive: true });
  const text = rolloutSource();
  const cut = text.indexOf('\n') + 1;
  const path = join(dir, ROLLOUT.slice(ROLLOUT.lastIndexOf('/') + 1));
  const parts = [text.slice(0, cut)];
  for (let n = 0; n < copies; n++)
    parts.push(text.slice(cut).replace(/"call_id":"([^"]*)"/g, (_, id: string) => `"call_id":"${id}_${n}"`));
  writeFileSync(path, parts.join(''));
  return path;
}

describe.skipIf(!corpus)('a very large Codex rollout', () => {
  it('is summarized in chunks with the numbers of the pass over the whole file and of the fold', async () => {
    const home = tempHome();
    const copies = Math.ceil((STREAM_FROM_BYTES * 1.2) / Buffer.byteLength(rolloutSource()));
    const path = bigRollout(home, copies);
    const platform = tempPlatform(home);
    const streamed = await summarizeSession(platform, { path, agent: 'codex' }, { prompts: true });
    const file = await readSourceFile(platform, path);
    expect(file.data.length).toBeGreaterThan(STREAM_FROM_BYTES);
    const whole = codexAdapter.summarize!([file]);
    expect(streamed).toEqual(whole);
    const translated = codexAdapter.translate([file]);
    if (!translated.ok || !streamed.ok) throw new Error('not read');
    expect(streamed.value).toEqual(
      foldTranscript(finishTranscript('codex', translated.value), { prompts: true }),
    );
    const one = codexAdapter.summarize!([{ path, data: Buffer.from(rolloutSource()) }]);
    if (!one.ok) throw new Error('not read');
    expect(streamed.value.requests).toBe(copies * one.value.requests!);
    expect(streamed.value.compactions).toBe(copies * one.value.compactions!);
  }, 120_000);

  it('of 200 MB is summarized under a 64 MB heap with far less memory than the file', () => {
    const home = tempHome();
    const copies = Math.ceil((200 * 1024 * 1024) / Buffer.byteLength(rolloutSource()));
    const path = bigRollout(home, copies);
    // From the build, in a process of its own, its heap capped: holding the file or its records fails.
    const dist = new URL('../dist/index.js', import.meta.url).href;
    const script = `
      const { nodePlatform, summarizeSession } = await import(${JSON.stringify(dist)});
      const r = await summarizeSession(nodePlatform({ env: { HOME: ${JSON.stringify(home)} } }), { path: ${JSON.stringify(path)}, agent: 'codex' });
      if (!r.ok) throw new Error(r.error.message);
      process.stdout.write(JSON.stringify({ requests: r.value.requests, maxRssMb: process.resourceUsage().maxRSS / 1024 }));`;
    const out = JSON.parse(
      execFileSync(process.execPath, ['--max-old-space-size=64', '--input-type=module', '-e', script], {
        encoding: 'utf8',
      }),
    ) as { requests: number; maxRssMb: number };
    expect(out.requests).toBeGreaterThan(copies * 100);
    expect(out.maxRssMb).toBeLessThan(160);
  }, 180_000);
});
