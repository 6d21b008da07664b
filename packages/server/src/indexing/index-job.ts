// What indexing a session computes from its files alone: its summary, listing facts and searchable
// documents. For a session nobody follows it runs on a worker thread (the cold index, a session that
// grows unwatched), so that the daemon keeps answering while a large history is read; in-process when
// no worker is at hand. Only these results cross threads.
import {
  fileLastRecordAt,
  findAdapter,
  foldTranscript,
  HEAD_BYTES,
  loadTranscript,
  type SessionPlatform,
  type SessionSummaryWithPrompts,
  splitStorePath,
  type Transcript,
} from '@cairn/transcript';
import { type ListingFacts, listingFacts } from '../reader/listing.js';
import { turnInFlight } from '../reader/run-state.js';
import { type FileStamp, headPrint, stamp } from '../reader/source-files.js';
import { sessionRequests } from '../usage/session-requests.js';
import type { IndexDoc, UsageRequest } from './index-db.js';
import { type LaneItems, laneDocs, laneItems } from './search-docs.js';

export interface IndexJob {
  agent: string;
  /** The session's main file. */
  path: string;
  /** Its files as the catalog knows them: stamped before the read, so that a change during it shows. */
  files: readonly string[];
}

/** Head facts that only a full read finds (a title written late, a cwd past the first records). */
export interface TranscriptHeadFacts {
  title?: string;
  cwd?: string;
  startedAt?: number;
}

/** What the catalog records of a session beside its documents. */
export interface PreparedFacts {
  summary: SessionSummaryWithPrompts;
  capabilities: string[];
  inFlight: boolean;
  listing: ListingFacts;
  session: TranscriptHeadFacts;
  /** The requests the usage reports count. */
  requests: UsageRequest[];
}

export type PreparedIndex = (
  | (PreparedFacts & {
      ok: true;
      /** Every searchable document, in batches; the catalog leaves out those the index already holds. */
      docs: DocBatch[];
    })
  | { ok: false; error: string }
) & {
  /** Each file's stamp taken before it was read (a file gone by then has none). */
  stamps: [string, FileStamp][];
  /**
   * Made beside the read on a worker: each stamped file's print and last record time as of its
   * stamp, which the daemon's thread would otherwise read from the file again, for every session
   * of a cold index.
   */
  marks?: [string, FileMarks][];
};

/** What the catalog records of a file besides its stamp (see CatalogIndexing.readPoints). */
export interface FileMarks {
  /** headPrint of the file up to its stamped size. */
  print: string;
  /** fileLastRecordAt of the file at its stamped size. */
  lastRecordAt: number | undefined;
}

/** Search documents written in one transaction: a few milliseconds of the daemon's thread. */
export const DOCS_PER_WRITE = 2_000;

/**
 * A batch of documents; from a worker it comes as its JSON (bytes or UTF-16 code units, see
 * batchBytes), each batch in a buffer of its own that moves to the daemon's thread rather than
 * being copied: a long rollout's documents are hundreds of MB, and copying them into the daemon's
 * heap at once kept it from answering for most of a second. The daemon's thread parses each batch
 * when it writes it.
 */
export type DocBatch = readonly IndexDoc[] | Uint8Array | Uint16Array;

export function docBatches(docs: readonly IndexDoc[]): DocBatch[] {
  const out: DocBatch[] = [];
  for (let at = 0; at < docs.length; at += DOCS_PER_WRITE) out.push(docs.slice(at, at + DOCS_PER_WRITE));
  return out;
}

/**
 * A batch's JSON in a buffer of its own (Buffer.from may hand out a shared pool's), so that it can
 * move: one byte per character when it is all ASCII, else its UTF-16 code units. Either way both
 * threads copy the characters rather than transcode them: decoding the batches from UTF-8 held the
 * daemon's thread for most of a second of a cold index. The JSON is in pieces of a few documents,
 * one array per line: V8 makes and collects strings of more than a few hundred KB many times more
 * slowly per byte than small ones, and whole batches are that large.
 */
export function batchBytes(docs: readonly IndexDoc[]): Uint8Array | Uint16Array {
  const pieces: string[] = [];
  let piece: string[] = [];
  let chars = 0;
  let ascii = true;
  const cut = () => {
    const json = `[${piece.join(',')}]`;
    ascii &&= Buffer.byteLength(json) === json.length;
    pieces.push(json);
    piece = [];
    chars = 0;
  };
  for (const doc of docs) {
    const json = JSON.stringify(doc);
    piece.push(json);
    chars += json.length;
    if (chars >= PIECE_CHARS) cut();
  }
  if (piece.length > 0 || pieces.length === 0) cut();
  let length = pieces.length - 1;
  for (const p of pieces) length += p.length;
  const out = Buffer.allocUnsafeSlow(ascii ? length : length * 2);
  let at = 0;
  for (const [i, p] of pieces.entries()) {
    if (i > 0) at += out.write('\n', at, ascii ? 'latin1' : 'utf16le');
    at += out.write(p, at, ascii ? 'latin1' : 'utf16le');
  }
  return ascii ? out : new Uint16Array(out.buffer, 0, length);
}

/** Characters of JSON in one piece of a batch (see batchBytes). */
const PIECE_CHARS = 32 * 1024;

export const batchOf = (docs: IndexDoc[], asBytes: boolean): DocBatch => (asBytes ? batchBytes(docs) : docs);

