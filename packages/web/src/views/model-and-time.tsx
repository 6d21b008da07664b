// The model a session ran and the time it took, as the session header and the list rows say them:
// the main agent's model (subagents may have run others), and the time spent in turns beside the
// wall-clock span, which for a session resumed days later says little about the work in it.
import type { SessionHead } from '@cairn/protocol';
import { shownText } from '../display.js';
import { formatDuration } from '../format.js';
import { shortModel } from '../sessions/list.js';

export const ACTIVE_NOTE = 'time spent in turns: from each prompt to the last record of its turn';

/** The active time as a list-row fact, with the wall-clock span in its tooltip. */
export function ActiveFact({ head }: { head: SessionHead }) {
  if (head.active_ms === undefined) return null;
  const wall =
    head.duration_ms === undefined ? '' : ` · ${formatDuration(head.duration_ms)} first to last record`;
  return (
    <span class="fact active-time" data-value={head.active_ms} title={`${ACTIVE_NOTE}${wall}`}>
      {formatDuration(head.active_ms)} active
    </span>
  );
}

/** The header's part: ` · model · active of wall-clock`, each when known. */
export function HeadModelAndTime({ head }: { head: SessionHead | undefined }) {
  if (!head) return null;
  const active = head.active_ms;
  const wall = head.duration_ms;
  return (
    <>
      {head.model !== undefined && (
        <span class="head-model" title={`the main agent's model: ${shownText(head.model)}`}>
          {' '}
          · {shortModel(shownText(head.model))}
        </span>
      )}
      {(active !== undefined || wall !== undefined) && (
        <span class="head-time" title={active !== undefined ? ACTIVE_NOTE : 'first to last record'}>
          {' '}
          ·{' '}
          {active !== undefined
            ? `${formatDuration(active)} active${wall !== undefined ? ` of ${formatDuration(wall)}` : ''}`
            : formatDuration(wall!)}
        </span>
      )}
    </>
  );
}
