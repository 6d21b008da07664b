// How a server process learns of the events another one stored: each append that stores events
// sends a NOTIFY naming the session and its new held seq, and every process LISTENs on one
// connection of its own. A notice only says "read again": the events themselves are read from the
// table after the seq each subscriber was last given, so a notice lost with a dropped connection,
// or two notices folded into one, never cost an event or repeat one.
import pg from 'pg';
import { pgTypes } from './postgres-pool.js';
import type { EventsListener, LoggedEvent } from './server-store.js';

/** The channel of the drive's notices; the payload is `{"s": sessionRef, "h": heldSeq}`. */
export const DRIVE_EVENTS_CHANNEL = 'cairn_drive_events';
/** What the listening connection calls itself, so an operator can tell it in `pg_stat_activity`. */
export const FEED_APPLICATION_NAME = 'cairn event feed';

interface Subscriber {
  readonly sessionRef: string;
  readonly listener: EventsListener;
  /** The last seq handed to the listener. */
  delivered: number;
  running: boolean;
  again: boolean;
  closed: boolean;
}

const PAGE = 1_000;

export class EventFeed {
  /** Listeners of the other channels the connection listens on, by channel. A listener is given
   * the notice's payload, or undefined after the connection was lost (anything may have changed). */
  private readonly channelListeners = new Map<string, Set<(payload: string | undefined) => void>>();
  private client: pg.Client | undefined;
  private connecting: Promise<void> | undefined;
  private closed = false;
  private readonly subscribers = new Map<string, Set<Subscriber>>();

  constructor(
    private readonly connectionString: string,
    private readonly read: (sessionRef: string, afterSeq: number, limit: number) => Promise<LoggedEvent[]>,
    private readonly log: (line: string) => void = () => {},
    /** Channels besides the drive's that this connection listens on. */
    private readonly channels: readonly string[] = [],
  ) {
    for (const channel of channels) this.channelListeners.set(channel, new Set());
  }

  /** Hands `listener` each notice on `channel` (one of `channels`) from now on; resolves once listening. */
  async onChannel(channel: string, listener: (payload: string | undefined) => void): Promise<() => void> {
    const set = this.channelListeners.get(channel);
    if (!set) throw new Error(`the event feed does not listen on ${channel}`);
    set.add(listener);
    await this.listening();
    return () => set.delete(listener);
  }

  /**
   * Hands `listener` the session's events after `afterSeq`, in order and each once: those held now,
   * then each stored later by any process on the database. Resolves once listening; answers the
   * function that stops it.
   */
  async subscribe(sessionRef: string, afterSeq: number, listener: EventsListener): Promise<() => void> {
    await this.listening();
    const subscriber: Subscriber = {
      sessionRef,
      listener,
      delivered: afterSeq,
      running: false,
      again: false,
      closed: false,
    };
    const set = this.subscribers.get(sessionRef) ?? new Set();
    this.subscribers.set(sessionRef, set);
    set.add(subscriber);
    this.pump(subscriber);
    return () => {
      subscriber.closed = true;
      set.delete(subscriber);
      if (set.size === 0 && this.subscribers.get(sessionRef) === set) this.subscribers.delete(sessionRef);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const set of this.subscribers.values()) for (const s of set) s.closed = true;
    this.subscribers.clear();
    for (const set of this.channelListeners.values()) set.clear();
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private listening(): Promise<void> {
    if (this.client) return Promise.resolve();
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.connectionString,
      types: pgTypes,
      application_name: FEED_APPLICATION_NAME,
    });
    client.on('notification', (notice) => {
      if (notice.channel === DRIVE_EVENTS_CHANNEL) this.onNotice(notice.payload);
      else for (const listener of this.channelListeners.get(notice.channel) ?? []) listener(notice.payload);
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    await client.connect();
    await client.query(`LISTEN ${DRIVE_EVENTS_CHANNEL}`);
    for (const channel of this.channels) await client.query(`LISTEN ${channel}`);
    if (this.closed) {
      await client.end();
      return;
    }
    this.client = client;
  }

  /** The listening connection is gone: listen again, then read what was stored meanwhile. */
  private lost(client: pg.Client): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    client.end().catch(() => {});
    this.log('event feed: the listening connection was lost; listening again');
    const retry = (): void => {
      if (this.closed) return;
      this.listening().then(
        () => {
          for (const set of this.subscribers.values()) for (const s of set) this.pump(s);
          for (const set of this.channelListeners.values()) for (const listener of set) listener(undefined);
        },
        (error: Error) => {
          this.log(`event feed: cannot listen again yet: ${error.message}`);
          setTimeout(retry, 500).unref();
        },
      );
    };
    setTimeout(retry, 50).unref();
  }

  private onNotice(payload: string | undefined): void {
    let notice: { s?: unknown; h?: unknown };
    try {
      notice = JSON.parse(payload ?? '') as typeof notice;
    } catch {
      return;
    }
    if (typeof notice.s !== 'string' || typeof notice.h !== 'number') return;
    for (const subscriber of this.subscribers.get(notice.s) ?? [])
      if (notice.h > subscriber.delivered) this.pump(subscriber);
  }

  /** Reads and hands on what follows the subscriber's last seq; one read at a time per subscriber. */
  private pump(subscriber: Subscriber): void {
    if (subscriber.running) {
      subscriber.again = true;
      return;
    }
    subscriber.running = true;
    void (async () => {
      try {
        do {
          subscriber.again = false;
          for (;;) {
            if (subscriber.closed) return;
            const events = await this.read(subscriber.sessionRef, subscriber.delivered, PAGE);
            if (subscriber.closed || events.length === 0) break;
            subscriber.delivered = events.at(-1)!.seq;
            try {
              subscriber.listener(events);
            } catch (error) {
              this.log(`event feed: a subscriber failed: ${(error as Error).message}`);
            }
            if (events.length < PAGE) break;
          }
        } while (subscriber.again);
      } catch (error) {
        // The database away for a moment: read again from the same seq a little later.
        this.log(
          `event feed: cannot read the events of ${subscriber.sessionRef}: ${(error as Error).message}`,
        );
        setTimeout(() => this.pump(subscriber), 500).unref();
      } finally {
        subscriber.running = false;
      }
    })();
  }
}
