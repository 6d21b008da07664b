// A followed session's first read goes in parts when it is long, so that the daemon answers others
// meanwhile (the open-session bench measures how long it keeps them waiting). Read in parts of a few
// kilobytes, every corpus session gives what one read of its files gives: the events, the items of
// every lane, their search documents, the summary and the listing facts. A long followed session is
// read from disk a part at a time, then on from the cache's tails, and no whole file is held.
import { appendFileSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  foldTranscript,
  listSessions,
  loadTranscript,
  nodePlatform,
  type SessionHead,
} from '@cairn/transcript';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { corpusPlatform, watchedPlatform } from '../../transcript/test/homes.js';
import { codexLines } from '../../transcript/test/long-records.js';
import { searchDocs } from '../src/indexing/search-docs.js';
import { LiveTranscript } from '../src/reader/live-transcript.js';
import { ReadStats, SourceFiles } from '../src/reader/source-files.js';
import { homeEnv, tempDir } from './helpers.js';

async function corpusSessions(): Promise<SessionHead[]> {
  const heads: SessionHead[] = [];
  for await (const e of listSessions(corpusPlatform())) if (!('ref' in e)) heads.push(e);
  return heads;
}

const heads = corpus ? await corpusSessions() : [];
const PART = 16 * 1024;
const items = (live: LiveTranscript) =>
  JSON.stringify(live.lanes.map((l) => [l.agentId, l.classification.items, l.keys]));

describe.skipIf(!corpus)('a first read in parts', () => {
  it.each(heads.map((h) => [h.path.slice(h.path.lastIndexOf('/') + 1), h] as const))(
    'gives what one read gives for %s',
    async (_name, head) => {
      const inParts = new LiveTranscript(head.agent, { partBytes: PART });
      const inOne = new LiveTranscript(head.agent, { partBytes: Number.POSITIVE_INFINITY });
      const a = await inParts.read(corpusPlatform(), head.path);
      const b = await inOne.read(corpusPlatform(), head.path);
      if (!a.ok || !b.ok) throw new Error('the session did not read');
      expect(JSON.stringify(a.value.events)).toBe(JSON.stringify(b.value.events));
      expect(items(inParts)).toBe(items(inOne));
      expect(searchDocs(inParts.lanes)).toEqual(searchDocs(inOne.lanes));
      expect(inParts.summary(a.value)).toEqual(foldTranscript(b.value, { prompts: true }));
      expect(inParts.listing(a.value)).toEqual(inOne.listing(b.value));
      // A first read is fresh: nothing of it is an append to stream on its own.
      expect(inParts.delta).toBeUndefined();
    },
  );
});

/** A fresh home with the folder of a rollout made, and the rollout's path. */
function rolloutHome(): { home: string; path: string } {
  const home = tempDir();
  const path = join(
    home,
    '.codex/sessions/2026/02/23/rollout-2026-02-23T12-00-00-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl',
  );
  mkdirSync(dirname(path), { recursive: true });
  return { home, path };
}

