// The catalog's state: what it knows of every session and file, the options it was made with, and
// what the index recorded before this start. The catalog is built in layers, each a file with one
// job: this state, reading sessions into the index (catalog-indexing), the work queue and following
// the files (catalog-following), and what the rest of the server asks of it (catalog).
import {
  adapterTable,
  type SessionHead as LibHead,
  SESSION_SUMMARY_VERSION,
  type SessionPlatform,
  type SessionSummary,
  type SessionSummaryWithPrompts,
  type Transcript,
} from '@cairn/transcript';
import type { FileState, IndexDb } from '../indexing/index-db.js';
import type { PreparedIndex } from '../indexing/index-job.js';
import type { IndexWorkers } from '../indexing/index-workers.js';
import type { LaneItems } from '../indexing/search-docs.js';
import type { SearchThread } from '../indexing/search-thread.js';
import { withoutTexts } from './head-texts.js';
import { LISTING_RULES, type ListingFacts } from './listing.js';
import type { LiveDelta, LiveTranscript } from './live-transcript.js';
import { type FileStamp, ReadStats, SourceFiles, servingPlatform, stamp } from './source-files.js';
import type { Watcher } from './watcher.js';

/** Where under each agent's home its sessions live; the whole home for an agent not named here. */
const SESSION_FOLDERS: Readonly<Record<string, readonly string[]>> = {
  'claude-code': ['projects'],
  codex: ['sessions', 'archived_sessions'],
  'gemini-cli': ['tmp'],
  'qwen-code': ['projects'],
  // The older JSON tree; their SQLite stores beside it are read for their sessions (STORE_AGENTS).
  opencode: ['storage'],
  kilo: ['storage'],
  'copilot-cli': ['session-state'],
  // pi's homes are its sessions folders themselves.
  pi: [''],
};

/** Agents that keep sessions in SQLite stores at the top of their homes (each session a file of its own). */
const STORE_AGENTS: ReadonlySet<string> = new Set(['opencode', 'kilo']);

/** A library head with the listing facts the server read from the transcript. */
export type CatalogHead = LibHead & { listing?: ListingFacts };

export interface SessionEntry {
  key: string;
  agent: string;
  sid: string;
  /** Without its title and first prompt, which the index keeps (see head-texts). */
  head: CatalogHead;
  /** The numbers the list shows (see listedSummary); the whole summary is the index's. */
  summary: SessionSummary | undefined;
  /** Shared between the sessions that list the same ones (see sharedCapabilities): never changed in place. */
  capabilities: readonly string[] | undefined;
  indexed: boolean;
  /** The last translation left a turn open on the main lane. */
  inFlight: boolean;
  /** Why the last read failed, when it did. */
  error?: string;
}

export interface Loaded {
  transcript: Transcript;
  lanes: LaneItems[];
}

export interface TranscriptChange extends Loaded {
  key: string;
  /** A file shrank, was replaced or left the session: what was known of it before no longer holds. */
  replaced: boolean;
  /** For a followed session read on from where the last read stopped: what this read added. */
  delta?: LiveDelta;
}

export interface IndexProgress {
  state: 'ready' | 'building';
  done: number;
  total: number;
}

export interface CatalogOptions {
  readonly platform: SessionPlatform;
  readonly db: IndexDb;
  readonly log?: (line: string) => void;
  readonly rescanMs?: number;
  /** Watch the homes for changes; off for one-shot uses. */
  readonly watch?: boolean;
  /** Worker threads for reading sessions whole; without them every read runs on this thread. */
  readonly workers?: IndexWorkers;
  /** The thread searches run on; without it they run on this thread. */
  readonly searches?: SearchThread;
  /** The bytes of growing sessions nobody follows whose translations are kept (see keepsTail);
   * from the heap's limit when absent. */
  readonly tailBytes?: number;
}

/**
 * What a session's summary keeps in memory: its numbers. The prompts and the context's shape are
 * asked for one session at a time and stay in the index (Catalog.fullSummary); held for every
 * session, they came to more than the rest of the summary.
 */
export function listedSummary(summary: SessionSummaryWithPrompts): SessionSummary {
  // Left out by a rest copy, not deleted: an object that loses fields takes several times the memory.
  const { prompts: _prompts, contextShape: _shape, ...numbers } = summary;
  return numbers;
}

