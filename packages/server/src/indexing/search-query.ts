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
/** The targets whose text is the FTS `text` column. */
const TEXT_TARGETS = SEARCH_TARGETS.filter((t) => t !== 'tool_output');

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
  /** Best first (the default), or in the order the items were recorded. */
  order?: 'rank' | 'time';
  /** Also count every match: each row then carries `total`. */
  count?: boolean;
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
  /** Every match of the search, when it was asked to count. */
  total?: number;
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
  // Only the tables a filter needs join the ranking: the document's row id is its FTS row id.
  let docs = false;
  let sessions = false;
  // The column filter alone is exact when the targets are all of a column's: a tool's output is
  // the only text of the tool_output column and no other target writes there. Only some of the
  // text column's targets need each match's row joined: 0.6 µs a match, nearly what ranking it costs.
  const asked = new Set(targets);
  if (!TEXT_TARGETS.every((t) => asked.has(t) === withText)) {
    where.push(`d.target IN (${targets.map(() => '?').join(', ')})`);
    params.push(...targets);
    docs = true;
  }
  if (q.agents && q.agents.length > 0) {
    where.push(`s.agent IN (${q.agents.map(() => '?').join(', ')})`);
    params.push(...q.agents);
    sessions = true;
  }
  if (q.sid !== undefined) {
    where.push('s.sid = ?');
    params.push(q.sid);
    sessions = true;
  }
  if (q.cwd !== undefined) {
    where.push("instr(coalesce(s.cwd, ''), ?) > 0");
    params.push(q.cwd);
    sessions = true;
  }
  if (q.sinceAt !== undefined) {
    where.push('d.at >= ?');
    params.push(q.sinceAt);
    docs = true;
  }
  if (q.untilAt !== undefined) {
    where.push('d.at <= ?');
    params.push(q.untilAt);
    docs = true;
  }
  const filters = params.slice();
  params.push(q.limit, q.offset);
  // In time order the page is cut by the document's time, which only its row holds.
  const byTime = q.order === 'time';
  if (byTime) docs = true;
  const sort = byTime ? 'd.at, docs_fts.rowid' : 'rank, docs_fts.rowid';
  const joins = [
    ...(docs || sessions ? ['JOIN docs d ON d.id = docs_fts.rowid'] : []),
    ...(sessions ? ['JOIN sessions s ON s.id = d.session_id'] : []),
  ];
  // Ranked without a filter beyond its targets, a search matching more than RANKED_AT_MOST items
  // ranks its newest (the lowest row ids: IndexDb.addDocs). Ranking costs each match about 0.7 µs,
  // so a common word over a large index took a quarter of a second; the newest are found by
  // reading the word's first 5,000 row ids, well under a millisecond.
  let newest = '';
  const ranked: string[] = [];
  if (!byTime && joins.length === 0) {
    newest = `newest AS MATERIALIZED (
      SELECT rowid AS id FROM docs_fts WHERE docs_fts MATCH ? ORDER BY rowid LIMIT 1 OFFSET ?),`;
    ranked.push('docs_fts.rowid <= coalesce((SELECT id FROM newest), 9223372036854775807)');
    // Its statement comes first.
    params.unshift(match, RANKED_AT_MOST - 1);
  }
  // Every match counted, when asked, under the same filters: a pass of its own over the matches
  // without their scores (FTS5 refuses its ranking function beside a window function's count).
  let counted = '';
  if (q.count === true) {
    counted = `,
    counted AS MATERIALIZED (
      SELECT count(*) AS total FROM docs_fts ${joins.join(' ')} WHERE ${where.join(' AND ')})`;
    params.push(...filters);
  }
  // The page is ranked first, by row ids and scores alone; only its rows are then joined and given
  // a snippet. With the snippet in the ranking query, SQLite cut one for every match before sorting:
  // for a common word, nearly every document of the index. CROSS JOIN keeps the page the outer loop,
  // so that each of its rows is looked up in the full-text index by row id.
  const sql = `
    WITH ${newest}page AS MATERIALIZED (
      SELECT docs_fts.rowid AS id, bm25(docs_fts) AS rank${byTime ? ', d.at AS at' : ''}
      FROM docs_fts ${joins.join(' ')}
      WHERE ${[...where, ...ranked].join(' AND ')}
      ORDER BY ${sort}
      LIMIT ? OFFSET ?)${counted}
    SELECT s.key AS sessionKey, s.agent AS agent, s.sid AS sid, d.agent_id AS agentId,
           d.item_uuid AS itemUuid, d.item_type AS itemType, d.target AS target, d.at AS at,
           snippet(docs_fts, -1, char(2), char(3), '…', 16) AS snippet, -page.rank AS score${q.count === true ? ', counted.total AS total' : ''}
    FROM page${q.count === true ? ' CROSS JOIN counted' : ''}
    CROSS JOIN docs_fts ON docs_fts.rowid = page.id
    JOIN docs d ON d.id = page.id
    JOIN sessions s ON s.id = d.session_id
    WHERE docs_fts MATCH ?
    ORDER BY ${byTime ? 'page.at, page.id' : 'page.rank, page.id'}`;
  params.push(match);
  return { sql, params };
}

