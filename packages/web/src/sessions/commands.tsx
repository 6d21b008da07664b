// Slash commands and the wrappers Claude Code writes around them, in a human form: a command the
// person typed is drawn as their prompt with the command set apart; its output folds under a plain
// label; the caveat before local command output becomes one quiet sentence.

import { str } from '../timeline/item.js';
import type { ItemRow } from '../timeline/model.js';
import { Fold, TextBlock } from '../views/fold.js';
import type { RowContext } from '../views/rows.js';

// Terminal colour codes some commands print (`/model` says "Kept model as ␛[1mDefault␛[22m").
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;
const plain = (text: string): string => text.replace(ANSI, '');

/** `/name args`, as the person typed it. */
export function commandLine(command: string | undefined, args: string | undefined): string {
  return `${command ?? ''} ${args ?? ''}`.trim();
}

export function SlashCommand({ row, ctx }: { row: ItemRow; ctx: RowContext }) {
  const { item } = row;
  const command = str(item, 'command') ?? '';
  const args = str(item, 'args');
  const stdout = str(item, 'stdout');
  const typed = item.type === 'notice:slash' && (item as { typed?: unknown }).typed === true;
  const shell = command === '!';
  const output =
    stdout === undefined || stdout === '' ? undefined : (
      <Fold
        id={`${row.key}:body`}
        folds={ctx.folds}
        label={<span class="muted">{shell ? 'shell output' : `output of ${command || 'the command'}`}</span>}
      >
        {() => <TextBlock text={plain(stdout)} />}
      </Fold>
    );
  if (typed || (shell && args !== undefined)) {
    return (
      <div class="prompt slash-prompt">
        <div class="who">
          {row.depth === 0 ? 'You' : 'Brief'}{' '}
          <span class="muted small">· {shell ? 'shell command' : 'command'}</span>
        </div>
        <p class="slash-line">
          <code class="command-name">{command}</code>
          {args !== undefined && <span class="command-args">{args}</span>}
        </p>
        {output}
      </div>
    );
  }
  // Output alone (the command itself is the row before), or a command the agent echoed.
  return output ?? <p class="notice">{command ? `ran ${command}` : 'command'}</p>;
}

/** The caveat Claude Code writes before local command output, in its own words made short. */
export function Caveat() {
  return (
    <p class="notice caveat" title="Claude Code marks what follows as not meant for the model">
      What follows came from commands run locally; the agent was told not to act on it.
    </p>
  );
}
