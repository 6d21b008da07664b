// Search snippets mark their matches with two control characters, which transcript text does not
// carry (a server strips them from what it indexes), so a marker can never be forged by a transcript
// and a client renders the parts as text without parsing any markup.

/** Opens a highlighted match inside `snippet`. */
export const SNIPPET_MARK_START = '\u0002';
/** Closes it. */
export const SNIPPET_MARK_END = '\u0003';

export interface SnippetPart {
  text: string;
  /** This part matched the query. */
  match: boolean;
}

/** A snippet cut into plain and matched parts, in order, with the markers removed. An unclosed
 * marker runs to the end; a stray closing marker is dropped. */
export function snippetParts(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  let match = false;
  let text = '';
  const flush = () => {
    if (text !== '') parts.push({ text, match });
    text = '';
  };
  for (const ch of snippet) {
    if (ch === SNIPPET_MARK_START || ch === SNIPPET_MARK_END) {
      flush();
      match = ch === SNIPPET_MARK_START;
    } else {
      text += ch;
    }
  }
  flush();
  return parts;
}
