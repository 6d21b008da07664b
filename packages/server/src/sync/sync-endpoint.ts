// The WebSocket endpoint workstations sync their machine's sessions to (`/sync`). Not for
// browsers: like `/agent`, a request with an Origin is refused, and the upgrade needs the
// workstation's ticket as a bearer token. The server opens with what it holds of that workstation;
// each batch the workstation sends is stored whole and acked, or refused whole with the reason.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  SYNC_FRAME_MAX_BYTES,
  SyncClientFrame,
  type SyncedDocsState,
  type SyncedSession,
  type SyncServerFrame,
  validate,
} from '@cairn/protocol';
import { WebSocket, WebSocketServer } from 'ws';
import { StoreRefused, type SyncedSessionRecords } from '../storage/server-store.js';
import { PRESENCE_TIMING, type PresenceTiming } from './presence.js';

export interface SyncLimits {
  /** Workstations syncing at once; past it one is refused with 503 and comes back later. */
  readonly maxConnections: number;
  /** Frames a connection may have waiting to be stored; past it the connection is closed (1008). */
  readonly maxPending: number;
}

/** How long a stop waits for the store to hear that its workstations left. */
const CLOSE_WORD_MS = 2_000;

export const DEFAULT_SYNC_LIMITS: SyncLimits = { maxConnections: 256, maxPending: 4 };

