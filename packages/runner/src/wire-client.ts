// A workstation's connection to a server over a WebSocket: the ticket as a bearer token, the
// version in the address, and a reconnect with backoff whenever the connection drops. When the
// server says it is at a limit (too many workstations, events too fast) the wait grows longer each
// time, so a workstation never spins against it; its journal keeps what was not acked meanwhile.
// A team's server may run as several processes on one database: given their addresses, the
// workstation tries the next one whenever one refuses or drops it, and its journal resends there
// what no process acked.
import { WebSocket } from 'ws';
import type { Workstation } from './workstation.js';

/** The close code a server sends when it is at a limit: come back later. */
const TRY_AGAIN_LATER = 1013;

export interface WireClient {
  /** Settles when the first connection is open. */
  readonly connected: Promise<void>;
  /** The address of the server the workstation is connected to, or trying. */
  address(): string;
  close(): void;
}

/** The agent endpoint of a server's address, with the wire's version. */
function agentEndpoint(serverUrl: string, version: number): URL {
  const url = new URL(serverUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = '/agent';
  url.search = `?agentWire=${version}`;
  return url;
}

export function connectToServer(options: {
  /** One server's address, or the addresses of the processes of one server, tried in turn. */
  serverUrl: string | readonly string[];
  ticket: string;
  workstation: Workstation;
  log?: (line: string) => void;
}): WireClient {
  const addresses = typeof options.serverUrl === 'string' ? [options.serverUrl] : [...options.serverUrl];
  if (addresses.length === 0) throw new Error('a workstation needs at least one server address');
  const endpoints = addresses.map((a) => agentEndpoint(a, options.workstation.version));
  /** The address tried now; it moves on each time a connection is refused or drops. */
  let current = 0;
  let stopped = false;
  let delay = 250;
  /** Refusals in a row, and when the last connection opened. */
  let refusals = 0;
  let openedAt: number | undefined;
  let socket: WebSocket | undefined;
  let timer: NodeJS.Timeout | undefined;
  let markConnected: () => void = () => {};
  const connected = new Promise<void>((resolve) => {
    markConnected = resolve;
  });

  const open = () => {
    if (stopped) return;
    const ws = new WebSocket(endpoints[current]!, { headers: { authorization: `Bearer ${options.ticket}` } });
    socket = ws;
    let refused = false;
    ws.on('open', () => {
      if (endpoints.length > 1 && openedAt !== undefined)
        options.log?.(`workstation: connected to ${addresses[current]}`);
      delay = 250;
      openedAt = Date.now();
      markConnected();
      void options.workstation.connect({
        send: (text) => ws.readyState === ws.OPEN && ws.send(text),
        close: (code, reason) => ws.close(code, reason),
      });
    });
    ws.on('message', (data, isBinary) => {
      if (!isBinary) options.workstation.receive(data.toString());
    });
    ws.on('unexpected-response', (_req, res) => {
      // Refused at the upgrade: at its limit of workstations (503), or the ticket is not valid (401).
      refused = true;
      options.log?.(`workstation: the server refused the connection (${res.statusCode})`);
      let reason = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        if (reason.length < 500) reason += chunk;
      });
      // With this listener the socket is ours to end; ending it closes the WebSocket, which reconnects.
      const end = () => {
        if (reason.trim()) options.log?.(`workstation: the server says: ${reason.trim()}`);
        ws.terminate();
      };
      res.once('end', end);
      res.once('error', end);
    });
    // Once refused, ending the handshake is ours and its error says nothing new.
    ws.on('error', (error) => refused || options.log?.(`workstation: ${error.message}`));
    ws.on('close', (code, reason) => {
      if (socket === ws) options.workstation.detach();
      if (code === 1009) {
        options.log?.(
          `workstation: the server closed the connection because a frame was larger than it takes (1009${reason.length > 0 ? `: ${reason}` : ''}); reconnecting`,
        );
      } else if (!stopped && code !== 1000) {
        options.log?.(
          `workstation: the connection closed (${code}${reason.length > 0 ? `: ${reason}` : ''}); reconnecting`,
        );
      }
      if (stopped) return;
      if (endpoints.length > 1) {
        current = (current + 1) % endpoints.length;
        options.log?.(`workstation: trying ${addresses[current]} next`);
      }
      // Refused, or closed by a server at a limit: come back later, later each time it says so
      // again; a connection that then stays up a minute starts the count again.
      if (openedAt !== undefined && Date.now() - openedAt > 60_000) refusals = 0;
      if (refused || code === TRY_AGAIN_LATER) {
        refusals += 1;
        const wait = Math.min(1_000 * 2 ** (refusals - 1), 60_000);
        options.log?.(`workstation: trying again in ${wait / 1000} s`);
        timer = setTimeout(open, wait);
        return;
      }
      timer = setTimeout(open, delay);
      delay = Math.min(delay * 2, 5_000);
    });
  };
  open();
  return {
    connected,
    address: () => addresses[current]!,
    close: () => {
      stopped = true;
      clearTimeout(timer);
      socket?.close(1000, 'workstation stopping');
    },
  };
}
