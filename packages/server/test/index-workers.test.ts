// Sessions nobody follows are read on worker threads, at the cold index and when they grow: the index
// written is the one an in-process read writes, and a worker that dies costs only its session.
import { appendFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  foldTranscript,
  type ListEntry,
  listSessions,
  loadTranscript,
  nodePlatform,
} from '@cairn/transcript';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { longRollout } from '../../transcript/test/support/long-sessions.js';
import { IndexDb } from '../src/indexing/index-db.js';
import { INDEX_IN_PARTS_BYTES } from '../src/indexing/index-parts.js';
import { IndexWorkers } from '../src/indexing/index-workers.js';
import { laneItems, searchDocs } from '../src/indexing/search-docs.js';
import { Catalog } from '../src/reader/catalog.js';
import { corpusEnv, homeEnv, serve, tempDir } from './helpers.js';

// Worker threads start built code: the worker the daemon's bundle carries.
const BUILT_WORKER = fileURLToPath(new URL('../../cli/dist/index-worker.js', import.meta.url));
const DYING_WORKER = fileURLToPath(new URL('./support/dying-index-worker.mjs', import.meta.url));
const SID = '4d5611e5-241a-462a-8d15-5122611a9569';
const PROJECT = ['claude', 'projects', '-work-spotter'];

/** Every row the index holds of the sessions, their files and their documents, in a fixed order. */
function indexRows(state: string) {
  const db = new Database(join(state, 'index.sqlite'), { readonly: true });
  try {
    return {
      sessions: db
        .prepare(
          'SELECT key, agent, sid, head, last_activity_at, summary, capabilities, indexed FROM sessions ORDER BY key',
        )
        .all(),
      files: db.prepare('SELECT path, session_key, size, offset, head FROM files ORDER BY path').all(),
      docs: db
        .prepare(
          `SELECT s.key, d.item_key, d.agent_id, d.item_uuid, d.item_type, d.target, d.at, f.text, f.tool_output
           FROM docs d JOIN docs_fts f ON f.rowid = d.id JOIN sessions s ON s.id = d.session_id
           ORDER BY s.key, d.item_key`,
        )
        .all(),
    };
  } finally {
    db.close();
  }
}

