// A session written with CRLF line ends, read on from where the last read stopped: each line's span
// leaves its '\r' out, and the next read must still start past the '\n' (starting on it made a blank
// line of it, and a read handed only the bytes past a part's cut was refused). Corpus sessions, their
// line ends rewritten, are read in parts of a few KB three ways: each push given the files whole,
// each given only the new bytes, and through loadTranscript from disk; every way gives the
// transcript of the same bytes translated whole.
import { mkdirSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  findAdapter,
  lineParts,
  loadTranscript,
  type SourceFile,
  type Transcript,
  Translator,
} from '../src/index.js';
import { finishTranscript } from '../src/load.js';
import { corpus, corpusPath } from './corpus.js';
import { tempHome, tempPlatform } from './homes.js';

const SESSIONS = [
  ['claude-code', 'claude/projects/-work-spotter/fa812bfe-b295-4cca-9c2f-fdf01028cb46.jsonl'],
  [
    'codex',
    'codex/sessions/2026/02/23/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
  ],
] as const;

const PART_BYTES = 64 * 1024;

/** The corpus file `at`, its line ends made CRLF, in a fresh home laid out as the agents' own. */
async function crlfFile(at: string): Promise<{ home: string; file: SourceFile }> {
  const text = (await readFile(corpusPath(at), 'utf8')).replaceAll('\r\n', '\n').replaceAll('\n', '\r\n');
  const home = tempHome();
  const path = join(home, `.${at}`);
  mkdirSync(dirname(path), { recursive: true });
  const data = Buffer.from(text);
  writeFileSync(path, data);
  return { home, file: { path, data, wellFormedUtf8: true } };
}

function whole(agent: string, file: SourceFile): Transcript {
  const adapter = findAdapter(agent)!;
  const translated = adapter.translate([file]);
  if (!translated.ok) throw new Error(translated.error.message);
  return finishTranscript(adapter.id, translated.value);
}

function expectSame(got: Transcript, want: Transcript): void {
  expect(got.skipped).toEqual(want.skipped);
  expect(got.events.length).toBe(want.events.length);
  expect(JSON.stringify(got.events)).toBe(JSON.stringify(want.events));
}

describe.skipIf(!corpus)('a session with CRLF line ends, read in parts', () => {
  it.each(SESSIONS)(
    '%s: parts of whole files, tails alone and a load from disk all give the whole read',
    {
      timeout: 60_000,
    },
    async (agent, at) => {
      const { home, file } = await crlfFile(at);
      const want = whole(agent, file);
      expect(want.skipped.filter((s) => s.reason === 'empty line')).toEqual([]);
      const adapter = findAdapter(agent)!;
      const parts = lineParts([file], PART_BYTES, adapter.keepWithNext);
      expect(parts.length).toBeGreaterThan(3);

      const onWhole = new Translator(adapter);
      for (const part of parts) {
        const pushed = onWhole.push(part);
        if (!pushed.ok) throw new Error(pushed.error.message);
      }
      expectSame(onWhole.snapshot(), want);

      const onTails = new Translator(adapter);
      let start = 0;
      for (const [first, part] of parts.map((p, i) => [i === 0, p[0]!] as const)) {
        const tail: SourceFile = { ...part, data: part.data.subarray(start), start };
        const pushed = first ? onTails.push([tail]) : onTails.pushTail([tail]);
        if (!pushed.ok) throw new Error(pushed.error.message);
        expect(pushed.value).not.toBe('rewrite');
        start = part.data.length;
      }
      expectSame(onTails.snapshot(), want);

      const loaded = await loadTranscript(tempPlatform(home), { agent, path: file.path });
      if (!loaded.ok) throw new Error(loaded.error.message);
      expectSame(loaded.value, want);
    },
  );
});
