// A user's query as PostgreSQL's full-text search reads it, with the meaning the server's own search
// gives it (search-query.ts): every word and phrase must occur, a phrase as its words in order, a
// word ending in `*` as a prefix, one after `-` must not occur.
import { type QueryTerm, queryTerms } from '../indexing/search-query.js';

/** The `to_tsquery` text of a query, or undefined when it has no word to find. Its lexemes hold
 * letters and digits only, so nothing of the query reaches the tsquery syntax. */
export function tsQuery(query: string): string | undefined {
  const terms = queryTerms(query);
  if (!terms) return undefined;
  const term = (t: QueryTerm): string => {
    const words = t.tokens.split(' ').map((w) => `'${w}'`);
    if (t.prefix) words[words.length - 1] = `${words.at(-1)}:*`;
    return words.length === 1 ? words[0]! : `(${words.join(' <-> ')})`;
  };
  const found = terms.wanted.map(term).join(' & ');
  if (terms.unwanted.length === 0) return found;
  return `(${found}) & !(${terms.unwanted.map(term).join(' | ')})`;
}
