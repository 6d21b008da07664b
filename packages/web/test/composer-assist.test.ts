// The composer's helpers on their own: what the caret's word asks to complete, which commands match,
// how a choice lands in the text, which chosen files still go, and ↑/↓ through earlier prompts.
import { describe, expect, it } from 'vitest';
import {
  applyCompletion,
  completionAt,
  earlierPrompts,
  matchingCommands,
  mentionedFiles,
  NO_RECALL,
  type Recall,
  recallStep,
} from '../src/chat/composer-assist.js';

const commands = [
  { name: 'review', description: 'Review a pull request', inputHint: 'PR number' },
  { name: 'compact', description: 'Clear history but keep a summary' },
  { name: 'pr-comments', description: 'Get comments from a GitHub pull request' },
  { name: 'init', description: 'Write a CLAUDE.md' },
];

describe('what the caret asks to complete', () => {
  it('reads a command only as the first word of the message', () => {
    expect(completionAt('/rev', 4)).toEqual({ kind: 'command', query: 'rev', start: 0, end: 4 });
    expect(completionAt('/', 1)).toEqual({ kind: 'command', query: '', start: 0, end: 1 });
    expect(completionAt('/review 12', 10)).toBeNull();
    expect(completionAt('see /rev', 8)).toBeNull();
    expect(completionAt(' /rev', 5)).toBeNull();
  });

  it('reads a file after an @ that starts a word, up to the caret', () => {
    expect(completionAt('look at @src/ma', 15)).toEqual({ kind: 'file', query: 'src/ma', start: 8, end: 15 });
    expect(completionAt('@', 1)).toEqual({ kind: 'file', query: '', start: 0, end: 1 });
    expect(completionAt('mail me@example.com', 19)).toBeNull();
    // The caret inside the word: what is before it counts.
    expect(completionAt('@src/main.ts please', 4)).toEqual({ kind: 'file', query: 'src', start: 0, end: 4 });
    expect(completionAt('@src/main.ts please', 19)).toBeNull();
  });
});

describe('matching commands', () => {
  it('puts names that start with the query first, then names and descriptions that hold it', () => {
    expect(matchingCommands(commands, 'co').map((c) => c.name)).toEqual(['compact', 'pr-comments']);
    expect(matchingCommands(commands, 'PULL').map((c) => c.name)).toEqual(['review', 'pr-comments']);
    expect(matchingCommands(commands, 'pr').map((c) => c.name)).toEqual(['pr-comments']);
    expect(matchingCommands(commands, '').map((c) => c.name)).toEqual(commands.map((c) => c.name));
    expect(matchingCommands(commands, 'zzz')).toEqual([]);
  });
});

describe('a choice in the text', () => {
  it('replaces the word being completed, and the caret follows the space after it', () => {
    const c = completionAt('/rev', 4)!;
    expect(applyCompletion('/rev', c, '/review')).toEqual({ text: '/review ', caret: 8 });
    const text = 'explain @src/ma and the tests';
    const f = completionAt(text, 15)!;
    expect(applyCompletion(text, f, '@src/main.ts')).toEqual({
      text: 'explain @src/main.ts and the tests',
      caret: 21,
    });
    // The rest of a word the caret was inside goes too.
    const inside = completionAt('@src/xx.ts now', 4)!;
    expect(applyCompletion('@src/xx.ts now', inside, '@src/main.ts').text).toBe('@src/main.ts now');
  });

  it('sends the chosen files the message still mentions, once each', () => {
    const chosen = ['src/main.ts', 'README.md', 'src/main.ts'];
    expect(mentionedFiles('fix @src/main.ts per @README.md', chosen)).toEqual(['src/main.ts', 'README.md']);
    expect(mentionedFiles('fix @src/main.ts', chosen)).toEqual(['src/main.ts']);
    expect(mentionedFiles('fix it', chosen)).toEqual([]);
    // A mention typed by hand is text, not an attachment.
    expect(mentionedFiles('fix @other.ts', chosen)).toEqual([]);
  });
});

describe('recalling earlier prompts', () => {
  const prompts = earlierPrompts(['first', '  ', 'second', 'second', 'third ']);

  it('keeps the chat’s prompts oldest first, without blanks or back-to-back repeats', () => {
    expect(prompts).toEqual(['first', 'second', 'third']);
  });

  it('walks back with ↑ from an empty composer and forward with ↓ to an empty one again', () => {
    let recall: Recall = NO_RECALL;
    let text = '';
    const press = (direction: 'back' | 'forward') => {
      const step = recallStep(prompts, recall, text, direction);
      if (step) ({ text, recall } = step);
      return step !== null;
    };
    expect(press('forward')).toBe(false);
    expect(press('back')).toBe(true);
    expect(text).toBe('third');
    press('back');
    press('back');
    expect(text).toBe('first');
    // At the oldest, ↑ stays there.
    expect(press('back')).toBe(true);
    expect(text).toBe('first');
    press('forward');
    expect(text).toBe('second');
    press('forward');
    press('forward');
    expect(text).toBe('');
    expect(recall).toEqual(NO_RECALL);
  });

  it('leaves the arrows to the caret once the text is typed or edited', () => {
    expect(recallStep(prompts, NO_RECALL, 'draft', 'back')).toBeNull();
    const step = recallStep(prompts, NO_RECALL, '', 'back')!;
    expect(recallStep(prompts, step.recall, `${step.text} more`, 'back')).toBeNull();
    expect(recallStep([], NO_RECALL, '', 'back')).toBeNull();
  });
});
