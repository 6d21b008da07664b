// The streaming renderer cuts a message into its top-level Markdown blocks; together they must be the
// whole text (less the blank lines between blocks), and a finished block must not change as text is
// appended after it, which is what lets it keep its DOM.
import { describe, expect, it } from 'vitest';
import { type Blocks, blocksOf, nextBlocks } from '../src/views/streaming-markdown.js';

const fresh: Blocks = { text: '', finished: [], tailStart: 0 };
const markdownBlocks = (text: string): string[] => blocksOf(nextBlocks(fresh, text));

const message = [
  '# Plan',
  '',
  'First a paragraph with `code` and a [link](https://example.com).',
  '',
  '- one',
  '- two',
  '',
  '```ts',
  'const a = 1;',
  '',
  'const b = 2;',
  '```',
  '',
  '| a | b |',
  '|---|---|',
  '| 1 | 2 |',
  '',
  'Last words.',
].join('\n');

describe('markdown blocks while streaming', () => {
  it('cuts a message into its blocks, a fenced block with blank lines kept whole', () => {
    const blocks = markdownBlocks(message);
    expect(blocks.map((b) => b.trim().split('\n')[0])).toEqual([
      '# Plan',
      'First a paragraph with `code` and a [link](https://example.com).',
      '- one',
      '```ts',
      '| a | b |',
      'Last words.',
    ]);
    expect(blocks.join('\n').replace(/\n+/g, '\n').trim()).toBe(message.replace(/\n+/g, '\n').trim());
  });

  it('grown one character at a time, keeps every finished block and ends with the blocks of the whole', () => {
    const whole = markdownBlocks(message);
    let blocks = fresh;
    for (let n = 1; n <= message.length; n++) {
      blocks = nextBlocks(blocks, message.slice(0, n));
      const drawn = blocksOf(blocks);
      // Every block before the one still growing is already as it will end.
      expect(drawn.slice(0, -1), `after ${n} characters`).toEqual(whole.slice(0, drawn.length - 1));
      expect(drawn.join('').length).toBeLessThanOrEqual(n);
    }
    expect(blocksOf(blocks)).toEqual(whole);
  });

  it('starts over when the text is replaced rather than grown, and keeps text with CRLF in one block', () => {
    const grown = nextBlocks(nextBlocks(fresh, 'one\n\ntwo'), 'one\n\ntwo\n\nthree');
    expect(blocksOf(grown)).toEqual(['one', 'two', 'three']);
    expect(blocksOf(nextBlocks(grown, 'other\n\ntext'))).toEqual(['other', 'text']);
    expect(blocksOf(nextBlocks(fresh, 'a\r\n\r\nb'))).toEqual(['a\r\n\r\nb']);
  });
});