export class SyncEndpoint {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: SYNC_FRAME_MAX_BYTES });
  private readonly limits: SyncLimits;
  /** This process, as the store's presence rows name it. */
  private readonly process = randomUUID();
  /** The workstations connected here, with how many connections each (a reconnect may overlap). */
  private readonly held = new Map<string, number>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly options: {
      readonly store: SyncedSessionRecords;
      readonly ticketOwner: (ticket: string) => string | undefined;
      readonly log: (line: string) => void;
      readonly limits?: Partial<SyncLimits>;
      readonly presence?: PresenceTiming;
      /** Called once the store heard that a workstation came or left through this process. */
      readonly cameOrLeft?: () => void;
    },
  ) {
    this.limits = { ...DEFAULT_SYNC_LIMITS, ...options.limits };
    this.heartbeat = setInterval(
      () => {
        for (const workstation of this.held.keys()) this.heard(workstation, true);
      },
      (options.presence ?? PRESENCE_TIMING).heartbeatMs,
    );
    this.heartbeat.unref();
  }

  /** Tells the store whether this process holds the workstation now; a failure waits for the next word. */
  private heard(workstation: string, connected: boolean): Promise<void> {
    return this.options.store.heard(workstation, this.process, connected).catch((cause: unknown) => {
      this.options.log(`sync: cannot note whether ${workstation} is connected: ${(cause as Error).message}`);
    });
  }

  /** True when the socket was accepted as a workstation's. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const workstation = bearer === undefined ? undefined : this.options.ticketOwner(bearer);
    let refusal: [number, string] | undefined;
    if (req.headers.origin !== undefined) refusal = [403, 'workstations connect without an Origin'];
    else if (bearer === undefined || workstation === undefined) refusal = [401, 'missing or unknown ticket'];
    else if (this.wss.clients.size >= this.limits.maxConnections)
      refusal = [
        503,
        `sync limit reached: this server takes ${this.limits.maxConnections} workstations at once; try again later`,
      ];
    if (refusal || bearer === undefined || workstation === undefined) {
      const [status, reason] = refusal ?? [401, 'missing or unknown ticket'];
      socket.end(
        `HTTP/1.1 ${status} Refused\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(reason) + 1}\r\n\r\n${reason}\n`,
      );
      return false;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.serve(ws, workstation, bearer));
    return true;
  }

  /** Ends every connection, and says the workstations it held are no longer connected here. */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    const held = [...this.held.keys()];
    this.held.clear();
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    // A store that does not answer holds up no stop: the word then goes stale on its own.
    const said = Promise.all(held.map((workstation) => this.heard(workstation, false)));
    await Promise.race([said, sleep(CLOSE_WORD_MS, undefined, { ref: false })]);
  }

  private serve(ws: WebSocket, workstation: string, ticket: string): void {
    this.held.set(workstation, (this.held.get(workstation) ?? 0) + 1);
    void this.heard(workstation, true).then(this.options.cameOrLeft);
    ws.once('close', () => {
      const left = (this.held.get(workstation) ?? 0) - 1;
      if (left > 0) this.held.set(workstation, left);
      else if (this.held.delete(workstation))
        void this.heard(workstation, false).then(this.options.cameOrLeft);
    });
    const send = (frame: SyncServerFrame) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(frame));
    };
    // Frames are stored one after another, in the order they came.
    let queue: Promise<void> = this.options.store.stamps(workstation).then(
      (sessions) => send({ type: 'sync_state', sessions }),
      (cause: unknown) => {
        this.options.log(`sync: cannot read what ${workstation} synced: ${(cause as Error).message}`);
        ws.close(1011, 'the server could not read its store');
      },
    );
    let pending = 0;
    ws.on('message', (data, isBinary) => {
      // A ticket revoked while connected ends the sync at its next frame.
      if (this.options.ticketOwner(ticket) !== workstation) {
        ws.close(1008, 'the ticket was revoked');
        return;
      }
      if (isBinary) {
        send({ type: 'sync_refused', reason: 'frames are JSON text' });
        return;
      }
      if (++pending > this.limits.maxPending) {
        ws.close(1008, `more than ${this.limits.maxPending} batches waiting; wait for each ack`);
        return;
      }
      const text = data.toString();
      queue = queue.then(async () => {
        try {
          await this.take(workstation, text, send);
        } finally {
          pending--;
        }
      });
    });
    ws.on('error', () => ws.terminate());
  }

  private async take(
    workstation: string,
    text: string,
    send: (frame: SyncServerFrame) => void,
  ): Promise<void> {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      send({ type: 'sync_refused', reason: 'not JSON' });
      return;
    }
    const checked = validate(SyncClientFrame, value);
    if (!checked.ok) {
      const batch = (value as { batch?: unknown } | null)?.batch;
      send({
        type: 'sync_refused',
        ...(Number.isInteger(batch) && (batch as number) > 0 ? { batch: batch as number } : {}),
        reason: checked.error.message,
      });
      return;
    }
    const frame = checked.value;
    let docs: SyncedDocsState | undefined;
    try {
      if (frame.type === 'sync_put') {
        const wrong = frame.sessions.findIndex((s) => s.head.agent !== s.agent || s.head.sid !== s.sid);
        if (wrong >= 0) {
          send({
            type: 'sync_refused',
            batch: frame.batch,
            reason: `/sessions/${wrong}/head: names another session than its entry`,
          });
          return;
        }
        await this.options.store.put(workstation, frame.sessions.map(withoutWorkstation));
      } else if (frame.type === 'sync_remove') await this.options.store.remove(workstation, frame.sessions);
      else docs = await this.options.store.putDocs(workstation, frame, frame);
    } catch (cause) {
      const refused = cause instanceof StoreRefused;
      if (!refused)
        this.options.log(`sync: cannot store a batch of ${workstation}: ${(cause as Error).message}`);
      send({
        type: 'sync_refused',
        batch: frame.batch,
        reason: refused ? cause.message : 'the server could not store the batch',
      });
      return;
    }
    send({ type: 'sync_ack', batch: frame.batch, ...(docs ? { docs } : {}) });
  }
}

/** The server names a synced session's workstation itself; one the workstation put in is dropped. */
function withoutWorkstation(session: SyncedSession): SyncedSession {
  if (session.head.workstation === undefined) return session;
  const { workstation: _named, ...head } = session.head;
  return { ...session, head };
}
