// The streaming renderer cuts a message into its top-level Markdown blocks; together they must be the
// whole text (less the blank lines between blocks), and a finished block must not change as text is
// appended after it, which is what lets it keep its DOM.
import { describe, expect, it } from 'vitest';
import { markdownBlocks } from '../src/views/streaming-markdown.js';

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

  it('keeps every finished block the same as the text grows one character at a time', () => {
    const whole = markdownBlocks(message);
    for (let n = 1; n <= message.length; n++) {
      const blocks = markdownBlocks(message.slice(0, n));
      // Every block before the last (the one still growing) is already as it will end.
      expect(blocks.slice(0, -1), `after ${n} characters`).toEqual(whole.slice(0, blocks.length - 1));
    }
  });
});
