// Find-in-session for a virtualized timeline: the browser's own find sees only the rows in the DOM, so
// this searches the items themselves, scrolls to each matching row, opens it, and highlights the match.
import type { Virtualizer } from '@tanstack/virtual-core';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Row } from '../timeline/model.js';
import type { FindBarProps } from './find-bar.js';
import { clearHighlights, highlightMatches, revealRange } from './highlight.js';
import { matchingRows } from './text.js';

export interface FindTarget {
  readonly rows: readonly Row[];
  readonly scroller: { readonly current: HTMLElement | null };
  readonly virtualizer: Virtualizer<HTMLElement, HTMLElement>;
  /** Shows a row as the one found: marks it, opens its body, stops following the tail. */
  show(index: number): void;
}

// Typing finds after a short pause: each pass reads every item of the session.
const SETTLE_MS = 120;

export interface Find {
  readonly open: boolean;
  readonly bar: FindBarProps;
  /** Opens the bar and puts the focus in it (for a button: touch screens have no Ctrl+F). */
  show(): void;
}

export function useFind(target: FindTarget): Find {
  const { rows, scroller, virtualizer } = target;
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState('');
  const [query, setQuery] = useState('');
  const [current, setCurrent] = useState(-1);
  const [focusSignal, setFocusSignal] = useState(0);

  useEffect(() => {
    const timer = setTimeout(() => setQuery(draft), SETTLE_MS);
    return () => clearTimeout(timer);
  }, [draft]);

  const matches = useMemo(() => (open ? matchingRows(rows, query) : []), [open, rows, query]);

  // Set once a match is scrolled to: the next paint brings its first highlight into sight.
  const reveal = useRef(false);
  const repaint = useRef(() => {});
  const go = (n: number) => {
    if (matches.length === 0) return;
    const k = ((n % matches.length) + matches.length) % matches.length;
    setCurrent(k);
    const index = matches[k]!;
    target.show(index);
    virtualizer.scrollToIndex(index, { align: 'start' });
    // Rows around it are measured as they draw, which moves it: aim again once they have, then bring
    // the match itself into sight (it may be far down a tall row).
    requestAnimationFrame(() =>
      requestAnimationFrame(() => {
        virtualizer.scrollToIndex(index, { align: 'start' });
        reveal.current = true;
        repaint.current();
      }),
    );
  };
  // A new query shows its first match at once; new rows (a live tail) keep the match shown.
  const shownFor = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!open) {
      shownFor.current = undefined;
      return;
    }
    if (shownFor.current === query) {
      if (current >= matches.length) setCurrent(matches.length - 1);
      return;
    }
    shownFor.current = query;
    if (matches.length > 0) go(0);
    else setCurrent(-1);
  }, [matches]);
  // Enter before the pause is over finds what is typed now.
  const settled = (): boolean => {
    if (draft === query) return true;
    setQuery(draft);
    return false;
  };

  const currentKey = current >= 0 ? rows[matches[current] ?? -1]?.key : undefined;
  const needle = open ? query : '';
  // Highlights follow the rows as the list draws them: on every change to the rows in the DOM.
  useEffect(() => {
    const root = scroller.current;
    if (!root || needle.trim() === '') {
      repaint.current = () => {};
      clearHighlights();
      return;
    }
    let frame = 0;
    // A step scheduled just before the bar closed (or the query changed) must not paint again.
    let live = true;
    const paint = () => {
      frame = 0;
      if (!live) return;
      const index = currentKey === undefined ? -1 : rows.findIndex((r) => r.key === currentKey);
      const first = highlightMatches(root, needle, root.querySelector(`.vrow[data-index="${index}"]`));
      if (reveal.current && first) {
        reveal.current = false;
        revealRange(first, root);
      }
    };
    const later = () => {
      if (frame === 0) frame = requestAnimationFrame(paint);
    };
    repaint.current = later;
    paint();
    const watch = new MutationObserver(later);
    watch.observe(root, { childList: true, subtree: true, characterData: true });
    return () => {
      live = false;
      repaint.current = () => {};
      watch.disconnect();
      cancelAnimationFrame(frame);
      clearHighlights();
    };
  }, [needle, currentKey, rows]);

  // Ctrl+F (or ⌘F) and "/" open the bar; Escape closes it.
  const state = useRef({ open });
  state.current.open = open;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const tag = (e.target as HTMLElement | null)?.tagName;
      const typing = tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT';
      const findKey = (e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 'f';
      const slash = e.key === '/' && !e.ctrlKey && !e.metaKey && !e.altKey && !typing;
      if (findKey || slash) {
        e.preventDefault();
        setOpen(true);
        setFocusSignal((n) => n + 1);
      } else if (e.key === 'Escape' && state.current.open && !typing) {
        e.preventDefault();
        setOpen(false);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return {
    open,
    show: () => {
      setOpen(true);
      setFocusSignal((n) => n + 1);
    },
    bar: {
      query: draft,
      count: matches.length,
      current,
      focusSignal,
      onQuery: setDraft,
      onNext: () => settled() && go(current + 1),
      onPrevious: () => settled() && go(current < 0 ? -1 : current - 1),
      onClose: () => {
        setOpen(false);
        scroller.current?.focus();
      },
    },
  };
}
