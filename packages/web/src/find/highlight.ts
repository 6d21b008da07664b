// Marks what find-in-session found in the rows on screen with the CSS Custom Highlight API: ranges over
// the text nodes as they are, so transcript text is never re-parsed or rewritten to show a match.

const MATCH = 'find-match';
const CURRENT = 'find-current';

const supported = (): boolean => typeof CSS !== 'undefined' && 'highlights' in CSS;

/**
 * Highlights every occurrence of `query` under `root`; those inside `current` stand out. Returns the
 * first of those, for the view to bring into sight.
 */
export function highlightMatches(
  root: HTMLElement,
  query: string,
  current: Element | null,
): Range | undefined {
  if (!supported()) return undefined;
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
  return here[0];
}

export function clearHighlights(): void {
  if (!supported()) return;
  CSS.highlights.delete(MATCH);
  CSS.highlights.delete(CURRENT);
}

const scrolls = (el: Element): boolean => {
  const { overflowX, overflowY } = getComputedStyle(el);
  return /auto|scroll/.test(overflowX) || /auto|scroll/.test(overflowY);
};

/**
 * Scrolls `range` into sight inside `root`: first every scrolling box between them (a long output
 * scrolls inside its row), then `root` itself, placing the match a third of the way down.
 */
export function revealRange(range: Range, root: HTMLElement): void {
  const boxes: Element[] = [];
  for (let el = range.startContainer.parentElement; el && el !== root; el = el.parentElement) {
    if (scrolls(el)) boxes.push(el);
  }
  boxes.push(root);
  for (const el of boxes) {
    const box = range.getBoundingClientRect();
    const view = el.getBoundingClientRect();
    if (box.top < view.top || box.bottom > view.bottom) el.scrollTop += box.top - view.top - view.height / 3;
    if (box.left < view.left || box.right > view.right) el.scrollLeft += box.left - view.left - 24;
  }
}
