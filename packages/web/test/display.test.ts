// What the page draws of transcript text: invisible and reordering characters made visible,
// terminal escapes removed, names and ids left as they are.
import { describe, expect, it } from 'vitest';
import { shownItem, shownText } from '../src/display.js';

describe('shown text', () => {
  it('shows bidi controls as their code points, so a path reads in its real order', () => {
    expect(shownText('file\u202Egnp.exe')).toBe('file⟨U+202E⟩gnp.exe');
    expect(shownText('\u2066a\u2069 \u200Fb\u200E')).toBe('⟨U+2066⟩a⟨U+2069⟩ ⟨U+200F⟩b⟨U+200E⟩');
  });

  it('removes terminal colour, cursor and title escapes and keeps the text they wrap', () => {
    expect(shownText('\u001b[1;31mred\u001b[0m and \u001b[38;5;208morange\u001b[m')).toBe('red and orange');
    expect(shownText('\u001b]0;title\u0007done\u001b[2K\u001b[1A\u001b7x\u001b8')).toBe('donex');
  });

  it('shows other control and zero-width characters, keeping tabs and line breaks', () => {
    expect(shownText('a\u0000b\u0007c\u200Bd\uFEFFe\tf\r\ng')).toBe(
      'a⟨U+0000⟩b⟨U+0007⟩c⟨U+200B⟩d⟨U+FEFF⟩e\tf\r\ng',
    );
  });

  it('gives plain text back as the same string', () => {
    const text = 'plain text, ünïcode, 日本語 and emoji 😀';
    expect(shownText(text)).toBe(text);
  });

  it('passes every string an item shows through, at any depth, but not its names and ids', () => {
    const item = {
      uuid: 'u\u202E1',
      type: 'tool:Bash',
      tool_use_id: 'toolu\u202E',
      command: 'cat file\u202Egnp.exe',
      stdout: '\u001b[32mok\u001b[0m',
      edits: [{ path: 'a\u202Eb', n: 1 }],
      source: { file: '/p/s\u202E.jsonl', offset: 0, length: 1, line: 1 },
    };
    expect(shownItem(item)).toEqual({
      ...item,
      command: 'cat file⟨U+202E⟩gnp.exe',
      stdout: 'ok',
      edits: [{ path: 'a⟨U+202E⟩b', n: 1 }],
    });
    const plain = { uuid: 'u1', type: 'thinking', text: 'nothing to change' };
    expect(shownItem(plain)).toBe(plain);
  });
});
