// A workstation joined to the server in one process, through the same frames a socket would
// carry: `cairn serve`'s own workstation and `cairn run` use it. Delivery is asynchronous and in
// order, as on a socket, so neither side re-enters the other.
import type { Workstation } from '@cairn/runner';
import type { AgentWireServer } from './agent-wire-server.js';

export interface LocalLink {
  /** Drops the connection (both sides see it closed), as a network failure would. */
  drop(): void;
}

export function linkInProcess(server: AgentWireServer, workstation: Workstation): LocalLink {
  let open = true;
  const queue = (deliver: () => void) => {
    queueMicrotask(() => {
      if (open) deliver();
    });
  };
  const drop = () => {
    if (!open) return;
    open = false;
    serverSide.closed();
    workstation.detach();
  };
  const serverSide = server.attach(
    {
      send: (text) => queue(() => workstation.receive(text)),
      close: () => queueMicrotask(drop),
    },
    workstation.version,
  );
  void workstation.connect({
    send: (text) => queue(() => serverSide.receive(text)),
    close: () => queueMicrotask(drop),
  });
  return { drop };
}
