// Marks what find-in-session found in the rows on screen with the CSS Custom Highlight API: ranges over
// the text nodes as they are, so transcript text is never re-parsed or rewritten to show a match.

const MATCH = 'find-match';
const CURRENT = 'find-current';

const supported = (): boolean => typeof CSS !== 'undefined' && 'highlights' in CSS;

/** Highlights every occurrence of `query` under `root`; those inside `current` stand out. */
export function highlightMatches(root: HTMLElement, query: string, current: Element | null): void {
  if (!supported()) return;
  const needle = query.trim().toLowerCase();
  const all: Range[] = [];
  const here: Range[] = [];
  if (needle !== '') {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.nodeValue ?? '';
      const lower = text.toLowerCase();
      // Lower-casing that changes a text's length would put ranges in the wrong place.
      if (lower.length !== text.length) continue;
      for (let at = lower.indexOf(needle); at !== -1; at = lower.indexOf(needle, at + needle.length)) {
        const range = new Range();
        range.setStart(node, at);
        range.setEnd(node, at + needle.length);
        (current?.contains(node) ? here : all).push(range);
      }
    }
  }
  CSS.highlights.set(MATCH, new Highlight(...all));
  CSS.highlights.set(CURRENT, new Highlight(...here));
}

export function clearHighlights(): void {
  if (!supported()) return;
  CSS.highlights.delete(MATCH);
  CSS.highlights.delete(CURRENT);
}
