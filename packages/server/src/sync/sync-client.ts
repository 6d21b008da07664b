// A workstation's side of `/sync`: it sends the heads of its own machine's sessions, as its catalog
// lists them, and their search documents, as its index holds them, to a server. On each connection
// the server first says what it holds; only sessions whose stamp differs are sent, then each change
// the catalog hears. Documents follow their session's head: those added since the range of rows the
// server holds, or all of them again when that range no longer holds what it held. One batch is in
// flight at a time and counts as held once acked, so a connection cut mid-sync resumes from the
// server's word without sending again what it stored.
import { createHash } from 'node:crypto';
import {
  matches,
  type SessionHead,
  SYNC_BATCH_MAX,
  SYNC_DOCS_MAX,
  SYNC_FRAME_MAX_BYTES,
  SYNC_PATH,
  type SyncClientFrame,
  SyncedDoc,
  type SyncedDocsState,
  SyncedSession,
  type SyncServerFrame,
  validate,
} from '@cairn/protocol';
import { WebSocket } from 'ws';
import type { IndexDb, IndexDoc } from '../indexing/index-db.js';
import type { Catalog, SessionEntry } from '../reader/catalog.js';
import { wireHead } from '../streams/sessions-topic.js';

/** How long changes gather before they are sent: a burst of writes to one session is one send. */
const GATHER_MS = 250;
/** Sessions whose documents are looked at in one turn of the event loop, at most. */
const DOCS_LOOKS_PER_TURN = 200;
/** How often sessions left waiting for their first read are looked at again (one whose read failed
 * never says so). */
const WAITING_MS = 10_000;

export interface SyncCounts {
  /** Batches acked, sessions sent in them, sessions removed, search documents sent, and the bytes
   * of the frames sent (as UTF-8 text); since the client started. */
  batches: number;
  sent: number;
  removed: number;
  docs: number;
  bytes: number;
  /** Connections that got the server's word. */
  connections: number;
}

const keyOf = (agent: string, sid: string) => `${agent}\u0000${sid}`;

/** The version of a head, for the server to compare: everything but whether it is active now. */
export function headStamp(head: SessionHead): string {
  const { active: _active, ...rest } = head;
  return createHash('sha256').update(JSON.stringify(rest)).digest('base64url').slice(0, 32);
}

