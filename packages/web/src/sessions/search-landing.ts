// The item a search result lands on shows the words that matched: ranges over its text nodes, drawn
// with the CSS Custom Highlight API, so the transcript text is never re-parsed or rewritten.
import { useEffect } from 'preact/hooks';

const NAME = 'search-hit';

const supported = (): boolean => typeof CSS !== 'undefined' && 'highlights' in CSS;

/** The words of a full-text query, without its quotes and operators. */
export function queryWords(query: string): string[] {
  const words = query
    .replace(/["()*^:]/g, ' ')
    .split(/\s+/)
    .filter((w) => w !== '' && !/^(AND|OR|NOT|NEAR)$/.test(w))
    .map((w) => w.toLowerCase());
  return [...new Set(words)];
}

/** Marks every occurrence of the words under `root`; answers how many were marked. */
export function markWords(root: Element, words: readonly string[]): number {
  if (!supported()) return 0;
  const ranges: Range[] = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.nodeValue ?? '';
    const lower = text.toLowerCase();
    // Lower-casing that changes a text's length would put the ranges in the wrong place.
    if (lower.length !== text.length) continue;
    for (const w of words) {
      for (let at = lower.indexOf(w); at !== -1; at = lower.indexOf(w, at + w.length)) {
        const range = new Range();
        range.setStart(node, at);
        range.setEnd(node, at + w.length);
        ranges.push(range);
      }
    }
  }
  CSS.highlights.set(NAME, new Highlight(...ranges));
  return ranges.length;
}

export function clearWords(): void {
  if (supported()) CSS.highlights.delete(NAME);
}

/**
 * While a search's query is in the URL, marks its words in the row the link landed on (`.row.target`
 * under `scroller`), again whenever the drawing may have changed (`version`), and whenever that row
 * is drawn anew: the virtualizer draws it again after it was scrolled away, and a row's own redraw
 * replaces the text nodes the ranges were set in.
 */
export function useSearchHighlight(
  scroller: { readonly current: HTMLElement | null },
  query: string | undefined,
  version: unknown,
): void {
  useEffect(() => {
    const root = scroller.current;
    if (!query || !root) {
      clearWords();
      return;
    }
    const words = queryWords(query);
    // The row marked, and the frame a new marking waits for.
    let marked: Element | null = null;
    let frame = 0;
    const mark = () => {
      frame = 0;
      const row = root.querySelector('.row.target');
      if (row === marked) return;
      marked = row;
      if (row) markWords(row, words);
      else clearWords();
    };
    const later = () => {
      if (frame === 0) frame = requestAnimationFrame(mark);
    };
    // Only changes that touch the marked row, or take it away, mark again: scrolling alone adds
    // and removes other rows all the time.
    const watcher = new MutationObserver((records) => {
      if (marked === null || !marked.isConnected) {
        marked = null;
        later();
        return;
      }
      for (const r of records)
        if (marked.contains(r.target)) {
          marked = null;
          later();
          return;
        }
    });
    watcher.observe(root, { childList: true, subtree: true, characterData: true });
    later();
    return () => {
      watcher.disconnect();
      if (frame !== 0) cancelAnimationFrame(frame);
    };
  }, [query, version]);
  useEffect(() => () => clearWords(), []);
}
