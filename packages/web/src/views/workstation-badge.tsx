// The machine a synced session is on, and whether that machine is connected to the server now.
import { useServices } from '../context.js';
import { shownText } from '../display.js';
import { formatWhen } from '../format.js';

export function WorkstationBadge({ workstation }: { workstation: string }) {
  const { directory } = useServices();
  const presence = directory.presenceOf(workstation);
  const machine = shownText(workstation);
  const heard = presence?.heard_at === undefined ? '' : `; last heard ${formatWhen(presence.heard_at)}`;
  const state = presence === undefined ? '' : presence.online ? ' online' : ' offline';
  return (
    <span
      class={`workstation-badge${state}`}
      title={`synced from workstation ${machine}${presence === undefined ? '' : `, ${state.trim()} now${presence.online ? '' : heard}`}`}
    >
      on {machine}
      {presence?.online === false && ' · offline'}
    </span>
  );
}
