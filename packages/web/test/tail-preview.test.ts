// A long session opened at its tail (one being written) draws its last items at once, from the
// daemon's preview of the file's end, before the window of its history takes their place. Run with
// the page's own feed and connection code against a real daemon, over `ws`.
import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Connection } from '../src/rpc.js';
import { SessionFeed } from '../src/session/feed.js';
import { WINDOW_MIN_ITEMS } from '../src/session/window.js';
import { MAIN_LANE, Timeline } from '../src/timeline/model.js';
import { claudeSession } from './claude-session.js';
import { homeEnv, type Served, serve, tempDir } from './harness.js';

const SID = randomUUID();

let served: Served;
let conn: Connection;
let lastUuid: string;
let firstUuid: string;

beforeAll(async () => {
  (globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
  const home = tempDir('cairn-home-');
  const session = claudeSession(join(home, '.claude'), '/home/dev/tail', SID);
  const first = session.prompt('the first prompt');
  firstUuid = (JSON.parse(first) as { uuid: string }).uuid;
  // Past the size previewed while it is read, and past the items held as a window.
  let lines = first;
  for (let i = 0; i < WINDOW_MIN_ITEMS; i++) {
    if (i % 100 === 0) lines += session.prompt(`step ${i}`);
    lines += session.bash(`echo ${i}`, `${'x'.repeat(400)} ${i}\n`);
  }
  const last = session.prompt('the last prompt');
  lastUuid = (JSON.parse(last) as { uuid: string }).uuid;
  session.append(lines + last);
  expect(statSync(session.path).size).toBeGreaterThan(2 * 1024 * 1024);
  served = await serve(homeEnv(home), tempDir('cairn-web-'));
  conn = new Connection(`ws://127.0.0.1:${served.server.port}/ws`, () => served.server.token);
}, 120_000);

afterAll(async () => {
  conn?.close();
  await served?.server.close();
});

it('draws the last items first, marked as a preview, then the window of the end', async () => {
  const timeline = new Timeline();
  const feed = new SessionFeed(conn, 'claude-code', SID, timeline);
  let previewed: string[] | undefined;
  const stop = feed.onChange(() => {
    if (feed.state.preview && !previewed) previewed = timeline.items(MAIN_LANE).map((i) => i.uuid);
  });
  feed.start({ tail: true });
  await expect.poll(() => feed.state.loaded, { timeout: 60_000 }).toBe(true);
  stop();
  // The preview came before the history, and held the session's end, not its start.
  expect(previewed, 'a preview drawn before the history').toBeDefined();
  expect(previewed!.length).toBeGreaterThan(20);
  expect(previewed!.at(-1)).toBe(lastUuid);
  expect(previewed).not.toContain(firstUuid);
  // The window of the history's end took its place: no preview left, the end held.
  expect(feed.state.preview).toBe(false);
  expect(feed.window?.to).toBe(feed.window?.total);
  expect(timeline.items(MAIN_LANE).at(-1)?.uuid).toBe(lastUuid);
  expect(feed.state.error).toBeUndefined();
  feed.stop();
});
