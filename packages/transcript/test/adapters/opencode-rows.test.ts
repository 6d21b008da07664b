// A store session is translated from its rows as the store gives them, with no JSON text between:
// the same transcript as its export read line by line and as the live tail's first read, every
// pointer naming its row (table and rowid) with no byte range, and a row whose data is not JSON
// skipped with a pointer to it.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { storeSessionPath } from '../../src/adapters/opencode/paths.js';
import { exportStoreSession, readStoreSession } from '../../src/adapters/opencode/sqlite.js';
import { StoreSessionTail } from '../../src/adapters/opencode/store-tail.js';
import { translateOpenCodeSession } from '../../src/adapters/opencode/translate.js';
import { loadTranscript, type Transcript } from '../../src/index.js';
import { finishTranscript } from '../../src/load.js';
import { nodePlatform } from '../../src/platform-node.js';
import { corpus, corpusPath } from '../corpus.js';
import { buildStore } from '../support/opencode-store.js';

const SESSIONS = ['s_stage0_small', 's_stage0_large', 's_stage0_drift'];

/** What a transcript says, its pointers' byte ranges aside (an export's lines have them, rows do not). */
const said = (t: Transcript) => ({
  agents: t.agents,
  session: t.session,
  capabilities: [...t.capabilities].sort(),
  events: t.events.map((e) => [
    e.id,
    e.kind,
    e.agentId,
    e.parentId,
    e.requestId,
    e.timestamp,
    e.payload,
    e.source.sqlite,
  ]),
  skipped: t.skipped
    .map((s) => [s.reason, s.recordType, s.source.sqlite?.table, s.source.sqlite?.rowid])
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))),
});

describe.skipIf(!corpus)('a store session read from its rows', () => {
  let db: string;
  let platform: ReturnType<typeof nodePlatform>;

  beforeAll(() => {
    const root = mkdtempSync(join(tmpdir(), 'cairn-opencode-rows-'));
    const data = join(root, 'data', 'opencode');
    mkdirSync(data, { recursive: true });
    db = join(data, 'opencode.db');
    buildStore(db, [
      corpusPath('more', 'opencode', 'storage_v2'),
      corpusPath('more', 'opencode', 'storage_legacy'),
    ]);
    const w = new Database(db);
    // A child session of the small one, and a part whose data is not JSON.
    w.prepare(
      `INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated)
       VALUES ('ses_rows_child', 'proj_test', 's_stage0_small', 'c', '/srv/repo', 'Child', '1.3.17', 1730000001000, 1730000002000)`,
    ).run();
    w.prepare(
      `INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES ('msg_rows_child', 'ses_rows_child', 1730000001100, 1730000001100, ?)`,
    ).run(JSON.stringify({ role: 'user', time: { created: 1730000001100 } }));
    w.prepare(
      `INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_rows_child', 'msg_rows_child', 'ses_rows_child', 1730000001100, 1730000001100, ?)`,
    ).run(JSON.stringify({ type: 'text', text: 'look around' }));
    w.prepare(
      `INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES ('prt_rows_bad', 'msg_rows_child', 'ses_rows_child', 1730000001200, 1730000001200, '{not json')`,
    ).run();
    w.close();
    platform = nodePlatform({ env: { HOME: root, XDG_DATA_HOME: join(root, 'data') }, homeDir: root });
  });

  it('gives the transcript its export gives, line by line, and the live tail gives', async () => {
    for (const id of SESSIONS) {
      const path = storeSessionPath(db, id);
      const loaded = await loadTranscript(platform, { agent: 'opencode', path });
      if (!loaded.ok) throw new Error(loaded.error.message);
      const exported = translateOpenCodeSession([{ path, data: await exportStoreSession(db, id) }]);
      if (!exported.ok) throw new Error(exported.error.message);
      expect(said(loaded.value), id).toEqual(said(finishTranscript('opencode', exported.value)));
      const tail = new StoreSessionTail('opencode', db, id);
      await tail.read();
      expect(said(tail.snapshot()).events, id).toEqual(said(loaded.value).events);
      expect(loaded.value.events.length, id).toBeGreaterThan(0);
    }
  });

  it('points at each row by table and rowid, with no byte range', async () => {
    const path = storeSessionPath(db, 's_stage0_small');
    const loaded = await loadTranscript(platform, { agent: 'opencode', path });
    if (!loaded.ok) throw new Error(loaded.error.message);
    const t = loaded.value;
    for (const x of [...t.events, ...t.skipped])
      expect(x.source).toMatchObject({
        file: path,
        offset: 0,
        length: 0,
        sqlite: { rowid: expect.any(Number) },
      });
    // The child is a lane of its own; its part that is not JSON is skipped, pointing at its row.
    expect(t.agents.map((a) => a.id)).toEqual(['s_stage0_small', 'ses_rows_child']);
    expect(t.events.some((e) => e.agentId === 'ses_rows_child' && e.kind === 'user')).toBe(true);
    const bad = t.skipped.find((s) => s.reason === 'data is not JSON');
    const conn = new Database(db, { readonly: true });
    try {
      const rowid = (
        conn.prepare(`SELECT rowid AS r FROM part WHERE id = 'prt_rows_bad'`).get() as { r: number }
      ).r;
      expect(bad?.source.sqlite).toEqual({ table: 'part', rowid });
    } finally {
      conn.close();
    }
  });

  it('reads the rows of a session and its children in the order an export gives them', async () => {
    const rows = await readStoreSession(db, 's_stage0_small');
    const tables = rows.map((r) => r.table);
    expect(tables.indexOf('message')).toBeGreaterThan(tables.lastIndexOf('session'));
    expect(tables.indexOf('part')).toBeGreaterThan(tables.lastIndexOf('message'));
    expect(rows.filter((r) => r.table === 'session').map((r) => r.row.id)).toEqual([
      's_stage0_small',
      'ses_rows_child',
    ]);
    expect(await readStoreSession(db, 'ses_not_there')).toEqual([]);
  });
});
