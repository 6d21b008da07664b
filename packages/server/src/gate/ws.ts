// WebSocket connections: the gate on upgrade, then one JSON message per frame. Requests are read,
// authorized and validated from the protocol's op table alone, answered with the op's reply; topic
// frames go out on the same socket.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import {
  type ErrorBody,
  isOpName,
  isRoleAllowed,
  OP_ATTRIBUTES,
  type OpName,
  type OpRequest,
  validateRequest,
  validateResponse,
} from '@cairn/protocol';
import { MAX_VALUE_DEPTH, nestsDeeperThan } from '@cairn/transcript';
import { type WebSocket, WebSocketServer } from 'ws';
import type { Connection, OpContext, OpOutcome } from '../ops/context.js';
import { OP_HANDLERS } from '../ops/index.js';
import { coalescedSend } from './coalesced-send.js';
import { judgeOp } from './op-access.js';
import { DAEMON_PERSON, type Person, personOf } from './people.js';
import { checkRequest, type Gate } from './security.js';

export interface WsOptions {
  readonly gate: () => Gate;
  readonly context: Omit<OpContext, 'conn'>;
  /** Check every reply against its op's schema before it leaves; a reply that fails becomes an
   * `internal_error` naming the field. For tests and development. */
  readonly checkReplies?: boolean;
  readonly log?: (line: string) => void;
}

const MAX_MESSAGE = 4 * 1024 * 1024;

class SocketConnection implements Connection {
  role: Connection['role'];
  sid: string | undefined;
  alive = true;

  private readonly write: (data: string) => void;

  constructor(
    readonly id: number,
    readonly socket: WebSocket,
    upgraded: Duplex,
    readonly person: Person,
    private readonly log?: (line: string) => void,
  ) {
    this.write = coalescedSend(socket, upgraded);
  }

  send(frame: object): void {
    if (this.socket.readyState === this.socket.OPEN) this.write(frameText(frame, this.log));
  }
}

/**
 * A frame's JSON text. A frame that cannot be serialized (a value too deep for the stack, a cycle)
 * becomes an `internal_error` refusal instead: of its request when it is a reply, else one that
 * names none. The connection and every other request go on.
 */
export function frameText(frame: object, log?: (line: string) => void): string {
  try {
    return JSON.stringify(frame);
  } catch (cause) {
    const { request_id, type } = frame as { request_id?: unknown; type?: unknown };
    const what = typeof type === 'string' ? `a ${type} frame` : 'the reply';
    const message = `${what} could not be serialized: ${(cause as Error).message}`;
    log?.(`ws: ${message}`);
    const error: ErrorBody = { code: 'internal_error', message };
    return JSON.stringify(refuse(typeof request_id === 'string' ? request_id : undefined, error));
  }
}

