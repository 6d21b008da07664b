// A followed session read on from where the last read stopped streams what a fresh read gives:
// records of a real Claude Code session (with its subagents' files) appended line by line to a
// watched file reach a subscriber as exactly the frames a fresh read of the whole file numbers and
// frames for those records, the history is never sent again, and the index holds the session's
// search documents and summary as a whole read makes them.
import { appendFileSync, cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { foldTranscript, loadTranscript, nodePlatform } from '@cairn/transcript';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import type { RunningServer } from '../src/index.js';
import { laneItems, searchDocs } from '../src/indexing/search-docs.js';
import { FrameBuilder, itemsByEvent } from '../src/streams/frames.js';
import { Client, type Frame, homeEnv, sentAsKnown, serve, tempDir } from './helpers.js';

const SID = '4d5611e5-241a-462a-8d15-5122611a9569';
const PROJECT = ['claude', 'projects', '-work-spotter'];
const PREFIX = 1200;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The frames a fresh read of the session's files gives for the events from index `from` on. */
async function freshFrames(home: string, path: string, from: number): Promise<Frame[]> {
  const loaded = await loadTranscript(nodePlatform({ env: homeEnv(home), homeDir: home }), {
    agent: 'claude-code',
    path,
  });
  if (!loaded.ok) throw new Error(loaded.error.message);
  const t = loaded.value;
  const builder = new FrameBuilder(t, SID, itemsByEvent(laneItems(t)));
  const out: Frame[] = [];
  t.events.forEach((e, i) => {
    const frames = builder.frames(e, i);
    if (i >= from) out.push(...frames);
  });
  return out;
}

describe.skipIf(!corpus)('a followed session read on from its last read', () => {
  let server: RunningServer;
  let home: string;
  let state: string;
  let file: string;
  let lines: string[];

  beforeAll(async () => {
    lines = readFileSync(corpusPath(...PROJECT, `${SID}.jsonl`), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    home = tempDir();
    const dir = join(home, '.claude', 'projects', '-work-spotter');
    mkdirSync(dir, { recursive: true });
    cpSync(corpusPath(...PROJECT, SID), join(dir, SID), { recursive: true });
    file = join(dir, `${SID}.jsonl`);
    writeFileSync(file, `${lines.slice(0, PREFIX).join('\n')}\n`);
    state = tempDir('cairn-state-');
    server = await serve(homeEnv(home), { rescanMs: 60_000, cairnHome: state });
  });
  afterAll(() => server?.close());

  it('streams the frames a fresh read gives, and indexes what a whole read indexes', async () => {
    const topic = `session:claude-code:${SID}`;
    const client = await Client.open(server);
    expect(await client.request('topic_subscribe', { topic })).toMatchObject({ ok: true });
    await client.until((f) =>
      f.some((x) => x.type === 'transcript_ready' || x.type === 'transcript_ready_end'),
    );
    const ready = client.frames.find(
      (x) => x.type === 'transcript_ready' || x.type === 'transcript_ready_end',
    )!;
    const historySeq = ready.seq as number;

    for (let i = PREFIX; i < lines.length; i++) {
      appendFileSync(file, `${lines[i]}\n`);
      // Mostly one record per read, sometimes a few together.
      if (i % 7 !== 0) await sleep(25);
    }
    const expected = await freshFrames(home, file, historySeq + 1);
    const lastSeq = expected[expected.length - 1]!.seq as number;
    await client.until((f) => f.some((x) => x.type !== 'run_state' && x.seq === lastSeq), 30_000);
    await sleep(300);

    const live = client.frames.filter((f) => (f.seq as number) > historySeq && f.type !== 'run_state');
    expect(
      client.frames.filter((f) => f.type === 'transcript_ready' || f.type === 'transcript_ready_start'),
    ).toHaveLength(1);
    expect(live.length).toBeGreaterThan(300);
    expect(live.map(sentAsKnown)).toEqual(expected.map(sentAsKnown));
    await client.close();

    // The index holds what a whole read would have put there.
    const loaded = await loadTranscript(nodePlatform({ env: homeEnv(home), homeDir: home }), {
      agent: 'claude-code',
      path: file,
    });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const whole = searchDocs(laneItems(loaded.value)).map((d) => d.itemKey);
    const db = new Database(join(state, 'index.sqlite'), { readonly: true });
    const stored = db
      .prepare('SELECT item_key FROM docs WHERE session_id = (SELECT id FROM sessions WHERE key = ?)')
      .pluck()
      .all(`claude-code:${file}`) as string[];
    db.close();
    expect(stored.sort()).toEqual([...whole].sort());
    const summary = foldTranscript(loaded.value, { prompts: true });
    // The whole summary, prompts included, is the index's; memory keeps its numbers.
    const entry = server.catalog.get(`claude-code:${file}`);
    expect(entry && server.catalog.fullSummary(entry)).toEqual(summary);
  }, 90_000);
});