describe('following a long session', () => {
  it('reads it from disk a part at a time, then only what each append adds, holding no whole file', {
    timeout: 60_000,
  }, async () => {
    const { home, path } = rolloutHome();
    const all = codexLines(60_000);
    writeFileSync(path, `${all.slice(0, 50_000).join('\n')}\n`);
    const base = nodePlatform({ env: homeEnv(home), homeDir: home });
    const { platform, wholeReads, rangeReads } = watchedPlatform(base);
    const files = new SourceFiles(new ReadStats());
    const PART = 256 * 1024;
    const live = new LiveTranscript('codex', { files, partBytes: PART });
    const first = await live.read(platform, path);
    if (!first.ok) throw new Error(first.error.message);
    expect(wholeReads).toEqual([]);
    expect(rangeReads.length).toBeGreaterThan(10);
    expect(Math.max(...rangeReads.map((r) => r.length))).toBeLessThanOrEqual(PART);
    expect(files.size).toBeLessThan(200 * 1024);

    for (let at = 50_000; at < all.length; at += 2_000) {
      rangeReads.length = 0;
      appendFileSync(path, `${all.slice(at, at + 2_000).join('\n')}\n`);
      const read = await live.read(platform, path);
      if (!read.ok) throw new Error(read.error.message);
      // The append came from the cache, where its refresh had just read it.
      expect(rangeReads).toEqual([]);
      expect(live.delta?.added.length).toBe(2_000);
      expect(files.size).toBeLessThan(600 * 1024);
    }
    const whole = await loadTranscript(base, { agent: 'codex', path });
    if (!whole.ok) throw new Error(whole.error.message);
    const last = await live.read(platform, path);
    if (!last.ok) throw new Error(last.error.message);
    expect(JSON.stringify(last.value.events)).toBe(JSON.stringify(whole.value.events));
    expect(wholeReads).toEqual([]);
  });

  it('reads a file written anew in place from the start, not on from where it was', async () => {
    const { home, path } = rolloutHome();
    const first = codexLines(20_000);
    writeFileSync(path, `${first.join('\n')}\n`);
    const platform = nodePlatform({ env: homeEnv(home), homeDir: home });
    const live = new LiveTranscript('codex', { partBytes: 256 * 1024 });
    if (!(await live.read(platform, path)).ok) throw new Error('first read');
    // The same file, written again with other records and more of them.
    const meta = JSON.parse(first[0]!);
    meta.payload.cwd = '/work/other';
    const again = [
      JSON.stringify(meta),
      ...codexLines(30_000)
        .slice(1)
        .map((l) => l.replace('done', 'redone')),
    ];
    writeFileSync(path, `${again.join('\n')}\n`);
    const read = await live.read(platform, path);
    if (!read.ok) throw new Error(read.error.message);
    const whole = await loadTranscript(platform, { agent: 'codex', path });
    if (!whole.ok) throw new Error(whole.error.message);
    expect(JSON.stringify(read.value.events)).toBe(JSON.stringify(whole.value.events));
    expect(read.value.session.cwd).toBe('/work/other');
    expect(live.delta).toBeUndefined();
  });
});

describe.skipIf(!corpus)('a subagent appearing in a followed session', () => {
  it('is read on from the last read, not from the start, and gives what one read gives', async () => {
    const sid = '4d5611e5-241a-462a-8d15-5122611a9569';
    const source = corpusPath('claude', 'projects', '-work-spotter');
    const home = tempDir();
    const dir = join(home, '.claude', 'projects', '-work-spotter');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `${sid}.jsonl`);
    cpSync(join(source, `${sid}.jsonl`), path);
    const platform = nodePlatform({ env: homeEnv(home), homeDir: home });
    const live = new LiveTranscript('claude-code');
    const first = await live.read(platform, path);
    if (!first.ok) throw new Error(first.error.message);
    const lanesBefore = live.lanes.length;
    const mainItems = live.lanes[0]!.keys.length;

    // The subagents' files come to light: each is a lane, and the calls that started them learn so.
    cpSync(join(source, sid), join(dir, sid), { recursive: true });
    const read = await live.read(platform, path);
    if (!read.ok) throw new Error(read.error.message);
    expect(live.lanes.length).toBeGreaterThan(lanesBefore);
    expect(live.delta, 'read on, not from the start').toBeDefined();
    // The main lane's items are the same items as before: none of them is new to stream or index.
    expect(live.delta!.newItems.get(live.lanes[0]!)).toBeUndefined();
    const newLanes = live.lanes.filter((l) => l.agentId !== undefined && live.delta!.newItems.get(l) === 0);
    expect(newLanes.length).toBe(live.lanes.length - lanesBefore);
    expect(live.lanes[0]!.keys.length).toBe(mainItems);

    const once = new LiveTranscript('claude-code');
    const whole = await once.read(platform, path);
    if (!whole.ok) throw new Error(whole.error.message);
    expect(items(live)).toBe(items(once));
    expect(live.delta!.docs).toEqual(searchDocs(newLanes));
    expect(live.summary(read.value)).toEqual(once.summary(whole.value));
    expect(live.listing(read.value)).toEqual(once.listing(whole.value));
  });
});
