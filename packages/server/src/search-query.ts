// What a search asks and answers, and the SQL that answers it: the same statement runs on the
// daemon's thread or on the search worker's own connection.

/** What search looks in. `tool_output` sits in its own FTS column so that leaving it out is a
 * column filter of the index itself, not a scan of its matches. */
export type SearchTarget = 'prompt' | 'assistant' | 'thinking' | 'tool_input' | 'tool_output';
export const SEARCH_TARGETS: readonly SearchTarget[] = [
  'prompt',
  'assistant',
  'thinking',
  'tool_input',
  'tool_output',
];

export interface SearchQuery {
  query: string;
  targets?: readonly SearchTarget[];
  agents?: readonly string[];
  sid?: string;
  cwd?: string;
  sinceAt?: number;
  untilAt?: number;
  limit: number;
  offset: number;
}

export interface SearchRow {
  sessionKey: string;
  agent: string;
  sid: string;
  agentId: string | null;
  itemUuid: string;
  itemType: string;
  target: SearchTarget;
  at: number | null;
  snippet: string;
  score: number;
}

/** A search as SQL over the index's tables. Not kept prepared: each mix of filters is SQL of its own. */
export interface SearchStatement {
  sql: string;
  params: unknown[];
}

/** The query's statement; undefined when the query has no searchable word. */
export function searchStatement(q: SearchQuery): SearchStatement | undefined {
  const expr = ftsExpression(q.query);
  if (expr === undefined) return undefined;
  const targets = q.targets && q.targets.length > 0 ? q.targets : SEARCH_TARGETS;
  const withOutput = targets.includes('tool_output');
  const withText = targets.some((t) => t !== 'tool_output');
  const match =
    withOutput && withText ? expr : withOutput ? `{tool_output} : (${expr})` : `{text} : (${expr})`;
  const where: string[] = ['docs_fts MATCH ?'];
  const params: unknown[] = [match];
  if (targets.length < SEARCH_TARGETS.length) {
    where.push(`d.target IN (${targets.map(() => '?').join(', ')})`);
    params.push(...targets);
  }
  if (q.agents && q.agents.length > 0) {
    where.push(`s.agent IN (${q.agents.map(() => '?').join(', ')})`);
    params.push(...q.agents);
  }
  if (q.sid !== undefined) {
    where.push('s.sid = ?');
    params.push(q.sid);
  }
  if (q.cwd !== undefined) {
    where.push("instr(coalesce(s.cwd, ''), ?) > 0");
    params.push(q.cwd);
  }
  if (q.sinceAt !== undefined) {
    where.push('d.at >= ?');
    params.push(q.sinceAt);
  }
  if (q.untilAt !== undefined) {
    where.push('d.at <= ?');
    params.push(q.untilAt);
  }
  params.push(q.limit, q.offset);
  const sql = `
    SELECT s.key AS sessionKey, s.agent AS agent, s.sid AS sid, d.agent_id AS agentId,
           d.item_uuid AS itemUuid, d.item_type AS itemType, d.target AS target, d.at AS at,
           snippet(docs_fts, -1, char(2), char(3), '…', 16) AS snippet, -bm25(docs_fts) AS score
    FROM docs_fts
    JOIN docs d ON d.id = docs_fts.rowid
    JOIN sessions s ON s.id = d.session_id
    WHERE ${where.join(' AND ')}
    ORDER BY bm25(docs_fts), d.id
    LIMIT ? OFFSET ?`;
  return { sql, params };
}

/**
 * A user's query as an FTS5 expression: every word and every quoted phrase must occur, each
 * taken literally (FTS5's own operators and column syntax are not the user's to reach); a word
 * ending in `*` matches as a prefix.
 */
export function ftsExpression(query: string): string | undefined {
  const terms: string[] = [];
  const re = /"([^"]*)"|(\S+)/g;
  for (let m = re.exec(query); m !== null; m = re.exec(query)) {
    const phrase = m[1];
    const word = m[2];
    if (phrase !== undefined) {
      if (/[\p{L}\p{N}]/u.test(phrase)) terms.push(quote(phrase));
    } else if (word !== undefined) {
      const prefix = word.endsWith('*') && word.length > 1;
      const bare = prefix ? word.slice(0, -1) : word;
      if (!/[\p{L}\p{N}]/u.test(bare)) continue;
      terms.push(prefix ? `${quote(bare)} *` : quote(bare));
    }
  }
  return terms.length === 0 ? undefined : terms.join(' AND ');
}

const quote = (text: string): string => `"${text.replaceAll('"', '""')}"`;
