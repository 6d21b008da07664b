// The chat's Changes panel: every file the agent changed in this chat, each with its diffs in order
// and a link to the tool call behind each, drawn by the reader's own changed-file block. The agents we
// drive offer no checkpoint or undo over ACP, so the panel says the changes are in the working tree
// and names the files to review there.
import { useMemo } from 'preact/hooks';
import { chatChanges } from '../chat/changes.js';
import type { ChatState } from '../chat/state.js';
import { shownText } from '../display.js';
import { formatCount } from '../format.js';
import type { FileChange } from '../timeline/files-changed.js';
import { ChangedFileBlock, type ChangeSource } from './files.js';

/** Opens the call's fold in the conversation and brings it into view. */
function showCall(id: string): void {
  const call = document.querySelector<HTMLDetailsElement>(`.chat-tool[data-tool="${CSS.escape(id)}"]`);
  if (!call) return;
  call.open = true;
  call.scrollIntoView({ block: 'center' });
  call.querySelector<HTMLElement>('summary')?.focus();
}

export function ChatChangesPanel({ entries }: { entries: ChatState['entries'] }) {
  const { files, calls } = useMemo(() => chatChanges(entries), [entries]);
  const source = useMemo<ChangeSource>(() => {
    const callOf = (change: FileChange) => calls.get(change.call.uuid);
    return {
      label: (change, n) => `${n}. ${callOf(change)?.name ?? change.tool} (${change.kind})`,
      link: (change, label) => (
        <button
          type="button"
          class="link change-link"
          title="show this call in the conversation"
          onClick={() => {
            const call = callOf(change);
            if (call) showCall(call.id);
          }}
        >
          {label}
        </button>
      ),
    };
  }, [calls]);
  if (files.length === 0) return null;
  return (
    <details class="chat-changes">
      <summary>
        Changes · {formatCount(files.length)} file{files.length === 1 ? '' : 's'}
      </summary>
      <p class="muted small chat-changes-undo">
        These changes are in the project’s working tree: the agent offers no checkpoint to go back to, so
        review or undo them there (for example with your version control). Files changed:{' '}
        {files.map((f, i) => (
          <span key={f.path}>
            {i > 0 && ', '}
            <code>{shownText(f.path)}</code>
          </span>
        ))}
      </p>
      <ul class="changed-files">
        {files.map((f) => (
          <li key={f.path}>
            <ChangedFileBlock file={f} source={source} />
          </li>
        ))}
      </ul>
    </details>
  );
}
