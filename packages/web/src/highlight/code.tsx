// Code shown as code: plain text at once, coloured when the highlighter has loaded. The text is always
// set as text first; what replaces it is the highlighter's escaped output, sanitized to spans.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { languageOfFence } from './lang.js';
import { type HighlightFn, highlightedFragment, useHighlighter } from './load.js';

// Beyond this a block is cut, with a button for the rest (as plain text blocks are).
const CAP = 12_000;
// Beyond this nothing is highlighted: colouring megabytes would stall the page for little.
const HIGHLIGHT_MAX = 200_000;

/** Where a cut falls: the end of the last whole line before `max` characters. */
function cutAt(text: string, max: number): number {
  if (text.length <= max) return text.length;
  const nl = text.lastIndexOf('\n', max);
  return nl > 0 ? nl : max;
}

export function Code({
  text,
  language,
  firstLine,
  className = '',
}: {
  text: string;
  /** The highlighter's name for the language; guessed when absent. */
  language: string | undefined;
  /** Number the lines from this one (a Read of a file from its line 40 starts at 40). */
  firstLine?: number | undefined;
  className?: string;
}) {
  const [all, setAll] = useState(false);
  const end = all ? text.length : cutAt(text, CAP);
  const shown = text.slice(0, end);
  const highlight = useHighlighter();
  const ref = useRef<HTMLElement>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    const html = highlight && shown.length <= HIGHLIGHT_MAX ? highlight(shown, language) : undefined;
    if (html === undefined) el.textContent = shown;
    else el.replaceChildren(highlightedFragment(html));
    el.classList.toggle('hljs', html !== undefined);
  }, [highlight, shown, language]);
  const lines = firstLine === undefined ? undefined : shown.split('\n').length;
  return (
    <div class={`code-block ${className}`}>
      <div class="code-scroll">
        {lines !== undefined && (
          <pre class="line-numbers" aria-hidden="true">
            {Array.from({ length: lines }, (_, i) => firstLine! + i).join('\n')}
          </pre>
        )}
        <pre class="code">
          <code ref={ref} data-language={language}>
            {/* Filled from the effect: plain text, then the highlighted copy. */}
          </code>
        </pre>
      </div>
      {end < text.length && (
        <button type="button" class="link" onClick={() => setAll(true)}>
          show all {Math.round(text.length / 1000)}k characters
        </button>
      )}
    </div>
  );
}

/** Highlights, in place, every `pre > code` block of a subtree (fenced blocks of rendered Markdown),
 * with the language the block names, if any. */
export function highlightBlocks(root: HTMLElement, highlight: HighlightFn): void {
  for (const code of root.querySelectorAll<HTMLElement>('pre > code')) {
    if (code.classList.contains('hljs')) continue;
    const text = code.textContent ?? '';
    if (text.length > HIGHLIGHT_MAX) continue;
    const named = /(?:^|\s)language-([\w+#.-]+)/.exec(code.className)?.[1];
    const html = highlight(text, languageOfFence(named));
    if (html === undefined) continue;
    code.replaceChildren(highlightedFragment(html));
    code.classList.add('hljs');
  }
}
