// A search ranks its page by row ids and scores alone and cuts snippets only for that page: its
// answers are those of ranking every match with its snippet, on an index of the whole corpus. And
// the cold index's writes, which share commits, reach another connection of the index whenever it
// asks for the file, and at close.
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { corpus } from '../../transcript/test/corpus.js';
import { IndexDb, type SearchQuery } from '../src/indexing/index-db.js';
import { SEARCH_TARGETS, searchStatement } from '../src/indexing/search-query.js';
import { corpusEnv, serve, tempDir } from './helpers.js';

/** The statement before pages were ranked apart: every match joined, given a snippet, then sorted. */
function everyMatchRanked(q: SearchQuery) {
  // The match expression is the paged statement's first parameter: what is compared is the ranking.
  const where = ['docs_fts MATCH ?'];
  const params: unknown[] = [searchStatement(q)!.params[0]];
  const targets = q.targets ?? [];
  if (targets.length > 0 && targets.length < SEARCH_TARGETS.length) {
    where.push(`d.target IN (${targets.map(() => '?').join(', ')})`);
    params.push(...targets);
  }
  if (q.agents) {
    where.push(`s.agent IN (${q.agents.map(() => '?').join(', ')})`);
    params.push(...q.agents);
  }
  if (q.cwd !== undefined) {
    where.push("instr(coalesce(s.cwd, ''), ?) > 0");
    params.push(q.cwd);
  }
  if (q.sinceAt !== undefined) {
    where.push('d.at >= ?');
    params.push(q.sinceAt);
  }
  params.push(q.limit, q.offset);
  return {
    sql: `
      SELECT s.key AS sessionKey, s.agent AS agent, s.sid AS sid, d.agent_id AS agentId,
             d.item_uuid AS itemUuid, d.item_type AS itemType, d.target AS target, d.at AS at,
             snippet(docs_fts, -1, char(2), char(3), '…', 16) AS snippet, -bm25(docs_fts) AS score
      FROM docs_fts
      JOIN docs d ON d.id = docs_fts.rowid
      JOIN sessions s ON s.id = d.session_id
      WHERE ${where.join(' AND ')}
      ORDER BY bm25(docs_fts), d.id
      LIMIT ? OFFSET ?`,
    params,
  };
}

const base = { limit: 50, offset: 0 };
const ASKED: SearchQuery[] = [
  { ...base, query: 'the' },
  { ...base, query: 'the', limit: 7, offset: 7 },
  { ...base, query: 'the', limit: 1000 },
  { ...base, query: 'error', targets: ['tool_output'] },
  // Every target but tool output (the web page's search without tools): its column alone.
  { ...base, query: 'the', targets: ['prompt', 'assistant', 'thinking', 'tool_input'] },
  { ...base, query: 'run', targets: ['tool_input', 'thinking', 'assistant', 'prompt', 'prompt'] },
  { ...base, query: 'error', targets: ['tool_output', 'prompt'] },
  { ...base, query: 'function', targets: ['assistant', 'prompt'], agents: ['claude-code'] },
  { ...base, query: '"npm test"' },
  { ...base, query: 'test*', limit: 500 },
  { ...base, query: 'pomodoro', sinceAt: Date.parse('2026-01-01T00:00:00Z') },
  { ...base, query: 'file -test', cwd: 'spotter' },
  { ...base, query: 'no-such-word-anywhere' },
];

describe.skipIf(!corpus)('a search page', () => {
  it('answers what ranking every match with its snippet answers, on the corpus', async () => {
    const state = tempDir('cairn-state-');
    const server = await serve(corpusEnv(), { cairnHome: state, searchWorker: false });
    await server.close();
    const db = new Database(join(state, 'index.sqlite'), { readonly: true });
    try {
      let found = 0;
      for (const q of ASKED) {
        const paged = searchStatement(q)!;
        const reference = everyMatchRanked(q);
        const rows = db.prepare(paged.sql).all(...paged.params);
        expect(rows, JSON.stringify(q)).toEqual(db.prepare(reference.sql).all(...reference.params));
        found += rows.length;
      }
      // The questions find something: a comparison of empty answers would prove nothing.
      expect(found).toBeGreaterThan(500);
    } finally {
      db.close();
    }
  });
});

describe('writes held for one commit', () => {
  const doc = (n: number) => ({
    itemKey: `k${n}`,
    itemUuid: `u${n}`,
    itemType: 'user_prompt',
    target: 'prompt' as const,
    text: `held words ${n}`,
  });
  const committed = (file: string) => {
    const other = new Database(file, { readonly: true });
    try {
      return other.prepare('SELECT count(*) FROM docs').pluck().get() as number;
    } finally {
      other.close();
    }
  };

  it('reach another connection when it asks for the file, or when the time is up', async () => {
    const path = join(tempDir('cairn-state-'), 'index.sqlite');
    const db = IndexDb.open(path);
    db.putSession('k', 'claude-code', 's', {}, undefined);
    db.holdCommits(60_000);
    db.transaction(() => db.addDocs('k', [doc(1), doc(2)]));
    db.addDocs('k', [doc(3)]);
    // This connection reads its own writes; another sees none of them yet.
    expect(db.docCount()).toBe(3);
    expect(committed(path)).toBe(0);
    // Asking for the file (as the search thread does) commits them.
    expect(db.file).toBe(path);
    expect(committed(path)).toBe(3);

    db.holdCommits(50);
    db.addDocs('k', [doc(4)]);
    expect(committed(path)).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(committed(path)).toBe(4);
    db.close();
  });

  it('are committed at close, and a failed transaction inside them undoes only itself', () => {
    const path = join(tempDir('cairn-state-'), 'index.sqlite');
    const db = IndexDb.open(path);
    db.putSession('k', 'claude-code', 's', {}, undefined);
    db.holdCommits(60_000);
    db.addDocs('k', [doc(1)]);
    expect(() =>
      db.transaction(() => {
        db.addDocs('k', [doc(2)]);
        throw new Error('a write that fails half way');
      }),
    ).toThrow('a write that fails half way');
    db.addDocs('k', [doc(3)]);
    db.close();
    expect(committed(path)).toBe(2);
  });
});
