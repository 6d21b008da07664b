// Live tail: records appended to a session file reach a subscribed client in order, each once, a
// torn line only when it is whole, and across a reconnect that resumes after the last seq seen.
import { appendFileSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { SessionUpsertedFrame, type TranscriptItem, validate } from '@cairn/protocol';
import { classifyTranscript, loadTranscript, nodePlatform } from '@cairn/transcript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { makeDemoHome, type RunningServer } from '../src/index.js';
import { Client, claudeSessionHome, homeEnv, itemKey, itemsSeen, serve, tempDir } from './helpers.js';

const SOURCE = ['claude', 'projects', '-work-spotter', 'subagent.jsonl'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const keyOf = itemKey;

/** The main lane's items of a file holding `text`, as the library classifies them. */
async function itemsOf(text: string): Promise<TranscriptItem[]> {
  const dir = tempDir('cairn-expect-');
  const path = join(dir, 'subagent.jsonl');
  writeFileSync(path, text);
  const loaded = await loadTranscript(nodePlatform({ env: {}, homeDir: dir }), {
    agent: 'claude-code',
    path,
  });
  if (!loaded.ok) throw new Error(loaded.error.message);
  const classified = classifyTranscript(loaded.value);
  if (!classified.ok) throw new Error(classified.error.message);
  return classified.value.items;
}

describe.skipIf(!corpus)('live tail of an appended session', () => {
  let server: RunningServer;
  let lines: string[];
  let file: string;
  let sid: string;

  beforeAll(async () => {
    const made = claudeSessionHome(30);
    ({ lines, file } = made);
    const home = made.home;
    writeFileSync(join(file, '..', 'empty.jsonl'), '');
    sid = 'subagent';
    server = await serve(homeEnv(home), { rescanMs: 60_000 });
  });
  afterAll(() => server?.close());

  it('sends every appended record once, in order, across a torn line and a reconnect', async () => {
    const topic = `session:claude-code:${sid}`;
    const first = await Client.open(server);
    expect(await first.request('topic_subscribe', { topic })).toMatchObject({ ok: true, topic });
    await first.until((f) =>
      f.some((x) => x.type === 'transcript_ready' || x.type === 'transcript_ready_end'),
    );
    const ready = first.frames.find((x) => x.type === 'transcript_ready')!;
    expect(ready.session_id).toBe(sid);
    expect(ready.runState).toMatchObject({ busy: expect.any(Boolean), phase: expect.any(String) });

    // Phase one: records one by one, one of them torn across two writes.
    for (let i = 30; i < 45; i++) {
      appendFileSync(file, `${lines[i]}\n`);
      await sleep(15);
    }
    const torn = lines[45]!;
    const cut = Math.floor(torn.length / 2);
    appendFileSync(file, torn.slice(0, cut));
    await sleep(300);
    const beforeEnd = itemsSeen(first.frames).length;
    const tornItems = await itemsOf(`${lines.slice(0, 46).join('\n')}\n`);
    const upTo45 = await itemsOf(`${lines.slice(0, 45).join('\n')}\n`);
    // Half a line makes nothing.
    expect(beforeEnd).toBe(upTo45.length);
    appendFileSync(file, `${torn.slice(cut)}\n`);
    await first.until((f) => itemsSeen(f).length >= tornItems.length);
    const lastSeq = Math.max(...first.frames.map((f) => (typeof f.seq === 'number' ? f.seq : -1)));
    await first.close();

    // Phase two, while no one listens; then a new connection resumes after the last seq it saw.
    for (let i = 46; i < 70; i++) appendFileSync(file, `${lines[i]}\n`);
    await sleep(300);
    const second = await Client.open(server);
    expect(await second.request('topic_subscribe', { topic, after_seq: lastSeq })).toMatchObject({
      ok: true,
    });
    // Phase three: the rest, in bursts.
    for (let i = 70; i < lines.length; i += 5) {
      appendFileSync(file, `${lines.slice(i, i + 5).join('\n')}\n`);
      await sleep(40);
    }
    const expected = await itemsOf(`${lines.join('\n')}\n`);
    const seenBefore = itemsSeen(first.frames);
    await second.until((f) => seenBefore.length + itemsSeen(f).length >= expected.length);
    await sleep(300);

    expect(second.frames.some((f) => f.type === 'transcript_ready')).toBe(false);
    const seen = [...seenBefore, ...itemsSeen(second.frames)];
    expect(seen.map(keyOf)).toEqual(expected.map(keyOf));
    for (const frames of [first.frames, second.frames]) {
      const seqs = frames.filter((f) => typeof f.seq === 'number').map((f) => f.seq as number);
      expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    }
    const resumed = second.frames.filter((f) => typeof f.seq === 'number' && f.type !== 'run_state');
    expect(Math.min(...resumed.map((f) => f.seq as number))).toBeGreaterThan(lastSeq);
    // A spawned subagent's lifecycle reaches the client in spectral's frames.
    const all = [...first.frames, ...second.frames];
    expect(all.some((f) => f.type === 'tool_call')).toBe(true);
    expect(all.some((f) => f.type === 'tool_result')).toBe(true);
    // Every reply closes, but the last may still be open: nothing in the file says it ended.
    const starts = all.filter((f) => f.type === 'message_start').length;
    const ends = all.filter((f) => f.type === 'message_end').length;
    expect(starts - ends === 0 || starts - ends === 1).toBe(true);
    await second.close();
  });

  it('tells the sessions topic that a session grew and is active', async () => {
    const c = await Client.open(server);
    expect(await c.request('topic_subscribe', { topic: 'sessions' })).toMatchObject({ ok: true });
    // Rewriting the last record again adds nothing new, but the file grew: the head changes.
    appendFileSync(file, '\n');
    await c.until((f) => f.some((x) => x.type === 'session_upserted'));
    const upserted = c.frames.find((x) => x.type === 'session_upserted')!;
    expect(validate(SessionUpsertedFrame, upserted).ok).toBe(true);
    expect(upserted.head).toMatchObject({ agent: 'claude-code', sid, active: true });
    // The change comes in one shape only: `session_list` says what was there before it.
    expect(c.frames.every((x) => x.type === 'session_upserted' || x.type === 'session_removed')).toBe(true);
    await c.close();
  });

  it('sees a new session and a new subagent file appear', async () => {
    const c = await Client.open(server);
    await c.request('topic_subscribe', { topic: 'sessions' });
    const dir = join(file, '..');
    writeFileSync(
      join(dir, 'fresh.jsonl'),
      readFileSync(corpusPath('claude', 'projects', '-work-spotter', 'short.jsonl')),
    );
    await c.until((f) =>
      f.some((x) => x.type === 'session_upserted' && (x.head as { sid: string }).sid === 'fresh'),
    );
    const sub = join(dir, sid, 'subagents', 'agent-a2898e3.jsonl');
    mkdirSync(join(sub, '..'), { recursive: true });
    const subLines = readFileSync(
      corpusPath(
        'claude',
        'projects',
        '-work-spotter',
        '4d5611e5-241a-462a-8d15-5122611a9569',
        'subagents',
        'agent-a2898e3.jsonl',
      ),
      'utf8',
    ).split('\n');
    writeFileSync(sub, `${subLines.slice(0, 4).join('\n')}\n`);
    await c.until((f) =>
      f.some(
        (x) => x.type === 'session_upserted' && ((x.head as { files: string[] }).files ?? []).includes(sub),
      ),
    );
    const list = await c.request('session_list', { limit: 100 });
    const head = (list.sessions as { sid: string; files: string[] }[]).find((h) => h.sid === sid)!;
    expect(head.files).toEqual([file, sub]);
    await c.close();
  });

  it("resumes an empty session's stream after seq -1 with its first event", async () => {
    const topic = 'session:claude-code:empty';
    const first = await Client.open(server);
    expect(await first.request('topic_subscribe', { topic })).toMatchObject({ ok: true });
    await first.until((f) => f.some((x) => x.type === 'transcript_ready'));
    expect(first.frames.find((x) => x.type === 'transcript_ready')).toMatchObject({ seq: -1, history: [] });
    await first.close();
    // From the first record that makes an item on, so that event 0 makes one.
    const text = `${lines.slice(3, 9).join('\n')}\n`;
    appendFileSync(join(file, '..', 'empty.jsonl'), text);
    await sleep(300);
    const again = await Client.open(server);
    expect(await again.request('topic_subscribe', { topic, after_seq: -1 })).toMatchObject({ ok: true });
    const expected = await itemsOf(text);
    await again.until((f) => itemsSeen(f).length >= expected.length);
    expect(again.frames.some((f) => f.type === 'transcript_ready')).toBe(false);
    expect(again.frames.filter((f) => f.seq === 0 && f.item !== undefined)).toHaveLength(1);
    expect(itemsSeen(again.frames).map(keyOf)).toEqual(expected.map(keyOf));
    await again.close();
    // Resuming after 0 instead, as if event 0 had been seen, misses what it made.
    const late = await Client.open(server);
    await late.request('topic_subscribe', { topic, after_seq: 0 });
    await late.until((f) => f.some((x) => x.type === 'run_state'));
    expect(itemsSeen(late.frames).map(keyOf)).toEqual(expected.slice(1).map(keyOf));
    await late.close();
  });

  it('refuses a topic the protocol lacks, and a stream naming a session under another agent', async () => {
    const c = await Client.open(server);
    expect(await c.request('topic_subscribe', { topic: `transcript_items:${sid}` })).toMatchObject({
      ok: false,
      error: { code: 'invalid_args', field: '/topic' },
    });
    expect(await c.request('topic_subscribe', { topic: `session:codex:${sid}` })).toMatchObject({
      ok: false,
      error: { code: 'not_found', field: '/topic' },
    });
    await sleep(100);
    expect(c.frames).toEqual([]);
    await c.close();
  });
});

describe.skipIf(!corpus)('a session file replaced while its client is away', () => {
  it('answers the stale after_seq with a fresh history of the new file, numbered past the old one', async () => {
    const home = tempDir();
    const dir = join(home, '.claude', 'projects', '-work-spotter');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'subagent.jsonl');
    const before = readFileSync(corpusPath(...SOURCE), 'utf8')
      .split('\n')
      .slice(0, 15)
      .join('\n');
    writeFileSync(file, `${before}\n`);
    const server = await serve(homeEnv(home));
    try {
      const topic = 'session:claude-code:subagent';
      const away = await Client.open(server);
      await away.request('topic_subscribe', { topic });
      await away.until((f) => f.some((x) => x.type === 'transcript_ready'));
      const staleSeq = away.frames.find((x) => x.type === 'transcript_ready')!.seq as number;
      expect(staleSeq).toBeGreaterThan(0);
      await away.close();

      // Another session's records take the file's place, more of them than the client had seen, so
      // that numbering them from 0 again would make the stale seq look like one of theirs.
      const watcher = await Client.open(server);
      await watcher.request('topic_subscribe', { topic });
      await watcher.until((f) => f.some((x) => x.type === 'transcript_ready'));
      const after = readFileSync(
        corpusPath('claude', 'projects', '-work-spotter', 'tool_heavy.jsonl'),
        'utf8',
      );
      const expected = await itemsOf(after);
      writeFileSync(`${file}.tmp`, after);
      renameSync(`${file}.tmp`, file);
      await watcher.until((f) => f.filter((x) => x.type === 'transcript_ready').length === 2);
      const renewed = watcher.frames.filter((x) => x.type === 'transcript_ready')[1]!;
      expect(renewed.seq as number).toBeGreaterThan(staleSeq);
      await watcher.close();

      const back = await Client.open(server);
      await back.request('topic_subscribe', { topic, after_seq: staleSeq });
      // A resumed stream ends with run_state, a fresh one is a history: either way, then nothing more.
      await back.until((f) => f.some((x) => x.type === 'transcript_ready' || x.type === 'run_state'));
      await sleep(200);
      const ready = back.frames[0]!;
      expect(ready).toMatchObject({ type: 'transcript_ready', seq: renewed.seq });
      expect((ready.history as TranscriptItem[]).map(keyOf)).toEqual(expected.map(keyOf));
      expect(itemsSeen(back.frames).map(keyOf)).toEqual(expected.map(keyOf));
      await back.close();

      // The new history's seq resumes the new numbering: nothing is sent again.
      const resumed = await Client.open(server);
      await resumed.request('topic_subscribe', { topic, after_seq: renewed.seq });
      await resumed.until((f) => f.some((x) => x.type === 'run_state'));
      expect(resumed.frames.map((f) => f.type)).toEqual(['run_state']);
      await resumed.close();
    } finally {
      await server.close();
    }
  });
});

describe.skipIf(!corpus)('live tail of a Codex rollout', () => {
  it('leaves the client holding exactly the rollout items, in order, restarting from the history when a record is read anew', async () => {
    const name = 'rollout-2025-10-21T20-02-50-019a085e-04c1-7f81-a09e-9555f6a1fb40.jsonl';
    const lines = readFileSync(corpusPath('codex', 'sessions', '2025', '10', '21', name), 'utf8')
      .split('\n')
      .filter((l) => l !== '');
    const home = tempDir();
    const dir = join(home, '.codex', 'sessions', '2025', '10', '21');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, name);
    writeFileSync(path, `${lines.slice(0, 40).join('\n')}\n`);
    const server = await serve(homeEnv(home));
    try {
      const c = await Client.open(server);
      await c.request('topic_subscribe', { topic: 'session:codex:019a085e-04c1-7f81-a09e-9555f6a1fb40' });
      await c.until((f) => f.some((x) => x.type === 'transcript_ready' || x.type === 'transcript_ready_end'));
      for (let i = 40; i < lines.length; i += 3) {
        appendFileSync(path, `${lines.slice(i, i + 3).join('\n')}\n`);
        await sleep(25);
      }
      const scratch = tempDir('cairn-expect-');
      writeFileSync(join(scratch, name), `${lines.join('\n')}\n`);
      const loaded = await loadTranscript(nodePlatform({ env: {}, homeDir: scratch }), {
        agent: 'codex',
        path: join(scratch, name),
      });
      if (!loaded.ok) throw new Error(loaded.error.message);
      const classified = classifyTranscript(loaded.value);
      if (!classified.ok) throw new Error(classified.error.message);
      const expected = classified.value.items.map(keyOf);
      await c.until((f) => itemsSeen(f).length >= expected.length);
      await sleep(200);
      expect(itemsSeen(c.frames).map(keyOf)).toEqual(expected);
      await c.close();
    } finally {
      await server.close();
    }
  });
});

