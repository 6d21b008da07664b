// A session kept in an OpenCode-family SQLite store, followed live: the store (OpenCode's schema,
// filled from the corpus sample) is written as the agent writes it, WAL mode on and a connection
// kept open. A write to the store's log is noticed in its folder; only the rows that changed are
// read; the followed transcript gains exactly the new events; a part rewritten in place shows its
// new text; a store locked while it is read is skipped and read again at its next change; and a
// session new to the store is listed.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  loadTranscript,
  nodePlatform,
  StoreSessionTail,
  storeSessionPath,
  storeSessionStamp,
  type Transcript,
} from '@cairn/transcript';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { buildStore } from '../../transcript/test/support/opencode-store.js';
import type { RunningServer } from '../src/index.js';
import type { TranscriptChange } from '../src/reader/catalog.js';
import { Client, homeEnv, serve, tempDir } from './helpers.js';

const SID = 's_stage0_large';
const T0 = 1730000200000;

/** Writes rows as OpenCode does: a message, its parts, and the session touched. */
class AgentWriter {
  readonly conn: Database.Database;
  constructor(db: string) {
    this.conn = new Database(db);
    this.conn.pragma('journal_mode = WAL');
    // A read makes the log and its index, as the running agent has them.
    this.conn.prepare('SELECT count(*) FROM session').get();
  }
  message(id: string, role: 'user' | 'assistant', at: number, extra: Record<string, unknown> = {}): void {
    this.conn
      .prepare(
        'INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)',
      )
      .run(id, SID, at, at, JSON.stringify({ role, time: { created: at, completed: at + 500 }, ...extra }));
    this.touch(at);
  }
  part(id: string, message: string, at: number, data: Record<string, unknown>): void {
    this.conn
      .prepare(
        `INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET data = excluded.data, time_updated = excluded.time_updated`,
      )
      .run(id, message, SID, at, at, JSON.stringify(data));
    this.touch(at);
  }
  touch(at: number): void {
    this.conn.prepare('UPDATE session SET time_updated = ? WHERE id = ?').run(at, SID);
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!corpus)('a store session followed live', () => {
  let server: RunningServer;
  let client: Client;
  let home: string;
  let db: string;
  let key: string;
  let writer: AgentWriter;
  const changes: TranscriptChange[] = [];
  const logged: string[] = [];

  const whole = async (): Promise<Transcript> => {
    const loaded = await loadTranscript(nodePlatform({ env: homeEnv(home), homeDir: home }), {
      agent: 'opencode',
      path: storeSessionPath(db, SID),
    });
    if (!loaded.ok) throw new Error(loaded.error.message);
    return loaded.value;
  };
  /** The bytes of every row of the session, as a read of all of them takes them. */
  const storedBytes = (): number => {
    const conn = new Database(db, { readonly: true });
    try {
      const rows = [
        ...conn.prepare('SELECT * FROM session WHERE id = ?').all(SID),
        ...conn.prepare('SELECT * FROM message WHERE session_id = ?').all(SID),
        ...conn.prepare('SELECT * FROM part WHERE session_id = ?').all(SID),
      ];
      return rows.reduce((n: number, r) => n + JSON.stringify(r).length, 0);
    } finally {
      conn.close();
    }
  };
  const shape = (t: Transcript) => t.events.map((e) => [e.id, e.kind, e.agentId, e.parentId, e.payload]);
  /** Waits for the followed session's next read that `test` accepts. */
  const nextChange = async (test: (c: TranscriptChange) => boolean, timeoutMs = 15_000) => {
    const start = changes.length;
    for (let waited = 0; waited < timeoutMs; waited += 25) {
      const hit = changes.slice(start).find(test);
      if (hit) return hit;
      await sleep(25);
    }
    throw new Error('the followed session did not change');
  };
  const hasEvent = (id: string) => (c: TranscriptChange) => c.transcript.events.some((e) => e.id === id);

  beforeAll(async () => {
    home = tempDir('cairn-store-live-');
    const data = join(home, '.local', 'share', 'opencode');
    mkdirSync(data, { recursive: true });
    db = join(data, 'opencode.db');
    buildStore(db, [corpusPath('more', 'opencode', 'storage_v2')]);
    writer = new AgentWriter(db);
    // No periodic walk within the test: what is read, a notice made read.
    server = await serve(homeEnv(home), { rescanMs: 600_000, log: (line) => logged.push(line) });
    key = `opencode:${storeSessionPath(db, SID)}`;
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
    writer?.conn.close();
  });

  it('reads appended rows alone, and the transcript gains exactly their events', async () => {
    const before = await whole();
    server.catalog.stats.reset();
    writer.message('m_user_live_1', 'user', T0);
    writer.part('p_live_1a', 'm_user_live_1', T0, { type: 'text', text: 'list the quokka files' });
    writer.message('m_assistant_live_1', 'assistant', T0 + 1000, {
      modelID: 'gpt-4o-mini',
      providerID: 'openai',
    });
    writer.part('p_live_1b', 'm_assistant_live_1', T0 + 1100, { type: 'text', text: 'Looking' });
    writer.part('p_live_1c', 'm_assistant_live_1', T0 + 1200, {
      type: 'step-finish',
      reason: 'stop',
      tokens: { input: 40, output: 5, reasoning: 0, cache: { read: 0, write: 0 } },
    });
    const change = await nextChange(hasEvent('p_live_1c'));

    // Read on from the last read: the delta holds the new events and nothing else.
    expect(change.replaced).toBe(false);
    expect(change.delta?.added.map((e) => e.id)).toEqual(['p_live_1a', 'p_live_1b', 'p_live_1c']);
    const after = await whole();
    expect(shape(change.transcript)).toEqual(shape(after));
    expect(after.events.length).toBe(before.events.length + 3);
    // Only the new rows (and the session rows) were read, not the session's history.
    const path = storeSessionPath(db, SID);
    expect([...server.catalog.stats.files]).toEqual([path]);
    expect(server.catalog.stats.bytes).toBeGreaterThan(0);
    expect(server.catalog.stats.bytes).toBeLessThan(storedBytes() / 2);

    // The listing moves to the new activity, and the new text becomes searchable: both follow the
    // read that made the change, a moment after it.
    const lastActivity = async () => {
      const rows = (await client.request('session_list', { limit: 10 })).sessions as Record<
        string,
        unknown
      >[];
      return rows.find((r) => r.sid === SID)?.last_activity_at as number | undefined;
    };
    await expect.poll(lastActivity, { timeout: 10_000 }).toBeGreaterThanOrEqual(T0);
    const found = async () =>
      ((await client.request('session_search', { query: 'quokka', limit: 5 })).hits as { sid: string }[]).map(
        (h) => h.sid,
      );
    await expect.poll(found, { timeout: 10_000 }).toEqual([SID]);
  }, 30_000);

  it('shows a part rewritten in place with its new text', async () => {
    server.catalog.stats.reset();
    writer.part('p_live_1b', 'm_assistant_live_1', T0 + 1300, {
      type: 'text',
      text: 'Looking: two wombat files',
    });
    const change = await nextChange((c) =>
      c.transcript.events.some((e) => e.id === 'p_live_1b' && JSON.stringify(e.payload).includes('wombat')),
    );
    expect(shape(change.transcript)).toEqual(shape(await whole()));
    // The rewritten row and the few at the last read's marks were read again, not the session.
    expect(server.catalog.stats.bytes).toBeLessThan(storedBytes() / 2);
    const items = (
      await client.request('transcript_items_read', { sid: SID, agent: 'opencode', types: ['message'] })
    ).items as { text?: string; content?: unknown }[];
    expect(JSON.stringify(items)).toContain('two wombat files');
  }, 30_000);

  it('skips a locked store with a clear message, and catches up at its next change', async () => {
    writer.conn.pragma('locking_mode = EXCLUSIVE');
    writer.message('m_user_live_2', 'user', T0 + 5000);
    writer.part('p_live_2a', 'm_user_live_2', T0 + 5000, { type: 'text', text: 'while it was locked' });
    for (let i = 0; i < 200 && !logged.some((l) => /locked|busy/i.test(l)); i++) await sleep(50);
    expect(logged.find((l) => /locked|busy/i.test(l))).toMatch(/opencode\.db.*(locked|busy)/i);
    writer.conn.pragma('locking_mode = NORMAL');
    // The lock goes with the next transaction's end.
    writer.part('p_live_2b', 'm_user_live_2', T0 + 5100, { type: 'text', text: 'and after it' });
    const change = await nextChange(hasEvent('p_live_2b'));
    expect(change.transcript.events.some((e) => e.id === 'p_live_2a')).toBe(true);
    expect(shape(change.transcript)).toEqual(shape(await whole()));
  }, 40_000);

  it('lists a session new to the store from the notice on its log, with no walk of the homes', async () => {
    writer.conn
      .prepare(
        `INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)
         VALUES ('ses_live_new', 'proj_test', 'new', '/tmp/new', 'Live New', '1.0.0', ?, ?)`,
      )
      .run(T0 + 7000, T0 + 7000);
    let rows: Record<string, unknown>[] = [];
    for (let i = 0; i < 200 && !rows.some((r) => r.sid === 'ses_live_new'); i++) {
      await sleep(50);
      rows = (await client.request('session_list', { limit: 10 })).sessions as Record<string, unknown>[];
    }
    expect(rows.find((r) => r.sid === 'ses_live_new')).toMatchObject({ title: 'Live New', cwd: '/tmp/new' });
  }, 30_000);

  it('translates rows read a few at a time as a whole read does', async () => {
    // The same store read from the start and then on, row batch by row batch.
    const tail = new StoreSessionTail('opencode', db, SID);
    const first = await tail.read();
    expect(first.delta.rewritten).toBe(true);
    writer.message('m_assistant_live_3', 'assistant', T0 + 9000, { modelID: 'gpt-4o-mini' });
    writer.part('p_live_3a', 'm_assistant_live_3', T0 + 9100, {
      type: 'tool',
      callID: 'call_live_3',
      tool: 'bash',
      state: { status: 'running', input: { command: 'ls' }, time: { start: T0 + 9100 } },
    });
    const running = await tail.read();
    expect(running.delta.added.map((e) => e.kind)).toEqual(['tool_call']);
    writer.part('p_live_3a', 'm_assistant_live_3', T0 + 9400, {
      type: 'tool',
      callID: 'call_live_3',
      tool: 'bash',
      state: {
        status: 'completed',
        input: { command: 'ls' },
        output: 'a\nb\n',
        time: { start: T0 + 9100, end: T0 + 9400 },
      },
    });
    const done = await tail.read();
    // The call reads as before: its result is added after it.
    expect(done.delta.rewritten).toBe(false);
    expect(done.delta.added.map((e) => e.kind)).toEqual(['tool_result']);
    expect(done.rows).toBeLessThan(5);
    expect(shape(tail.snapshot())).toEqual(shape(await whole()));
    // The stamp of what it read is the store's stamp of the session: the index records it as seen.
    expect(tail.stamp()).toEqual(await storeSessionStamp(db, SID));
  }, 30_000);
});
