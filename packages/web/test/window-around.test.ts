// The page around a linked item of a long session, read by the reader's window from a real daemon over
// the page's own connection code: the feed opening on the link and the view landing on it ask for
// the same page at once, and neither may leave the other's answer aside and call the item absent (a
// link into a long session's end once opened on its first page, now and then, that way).
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { Connection } from '../src/rpc.js';
import { ALL_TYPES, SessionFeed } from '../src/session/feed.js';
import { LaneWindow, WINDOW_MIN_ITEMS, WINDOW_PAGE } from '../src/session/window.js';
import { MAIN_LANE, Timeline } from '../src/timeline/model.js';
import { claudeSession } from './claude-session.js';
import { homeEnv, type Served, serve, tempDir } from './harness.js';

const SID = randomUUID();
/** Two items per call: the session's own lane is past the size that is held as a window. */
const CALLS = WINDOW_MIN_ITEMS;

let served: Served;
let conn: Connection;
let lastUuid: string;
let total: number;

/** Answers the uuids the timeline holds of the session's own lane. */
const held = (timeline: Timeline): Set<string> => new Set(timeline.items(MAIN_LANE).map((i) => i.uuid));

beforeAll(async () => {
  // The page's connection code, on the WebSocket the browser would give it.
  (globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
  const home = tempDir('cairn-home-');
  const session = claudeSession(join(home, '.claude'), '/home/dev/window', SID);
  let lines = '';
  for (let i = 0; i < CALLS; i++) {
    if (i % 100 === 0) lines += session.prompt(`step ${i}`);
    lines += session.bash(`echo ${i}`, `${i}\n`);
  }
  const last = session.prompt('the last prompt');
  lastUuid = (JSON.parse(last) as { uuid: string }).uuid;
  session.append(lines + last);
  served = await serve(homeEnv(home), tempDir('cairn-web-'));
  conn = new Connection(`ws://127.0.0.1:${served.server.port}/ws`, () => served.server.token);
  const first = await conn.request('transcript_items_read', {
    sid: SID,
    agent: 'claude-code',
    types: ALL_TYPES,
    limit: 1,
  });
  if (!first.ok) throw new Error(first.error.message);
  total = first.value.total;
}, 120_000);

afterAll(async () => {
  conn?.close();
  await served?.server.close();
});

describe("a long session's window, around a linked item", () => {
  it('answers two asks for the same item with one read, both holding its page', async () => {
    const timeline = new Timeline();
    const window = new LaneWindow(conn, 'claude-code', SID, timeline, total, (m) => {
      throw new Error(m);
    });
    const asked: string[] = [];
    const request = conn.request.bind(conn);
    const counting = Object.assign(Object.create(conn) as Connection, {
      request: ((op, args, options) => {
        asked.push(op);
        return request(op, args, options);
      }) as Connection['request'],
    });
    const shared = new LaneWindow(counting, 'claude-code', SID, timeline, total, (m) => {
      throw new Error(m);
    });
    expect(await Promise.all([shared.around(lastUuid), shared.around(lastUuid)])).toEqual([true, true]);
    expect(asked).toEqual(['transcript_items_read']);
    expect(held(timeline).has(lastUuid)).toBe(true);
    expect(shared.to).toBe(total);
    // A record the session's own lane lacks is absent; asked again later, the page is read again.
    expect(await window.around(randomUUID())).toBe(false);
    expect(await shared.around(lastUuid)).toBe(true);
    expect(asked).toHaveLength(2);
  });

  it('says a read left aside for a later jump is no answer, not that the item is absent', async () => {
    const timeline = new Timeline();
    const window = new LaneWindow(conn, 'claude-code', SID, timeline, total, (m) => {
      throw new Error(m);
    });
    const aside = window.around(lastUuid);
    const start = window.show(0);
    expect(await aside).toBeUndefined();
    await start;
    expect(window.from).toBe(0);
    expect(window.to).toBe(WINDOW_PAGE);
    expect(held(timeline).has(lastUuid)).toBe(false);
  });

  it('opens on the linked page while the view asks for the same page as the window appears', async () => {
    const timeline = new Timeline();
    const feed = new SessionFeed(conn, 'claude-code', SID, timeline);
    let viewAnswer: Promise<boolean | undefined> | undefined;
    const stop = feed.onChange(() => {
      // What the reader's view does when the link's item is not held yet and the window is there.
      if (feed.window && !viewAnswer) viewAnswer = feed.window.around(lastUuid);
    });
    feed.start({ uuid: lastUuid });
    await expect.poll(() => feed.state.loaded, { timeout: 60_000 }).toBe(true);
    stop();
    expect(await viewAnswer).toBe(true);
    expect(held(timeline).has(lastUuid)).toBe(true);
    expect(feed.window?.to).toBe(total);
    expect(feed.state.error).toBeUndefined();
    feed.stop();
  });
});