describe('live tail of a session that starts a subagent', () => {
  it('sends the subagent records on its lane, and subagent_start and subagent_end around its answer', async () => {
    const demo = makeDemoHome();
    const home = tempDir();
    try {
      const [main, sub] = demo.files['claude-code'] as [string, string];
      const mainLines = readFileSync(main, 'utf8')
        .split('\n')
        .filter((l) => l !== '');
      const subLines = readFileSync(sub, 'utf8')
        .split('\n')
        .filter((l) => l !== '');
      const spawnAt = mainLines.findIndex((l) => l.includes('"name":"Task"'));
      const dir = join(home, '.claude', 'projects', 'demo');
      const mainCopy = join(dir, basename(main));
      const sid = basename(main, '.jsonl');
      const subCopy = join(dir, sid, 'subagents', basename(sub));
      mkdirSync(join(subCopy, '..'), { recursive: true });
      writeFileSync(mainCopy, `${mainLines.slice(0, spawnAt + 1).join('\n')}\n`);
      const server = await serve(homeEnv(home));
      try {
        const c = await Client.open(server);
        await c.request('topic_subscribe', { topic: `session:claude-code:${sid}` });
        await c.until((f) => f.some((x) => x.type === 'transcript_ready'));
        writeFileSync(subCopy, `${subLines.join('\n')}\n`);
        await c.until((f) => f.some((x) => x.agent_id !== undefined && x.type === 'text_delta'));
        appendFileSync(mainCopy, `${mainLines.slice(spawnAt + 1).join('\n')}\n`);
        await c.until((f) => f.some((x) => x.type === 'subagent_end'));
        const start = c.frames.find((x) => x.type === 'subagent_start')!;
        const end = c.frames.find((x) => x.type === 'subagent_end')!;
        expect(start).toMatchObject({ mode: 'single', agent: 'code-reviewer', task: 'Review retry logic' });
        expect(end.toolCallId).toBe(start.toolCallId);
        expect((end.results as { output: string }[])[0]!.output).toContain('Two issues');
        expect(c.frames.filter((x) => x.type === 'subagent_start')).toHaveLength(1);
        expect(c.frames.indexOf(start)).toBeLessThan(c.frames.indexOf(end));
        const laneFrames = c.frames.filter((x) => x.agent_id !== undefined);
        expect(new Set(laneFrames.map((x) => x.agent_id))).toEqual(new Set([end.subagent_id]));
        await c.close();
      } finally {
        await server.close();
      }
    } finally {
      demo.remove();
    }
  });
});
