// A followed session of an OpenCode store, read again only when the store changes. Every open of
// the store by the daemon touches its log's attributes, which the folder's watch notices: those
// notices must not start read after read of a store the agent has not written since, whether the
// reads find nothing new or find the store held under an exclusive lock (busy). Once the lock goes
// and the agent writes, the followed session catches up.
import { mkdirSync, watch } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { storeSessionPath } from '@cairn/transcript';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { buildStore } from '../../transcript/test/support/opencode-store.js';
import type { RunningServer } from '../src/index.js';
import type { TranscriptChange } from '../src/reader/catalog.js';
import { Client, homeEnv, serve, tempDir } from './helpers.js';

const SID = 's_stage0_large';
const T0 = 1730000300000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!corpus)('a followed store session whose store is held under an exclusive lock', () => {
  let server: RunningServer;
  let client: Client;
  let db: string;
  let writer: Database.Database;
  const logged: string[] = [];
  const changes: TranscriptChange[] = [];

  const write = (id: string, message: string, at: number, text: string) => {
    writer
      .prepare(
        `INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`,
      )
      .run(id, message, SID, at, at, JSON.stringify({ type: 'text', text }));
    writer.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(at, SID);
  };
  const message = (id: string, at: number) => {
    writer
      .prepare(
        'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)',
      )
      .run(id, SID, at, at, JSON.stringify({ role: 'user', time: { created: at } }));
  };
  /** Reads of the store that found it locked, as the log tells them. */
  const busyLogs = () => logged.filter((l) => /locked|busy/i.test(l)).length;

  beforeAll(async () => {
    const home = tempDir('cairn-store-busy-');
    const data = join(home, '.local', 'share', 'opencode');
    mkdirSync(data, { recursive: true });
    db = join(data, 'opencode.db');
    buildStore(db, [corpusPath('more', 'opencode', 'storage_v2')]);
    writer = new Database(db);
    writer.pragma('journal_mode = WAL');
    writer.prepare('SELECT count(*) FROM session').get();
    server = await serve(homeEnv(home), { rescanMs: 600_000, log: (line) => logged.push(line) });
    const key = `opencode:${storeSessionPath(db, SID)}`;
    server.catalog.onTranscript((c) => {
      if (c.key === key) changes.push(c);
    });
    client = await Client.open(server);
    await client.request('topic_subscribe', { topic: `session:opencode:${SID}` });
    await client.until((f) =>
      f.some((x) => x.type === 'transcript_ready' || x.type === 'transcript_ready_end'),
    );
  });
  afterAll(async () => {
    await client?.close();
    await server?.close();
    writer?.close();
  });

  /** Notices on the store's log while `ms` pass: every open of the store by the daemon makes one. */
  const logNotices = async (ms: number): Promise<number> => {
    let n = 0;
    const w = watch(dirname(db), (_event, name) => {
      if (name?.toString() === `${basename(db)}-wal`) n++;
    });
    try {
      await sleep(ms);
    } finally {
      w.close();
    }
    return n;
  };
  const hasEvent = (id: string) => changes.some((c) => c.transcript.events.some((e) => e.id === id));
  const until = async (test: () => boolean) => {
    for (let i = 0; i < 300 && !test(); i++) await sleep(50);
  };

  it('reads once what the agent wrote, and not again while the store stays the same', async () => {
    message('m_user_busy_0', T0 - 1000);
    write('p_busy_0a', 'm_user_busy_0', T0 - 1000, 'before any lock');
    await until(() => hasEvent('p_busy_0a'));
    expect(hasEvent('p_busy_0a')).toBe(true);
    await sleep(300);
    const reads = server.catalog.stats.reads;
    const notices = await logNotices(1_500);
    // Its own reads' notices do not start more reads.
    expect(server.catalog.stats.reads - reads).toBe(0);
    expect(notices).toBeLessThanOrEqual(1);
  }, 30_000);

  it('tries a store held under an exclusive lock a few times, not in a loop, and catches up once it goes', async () => {
    writer.pragma('locking_mode = EXCLUSIVE');
    message('m_user_busy_1', T0);
    write('p_busy_1a', 'm_user_busy_1', T0, 'written under the lock');
    await until(() => busyLogs() > 0);
    expect(busyLogs()).toBeGreaterThan(0);
    // A read of a locked store tries it a few times over about a second and a half, then gives up
    // until the store changes; the notices of those tries start no more.
    await sleep(3_000);
    const logged = busyLogs();
    const notices = await logNotices(3_000);
    expect(notices).toBe(0);
    expect(busyLogs()).toBe(logged);

    writer.pragma('locking_mode = NORMAL');
    write('p_busy_1b', 'm_user_busy_1', T0 + 100, 'and after it');
    await until(() => hasEvent('p_busy_1b'));
    const last = changes[changes.length - 1]!;
    expect(last.transcript.events.map((e) => e.id)).toEqual(
      expect.arrayContaining(['p_busy_1a', 'p_busy_1b']),
    );
  }, 40_000);
});
