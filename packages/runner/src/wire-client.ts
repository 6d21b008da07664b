// A workstation's connection to a server over a WebSocket: the ticket as a bearer token, the
// version in the address, and a reconnect with backoff whenever the connection drops.
import { WebSocket } from 'ws';
import type { Workstation } from './workstation.js';

export interface WireClient {
  /** Settles when the first connection is open. */
  readonly connected: Promise<void>;
  close(): void;
}

export function connectToServer(options: {
  serverUrl: string;
  ticket: string;
  workstation: Workstation;
  log?: (line: string) => void;
}): WireClient {
  const url = new URL(options.serverUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = '/agent';
  url.search = `?agentWire=${options.workstation.version}`;
  let stopped = false;
  let delay = 250;
  let socket: WebSocket | undefined;
  let timer: NodeJS.Timeout | undefined;
  let markConnected: () => void = () => {};
  const connected = new Promise<void>((resolve) => {
    markConnected = resolve;
  });

  const open = () => {
    if (stopped) return;
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${options.ticket}` } });
    socket = ws;
    ws.on('open', () => {
      delay = 250;
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
      options.log?.(`workstation: the server refused the connection (${res.statusCode})`);
    });
    ws.on('error', (error) => options.log?.(`workstation: ${error.message}`));
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
      timer = setTimeout(open, delay);
      delay = Math.min(delay * 2, 5_000);
    });
  };
  open();
  return {
    connected,
    close: () => {
      stopped = true;
      clearTimeout(timer);
      socket?.close(1000, 'workstation stopping');
    },
  };
}
