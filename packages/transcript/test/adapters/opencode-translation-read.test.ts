// Loading a store session reads only the columns its translation uses: the rows read are those of
// an export (where the translation looks), message and part rows with their data parsed, a store
// without those columns is read whole, and a store changed right after a load (its snapshot in
// memory kept) is seen by the very next load.
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { storeSessionPath } from '../../src/adapters/opencode/paths.js';
import {
  exportStoreSession,
  readStoreSession,
  readStoreSessionToTranslate,
} from '../../src/adapters/opencode/sqlite.js';
import { translateOpenCodeSession } from '../../src/adapters/opencode/translate.js';
import { loadTranscript, type Transcript } from '../../src/index.js';
import { finishTranscript } from '../../src/load.js';
import { nodePlatform } from '../../src/platform-node.js';
import { corpus, corpusPath } from '../corpus.js';
import { buildStore } from '../support/opencode-store.js';

const SESSIONS = ['s_stage0_small', 's_stage0_large', 's_stage0_drift'];

/** The columns of each table a translation reads. */
const READ: Record<string, string[]> = {
  session: ['id', 'parent_id', 'directory', 'title', 'version', 'time_created', 'time_updated'],
  message: ['id', 'session_id', 'time_created', 'data'],
  part: ['id', 'session_id', 'message_id', 'time_created', 'data'],
};

const said = (t: Transcript) => ({
  agents: t.agents,
  session: t.session,
  events: t.events.map((e) => [e.id, e.kind, e.agentId, e.parentId, e.requestId, e.timestamp, e.payload]),
  skipped: t.skipped.length,
});

function storeIn(root: string): { db: string; platform: ReturnType<typeof nodePlatform> } {
  const data = join(root, 'data', 'opencode');
  mkdirSync(data, { recursive: true });
  return {
    db: join(data, 'opencode.db'),
    platform: nodePlatform({ env: { HOME: root, XDG_DATA_HOME: join(root, 'data') }, homeDir: root }),
  };
}

async function load(platform: ReturnType<typeof nodePlatform>, db: string, id: string) {
  const loaded = await loadTranscript(platform, { agent: 'opencode', path: storeSessionPath(db, id) });
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.value;
}

describe.skipIf(!corpus)('a store session loaded for its translation', () => {
  let db: string;
  let platform: ReturnType<typeof nodePlatform>;

  beforeAll(() => {
    ({ db, platform } = storeIn(mkdtempSync(join(tmpdir(), 'cairn-opencode-slim-'))));
    buildStore(db, [
      corpusPath('more', 'opencode', 'storage_v2'),
      corpusPath('more', 'opencode', 'storage_legacy'),
    ]);
  });

  it('reads the rows an export reads, in its order, with the values of the columns it translates', async () => {
    for (const id of SESSIONS) {
      const whole = await readStoreSession(db, id);
      const slim = await readStoreSessionToTranslate(db, id);
      expect(
        slim.map((l) => [l.table, l.rowid]),
        id,
      ).toEqual(whole.map((l) => [l.table, l.rowid]));
      expect(
        slim.some((l) => l.table === 'part'),
        id,
      ).toBe(true);
      slim.forEach((line, i) => {
        const stored = whole[i]?.row ?? {};
        const where = `${id} ${line.table} ${line.rowid}`;
        if ('row' in line) {
          const wanted = Object.fromEntries((READ[line.table] ?? []).map((c) => [c, stored[c]]));
          expect(line.row, where).toMatchObject(wanted);
          return;
        }
        // Message and part rows come with their keys, and their data parsed, completed with the
        // row's time where it records none.
        expect(line.table, where).not.toBe('session');
        expect([line.id, line.sessionId, line.messageId], where).toEqual([
          stored.id,
          stored.session_id,
          stored.message_id,
        ]);
        const data = JSON.parse(String(stored.data));
        if (data.time === undefined) data.time = { created: stored.time_created };
        expect(line.data, where).toEqual(data);
      });
    }
    expect(await readStoreSessionToTranslate(db, 'ses_not_there')).toEqual([]);
  });

  it('sees rows written right after a load in the next load, with nothing awaited between', async () => {
    const id = 's_stage0_small';
    const before = await load(platform, db, id);
    // Loads that follow each other agree.
    expect(said(await load(platform, db, id))).toEqual(said(before));
    const w = new Database(db);
    try {
      const last = w
        .prepare('SELECT id FROM message WHERE session_id = ? ORDER BY time_created DESC, id DESC LIMIT 1')
        .get(id) as { id: string };
      w.prepare(
        `INSERT INTO part (id, message_id, session_id, time_created, time_updated, data)
         VALUES ('prt_zz_added', ?, ?, 1730009999000, 1730009999000, ?)`,
      ).run(last.id, id, JSON.stringify({ type: 'text', text: 'added after a load' }));
    } finally {
      w.close();
    }
    const after = await load(platform, db, id);
    expect(after.events.length).toBe(before.events.length + 1);
    expect(
      after.events.some(
        (e) => e.kind !== 'request' && JSON.stringify(e.payload).includes('added after a load'),
      ),
    ).toBe(true);
  });
});