export class WsHub {
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE,
  });
  readonly connections = new Set<SocketConnection>();
  private nextId = 1;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(private readonly options: WsOptions) {
    this.heartbeat = setInterval(() => {
      for (const c of this.connections) {
        if (!c.alive) c.socket.terminate();
        else {
          c.alive = false;
          c.socket.ping();
        }
      }
    }, 30_000);
    this.heartbeat.unref();
  }

  /** The HTTP server's `upgrade` event: the same gate as HTTP, then the socket. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? '/', 'http://localhost');
    // A request the server already admitted (a user's token among them) comes with its person.
    const person = personOf(req);
    const refusal =
      url.pathname !== '/ws'
        ? { status: 404, reason: 'not found' }
        : person === undefined
          ? checkRequest(this.options.gate(), url, req.headers)
          : undefined;
    if (refusal) {
      const status =
        refusal.status === 401 ? 'Unauthorized' : refusal.status === 403 ? 'Forbidden' : 'Not Found';
      socket.end(
        `HTTP/1.1 ${refusal.status} ${status}\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${
          Buffer.byteLength(refusal.reason) + 1
        }\r\n\r\n${refusal.reason}\n`,
      );
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws, socket, person ?? DAEMON_PERSON));
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const c of this.connections) c.socket.close(1001, 'server stopping');
    this.wss.close();
  }

  private accept(ws: WebSocket, upgraded: Duplex, person: Person): void {
    const conn = new SocketConnection(this.nextId++, ws, upgraded, person, this.options.log);
    this.connections.add(conn);
    ws.on('pong', () => {
      conn.alive = true;
    });
    ws.on('message', (data, isBinary) => {
      this.onMessage(conn, isBinary ? undefined : data.toString()).catch((cause: unknown) => {
        this.options.log?.(`ws: a frame could not be answered: ${(cause as Error).stack ?? cause}`);
      });
    });
    ws.on('close', () => {
      this.connections.delete(conn);
      this.options.context.streams.drop(conn);
      this.options.context.sessions.unsubscribe(conn);
    });
    ws.on('error', () => ws.terminate());
  }

  private async onMessage(conn: SocketConnection, text: string | undefined): Promise<void> {
    const reply = await this.answer(conn, text);
    conn.send(reply);
  }

  private async answer(conn: SocketConnection, text: string | undefined): Promise<object> {
    if (text === undefined)
      return refuse(undefined, { code: 'bad_request', message: 'frames are JSON text' });
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return refuse(undefined, { code: 'bad_request', message: 'not JSON' });
    }
    if (nestsDeeperThan(value, MAX_VALUE_DEPTH)) {
      const { request_id } = (typeof value === 'object' && value !== null ? value : {}) as {
        request_id?: unknown;
      };
      return refuse(typeof request_id === 'string' ? request_id : undefined, {
        code: 'bad_request',
        message: `the frame nests deeper than ${MAX_VALUE_DEPTH} levels`,
      });
    }
    const checked = readRequest(value);
    if (checked.kind === 'refused') return refuse(checked.request_id, checked.error);
    const { op, request_id } = checked;
    const attributes = OP_ATTRIBUTES[op];
    if (op === 'hello' && conn.role !== undefined) {
      return refuse(request_id, { code: 'bad_request', message: 'this connection already said hello' });
    }
    if (attributes.needs_hello && conn.role === undefined) {
      return refuse(request_id, { code: 'hello_required', message: `say hello before ${op}` });
    }
    if (conn.role !== undefined && !isRoleAllowed(op, conn.role)) {
      return refuse(request_id, {
        code: 'forbidden',
        message: `a ${conn.role} connection cannot call ${op}`,
      });
    }
    if (checked.invalid) return refuse(request_id, checked.invalid);
    let outcome: OpOutcome<OpName>;
    try {
      const ctx: OpContext = { ...this.options.context, conn };
      const request = checked.request as OpRequest<OpName>;
      // Who may do what is settled before the op runs, for every op alike.
      const verdict = await judgeOp(op, request, ctx);
      if ('run' in verdict) {
        const handler = OP_HANDLERS[op] as unknown as (
          r: OpRequest<OpName>,
          c: OpContext,
        ) => Promise<OpOutcome<OpName>>;
        outcome = await handler(request, ctx);
      } else outcome = verdict;
    } catch (cause) {
      this.options.log?.(`ws: ${op} failed: ${(cause as Error).stack ?? cause}`);
      return refuse(request_id, { code: 'internal_error', message: (cause as Error).message });
    }
    if (!outcome.ok) return refuse(request_id, outcome.error);
    const response = { ok: true, request_id, ...outcome.result };
    if (this.options.checkReplies) {
      const valid = validateResponse(op, response);
      if (!valid.ok) {
        return refuse(request_id, {
          code: 'internal_error',
          message: `the reply broke its schema: ${valid.error.message}`,
          field: valid.error.field,
        });
      }
    }
    return response;
  }
}

type Read =
  | { kind: 'refused'; request_id?: string; error: ErrorBody }
  | {
      kind: 'request';
      op: OpName;
      request_id: string;
      request: unknown;
      invalid?: ErrorBody;
    };

/**
 * The protocol's reading of a request. An op known but with bad arguments is kept apart, so that
 * `hello_required` and `forbidden` are answered before the arguments are judged.
 */
function readRequest(value: unknown): Read {
  const read = validateRequest(value);
  if (read.ok)
    return {
      kind: 'request',
      op: read.op,
      request_id: (read.request as { request_id: string }).request_id,
      request: read.request,
    };
  const request_id = read.request_id;
  const { op } = (value ?? {}) as { op?: unknown };
  if (read.error.code !== 'invalid_args' || request_id === undefined || !isOpName(op)) {
    return request_id === undefined
      ? { kind: 'refused', error: read.error }
      : { kind: 'refused', request_id, error: read.error };
  }
  return { kind: 'request', op, request_id, request: value, invalid: read.error };
}

function refuse(request_id: string | undefined, error: ErrorBody): object {
  return request_id === undefined ? { ok: false, error } : { ok: false, request_id, error };
}
