// A driven session's event log for a browser: `/drive/events?session=<ref>&after=<seq>` opens a
// WebSocket that sends each event the log holds after that seq, then each one stored later, in order
// and once, as the contract's `DriveEventFrame`. The events come from the
// store, so on a database shared by several server processes every process answers for every
// session: a browser whose process goes away opens the feed on another with the last seq it got,
// and misses nothing and sees nothing twice.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { DRIVE_EVENTS_PATH, type DriveEventFrame } from '@cairn/protocol';
import { WebSocketServer } from 'ws';
import { coalescedSend } from '../gate/coalesced-send.js';
import { personOf, type WorkstationAccess } from '../gate/people.js';
import type { DriveLogRecords } from '../storage/server-store.js';

export { DRIVE_EVENTS_PATH };

/** Past this much unsent, a browser is too slow to follow: it is closed and resumes from its seq. */
const MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
/** The close code that says: come back later, from the last seq you have. */
const TRY_AGAIN_LATER = 1013;

export class DriveEventsEndpoint {
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: 4 * 1024 });
  private readonly stops = new Set<() => void>();

  constructor(
    private readonly options: {
      readonly drive: DriveLogRecords;
      /** On a team's server, which workstations a person may use; without it, all. */
      readonly access?: WorkstationAccess;
      readonly log: (line: string) => void;
    },
  ) {}

  /** An upgrade already admitted by the gate: checked against the session and its workstation. */
  async handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const sessionRef = url.searchParams.get('session') ?? '';
    const afterText = url.searchParams.get('after') ?? '0';
    const after = /^\d{1,15}$/.test(afterText) ? Number(afterText) : undefined;
    if (sessionRef === '' || after === undefined)
      return refuse(socket, 400, 'Bad Request', 'session=<ref> is needed, and after=<seq> is a whole number');
    const record = await this.options.drive.get(sessionRef);
    if (!record) return refuse(socket, 404, 'Not Found', `no driven session ${sessionRef}`);
    if (!(await this.mayUse(req, record.workstation)))
      return refuse(
        socket,
        403,
        'Forbidden',
        `forbidden: workstation ${record.workstation} is neither yours nor shared`,
      );
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      const send = coalescedSend(ws, socket);
      let stop: (() => void) | undefined;
      let closed = false;
      const end = () => {
        closed = true;
        stop?.();
        if (stop) this.stops.delete(stop);
      };
      ws.on('close', end);
      ws.on('error', () => ws.terminate());
      // A browser only listens here; anything it sends is ignored.
      this.options.drive
        .subscribe(sessionRef, after, (events) => {
          if (ws.readyState !== ws.OPEN) return;
          for (const event of events)
            send(
              JSON.stringify({
                type: 'drive_event',
                seq: event.seq,
                eventName: event.eventName,
                payload: event.payload,
              } satisfies DriveEventFrame),
            );
          if (ws.bufferedAmount > MAX_BUFFERED_BYTES)
            ws.close(TRY_AGAIN_LATER, 'too far behind: open the feed again from the last seq received');
        })
        .then(
          (stopFeed) => {
            if (closed) return stopFeed();
            stop = stopFeed;
            this.stops.add(stopFeed);
          },
          (error: Error) => {
            this.options.log(`drive events: cannot follow session ${sessionRef}: ${error.message}`);
            ws.close(1011, 'the event log cannot be read now');
          },
        );
    });
  }

  close(): void {
    for (const stop of this.stops) stop();
    this.stops.clear();
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
  }

  private async mayUse(req: IncomingMessage, workstation: string): Promise<boolean> {
    if (!this.options.access) return true;
    const person = personOf(req);
    return person !== undefined && (await this.options.access(person))(workstation);
  }
}

function refuse(socket: Duplex, status: number, title: string, reason: string): void {
  socket.end(
    `HTTP/1.1 ${status} ${title}\r\nContent-Type: text/plain\r\nConnection: close\r\nContent-Length: ${Buffer.byteLength(reason) + 1}\r\n\r\n${reason}\n`,
  );
}
