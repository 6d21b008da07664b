// A Codex rollout compressed to .jsonl.zst (by the real zstd tool) reads like the plain file.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  listSessions,
  loadTranscript,
  readOriginal,
  type SessionHead,
  type Transcript,
} from '../src/index.js';
import { corpus, corpusPath } from './corpus.js';
import { tempHome, tempPlatform } from './homes.js';

const ROLLOUT = 'rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl';

describe.skipIf(!corpus)('a zstd-compressed Codex rollout', () => {
  const home = tempHome();
  const platform = tempPlatform(home);
  const day = join(home, '.codex/sessions/2026/02/23');
  mkdirSync(day, { recursive: true });
  const plain = corpusPath('codex/sessions/2026/02/23', ROLLOUT);
  const compressed = join(day, `${ROLLOUT}.zst`);
  execFileSync('zstd', ['-q', '-3', plain, '-o', compressed]);

  const load = async (path: string): Promise<Transcript> => {
    const r = await loadTranscript(platform, { path });
    if (!r.ok) throw new Error(r.error.message);
    return r.value;
  };
  const withoutSource = (t: Transcript) =>
    t.events.map(({ source, ...e }) => ({
      ...e,
      line: source.line,
      offset: source.offset,
      length: source.length,
    }));

  it('is listed with its id and loads to the same events as the plain file', async () => {
    const heads: SessionHead[] = [];
    for await (const e of listSessions(platform)) if (!('ref' in e)) heads.push(e);
    expect(heads.map((h) => h.path)).toEqual([compressed]);
    expect(heads[0]!.id).toBe('019c8a59-e9dd-71f0-9ae3-4079fe9726a9');

    const fromZstd = await load(compressed);
    const fromPlain = await load(plain);
    expect(withoutSource(fromZstd)).toEqual(withoutSource(fromPlain));
    expect(fromZstd.events.every((e) => e.source.codec === 'zstd' && e.source.file === compressed)).toBe(
      true,
    );
  });

  it('reads pointers back from the decompressed stream', async () => {
    const t = await load(compressed);
    const bytes = readFileSync(plain);
    for (const e of t.events.filter((_, i) => i % 25 === 0)) {
      const back = await readOriginal(platform, e.source);
      expect(back.ok).toBe(true);
      if (back.ok) {
        expect(
          Buffer.from(back.value).equals(bytes.subarray(e.source.offset, e.source.offset + e.source.length)),
        ).toBe(true);
      }
    }
  });
});
