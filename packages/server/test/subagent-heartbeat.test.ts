// A followed Claude Code session whose subagent keeps writing (a heartbeat, a progress record, the
// next step) while the main file is quiet: each read takes only the bytes the subagent's file
// gained (and a fixed few kilobytes that tell the file was not written anew), from that file
// alone, and goes on from the last read; what it ends with is a whole read's.
import { appendFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadTranscript, nodePlatform } from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { watchedPlatform } from '../../transcript/test/homes.js';
import { LiveTranscript } from '../src/reader/live-transcript.js';
import { HEAD_PRINT_BYTES, ReadStats, SourceFiles } from '../src/reader/source-files.js';
import { homeEnv, tempDir } from './helpers.js';

const SID = '4d5611e5-241a-462a-8d15-5122611a9569';
const SUBAGENT = 'agent-a2898e3.jsonl';
const LATER = 12;

describe.skipIf(!corpus)("a subagent's file growing in a followed session", () => {
  it('is read for its new bytes only, the main file left alone', async () => {
    const source = corpusPath('claude', 'projects', '-work-spotter');
    const home = tempDir();
    const dir = join(home, '.claude', 'projects', '-work-spotter');
    mkdirSync(dir, { recursive: true });
    const main = join(dir, `${SID}.jsonl`);
    cpSync(join(source, `${SID}.jsonl`), main);
    cpSync(join(source, SID), join(dir, SID), { recursive: true });
    const sub = join(dir, SID, 'subagents', SUBAGENT);
    const lines = readFileSync(join(source, SID, 'subagents', SUBAGENT), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    expect(lines.length).toBeGreaterThan(LATER);
    writeFileSync(sub, `${lines.slice(0, -LATER).join('\n')}\n`);

    const base = nodePlatform({ env: homeEnv(home), homeDir: home });
    const { platform, wholeReads, rangeReads } = watchedPlatform(base);
    const stats = new ReadStats();
    const live = new LiveTranscript('claude-code', { files: new SourceFiles(stats) });
    const first = await live.read(platform, main);
    if (!first.ok) throw new Error(first.error.message);
    expect(rangeReads.some((r) => r.path === main)).toBe(true);

    for (const line of lines.slice(-LATER)) {
      stats.reset();
      wholeReads.length = 0;
      rangeReads.length = 0;
      appendFileSync(sub, `${line}\n`);
      const read = await live.read(platform, main);
      if (!read.ok) throw new Error(read.error.message);
      expect(live.delta, 'read on from the last read').toBeDefined();
      // The line's bytes, from the subagent's file, and its first bytes and those before the old
      // end, which tell it was not written anew (a few kilobytes, whatever its length); nothing of
      // the main file.
      expect([...stats.files]).toEqual([sub]);
      expect(stats.bytes).toBeGreaterThanOrEqual(Buffer.byteLength(line) + 1);
      expect(stats.bytes).toBeLessThanOrEqual(Buffer.byteLength(line) + 1 + 2 * HEAD_PRINT_BYTES);
      expect(wholeReads).toEqual([]);
      expect(rangeReads).toEqual([]);
    }

    const whole = await loadTranscript(base, { agent: 'claude-code', path: main });
    if (!whole.ok) throw new Error(whole.error.message);
    const last = await live.read(platform, main);
    if (!last.ok) throw new Error(last.error.message);
    expect(JSON.stringify(last.value.events)).toBe(JSON.stringify(whole.value.events));
  });
});
