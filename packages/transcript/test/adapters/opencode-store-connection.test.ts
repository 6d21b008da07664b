// The connections a store's reads keep between loads (a snapshot of a store whose agent is not
// running; a connection to one it has open, kept for the reads that follow at once): a row written
// between two loads is in the second, a read holds no transaction that would pin the agent's log, a
// store replaced by another file is read afresh, and a locked or half-written store still gives a
// clear error.
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeSessionPath } from '../../src/adapters/opencode/paths.js';
import { loadTranscript, type Transcript } from '../../src/index.js';
import { nodePlatform } from '../../src/platform-node.js';
import { corpus, corpusPath } from '../corpus.js';
import { buildStore } from '../support/opencode-store.js';

const V2 = corpusPath('more', 'opencode', 'storage_v2');
const SID = 's_stage0_large';

describe.skipIf(!corpus)('a store read again through the connections kept between loads', () => {
  let root: string;
  const platform = nodePlatform();

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'cairn-opencode-conn-'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** A store filled from the sample in a folder of its own, in the journal mode asked. */
  function store(name: string, journal: 'wal' | 'delete' = 'wal', title?: string): string {
    const dir = join(root, name, 'opencode');
    mkdirSync(dir, { recursive: true });
    const db = join(dir, 'opencode.db');
    buildStore(db, [V2]);
    const w = new Database(db);
    if (title !== undefined) w.prepare('UPDATE session SET title = ? WHERE id = ?').run(title, SID);
    if (journal === 'delete') w.pragma('journal_mode = DELETE');
    w.close();
    return db;
  }

  const load = async (db: string): Promise<Transcript> => {
    const t = await loadTranscript(platform, { agent: 'opencode', path: storeSessionPath(db, SID) });
    if (!t.ok) throw new Error(t.error.message);
    return t.value;
  };

  const addText = (w: Database.Database, id: string, text: string): void => {
    const m = w
      .prepare('SELECT id FROM message WHERE session_id = ? ORDER BY time_created DESC LIMIT 1')
      .get(SID) as {
      id: string;
    };
    w.prepare(
      'INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, 0, 0, ?)',
    ).run(id, m.id, SID, JSON.stringify({ type: 'text', text }));
  };

  it('gives a row its running agent wrote between two loads, and holds no read open between them', async () => {
    const db = store('running');
    const agent = new Database(db);
    try {
      agent.prepare('SELECT count(*) FROM session').get();
      const before = await load(db);
      // Straight on, in the same turn of the event loop: the second load reads through the kept
      // connection, in a read transaction of its own.
      addText(agent, 'p_written_between', 'written between the loads');
      const after = await load(db);
      expect(before.events.some((e) => e.id === 'p_written_between')).toBe(false);
      const added = after.events.find((e) => e.id === 'p_written_between');
      expect(added?.payload).toMatchObject({ text: 'written between the loads' });
      expect(after.events.length).toBe(before.events.length + 1);
      // No reader pins a snapshot of the log: the agent can copy all of it back into the store.
      const [checkpoint] = agent.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      expect(checkpoint?.busy).toBe(0);
      addText(agent, 'p_after_checkpoint', 'after the checkpoint');
      expect((await load(db)).events.some((e) => e.id === 'p_after_checkpoint')).toBe(true);
    } finally {
      agent.close();
    }
  });

  it('gives the rows of a store whose agent wrote and quit between two loads', async () => {
    const db = store('quit');
    const before = await load(db);
    const agent = new Database(db);
    addText(agent, 'p_while_running', 'while it ran');
    agent.close();
    const after = await load(db);
    expect(before.events.some((e) => e.id === 'p_while_running')).toBe(false);
    expect(after.events.some((e) => e.id === 'p_while_running')).toBe(true);
  });

  it('reads afresh a store replaced by another file, even one of the same size and time', async () => {
    // Both files given the same time, to the second, as a copy that keeps times would have it.
    const at = 1_750_000_000;
    const db = store('replaced', 'wal', 'Title A');
    utimesSync(db, at, at);
    expect((await load(db)).session.title).toBe('Title A');
    const other = store('replacement', 'wal', 'Title B');
    utimesSync(other, at, at);
    expect(statSync(other).size).toBe(statSync(db).size);
    renameSync(other, db);
    expect(statSync(db).mtimeMs).toBe(at * 1000);
    expect((await load(db)).session.title).toBe('Title B');

    // A store with a rollback journal is read where it is, through a connection kept at once.
    const inPlace = store('replaced-in-place', 'delete', 'Title C');
    expect((await load(inPlace)).session.title).toBe('Title C');
    renameSync(store('replacement-in-place', 'delete', 'Title D'), inPlace);
    expect((await load(inPlace)).session.title).toBe('Title D');
  });

  it('reports a store locked after a kept read as busy, and reads it again once the lock goes', async () => {
    const db = store('locked', 'delete');
    await load(db);
    const w = new Database(db);
    w.pragma('locking_mode = EXCLUSIVE');
    w.exec('BEGIN EXCLUSIVE');
    w.prepare("UPDATE session SET title = 'while locked'").run();
    try {
      const t = await loadTranscript(platform, { agent: 'opencode', path: storeSessionPath(db, SID) });
      expect(t.ok).toBe(false);
      if (!t.ok) expect(t.error.message).toMatch(/opencode\.db.*(locked|busy)/);
    } finally {
      w.exec('COMMIT');
      w.close();
    }
    expect((await load(db)).session.title).toBe('while locked');
  });

  it('reports a half-written store with its path and what is wrong', async () => {
    const whole = store('whole');
    const dir = join(root, 'half', 'opencode');
    mkdirSync(dir, { recursive: true });
    const half = join(dir, 'opencode.db');
    writeFileSync(half, readFileSync(whole).subarray(0, 8192));
    const t = await loadTranscript(platform, { agent: 'opencode', path: storeSessionPath(half, SID) });
    expect(t.ok).toBe(false);
    if (!t.ok) expect(t.error.message).toMatch(/half.*opencode\.db.*(malformed|not a database|corrupt)/);
  });
});