/** The sync endpoint of a server's address. */
function syncEndpoint(serverUrl: string): URL {
  const url = new URL(serverUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  url.pathname = SYNC_PATH;
  url.search = '';
  return url;
}

export class SessionSync {
  readonly counts: SyncCounts = { batches: 0, sent: 0, removed: 0, docs: 0, bytes: 0, connections: 0 };
  private readonly endpoints: URL[];
  private current = 0;
  private socket: WebSocket | undefined;
  private stopped = false;
  private delay = 500;
  private timer: NodeJS.Timeout | undefined;
  /** What the server holds, by session: from its word on connecting, then each ack. */
  private held: Map<string, string> | undefined;
  /** Sessions to look at again: changed or gone since the last send. */
  private readonly dirty = new Set<string>();
  /** Sessions new to the server that this machine has not read whole yet: sent once their numbers
   * are in (their indexing changes their head), or looked at again every WAITING_MS. */
  private readonly waiting = new Set<string>();
  private waitingTimer: NodeJS.Timeout | undefined;
  /** What the server holds of each session's search documents. */
  private heldDocs = new Map<string, SyncedDocsState>();
  /** Sessions whose documents to bring up to date, once their heads are held. */
  private readonly docsDue = new Set<string>();
  /** The documents of one session going out a frame at a time. */
  private docsJob: DocsJob | undefined;
  private gather: NodeJS.Timeout | undefined;
  private inFlight: { batch: number; apply: (docs?: SyncedDocsState) => void } | undefined;
  private nextBatch = 1;
  private readonly stopHeads: () => void;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly options: {
      readonly serverUrls: readonly string[];
      readonly ticket: string;
      readonly catalog: Catalog;
      /** The index the catalog keeps: the search documents come from it. Without it, heads only. */
      readonly index?: IndexDb;
      readonly log: (line: string) => void;
      readonly gatherMs?: number;
    },
  ) {
    if (options.serverUrls.length === 0) throw new Error('sync needs at least one server address');
    this.endpoints = options.serverUrls.map(syncEndpoint);
    this.stopHeads = options.catalog.onHeads((changed, removed) => {
      for (const e of [...changed, ...removed]) this.dirty.add(keyOf(e.agent, e.sid));
      this.schedule();
    });
  }

  start(): void {
    this.open();
    this.waitingTimer = setInterval(() => this.lookAgain(), WAITING_MS);
    this.waitingTimer.unref();
  }

  private lookAgain(): void {
    if (this.waiting.size === 0) return;
    for (const key of this.waiting) this.dirty.add(key);
    this.waiting.clear();
    this.schedule();
  }

  close(): void {
    this.stopped = true;
    this.stopHeads();
    clearTimeout(this.timer);
    clearInterval(this.waitingTimer);
    clearTimeout(this.gather);
    this.socket?.close(1000, 'workstation stopping');
    for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /** Settles once the server holds every session the catalog lists now (for tests and the CLI's word). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Settles once this machine's catalog has read everything and the server holds all of it. */
  async caughtUp(): Promise<void> {
    const gather = this.options.gatherMs ?? GATHER_MS;
    for (;;) {
      await this.options.catalog.settled();
      this.lookAgain();
      await this.idle();
      // A change the catalog made last is sent after the gathering delay: wait past it, then look.
      await new Promise((resolve) => setTimeout(resolve, 2 * gather));
      if (this.stopped || (this.isIdle() && !this.gather)) return;
    }
  }

  private isIdle(): boolean {
    return (
      this.held !== undefined &&
      this.inFlight === undefined &&
      this.dirty.size === 0 &&
      this.waiting.size === 0 &&
      this.docsDue.size === 0 &&
      this.docsJob === undefined
    );
  }

  private open(): void {
    if (this.stopped) return;
    const address = this.endpoints[this.current]!;
    const ws = new WebSocket(address, {
      headers: { authorization: `Bearer ${this.options.ticket}` },
      maxPayload: SYNC_FRAME_MAX_BYTES,
    });
    this.socket = ws;
    ws.on('message', (data, isBinary) => {
      if (!isBinary) void this.receive(data.toString());
    });
    ws.on('unexpected-response', (_req, res) => {
      this.options.log(`sync: the server refused the connection (${res.statusCode})`);
      res.resume();
      ws.terminate();
    });
    ws.on('error', (error) => this.options.log(`sync: ${error.message}`));
    ws.on('close', (code, reason) => {
      if (this.socket !== ws) return;
      this.held = undefined;
      this.inFlight = undefined;
      this.docsJob = undefined;
      if (this.stopped) return;
      if (code !== 1000 && code !== 1006)
        this.options.log(`sync: the connection closed (${code}${reason.length > 0 ? `: ${reason}` : ''})`);
      this.current = (this.current + 1) % this.endpoints.length;
      this.timer = setTimeout(() => this.open(), this.delay);
      this.delay = Math.min(this.delay * 2, 30_000);
    });
  }

  private async receive(text: string): Promise<void> {
    let frame: SyncServerFrame;
    try {
      frame = JSON.parse(text) as SyncServerFrame;
    } catch {
      return;
    }
    if (frame.type === 'sync_state') {
      this.delay = 500;
      this.counts.connections++;
      this.held = new Map(frame.sessions.map((s) => [keyOf(s.agent, s.sid), s.stamp]));
      this.heldDocs = new Map(
        frame.sessions.flatMap((s) => (s.docs ? [[keyOf(s.agent, s.sid), s.docs]] : [])),
      );
      this.docsJob = undefined;
      // Everything listed and everything held is looked at once: new, changed and gone.
      await this.options.catalog.listed();
      for (const e of this.options.catalog.all()) this.dirty.add(keyOf(e.agent, e.sid));
      for (const key of this.held.keys()) this.dirty.add(key);
      // Every session's documents are checked once against the server's word on them.
      if (this.options.index)
        for (const e of this.options.catalog.all()) this.docsDue.add(keyOf(e.agent, e.sid));
      this.send();
    } else if (frame.type === 'sync_ack') {
      if (this.inFlight?.batch !== frame.batch) return;
      this.inFlight.apply(frame.docs);
      this.inFlight = undefined;
      this.send();
    } else if (frame.type === 'sync_refused') {
      // Refused whole: its sessions are left out until they change again, so one bad head cannot
      // stop the rest from syncing.
      this.options.log(`sync: the server refused batch ${frame.batch ?? '?'}: ${frame.reason}`);
      if (frame.batch !== undefined && this.inFlight?.batch === frame.batch) {
        this.inFlight = undefined;
        this.docsJob = undefined;
        this.send();
      }
    }
  }

  private schedule(): void {
    if (this.gather || this.stopped) return;
    this.gather = setTimeout(() => {
      this.gather = undefined;
      this.send();
    }, this.options.gatherMs ?? GATHER_MS);
  }

  /** Sends the next batch of what differs from what the server holds, if none is in flight. */
  private send(): void {
    const ws = this.socket;
    const held = this.held;
    if (this.inFlight || !held || !ws || ws.readyState !== WebSocket.OPEN) return;
    const catalog = this.options.catalog;
    // The listed session each key names now: the most recent, when one id is under two folders.
    const listed = new Map<string, SessionEntry>();
    for (const e of catalog.all()) {
      const key = keyOf(e.agent, e.sid);
      const other = listed.get(key);
      if (!other || (e.head.lastActivityAt ?? 0) > (other.head.lastActivityAt ?? 0)) listed.set(key, e);
    }
    const puts: SessionEntry[] = [];
    const removes: { agent: string; sid: string }[] = [];
    for (const key of this.dirty) {
      if (puts.length >= SYNC_BATCH_MAX || removes.length >= SYNC_BATCH_MAX) break;
      this.dirty.delete(key);
      this.waiting.delete(key);
      const e = listed.get(key);
      // A head before its first read lacks its numbers: the read sends it whole, once instead of twice.
      if (e && !e.indexed && !held.has(key)) this.waiting.add(key);
      else if (e) puts.push(e);
      else if (held.has(key)) {
        const [agent, sid] = key.split('\u0000') as [string, string];
        removes.push({ agent, sid });
      }
    }
    const now = Date.now();
    const texts = catalog.headTexts(puts);
    const sessions: SyncedSession[] = [];
    let bytes = 0;
    for (const [i, e] of puts.entries()) {
      const head = wireHead(e, catalog.active(e, now), texts.get(e.key));
      const session = { agent: e.agent, sid: e.sid, stamp: headStamp(head), head };
      if (held.get(keyOf(e.agent, e.sid)) === session.stamp) continue;
      // A head the server would refuse is left out here, so that it cannot take its batch with it.
      const checked = validate(SyncedSession, session);
      if (!checked.ok) {
        this.options.log(`sync: ${e.agent} session ${e.sid} is not sent: ${checked.error.message}`);
        continue;
      }
      const size = JSON.stringify(session).length;
      // Past half the frame limit the rest wait for the next batch (a character is at most 3 bytes).
      if (sessions.length > 0 && (bytes + size) * 3 > SYNC_FRAME_MAX_BYTES / 2) {
        for (const rest of puts.slice(i)) this.dirty.add(keyOf(rest.agent, rest.sid));
        break;
      }
      bytes += size;
      sessions.push(session);
    }
    let frame: SyncClientFrame | undefined;
    const batch = this.nextBatch;
    if (sessions.length > 0) {
      frame = { type: 'sync_put', batch, sessions };
      this.inFlight = {
        batch,
        apply: () => {
          for (const s of sessions) held.set(keyOf(s.agent, s.sid), s.stamp);
          if (this.options.index) for (const s of sessions) this.docsDue.add(keyOf(s.agent, s.sid));
          this.counts.batches++;
          this.counts.sent += sessions.length;
        },
      };
    } else if (removes.length > 0) {
      frame = { type: 'sync_remove', batch, sessions: removes };
      this.inFlight = {
        batch,
        apply: () => {
          for (const s of removes) {
            held.delete(keyOf(s.agent, s.sid));
            this.heldDocs.delete(keyOf(s.agent, s.sid));
          }
          this.counts.batches++;
          this.counts.removed += removes.length;
        },
      };
    }
    if (removes.length > 0 && frame?.type === 'sync_put')
      for (const r of removes) this.dirty.add(keyOf(r.agent, r.sid));
    if (frame) {
      this.nextBatch++;
      const text = JSON.stringify(frame);
      this.counts.bytes += Buffer.byteLength(text);
      ws.send(text);
      return;
    }
    // Heads first; then the documents of sessions whose heads the server holds.
    if (this.dirty.size === 0 && this.sendDocs(ws, held, listed)) return;
    // Nothing differed in this look: look at the rest, or say the sync is caught up.
    if (this.dirty.size > 0 || this.docsDue.size > 0) {
      setImmediate(() => this.send());
      return;
    }
    if (this.isIdle()) for (const wake of this.idleWaiters.splice(0)) wake();
  }

  /**
   * Sends the next frame of documents, if some session's are due; false when none is. Sessions
   * with nothing new are looked at a few hundred at a time, the rest on the next turn.
   */
  private sendDocs(ws: WebSocket, held: Map<string, string>, listed: Map<string, SessionEntry>): boolean {
    const index = this.options.index;
    if (!index) return false;
    for (let looked = 0; ; looked++) {
      if (looked === DOCS_LOOKS_PER_TURN) {
        setImmediate(() => this.send());
        return true;
      }
      const job = this.docsJob ?? this.nextDocsJob(index, held, listed);
      if (!job) return false;
      this.docsJob = job;
      const page = index.docsOutside(job.e.key, job.outside, job.afterId, SYNC_DOCS_MAX);
      const docs: SyncedDoc[] = [];
      let bytes = 0;
      let lastId = job.afterId;
      for (const d of page) {
        const doc = syncedDoc(d);
        lastId = d.id;
        // The range covers every row looked at, so that it stays one range of the machine's rows.
        job.range = job.range
          ? { count: 0, low: Math.min(job.range.low, d.id), high: Math.max(job.range.high, d.id) }
          : { count: 0, low: d.id, high: d.id };
        // One the contract would refuse (an item type it does not know) is left out, not the frame.
        if (!matches(SyncedDoc, doc)) continue;
        docs.push(doc);
        bytes += doc.text.length + 200;
        if (bytes * 3 > SYNC_FRAME_MAX_BYTES / 2) break;
      }
      const ended = lastId === (page.at(-1)?.id ?? job.afterId) && page.length < SYNC_DOCS_MAX;
      // Nothing new, and the server's range stands (or the last page went out): done with it. A
      // first frame of a full send goes out even empty: the server then drops what it held.
      if (docs.length === 0 && ended && (!job.first || job.outside !== undefined)) {
        this.docsJob = undefined;
        continue;
      }
      const range = job.range ?? { count: 0, low: 0, high: -1 };
      const batch = this.nextBatch++;
      const frame: SyncClientFrame = {
        type: 'sync_docs',
        batch,
        agent: job.e.agent,
        sid: job.e.sid,
        replace: job.first && job.outside === undefined,
        low: range.low,
        high: range.high,
        docs,
      };
      job.first = false;
      job.afterId = lastId;
      this.inFlight = {
        batch,
        apply: (state) => {
          if (state) this.heldDocs.set(job.key, state);
          this.counts.batches++;
          this.counts.docs += docs.length;
          if (ended) this.docsJob = undefined;
        },
      };
      const text = JSON.stringify(frame);
      this.counts.bytes += Buffer.byteLength(text);
      ws.send(text);
      return true;
    }
  }

  /** The next session whose documents are due and whose head the server holds, as a job. */
  private nextDocsJob(
    index: IndexDb,
    held: Map<string, string>,
    listed: Map<string, SessionEntry>,
  ): DocsJob | undefined {
    for (const key of this.docsDue) {
      this.docsDue.delete(key);
      const e = listed.get(key);
      // Its head first (a session the server does not hold takes no documents), and its first read.
      if (!e?.indexed || !held.has(key)) continue;
      const server = this.heldDocs.get(key);
      // The server's documents are the rows of its range, unless those changed (read again whole):
      // then every one is sent again in place of them.
      const adding = server !== undefined && index.sessionDocCount(e.key, server) === server.count;
      return {
        key,
        e,
        outside: adding ? server : undefined,
        // Row ids run below zero too (see IndexDb.placeOf).
        afterId: Number.MIN_SAFE_INTEGER,
        first: true,
        range: adding ? server : undefined,
      };
    }
    return undefined;
  }
}

/** One session's documents going out: which, from where, and the range of rows sent so far. */
interface DocsJob {
  readonly key: string;
  readonly e: SessionEntry;
  /** Only the rows outside this range are sent (added since); all of them when absent. */
  readonly outside: SyncedDocsState | undefined;
  afterId: number;
  first: boolean;
  range: SyncedDocsState | undefined;
}

/** A document of the machine's index as the sync sends it. */
function syncedDoc(d: IndexDoc): SyncedDoc {
  return {
    key: d.itemKey,
    item_uuid: d.itemUuid,
    item_type: d.itemType,
    target: d.target,
    ...(d.agentId !== undefined ? { agent_id: d.agentId } : {}),
    ...(d.at !== undefined && Number.isFinite(d.at) && d.at >= 0 ? { at: Math.floor(d.at) } : {}),
    text: d.text,
  };
}
