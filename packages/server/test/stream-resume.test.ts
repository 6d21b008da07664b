// A client that resumes a session's stream after a seq it saw gets what a client that stayed got
// after that seq: the same frames, in the same order (their items as they are known by then), from
// far back as from the last seq, and for records that came while nobody listened.
import { appendFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { codexLines } from '../../transcript/test/long-records.js';
import type { RunningServer } from '../src/index.js';
import { Streams } from '../src/streams/streams.js';
import {
  Client,
  claudeSessionHome,
  type Frame,
  homeEnv,
  rolloutCatalog,
  sentAsKnown,
  serve,
} from './helpers.js';

const TOPIC = 'session:claude-code:subagent';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The stream's own frames (not the run state, which tells the moment's state, nor the history). */
const streamed = (frames: Frame[], afterSeq: number): string[] =>
  frames
    .filter((f) => typeof f.seq === 'number' && f.seq > afterSeq && f.type !== 'run_state')
    .filter((f) => !/^transcript_ready|^transcript_chunk/.test(String(f.type)))
    .map((f) => JSON.stringify(sentAsKnown(f)));

const lastSeqOf = (frames: Frame[]): number =>
  Math.max(...frames.filter((f) => f.type !== 'run_state').map((f) => f.seq as number));

describe.skipIf(!corpus)('resuming a stream', () => {
  let server: RunningServer;
  let lines: string[];
  let file: string;

  beforeAll(async () => {
    const made = claudeSessionHome(20);
    ({ lines, file } = made);
    server = await serve(homeEnv(made.home), { rescanMs: 60_000 });
  });
  afterAll(() => server?.close());

  it('gives a resumed client the frames a client that stayed got after the same seq', {
    timeout: 60_000,
  }, async () => {
    const stayed = await Client.open(server);
    await stayed.request('topic_subscribe', { topic: TOPIC });
    await stayed.until((f) =>
      f.some((x) => x.type === 'transcript_ready' || x.type === 'transcript_ready_end'),
    );
    const historySeq = lastSeqOf(stayed.frames);
    const half = 20 + Math.floor((lines.length - 20) / 2);
    for (let i = 20; i < half; i++) {
      appendFileSync(file, `${lines[i]}\n`);
      await sleep(10);
    }
    await sleep(800);
    const midSeq = lastSeqOf(stayed.frames);
    expect(midSeq).toBeGreaterThan(historySeq);

    // From the history's seq, from the middle, and from just before the end.
    for (const after of [historySeq, Math.floor((historySeq + midSeq) / 2), midSeq - 1]) {
      const back = await Client.open(server);
      await back.request('topic_subscribe', { topic: TOPIC, after_seq: after });
      await back.until((f) => f.some((x) => x.type === 'run_state'));
      expect(back.frames.some((f) => f.type === 'transcript_ready')).toBe(false);
      expect(streamed(back.frames, after)).toEqual(streamed(stayed.frames, after));
      expect(streamed(back.frames, after).length).toBeGreaterThan(0);
      await back.close();
    }

    // Records that come while nobody listens: a client back afterwards gets them as the one that
    // stayed would have.
    await stayed.close();
    for (let i = half; i < lines.length; i++) appendFileSync(file, `${lines[i]}\n`);
    await sleep(500);
    const returned = await Client.open(server);
    await returned.request('topic_subscribe', { topic: TOPIC, after_seq: midSeq });
    await returned.until((f) => f.some((x) => x.type === 'run_state'));
    const fresh = await Client.open(server);
    await fresh.request('topic_subscribe', { topic: TOPIC, after_seq: historySeq });
    await fresh.until((f) => f.some((x) => x.type === 'run_state'));
    // Seen from the history on, the later resume holds the earlier one's frames as their tail.
    const later = streamed(fresh.frames, midSeq);
    expect(later.length).toBeGreaterThan(0);
    expect(streamed(returned.frames, midSeq)).toEqual(later);
    await returned.close();
    await fresh.close();
  });

  it('answers a resume from before the frames it keeps as it answers one from among them', {
    timeout: 60_000,
  }, async () => {
    // More events than a stream keeps the frames of, so that a resume from early on frames the log
    // again while one from late is answered from what the stream kept: both give the same frames.
    const { path, catalog, key, close } = await rolloutCatalog(30_000);
    const streams = new Streams(catalog, { instance: 'test' });
    try {
      const stayed: Frame[] = [];
      await streams.subscribe(key, { send: (f) => stayed.push(f as Frame) });
      const end = stayed.find((f) => f.type === 'transcript_ready_end')!;
      const replies = codexLines(30_021).slice(30_001);
      for (const line of replies) {
        appendFileSync(path, `${line}\n`);
        await catalog.load(key);
      }
      const last = stayed.findLast((f) => f.type === 'text_delta')!;
      expect(last.delta).toBe('done 30019');
      const resumed = async (afterSeq: number) => {
        const frames: Frame[] = [];
        await streams.subscribe(key, { send: (f) => frames.push(f as Frame) }, afterSeq);
        return frames;
      };
      const late = (end.seq as number) - 5_000;
      const fromLate = await resumed(late);
      const fromEarly = await resumed(100);
      expect(fromEarly.filter((f) => f.type === 'transcript_ready_start')).toHaveLength(0);
      expect(fromLate.length).toBeGreaterThan(5_000);
      expect(streamed(fromEarly, late)).toEqual(streamed(fromLate, late));
      // And what came live is what either resume gives for it.
      expect(streamed(fromLate, end.seq as number)).toEqual(streamed(stayed, end.seq as number));
    } finally {
      streams.close();
      close();
    }
  });
});
