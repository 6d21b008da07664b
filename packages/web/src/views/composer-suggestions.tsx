// The list the composer opens under `/` and `@`: the agent's commands with their hints, or the
// project's files. The message box keeps the focus and points at the highlighted option, so the
// keys that move through it never leave the text.
import { useEffect } from 'preact/hooks';
import type { ChatCommand } from '../chat/wire.js';

export const SUGGESTIONS_ID = 'composer-suggestions';
export const optionId = (index: number): string => `${SUGGESTIONS_ID}-${index}`;

export type Suggestion =
  | { readonly kind: 'command'; readonly command: ChatCommand }
  | { readonly kind: 'file'; readonly path: string };

export interface SuggestionsProps {
  readonly items: readonly Suggestion[];
  readonly active: number;
  /** What the list holds, for its accessible name. */
  readonly label: string;
  /** Said instead of the list when nothing matches. */
  readonly empty: string | null;
  choose(index: number): void;
}

export function Suggestions({ items, active, label, empty, choose }: SuggestionsProps) {
  // The highlighted option stays in sight as the arrows move through a long list.
  useEffect(() => {
    document.getElementById(optionId(active))?.scrollIntoView({ block: 'nearest' });
  }, [active, items.length]);
  if (items.length === 0)
    return empty ? (
      <p class="composer-suggestions-empty small muted" role="status">
        {empty}
      </p>
    ) : null;
  return (
    <div id={SUGGESTIONS_ID} class="composer-suggestions" role="listbox" aria-label={label}>
      {items.map((item, i) => (
        <div
          key={item.kind === 'command' ? `c:${item.command.name}` : `f:${item.path}`}
          id={optionId(i)}
          role="option"
          aria-selected={i === active}
          // The box keeps the focus (it points here with aria-activedescendant); a click still chooses.
          tabIndex={-1}
          class={i === active ? 'active' : undefined}
          // Before the box loses the focus: the choice lands in the text being written.
          onMouseDown={(e) => {
            e.preventDefault();
            choose(i);
          }}
        >
          {item.kind === 'command' ? (
            <>
              <span class="suggestion-name">/{item.command.name}</span>
              {item.command.inputHint && <span class="suggestion-hint muted"> {item.command.inputHint}</span>}
              {item.command.description && (
                <span class="suggestion-description small muted">{item.command.description}</span>
              )}
            </>
          ) : (
            <span class="suggestion-name">{item.path}</span>
          )}
        </div>
      ))}
    </div>
  );
}