describe.skipIf(!corpus || !existsSync(BUILT_WORKER))('the cold index on worker threads', () => {
  it('writes the same index as a read on the daemon thread, every corpus session', async () => {
    const env = corpusEnv();
    const states = { inline: tempDir('cairn-state-'), workers: tempDir('cairn-state-') };
    const inline = await serve(env, { cairnHome: states.inline, indexWorker: false });
    await inline.close();
    const pooled = await serve(env, { cairnHome: states.workers, indexWorker: BUILT_WORKER });
    // The workers' reads count as the daemon's.
    expect(pooled.catalog.stats.files.size).toBeGreaterThan(5);
    expect(pooled.catalog.stats.bytes).toBeGreaterThan(0);
    await pooled.close();

    const a = indexRows(states.inline);
    const b = indexRows(states.workers);
    expect(a.sessions.length).toBeGreaterThan(5);
    expect(a.docs.length).toBeGreaterThan(100);
    expect(b.sessions).toEqual(a.sessions);
    expect(b.files).toEqual(a.files);
    expect(b.docs).toEqual(a.docs);
  });

  it('lists each agent’s sessions on a worker as the daemon’s thread lists them, every agent at once', async () => {
    const env = corpusEnv();
    const platform = nodePlatform({ env, homeDir: env.HOME! });
    const workers = new IndexWorkers(BUILT_WORKER, platform, 2);
    try {
      const agents = ['claude-code', 'codex', 'gemini-cli'];
      const reads: number[] = [];
      const listings = agents.map((agent) => workers.list(agent, (read) => reads.push(read.bytes)));
      for (const [i, agent] of agents.entries()) {
        const here: ListEntry[] = [];
        for await (const entry of listSessions(platform, { agent })) here.push(entry);
        const there: ListEntry[] = [];
        for await (const entry of listings[i]!) there.push(entry);
        expect(here.length, agent).toBeGreaterThan(0);
        expect(there, agent).toEqual(here);
      }
      // What each listing read counts as the daemon's.
      expect(reads).toHaveLength(agents.length);
      expect(reads.every((bytes) => bytes > 0)).toBe(true);
    } finally {
      await workers.close();
    }
  });

  it('reads a growing session nobody follows, too large to keep translated, again on a worker, as a whole read makes it', async () => {
    const lines = readFileSync(corpusPath(...PROJECT, `${SID}.jsonl`), 'utf8')
      .split('\n')
      .filter(Boolean);
    const home = tempDir();
    const dir = join(home, '.claude', 'projects', '-work-spotter');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${SID}.jsonl`);
    writeFileSync(file, `${lines.slice(0, 400).join('\n')}\n`);
    const state = tempDir('cairn-state-');
    const server = await serve(homeEnv(home), {
      cairnHome: state,
      indexWorker: BUILT_WORKER,
      rescanMs: 200,
      tailBytes: 0,
    });
    const key = `claude-code:${file}`;
    try {
      const before = server.catalog.get(key)?.summary;
      expect(before?.requests).toBeGreaterThan(0);
      appendFileSync(file, `${lines.slice(400).join('\n')}\n`);
      const whole = await loadTranscript(nodePlatform({ env: homeEnv(home), homeDir: home }), {
        agent: 'claude-code',
        path: file,
      });
      if (!whole.ok) throw new Error(whole.error.message);
      const summary = foldTranscript(whole.value, { prompts: true });
      expect(summary.requests).toBeGreaterThan(before!.requests!);
      // The whole summary, prompts included, is the index's; memory keeps its numbers.
      const indexed = () => {
        const entry = server.catalog.get(key);
        return entry && server.catalog.fullSummary(entry);
      };
      await expect.poll(indexed, { timeout: 20_000 }).toEqual(summary);
      await server.catalog.settled();
      // Not kept in the daemon's file cache: it was read on a worker.
      expect(server.catalog.files.has(file)).toBe(false);
    } finally {
      await server.close();
    }
    const stored = indexRows(state).docs.map((d) => (d as { item_key: string }).item_key);
    const loaded = await loadTranscript(nodePlatform({ env: homeEnv(home), homeDir: home }), {
      agent: 'claude-code',
      path: file,
    });
    if (!loaded.ok) throw new Error(loaded.error.message);
    expect(stored.sort()).toEqual(
      searchDocs(laneItems(loaded.value))
        .map((d) => d.itemKey)
        .sort(),
    );
  }, 60_000);

  it('reads a session too large to read whole on a worker a part at a time, as the daemon’s thread does', async () => {
    const home = tempDir('cairn-home-');
    const path = longRollout(home, 34);
    expect(statSync(path).size).toBeGreaterThan(INDEX_IN_PARTS_BYTES);
    const env = homeEnv(home);
    const states = { inline: tempDir('cairn-state-'), workers: tempDir('cairn-state-') };
    const inline = await serve(env, { cairnHome: states.inline, indexWorker: false });
    await inline.close();
    const lines: string[] = [];
    const pooled = await serve(env, {
      cairnHome: states.workers,
      indexWorker: BUILT_WORKER,
      log: (l) => lines.push(l),
    });
    // The worker's reads count as the daemon's: the whole file, once.
    expect(pooled.catalog.stats.bytes).toBeGreaterThanOrEqual(statSync(path).size);
    const [entry] = pooled.catalog.all();
    expect(entry?.error).toBeUndefined();
    await pooled.close();
    expect(lines.filter((l) => l.includes('read whole after all'))).toEqual([]);

    const a = indexRows(states.inline);
    const b = indexRows(states.workers);
    expect(a.docs.length).toBeGreaterThan(34 * 100);
    expect(b.sessions).toEqual(a.sessions);
    expect(b.files).toEqual(a.files);
    expect(b.docs).toEqual(a.docs);
    // The numbers are those of every copy: the rollout read whole counts as many requests.
    const whole = await loadTranscript(nodePlatform({ env, homeDir: home }), { agent: 'codex', path });
    if (!whole.ok) throw new Error(whole.error.message);
    const summary = JSON.parse((b.sessions[0] as { summary: string }).summary) as {
      requests: number;
      turns: number;
    };
    const expected = foldTranscript(whole.value);
    expect(summary.requests).toBe(expected.requests);
    expect(summary.turns).toBe(expected.turns);
  }, 120_000);

  it('records a session whose worker died as failed, and indexes the others', async () => {
    const env = corpusEnv();
    const platform = nodePlatform({ env, homeDir: env.HOME! });
    const db = IndexDb.open(join(tempDir('cairn-state-'), 'index.sqlite'));
    const workers = new IndexWorkers(DYING_WORKER, platform, 2);
    const lines: string[] = [];
    const catalog = new Catalog({ platform, db, workers, watch: false, log: (l) => lines.push(l) });
    try {
      await catalog.start();
      await catalog.settled();
      const all = catalog.all();
      const failed = all.filter((e) => e.error !== undefined);
      expect(failed.map((e) => e.error)).toEqual([expect.stringContaining('the worker reading it stopped')]);
      expect(failed[0]!.head.path).toContain('codex');
      const indexed = all.filter((e) => e.error === undefined);
      expect(indexed.length).toBe(all.length - 1);
      expect(indexed.every((e) => e.indexed && e.summary !== undefined)).toBe(true);
      expect(lines.some((l) => l.includes('the worker reading it stopped'))).toBe(true);
      // This worker cannot list: each agent's sessions were listed on the daemon's thread instead.
      expect(lines.filter((l) => l.includes("listing on the daemon's thread")).length).toBeGreaterThan(0);
      // Its file is recorded as it is, so it is not read again (nor its worker lost again) until it changes.
      const path = failed[0]!.head.path;
      expect(db.files().get(path)).toMatchObject({ size: statSync(path).size, sessionKey: failed[0]!.key });
    } finally {
      catalog.close();
      await workers.close();
      db.close();
    }
  });
});