/** The most matches a search ranks when it has no filter beyond its targets: the newest. */
export const RANKED_AT_MOST = 5_000;

/**
 * The most distinct words and phrases one search takes. FTS5 weighs every term against every
 * match of every other when it ranks and cuts snippets, so a search's cost grows faster than its
 * terms; a longer query is refused with a message rather than cut short, since dropping terms
 * would answer items that lack them.
 */
export const MAX_SEARCH_TERMS = 32;

/** A query with more distinct terms than a search takes; the message says how many and the limit. */
export class TooManyTerms extends Error {
  constructor(readonly terms: number) {
    super(`the query has ${terms} distinct words and phrases; a search takes at most ${MAX_SEARCH_TERMS}`);
    this.name = 'TooManyTerms';
  }
}

/** A query whose every term is excluded (`-word`): it names nothing to find. */
export class OnlyExclusions extends Error {
  constructor() {
    super('the query only excludes words (-word); add a word or phrase to find');
    this.name = 'OnlyExclusions';
  }
}

/**
 * A user's query as an FTS5 expression: every word and every quoted phrase must occur, each
 * taken literally (FTS5's own operators and column syntax are not the user's to reach); a word
 * ending in `*` matches as a prefix, and a word or phrase after one `-` must not occur (`--flag`
 * stays a word to find). Exclusions narrow the items the other terms find, so a query of
 * exclusions only is refused (OnlyExclusions): it would answer nearly every item. A term repeated, in another case of ASCII letters or with other punctuation, is asked once:
 * it finds the same items, and each copy made the search slower (499 copies of a common word took
 * a minute). Throws TooManyTerms past MAX_SEARCH_TERMS distinct terms.
 */
export function ftsExpression(query: string): string | undefined {
  const terms = queryTerms(query);
  if (!terms) return undefined;
  const asFts = (t: QueryTerm) => (t.prefix ? `${quote(t.text)} *` : quote(t.text));
  const found = terms.wanted.map(asFts).join(' AND ');
  if (terms.unwanted.length === 0) return found;
  // FTS5's NOT is binary: what the wanted terms find, less the items holding any unwanted one.
  return `(${found}) NOT (${terms.unwanted.map(asFts).join(' OR ')})`;
}

/** One word or phrase of a query: as spelt, its tokens (see tokensOf), and whether it is a prefix. */
export interface QueryTerm {
  readonly text: string;
  readonly tokens: string;
  readonly prefix: boolean;
}

/**
 * A user's query as the terms to find and to leave out (see ftsExpression for the rules);
 * undefined when it has no searchable word.
 */
export function queryTerms(query: string): { wanted: QueryTerm[]; unwanted: QueryTerm[] } | undefined {
  /** Each term as first spelt, by its tokens; those to find and those to leave out apart. */
  const wanted = new Map<string, QueryTerm>();
  const unwanted = new Map<string, QueryTerm>();
  const add = (negated: boolean, term: QueryTerm) => {
    const terms = negated ? unwanted : wanted;
    const key = `${term.prefix ? '*' : '"'}${term.tokens}`;
    if (!terms.has(key)) terms.set(key, term);
  };
  const re = /(-?)"([^"]*)"|(\S+)/g;
  for (let m = re.exec(query); m !== null; m = re.exec(query)) {
    const phrase = m[2];
    let word = m[3];
    if (phrase !== undefined) {
      if (/[\p{L}\p{N}]/u.test(phrase))
        add(m[1] === '-', { text: phrase, tokens: tokensOf(phrase), prefix: false });
    } else if (word !== undefined) {
      // One dash before a word leaves it out; `--name` and a lone `-` are text to find.
      const negated = /^-[^-]/.test(word);
      if (negated) word = word.slice(1);
      const prefix = word.endsWith('*') && word.length > 1;
      const bare = prefix ? word.slice(0, -1) : word;
      if (!/[\p{L}\p{N}]/u.test(bare)) continue;
      // A bare word of one token is the phrase of that token: `the` and `"the"` are one term.
      add(negated, { text: bare, tokens: tokensOf(bare), prefix });
    }
  }
  const count = wanted.size + unwanted.size;
  if (count > MAX_SEARCH_TERMS) throw new TooManyTerms(count);
  if (wanted.size === 0) {
    if (unwanted.size > 0) throw new OnlyExclusions();
    return undefined;
  }
  return { wanted: [...wanted.values()], unwanted: [...unwanted.values()] };
}

/**
 * A term's tokens, to tell two spellings of one term: the punctuation between words and the case
 * of ASCII letters do not count. Folding stops there on purpose: two spellings taken for one here
 * must be one for the index's tokenizer too, or a search would drop a term it needs. Letters,
 * digits and private-use characters are what that tokenizer keeps.
 */
const tokensOf = (text: string): string =>
  text
    .replace(/[A-Z]/g, (c) => c.toLowerCase())
    .split(/[^\p{L}\p{N}\p{Co}]+/u)
    .filter((t) => t !== '')
    .join(' ');

const quote = (text: string): string => `"${text.replaceAll('"', '""')}"`;
