// What the subscribers of a driven session hear: its events as the store hands them on (so on a
// shared database, those a workstation connected to another server process sent too), and the
// notices of this process (a lost turn), each after the events stored before it.
import type { DriveLogRecords } from '../storage/server-store.js';
import type { DriveNotice } from './agent-wire-server.js';

type Listener = (notice: DriveNotice) => void;

interface Feed {
  readonly listeners: Set<Listener>;
  /** The last seq handed on; undefined until the store's subscription is up. */
  delivered: number | undefined;
  /** Notices waiting for the events before them, with the seq they wait for. */
  readonly waiting: { throughSeq: number; notice: DriveNotice }[];
  stop: (() => void) | undefined;
  stopped: boolean;
}

export class SessionFeeds {
  private readonly feeds = new Map<string, Feed>();

  constructor(
    private readonly drive: DriveLogRecords,
    private readonly logLine?: (line: string) => void,
  ) {}

  /** Every event the store holds after those held now, and every notice, from now on. */
  subscribe(sessionRef: string, listener: Listener): () => void {
    let feed = this.feeds.get(sessionRef);
    if (!feed) {
      feed = this.start(sessionRef);
      this.feeds.set(sessionRef, feed);
    }
    const current = feed;
    current.listeners.add(listener);
    return () => {
      current.listeners.delete(listener);
      if (current.listeners.size > 0 || this.feeds.get(sessionRef) !== current) return;
      this.feeds.delete(sessionRef);
      current.stopped = true;
      current.stop?.();
    };
  }

  /** A notice of this process, heard after every event the store held when it came. */
  notice(sessionRef: string, notice: DriveNotice): void {
    const feed = this.feeds.get(sessionRef);
    if (!feed) return;
    this.drive.heldSeq(sessionRef).then(
      (throughSeq) => {
        feed.waiting.push({ throughSeq, notice });
        this.release(feed);
      },
      (error) => {
        this.logLine?.(`agent wire: cannot read session ${sessionRef}: ${(error as Error).message}`);
        this.tell(feed, notice);
      },
    );
  }

  close(): void {
    for (const feed of this.feeds.values()) {
      feed.stopped = true;
      feed.stop?.();
    }
    this.feeds.clear();
  }

  private start(sessionRef: string): Feed {
    const feed: Feed = {
      listeners: new Set(),
      delivered: undefined,
      waiting: [],
      stop: undefined,
      stopped: false,
    };
    void (async () => {
      const from = await this.drive.heldSeq(sessionRef);
      const stop = await this.drive.subscribe(sessionRef, from, (events) => {
        for (const event of events) this.tell(feed, { kind: 'event', sessionRef, event });
        feed.delivered = events.at(-1)?.seq ?? feed.delivered;
        this.release(feed);
      });
      if (feed.stopped) stop();
      else feed.stop = stop;
      feed.delivered ??= from;
      this.release(feed);
    })().catch((error) =>
      this.logLine?.(`agent wire: cannot follow session ${sessionRef}: ${(error as Error).message}`),
    );
    return feed;
  }

  /** Hands on the notices whose events are all out. */
  private release(feed: Feed): void {
    while (
      feed.waiting.length > 0 &&
      feed.delivered !== undefined &&
      feed.waiting[0]!.throughSeq <= feed.delivered
    )
      this.tell(feed, feed.waiting.shift()!.notice);
  }

  private tell(feed: Feed, notice: DriveNotice): void {
    for (const listener of feed.listeners) {
      try {
        listener(notice);
      } catch (error) {
        this.logLine?.(`agent wire: a subscriber failed: ${(error as Error).message}`);
      }
    }
  }
}