/** One list per set of capabilities, however many sessions have it: there are a handful of sets. */
const capabilitySets = new Map<string, readonly string[]>();

export function sharedCapabilities(list: readonly string[]): readonly string[] {
  const key = list.join('\n');
  const kept = capabilitySets.get(key);
  if (kept) return kept;
  const frozen = Object.freeze([...list]);
  if (capabilitySets.size < 1_000) capabilitySets.set(key, frozen);
  return frozen;
}

/** A session is known by its main file: one id can stand under two folders, and both are listed. */
export const sessionKey = (agent: string, mainPath: string): string => `${agent}:${mainPath}`;

export type Task = () => Promise<void>;

export abstract class CatalogState {
  // Parts of the later layers that the constructor and the layers below them call.
  protected abstract enqueue(task: Task): Promise<void>;
  protected abstract recordAgain(): Promise<void>;
  protected abstract refreshSession(key: string): Promise<void>;

  readonly stats = new ReadStats();
  readonly files: SourceFiles;
  protected readonly known = new Map<string, FileState>();
  protected readonly sessions = new Map<string, SessionEntry>();
  protected readonly followed = new Map<string, number>();
  protected readonly latest = new Map<string, Loaded>();
  /** Translations of followed sessions and of growing ones (`tailed`), continued on each read
   * instead of started over. */
  protected readonly live = new Map<string, LiveTranscript>();
  /** Sessions nobody follows whose translation is kept because they grow: their bytes when last
   * read and when that was. */
  protected readonly tailed = new Map<string, { bytes: number; at: number }>();
  /** Sessions read whole again when they changed: when the last such read ended and how long it took. */
  protected readonly wholeReads = new Map<string, { end: number; took: number }>();
  /** Sessions whose read waits for its turn (see deferWhole), each with the timer that will read it. */
  protected readonly deferred = new Map<string, NodeJS.Timeout>();
  /** Followed sessions whose last read held lines back, each with the read that will take them. */
  protected readonly releases = new Map<string, NodeJS.Timeout>();
  protected readonly recent = new Map<string, { signature: string; loaded: Loaded }>();
  protected readonly roots: { root: string; agent: string }[] = [];
  /** The homes whose SQLite stores hold sessions (STORE_AGENTS). */
  protected readonly stores: { root: string; agent: string }[] = [];
  /** Each agent's homes as configured now: the index holds only sessions under them. */
  protected readonly homes: { home: string; agent: string }[] = [];
  protected readonly urgent: Task[] = [];
  /** Sessions to index when nothing is urgent, the most recently active last: the next one is
   * taken from the end (see nextBackground). */
  protected readonly background: string[] = [];
  /** Keys were queued since the background queue was last put in order. */
  protected backgroundUnsorted = false;
  protected readonly queued = new Set<string>();
  /** Background sessions being prepared on the workers ahead of their turn. */
  protected readonly preparing = new Map<string, Promise<PreparedIndex>>();
  protected running = false;
  protected idle: (() => void)[] = [];
  protected watcher: Watcher | undefined;
  /** The rescan asked for whose comparison has not started yet. */
  protected rescan: Promise<void> | undefined;
  /** Stores whose sessions are to be stamped again (a notice on the store or its log), each with
   * the timer that will; when each was last stamped; followed store sessions queued for a read. */
  protected readonly storesQueued = new Map<string, NodeJS.Timeout>();
  protected readonly storeStampedAt = new Map<string, number>();
  protected readonly storeFollowQueued = new Set<string>();
  /** The store's files as they were when a followed session's last read, or a store's last stamp, began. */
  protected readonly storeFollowReadAt = new Map<string, string>();
  protected readonly storeStampedFiles = new Map<string, string>();
  protected progress = { done: 0, total: 0 };
  protected progressLoggedAt = 0;
  protected closed = false;
  /** Changes count as activity only once the first walk is done and while the index is not being
   * recorded again: what changed while the daemon was not looking says nothing of now. */
  protected observing = false;
  /** When the daemon last saw a session's files change, by key. */
  protected readonly grewAt = new Map<string, number>();
  /** Each file's last record time as last read, with the stamp it was read at. */
  protected readonly lastRecords = new Map<string, { stamp: FileStamp; at: number | undefined }>();
  protected readonly transcriptListeners = new Set<(change: TranscriptChange) => void>();
  protected readonly headListeners = new Set<(changed: SessionEntry[], removed: SessionEntry[]) => void>();

