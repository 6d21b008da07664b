// The reader's feed, on a real daemon through the page's own connection code, when the session's file
// is replaced while a subagent lane is open: the history comes again from scratch, and the open lane
// is read again with it rather than left open and empty.
import { cpSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { corpusPath } from '../../transcript/test/corpus.js';
import { Connection } from '../src/rpc.js';
import { SessionFeed } from '../src/session/feed.js';
import { MAIN_LANE, Timeline } from '../src/timeline/model.js';
import { homeEnv, type Served, serve, tempDir } from './harness.js';

const PROJECT = '-work-spotter';
/** 3.3 MB of Claude Code with two subagents. */
const SID = 'fa812bfe-b295-4cca-9c2f-fdf01028cb46';
const LANE = 'aa84377';

let served: Served;
let conn: Connection;
let path: string;

beforeAll(async () => {
  (globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
  const home = tempDir('cairn-home-');
  const env = homeEnv(home);
  const dir = join(home, '.claude', 'projects', PROJECT);
  cpSync(corpusPath('claude', 'projects', PROJECT, `${SID}.jsonl`), join(dir, `${SID}.jsonl`));
  cpSync(corpusPath('claude', 'projects', PROJECT, SID), join(dir, SID), { recursive: true });
  path = join(dir, `${SID}.jsonl`);
  served = await serve(env, tempDir('cairn-web-'));
  conn = new Connection(`ws://127.0.0.1:${served.server.port}/ws`, () => served.server.token);
}, 120_000);

afterAll(async () => {
  conn?.close();
  await served?.server.close();
});

describe('a session whose file is replaced while a subagent lane is open', () => {
  it('reads the open lane again with the new history', async () => {
    const timeline = new Timeline();
    const feed = new SessionFeed(conn, 'claude-code', SID, timeline);
    feed.start();
    await expect.poll(() => feed.state.loaded, { timeout: 60_000 }).toBe(true);
    feed.openLane(LANE);
    await feed.laneReady(LANE);
    const lane = timeline.items(LANE).map((i) => i.uuid);
    expect(lane.length).toBeGreaterThan(10);
    const main = timeline.items(MAIN_LANE).length;

    // The history is read again from scratch: the timeline is emptied, then filled.
    let cleared = false;
    timeline.onChange(() => {
      if (timeline.items(LANE).length === 0) cleared = true;
    });
    // Replaced, not appended to: the same records under a new file, as an editor's save leaves it.
    const lines = readFileSync(path, 'utf8');
    writeFileSync(`${path}.new`, lines);
    renameSync(`${path}.new`, path);
    await expect
      .poll(
        () => {
          const again = timeline.items(LANE).map((i) => i.uuid);
          return cleared && timeline.status(MAIN_LANE) === 'ready' && again.length === lane.length
            ? again
            : [];
        },
        { timeout: 60_000 },
      )
      .toEqual(lane);
    expect(timeline.isOpen(LANE)).toBe(true);
    expect(timeline.items(MAIN_LANE)).toHaveLength(main);
    expect(feed.state.error).toBeUndefined();
    feed.stop();
  });
});