/**
 * The documents of the lanes' items in batches as docBatches cuts them, each batch made (and for a
 * worker written as JSON bytes) before the next: a session's documents are never all held as
 * objects at once.
 */
export function laneDocBatches(lanes: readonly LaneItems[], asBytes: boolean): DocBatch[] {
  const out: DocBatch[] = [];
  let batch: IndexDoc[] = [];
  for (const lane of lanes)
    for (let i = 0; i < lane.classification.items.length; i++) {
      laneDocs(lane, i, batch, NONE, i + 1);
      if (batch.length === DOCS_PER_WRITE) {
        out.push(batchOf(batch, asBytes));
        batch = [];
      }
    }
  if (batch.length > 0) out.push(batchOf(batch, asBytes));
  return out;
}

const NONE: ReadonlySet<string> = new Set();

/** At most how many documents the batches hold: one made as bytes is counted full. */
export const docsAtMost = (batches: readonly DocBatch[]): number =>
  batches.reduce((n, b) => n + (isBytes(b) ? DOCS_PER_WRITE : b.length), 0);

const isBytes = (batch: DocBatch): batch is Uint8Array | Uint16Array =>
  batch instanceof Uint8Array || batch instanceof Uint16Array;

export function docsOf(batch: DocBatch): readonly IndexDoc[] {
  if (!isBytes(batch)) return batch;
  const wide = batch instanceof Uint16Array;
  const bytes = Buffer.from(batch.buffer, batch.byteOffset, batch.byteLength);
  const docs: IndexDoc[] = [];
  // A piece ends at a line break, which JSON.stringify writes only as an escape inside a string.
  for (let at = 0; at < batch.length; ) {
    let end = batch.indexOf(NEWLINE, at);
    if (end === -1) end = batch.length;
    const json = wide ? bytes.toString('utf16le', at * 2, end * 2) : bytes.toString('latin1', at, end);
    for (const doc of JSON.parse(json) as IndexDoc[]) docs.push(doc);
    at = end + 1;
  }
  return docs;
}

const NEWLINE = 0x0a;

/** The buffers a prepared index's document batches hold, to move rather than copy between threads. */
export const batchBuffers = (prepared: PreparedIndex): ArrayBuffer[] =>
  prepared.ok ? prepared.docs.flatMap((b) => (isBytes(b) ? [b.buffer as ArrayBuffer] : [])) : [];

export async function prepareIndex(
  platform: SessionPlatform,
  job: IndexJob,
  /** Document batches as JSON bytes, for a worker to hand over. */
  opts: { bytes?: boolean; marks?: boolean } = {},
): Promise<PreparedIndex> {
  const stamps = await stampsOf(job.files);
  const marks = opts.marks ? await fileMarks(platform, job.agent, stamps) : undefined;
  const read = await readWhole(platform, job, opts.bytes ?? false);
  return { ...read, stamps, ...(marks ? { marks } : {}) };
}

/** The files' stamps, taken before they are read (a file gone by then has none). */
export async function stampsOf(files: readonly string[]): Promise<[string, FileStamp][]> {
  const stamps: [string, FileStamp][] = [];
  for (const f of files) {
    const st = await stamp(f);
    if (st) stamps.push([f, st]);
  }
  return stamps;
}

/** What the index takes from the session read whole. */
export async function readWhole(
  platform: SessionPlatform,
  job: IndexJob,
  asBytes: boolean,
): Promise<(PreparedFacts & { ok: true; docs: DocBatch[] }) | { ok: false; error: string }> {
  const loaded = await loadTranscript(platform, { agent: job.agent, path: job.path });
  if (!loaded.ok) return { ok: false, error: loaded.error.message };
  const t = loaded.value;
  const lanes = laneItems(t);
  return {
    ok: true,
    summary: foldTranscript(t, { prompts: true }),
    capabilities: [...t.capabilities],
    inFlight: turnInFlight(t),
    listing: listingFacts(job.agent, t, lanes),
    session: headFactsOf(t),
    requests: sessionRequests(t),
    docs: laneDocBatches(lanes, asBytes),
  };
}

/**
 * The marks of the stamped files that are plain files (a store's session is stamped by its rows);
 * a file whose print cannot be read has none, and the daemon's thread reads it as before.
 */
export async function fileMarks(
  platform: SessionPlatform,
  agent: string,
  stamps: readonly [string, FileStamp][],
): Promise<[string, FileMarks][]> {
  const adapter = findAdapter(agent);
  const context = { platform, readHead: (path: string) => platform.fs.readRange(path, 0, HEAD_BYTES) };
  const out: [string, FileMarks][] = [];
  for (const [f, st] of stamps) {
    if (splitStorePath(f)) continue;
    const print = await headPrint(f, st.size);
    if (print === undefined) continue;
    let lastRecordAt: number | undefined;
    try {
      lastRecordAt = adapter ? await fileLastRecordAt(context, adapter, f, st.size) : undefined;
    } catch {
      lastRecordAt = undefined;
    }
    out.push([f, { print, lastRecordAt }]);
  }
  return out;
}

export function headFactsOf(t: Transcript): TranscriptHeadFacts {
  const facts: TranscriptHeadFacts = {};
  if (t.session.title !== undefined) facts.title = t.session.title;
  if (t.session.cwd !== undefined) facts.cwd = t.session.cwd;
  if (t.session.startedAt !== undefined) facts.startedAt = t.session.startedAt;
  return facts;
}
