// Markdown that grows while an agent streams it. Rendering the whole text on every delta costs time
// in proportion to its length, so the text is cut into its top-level blocks (marked's lexer) and
// each block renders on its own: the finished blocks keep their DOM, and only the last one, still
// growing, is parsed again. Once the message ends it renders whole (`Markdown`), so constructs that
// span blocks (reference links) come out exactly as they should.
import { Lexer } from 'marked';
import { memo } from 'preact/compat';
import { useLayoutEffect, useMemo, useRef } from 'preact/hooks';
import { markdownFragment } from '../markdown.js';

/** The raw text of each top-level block; blank lines between blocks are left out. */
export function markdownBlocks(text: string): string[] {
  return Lexer.lex(text, { gfm: true })
    .filter((t) => t.type !== 'space')
    .map((t) => t.raw);
}

const Block = memo(function Block({ raw }: { raw: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    ref.current?.replaceChildren(markdownFragment(raw));
  }, [raw]);
  return <div class="md-block" ref={ref} />;
});

export function StreamingMarkdown({ text }: { text: string }) {
  const blocks = useMemo(() => markdownBlocks(text), [text]);
  return (
    <div class="markdown">
      {blocks.map((raw, i) => (
        // Blocks only grow at the end, so a block's place is its identity.
        <Block key={i} raw={raw} />
      ))}
    </div>
  );
}
