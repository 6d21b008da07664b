// Markdown that grows while an agent streams it. Rendering the whole text on every delta costs time
// in proportion to its length, so the finished top-level blocks (those a blank line has closed)
// keep their DOM and only the block still growing is parsed again. The text is only cut into blocks
// again (marked's lexer) when the growing part holds a blank line, so a long single paragraph costs
// no more than rendering it whole. Once the message ends it renders whole (`Markdown`), so
// constructs that span blocks (reference links) come out exactly as they should.
import { Lexer } from 'marked';
import { memo } from 'preact/compat';
import { useLayoutEffect, useRef } from 'preact/hooks';
import { markdownFragment } from '../markdown.js';

export interface Blocks {
  readonly text: string;
  /** The raw text of each finished block, blank lines between blocks left out. */
  readonly finished: readonly string[];
  /** Where the growing block starts in `text`. */
  readonly tailStart: number;
}

const EMPTY: Blocks = { text: '', finished: [], tailStart: 0 };

/** The blocks of `text`, reusing what `before` knew when `text` only grew from it. */
export function nextBlocks(before: Blocks, text: string): Blocks {
  const grew = text.startsWith(before.text);
  const from = grew ? before : EMPTY;
  const tail = text.slice(from.tailStart);
  if (grew && !tail.includes('\n\n')) return { text, finished: from.finished, tailStart: from.tailStart };
  const tokens = Lexer.lex(tail, { gfm: true });
  // The lexer's raw pieces cover the text it was given, unless it rewrote line ends: then the
  // text stays one block rather than risk cutting it in the wrong place.
  if (tokens.reduce((n, t) => n + t.raw.length, 0) !== tail.length)
    return { text, finished: [], tailStart: 0 };
  let last = tokens.length - 1;
  while (last >= 0 && tokens[last]!.type === 'space') last--;
  const finished = [...from.finished];
  let start = from.tailStart;
  for (let i = 0; i < last; i++) {
    const token = tokens[i]!;
    if (token.type !== 'space') finished.push(token.raw);
    start += token.raw.length;
  }
  return { text, finished, tailStart: last < 0 ? from.tailStart : start };
}

/** Every block's raw text, the growing one last: what the view draws. */
export const blocksOf = (b: Blocks): string[] => {
  const tail = b.text.slice(b.tailStart);
  return tail.trim() === '' ? [...b.finished] : [...b.finished, tail];
};

const Block = memo(function Block({ raw }: { raw: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    ref.current?.replaceChildren(markdownFragment(raw));
  }, [raw]);
  return <div class="md-block" ref={ref} />;
});

export function StreamingMarkdown({ text }: { text: string }) {
  const blocks = useRef<Blocks>(EMPTY);
  if (blocks.current.text !== text) blocks.current = nextBlocks(blocks.current, text);
  return (
    <div class="markdown">
      {blocksOf(blocks.current).map((raw, i) => (
        // Blocks only grow at the end, so a block's place is its identity.
        <Block key={i} raw={raw} />
      ))}
    </div>
  );
}
