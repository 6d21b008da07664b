// A workstation joined to the server in one process, through the same frames a socket would
// carry: `cairn serve`'s own workstation and `cairn run` use it. Delivery is asynchronous and in
// order, as on a socket, so neither side re-enters the other.
import type { Workstation } from '@cairn/runner';
import type { AgentWireServer, ConnectionSide } from './agent-wire-server.js';

export interface LocalLink {
  /** Drops the connection (both sides see it closed), as a network failure would. */
  drop(): void;
}

export interface LinkOptions {
  /**
   * The workstation's name, given in process instead of proven by a ticket: no other process can
   * learn or guess a secret that does not exist. Without it the workstation's ticket is checked.
   */
  readonly as?: string;
  /** Connect again whenever the server closes this link (until the server itself stops). */
  readonly reattach?: boolean;
}

const REATTACH_DELAY_MS = 100;

export function linkInProcess(
  server: AgentWireServer,
  workstation: Workstation,
  options: LinkOptions = {},
): LocalLink {
  let open = true;
  let dropped = false;
  const queue = (deliver: () => void) => {
    queueMicrotask(() => {
      if (open) deliver();
    });
  };
  let current: LocalLink | undefined;
  const end = (byDrop: boolean) => {
    if (!open) return;
    open = false;
    serverSide.closed();
    workstation.detach();
    if (byDrop || !options.reattach) return;
    setTimeout(() => {
      if (!dropped && !server.closed) current = linkInProcess(server, workstation, options);
    }, REATTACH_DELAY_MS).unref();
  };
  const channel = {
    send: (text: string) => queue(() => workstation.receive(text)),
    close: () => queueMicrotask(() => end(false)),
  };
  const serverSide: ConnectionSide =
    options.as === undefined
      ? server.attach(channel, workstation.version)
      : server.attachTrusted(channel, options.as, workstation.version);
  void workstation.connect({
    send: (text) => queue(() => serverSide.receive(text)),
    close: () => queueMicrotask(() => end(false)),
  });
  return {
    drop: () => {
      dropped = true;
      end(true);
      current?.drop();
    },
  };
}
