// Loading the highlighter lazily: the first screen is drawn with code as plain text, and the chunk is
// asked for only once something on the page has code to show, after that screen is up. Whatever
// renders code subscribes and upgrades itself when the chunk arrives.
import DOMPurify from 'dompurify';
import { useEffect, useState } from 'preact/hooks';

export type HighlightFn = (code: string, language: string | undefined) => string | undefined;

let highlighter: HighlightFn | undefined;
let loading: Promise<HighlightFn | undefined> | undefined;

/** The highlighter once its chunk is in, else undefined (and the chunk is then asked for). */
export function loadHighlighter(): Promise<HighlightFn | undefined> {
  loading ??= import('./languages.js').then(
    (m) => {
      highlighter = m.highlightToHtml;
      return highlighter;
    },
    // Without its chunk, code stays plain text: nothing else depends on it.
    () => undefined,
  );
  return loading;
}

/** The highlighter, once loaded; when `wanted`, asks for it after the current frame is drawn. */
export function useHighlighter(wanted = true): HighlightFn | undefined {
  const [fn, setFn] = useState<HighlightFn | undefined>(() => highlighter);
  useEffect(() => {
    if (fn || !wanted) return;
    let live = true;
    const start = () => void loadHighlighter().then((f) => live && f && setFn(() => f));
    const idle = window.requestIdleCallback?.(start, { timeout: 500 }) ?? window.setTimeout(start, 50);
    return () => {
      live = false;
      if (window.cancelIdleCallback) window.cancelIdleCallback(idle);
      else window.clearTimeout(idle);
    };
  }, [fn, wanted]);
  return fn;
}

/** The highlighter's HTML as DOM nodes: only spans and their classes survive, whatever the text held. */
export function highlightedFragment(html: string): DocumentFragment {
  return DOMPurify.sanitize(html, {
    RETURN_DOM_FRAGMENT: true,
    ALLOWED_TAGS: ['span'],
    ALLOWED_ATTR: ['class'],
  });
}
