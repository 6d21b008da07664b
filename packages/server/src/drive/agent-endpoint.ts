// The WebSocket endpoint workstations connect to (`/agent`). Not for browsers: a request with an
// Origin is refused, and the upgrade needs a valid ticket as a bearer token before any frame.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { AGENT_FRAME_MAX_BYTES, AGENT_WIRE_MIN_VERSION, AGENT_WIRE_VERSION } from '@cairn/protocol';
import { WebSocketServer } from 'ws';
import type { AgentWireServer } from './agent-wire-server.js';

export const AGENT_PATH = '/agent';
export class AgentEndpoint {
  // Past it the socket closes with 1009; workstations keep their frames under it.
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: AGENT_FRAME_MAX_BYTES });

  constructor(
    private readonly wire: AgentWireServer,
    private readonly ticketOwner: (ticket: string) => string | undefined,
  ) {}

  /** True when the socket was accepted as a workstation's. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const version = Number(url.searchParams.get('agentWire') ?? AGENT_WIRE_VERSION);
    let refusal: [number, string] | undefined;
    if (req.headers.origin !== undefined) refusal = [403, 'workstations connect without an Origin'];
    else if (bearer === undefined || this.ticketOwner(bearer) === undefined)
      refusal = [401, 'missing or unknown ticket'];
    else if (!Number.isInteger(version) || version < AGENT_WIRE_MIN_VERSION)
      refusal = [400, 'unsupported agent wire version'];
    // Each connection holds memory and a socket: past the limit the workstation comes back later.
    else if (this.wss.clients.size >= this.wire.limits.maxWorkstations)
      refusal = [
        503,
        `workstation limit reached: this server takes ${this.wire.limits.maxWorkstations} at once; try again later`,
      ];
    if (refusal) {
      const [status, reason] = refusal;
      socket.end(
        `HTTP/1.1 ${status} Refused\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(reason) + 1}\r\n\r\n${reason}\n`,
      );
      return false;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const link = this.wire.attach(
        {
          send: (text) => ws.readyState === ws.OPEN && ws.send(text),
          close: (code, reason) => ws.close(code, reason),
        },
        version,
      );
      ws.on('message', (data, isBinary) => {
        if (!isBinary) link.receive(data.toString());
      });
      ws.on('close', () => link.closed());
      ws.on('error', () => ws.terminate());
    });
    return true;
  }

  close(): void {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }
}
