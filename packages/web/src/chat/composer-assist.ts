// The composer's helpers, apart from the page so they can be tested alone: what the text at the
// caret asks to complete (a `/` command at the start, an `@` file anywhere), which of the agent's
// commands match, how a choice goes into the text, which chosen files the text still mentions,
// and ↑/↓ through the chat's earlier prompts, the way a shell recalls its history.
import type { ChatCommand } from './wire.js';

export type Completion =
  /** `/name` as the first word of the message. */
  | { readonly kind: 'command'; readonly query: string; readonly start: number; readonly end: number }
  /** `@path`: a word starting with `@` ending at the caret. */
  | { readonly kind: 'file'; readonly query: string; readonly start: number; readonly end: number };

/** What the word at `caret` asks to complete, or null. */
export function completionAt(text: string, caret: number): Completion | null {
  const before = text.slice(0, caret);
  if (/^\/\S*$/.test(before)) return { kind: 'command', query: before.slice(1), start: 0, end: caret };
  const word = /(^|\s)@(\S*)$/.exec(before);
  if (word) {
    const query = word[2] ?? '';
    return { kind: 'file', query, start: caret - query.length - 1, end: caret };
  }
  return null;
}

/**
 * The commands whose name (or, after those, description) holds `query`, case-insensitively: names
 * that start with it first; the agent's order within each group.
 */
export function matchingCommands(commands: readonly ChatCommand[], query: string): ChatCommand[] {
  const q = query.toLowerCase();
  const starts: ChatCommand[] = [];
  const holds: ChatCommand[] = [];
  const described: ChatCommand[] = [];
  for (const c of commands) {
    const name = c.name.toLowerCase();
    if (name.startsWith(q)) starts.push(c);
    else if (name.includes(q)) holds.push(c);
    else if (q !== '' && c.description.toLowerCase().includes(q)) described.push(c);
  }
  return [...starts, ...holds, ...described];
}

/** The text with the completed word replaced by `insert`, and where the caret goes. */
export function applyCompletion(
  text: string,
  completion: Completion,
  insert: string,
): { readonly text: string; readonly caret: number } {
  const rest = text.slice(completion.end).replace(/^\S*/, '');
  const glue = rest.startsWith(' ') ? rest.slice(1) : rest;
  const head = `${text.slice(0, completion.start)}${insert} `;
  return { text: `${head}${glue}`, caret: head.length };
}

/** What choosing a command inserts. */
export const commandText = (command: ChatCommand): string => `/${command.name}`;

/** What choosing a file inserts; the mention stays in the message, so the transcript says which. */
export const fileMention = (path: string): string => `@${path}`;

/** The chosen files the message still mentions, in the order chosen: deleting a mention drops it. */
export function mentionedFiles(text: string, chosen: readonly string[]): string[] {
  const words = new Set(text.split(/\s+/));
  return [...new Set(chosen)].filter((path) => words.has(fileMention(path)));
}

/** Where ↑/↓ stand in the earlier prompts: null while composing a new one. */
export interface Recall {
  /** Index into the prompts, oldest first. */
  readonly index: number | null;
  /** The text the recall put in the composer: typing over it ends the recall. */
  readonly shown: string;
}

export const NO_RECALL: Recall = { index: null, shown: '' };

/** The chat's earlier prompts, oldest first, without back-to-back repeats or empty ones. */
export function earlierPrompts(contents: readonly string[]): string[] {
  const prompts: string[] = [];
  for (const c of contents) {
    const text = c.trim();
    if (text !== '' && prompts.at(-1) !== text) prompts.push(text);
  }
  return prompts;
}

/**
 * One step of ↑ (`back`) or ↓ (`forward`) with `text` in the composer: the new text and recall, or
 * null when the key is not a recall here (then it moves the caret as usual). ↑ recalls when the
 * composer is empty or still shows a recalled prompt; ↓ goes forward, and past the newest prompt
 * empties the composer.
 */
export function recallStep(
  prompts: readonly string[],
  recall: Recall,
  text: string,
  direction: 'back' | 'forward',
): { readonly text: string; readonly recall: Recall } | null {
  const browsing = recall.index !== null && text === recall.shown;
  if (!browsing && text !== '') return null;
  if (direction === 'back') {
    const index = browsing ? recall.index! - 1 : prompts.length - 1;
    if (index < 0) return browsing ? { text, recall } : null;
    const shown = prompts[index]!;
    return { text: shown, recall: { index, shown } };
  }
  if (!browsing) return null;
  const index = recall.index! + 1;
  if (index >= prompts.length) return { text: '', recall: NO_RECALL };
  const shown = prompts[index]!;
  return { text: shown, recall: { index, shown } };
}
