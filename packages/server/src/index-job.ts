// What indexing a session computes from its files alone: its summary, listing facts and searchable
// documents. For a session nobody follows it runs on a worker thread (the cold index, a session that
// grows unwatched), so that the daemon keeps answering while a large history is read; in-process when
// no worker is at hand. Only these results cross threads.
import {
  foldTranscript,
  loadTranscript,
  type SessionPlatform,
  type SessionSummaryWithPrompts,
  type Transcript,
} from '@cairn/transcript';
import type { IndexDoc } from './index-db.js';
import { type ListingFacts, listingFacts } from './listing.js';
import { turnInFlight } from './run-state.js';
import { type LaneItems, laneDocs, laneItems } from './search-docs.js';
import { type FileStamp, stamp } from './source-files.js';

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
};

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
 * daemon's thread for most of a second of a cold index.
 */
export function batchBytes(docs: readonly IndexDoc[]): Uint8Array | Uint16Array {
  const json = JSON.stringify(docs);
  if (Buffer.byteLength(json) === json.length) {
    const bytes = Buffer.allocUnsafeSlow(json.length);
    bytes.write(json, 'latin1');
    return bytes;
  }
  const units = Buffer.allocUnsafeSlow(json.length * 2);
  units.write(json, 'utf16le');
  return new Uint16Array(units.buffer, 0, json.length);
}

const batchOf = (docs: IndexDoc[], asBytes: boolean): DocBatch => (asBytes ? batchBytes(docs) : docs);

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

const isBytes = (batch: DocBatch): batch is Uint8Array | Uint16Array =>
  batch instanceof Uint8Array || batch instanceof Uint16Array;

export function docsOf(batch: DocBatch): readonly IndexDoc[] {
  if (!isBytes(batch)) return batch;
  const bytes = Buffer.from(batch.buffer, batch.byteOffset, batch.byteLength);
  return JSON.parse(bytes.toString(batch instanceof Uint16Array ? 'utf16le' : 'latin1')) as IndexDoc[];
}

/** The buffers a prepared index's document batches hold, to move rather than copy between threads. */
export const batchBuffers = (prepared: PreparedIndex): ArrayBuffer[] =>
  prepared.ok ? prepared.docs.flatMap((b) => (isBytes(b) ? [b.buffer as ArrayBuffer] : [])) : [];

export async function prepareIndex(
  platform: SessionPlatform,
  job: IndexJob,
  /** Document batches as JSON bytes, for a worker to hand over. */
  opts: { bytes?: boolean } = {},
): Promise<PreparedIndex> {
  const stamps: [string, FileStamp][] = [];
  for (const f of job.files) {
    const st = await stamp(f);
    if (st) stamps.push([f, st]);
  }
  const loaded = await loadTranscript(platform, { agent: job.agent, path: job.path });
  if (!loaded.ok) return { ok: false, error: loaded.error.message, stamps };
  const t = loaded.value;
  const lanes = laneItems(t);
  return {
    ok: true,
    summary: foldTranscript(t, { prompts: true }),
    capabilities: [...t.capabilities],
    inFlight: turnInFlight(t),
    listing: listingFacts(job.agent, t, lanes),
    session: headFactsOf(t),
    docs: laneDocBatches(lanes, opts.bytes ?? false),
    stamps,
  };
}

export function headFactsOf(t: Transcript): TranscriptHeadFacts {
  const facts: TranscriptHeadFacts = {};
  if (t.session.title !== undefined) facts.title = t.session.title;
  if (t.session.cwd !== undefined) facts.cwd = t.session.cwd;
  if (t.session.startedAt !== undefined) facts.startedAt = t.session.startedAt;
  return facts;
}
