// A browser following a driven session's event log over `/drive/events`, as a page on a team's
// server would: each event's seq is checked against the last one it got, and when its server
// process goes away (or refuses it) it opens the feed on the next address, from that seq.
import { DriveEventFrame, validate } from '@cairn/protocol';
import WebSocket from 'ws';

export interface FedEvent {
  readonly seq: number;
  readonly eventName: string;
  readonly payload: unknown;
}

export interface EventsBrowser {
  readonly events: FedEvent[];
  /** Each event that did not follow the last one: a gap or a repeat. */
  readonly outOfOrder: { after: number; got: number }[];
  /** The addresses the feed opened on, one entry per opening. */
  readonly opened: string[];
  /** The chunks of the agent's replies, in the order they came. */
  texts(): string[];
  /** How many turns have ended. */
  turnsDone(): number;
  close(): void;
}

export function followDriveEvents(options: {
  /** `http://host:port` of each server process, the first tried first. */
  addresses: readonly string[];
  session: string;
  token: string;
  /** Told of each event as it comes, before the next is read. */
  onEvent?: (event: FedEvent) => void;
}): EventsBrowser {
  const events: FedEvent[] = [];
  const outOfOrder: { after: number; got: number }[] = [];
  const opened: string[] = [];
  let current = 0;
  let closed = false;
  let socket: WebSocket | undefined;
  let timer: NodeJS.Timeout | undefined;
  const last = () => events.at(-1)?.seq ?? 0;

  const open = () => {
    if (closed) return;
    const address = options.addresses[current]!;
    const url = new URL('/drive/events', address.replace(/^http/, 'ws'));
    url.searchParams.set('session', options.session);
    url.searchParams.set('after', String(last()));
    url.searchParams.set('token', options.token);
    const ws = new WebSocket(url);
    socket = ws;
    ws.on('open', () => opened.push(address));
    ws.on('message', (data) => {
      const frame = JSON.parse(data.toString()) as unknown;
      // Every frame is the contract's; one that is not fails the test that follows the feed.
      const checked = validate(DriveEventFrame, frame);
      if (!checked.ok) throw new Error(`not a drive event: ${checked.error.message}`);
      const event = checked.value;
      if (event.seq !== last() + 1) outOfOrder.push({ after: last(), got: event.seq });
      const fed = { seq: event.seq, eventName: event.eventName, payload: event.payload };
      events.push(fed);
      options.onEvent?.(fed);
    });
    // A refusal or a process gone: the close that follows moves on.
    ws.on('error', () => {});
    ws.on('close', () => {
      if (closed) return;
      current = (current + 1) % options.addresses.length;
      timer = setTimeout(open, 200);
    });
  };
  open();
  return {
    events,
    outOfOrder,
    opened,
    texts: () =>
      events.flatMap((e) =>
        e.eventName === 'agent_message_chunk'
          ? [String((e.payload as { content?: { text?: unknown } }).content?.text)]
          : [],
      ),
    turnsDone: () => events.filter((e) => e.eventName === 'agent_turn_done').length,
    close: () => {
      closed = true;
      clearTimeout(timer);
      socket?.terminate();
    },
  };
}