describe.skipIf(!corpus)('a store session deleted after a load', () => {
  it('is not found by the next load, while the store keeps the others', async () => {
    const { db, platform } = storeIn(mkdtempSync(join(tmpdir(), 'cairn-opencode-gone-')));
    buildStore(db, [corpusPath('more', 'opencode', 'storage_v2')]);
    const id = 's_stage0_small';
    expect((await load(platform, db, id)).events.length).toBeGreaterThan(0);
    const w = new Database(db);
    try {
      w.prepare('DELETE FROM part WHERE session_id = ?').run(id);
      w.prepare('DELETE FROM message WHERE session_id = ?').run(id);
      w.prepare('DELETE FROM session WHERE id = ?').run(id);
    } finally {
      w.close();
    }
    const gone = await loadTranscript(platform, { agent: 'opencode', path: storeSessionPath(db, id) });
    expect(gone.ok ? 'loaded' : gone.error._tag).toBe('SessionNotFound');
    expect(await readStoreSession(db, id)).toEqual([]);
    expect((await load(platform, db, 's_stage0_large')).events.length).toBeGreaterThan(0);
  });
});

describe('a store whose tables lack a column a translation reads', () => {
  it('is read whole, as its export is, and gives the same transcript', async () => {
    const { db, platform } = storeIn(mkdtempSync(join(tmpdir(), 'cairn-opencode-narrow-')));
    const w = new Database(db);
    try {
      w.pragma('journal_mode = WAL');
      // No time_created on parts: an older shape of the store.
      w.exec(`
        CREATE TABLE session (id TEXT PRIMARY KEY, parent_id TEXT, directory TEXT, title TEXT, version TEXT,
          time_created INTEGER, time_updated INTEGER);
        CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
        CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT, session_id TEXT, data TEXT);
      `);
      w.prepare(
        `INSERT INTO session VALUES ('ses_narrow', NULL, '/srv/narrow', 'Narrow', '0.9.0', 1730000000000, 1730000005000)`,
      ).run();
      w.prepare(`INSERT INTO message VALUES ('msg_1', 'ses_narrow', 1730000001000, 1730000001000, ?)`).run(
        JSON.stringify({ role: 'user', time: { created: 1730000001000 } }),
      );
      w.prepare(`INSERT INTO message VALUES ('msg_2', 'ses_narrow', 1730000002000, 1730000003000, ?)`).run(
        JSON.stringify({
          role: 'assistant',
          modelID: 'm-1',
          time: { created: 1730000002000, completed: 1730000003000 },
        }),
      );
      const part = w.prepare('INSERT INTO part VALUES (?, ?, ?, ?)');
      part.run('prt_1', 'msg_1', 'ses_narrow', JSON.stringify({ type: 'text', text: 'what is here?' }));
      part.run('prt_2', 'msg_2', 'ses_narrow', JSON.stringify({ type: 'text', text: 'a narrow store' }));
      part.run(
        'prt_3',
        'msg_2',
        'ses_narrow',
        JSON.stringify({
          type: 'step-finish',
          tokens: { input: 10, output: 4, reasoning: 0, cache: { read: 0, write: 0 } },
        }),
      );
    } finally {
      w.close();
    }
    const loaded = await load(platform, db, 'ses_narrow');
    expect(loaded.events.map((e) => e.kind)).toEqual(['user', 'assistant', 'request']);
    const path = storeSessionPath(db, 'ses_narrow');
    const exported = translateOpenCodeSession([{ path, data: await exportStoreSession(db, 'ses_narrow') }]);
    if (!exported.ok) throw new Error(exported.error.message);
    expect(said(loaded)).toEqual(said(finishTranscript('opencode', exported.value)));
  });
});
