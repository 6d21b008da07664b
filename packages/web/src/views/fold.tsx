// Small pieces the timeline rows are built from: a fold whose open state outlives the row (rows
// leave the DOM as they scroll out of view), a capped text block, and Markdown.
import type { ComponentChildren } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { highlightBlocks } from '../highlight/code.js';
import { useHighlighter } from '../highlight/load.js';
import { markdownFragment } from '../markdown.js';

export interface FoldState {
  isOpen(key: string): boolean;
  toggle(key: string): void;
  open(key: string): void;
}

export function Fold({
  id,
  folds,
  label,
  children,
  className = '',
  aside,
  under,
}: {
  id: string;
  folds: FoldState;
  label: ComponentChildren;
  children: () => ComponentChildren;
  className?: string;
  /** Controls of their own beside the toggle (a button cannot hold another). */
  aside?: ComponentChildren;
  /** Shown under the toggle, above the body, whether or not the fold is open. */
  under?: ComponentChildren;
}) {
  const open = folds.isOpen(id);
  const toggle = (
    <button type="button" class="fold-toggle" aria-expanded={open} onClick={() => folds.toggle(id)}>
      <span class="chevron" aria-hidden="true">
        {open ? '▾' : '▸'}
      </span>
      {label}
    </button>
  );
  return (
    <div class={`fold ${open ? 'open' : ''} ${className}`}>
      {aside === undefined ? (
        toggle
      ) : (
        <div class="fold-head">
          {toggle}
          {aside}
        </div>
      )}
      {under}
      {open && <div class="fold-body">{children()}</div>}
    </div>
  );
}

// Beyond this a text is cut, with a button for the rest: a single tool output can be megabytes.
const CAP = 12_000;

// A block that scrolls takes the focus, so that it scrolls from the keyboard too; one that fits stays
// out of the tab order. Sizes are read when the browser reports them, after layout, so that drawing a
// row never forces a layout of its own.
let watcher: ResizeObserver | undefined;
const overflowWatch = (): ResizeObserver => {
  watcher ??= new ResizeObserver((entries) => {
    for (const { target: el } of entries) {
      const scrolls = el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1;
      if (scrolls) (el as HTMLElement).tabIndex = 0;
      else el.removeAttribute('tabindex');
    }
  });
  return watcher;
};

/** Text shown as text (never parsed as markup), cut when very long. */
export function TextBlock({ text, className = '' }: { text: string; className?: string }) {
  const [all, setAll] = useState(false);
  const cut = !all && text.length > CAP;
  const pre = useRef<HTMLPreElement>(null);
  useLayoutEffect(() => {
    const el = pre.current;
    if (!el) return;
    overflowWatch().observe(el);
    return () => overflowWatch().unobserve(el);
  }, []);
  return (
    <div class={`text-block ${className}`}>
      <pre ref={pre}>{cut ? text.slice(0, CAP) : text}</pre>
      {cut && (
        <button type="button" class="link" onClick={() => setAll(true)}>
          show all {Math.round(text.length / 1000)}k characters
        </button>
      )}
    </div>
  );
}

// Text that may hold a fenced code block, so the highlighter is worth asking for.
const FENCE = /```|~~~/;

/** Sanitized Markdown, inserted as DOM nodes; its fenced code is highlighted once the highlighter is in. */
export function Markdown({ text, className = '' }: { text: string; className?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const highlight = useHighlighter(FENCE.test(text));
  useLayoutEffect(() => {
    ref.current?.replaceChildren(markdownFragment(text));
  }, [text]);
  useLayoutEffect(() => {
    if (highlight && ref.current) highlightBlocks(ref.current, highlight);
  }, [text, highlight]);
  return <div class={`markdown ${className}`} ref={ref} />;
}