  /** Whether the start's comparison of the files with the index is over: every session is listed. */
  protected listingDone = false;
  protected markListed: () => void = () => {};
  protected readonly listing = new Promise<void>((resolve) => {
    this.markListed = resolve;
  });

  /** Settles once every session on disk is listed (the start's first look at the files). */
  listed(): Promise<void> {
    return this.listing;
  }

  /** Rebuilds of a damaged index whose record of the sessions again has not ended: until then
   * the sessions it will queue are not counted in the progress yet. */
  protected rebuildsPending = 0;

  /** The check of the index's pages that follows the start (IndexDb.checkPages). */
  protected pageCheck: Promise<void> | undefined;

  protected get workers(): IndexWorkers | undefined {
    return this.options.workers;
  }

  constructor(protected readonly options: CatalogOptions) {
    this.files = new SourceFiles(this.stats);
    this.loadStored();
    options.db.onRebuilt(() => {
      if (this.closed) return;
      // Building from the moment the damage is found: the search that found it answers from an
      // empty index, and the record of the sessions again waits its turn in the queue.
      this.rebuildsPending++;
      void this.enqueue(() => this.recordAgain()).finally(() => {
        this.rebuildsPending--;
      });
    });
    for (const adapter of adapterTable()) {
      for (const home of adapter.homes(options.platform)) {
        this.homes.push({ home, agent: adapter.id });
        if (STORE_AGENTS.has(adapter.id)) this.stores.push({ root: home, agent: adapter.id });
        for (const sub of SESSION_FOLDERS[adapter.id] ?? ['']) {
          this.roots.push({ root: sub === '' ? home : options.platform.join(home, sub), agent: adapter.id });
        }
      }
    }
  }

  /** What the index recorded; nothing when reading it found the file damaged (it starts empty). */
  private loadStored(): void {
    const db = this.options.db;
    const generation = db.generation;
    const files = db.files();
    const stored = db.sessions<CatalogHead, SessionSummaryWithPrompts>();
    if (db.generation !== generation) return;
    // Each row comes with strings of its own: a session's key and its files' paths are read once
    // per table, and its agent once per row. Held once each instead, over 20,000 sessions.
    const once = new Map<string, string>();
    const one = (text: string): string => {
      const held = once.get(text);
      if (held !== undefined) return held;
      once.set(text, text);
      return text;
    };
    for (const [path, f] of files) {
      f.sessionKey = one(f.sessionKey);
      this.known.set(one(path), f);
    }
    for (const s of stored) {
      const key = one(s.key);
      const head = withoutTexts(s.head);
      head.agent = one(head.agent);
      head.path = one(head.path);
      head.files = head.files.map(one);
      this.sessions.set(key, {
        key,
        agent: one(s.agent),
        sid: s.sid,
        head,
        summary:
          s.summaryVersion === SESSION_SUMMARY_VERSION && s.summary ? listedSummary(s.summary) : undefined,
        capabilities: s.capabilities && sharedCapabilities(s.capabilities),
        // A session indexed before the listing facts existed, or under older rules, is read again for them.
        indexed:
          s.indexed &&
          s.summaryVersion === SESSION_SUMMARY_VERSION &&
          s.head.listing?.rules === LISTING_RULES,
        inFlight: false,
      });
    }
  }

  protected log(line: string): void {
    this.options.log?.(line);
  }

  /** A platform reading the agents' files as the catalog does: counted, from the cache when held. */
  platform(): SessionPlatform {
    return servingPlatform(this.options.platform, this.stats, this.files, (p) => this.files.has(p));
  }

  /** The bytes of a session's files as they are now (a file gone counts none). */
  async sessionBytes(key: string): Promise<number> {
    let bytes = 0;
    for (const f of this.sessions.get(key)?.head.files ?? []) bytes += (await stamp(f))?.size ?? 0;
    return bytes;
  }
}
