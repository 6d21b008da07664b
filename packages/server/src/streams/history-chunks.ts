// A stream's history as it goes out in chunks, each chunk's frame made once and handed to every
// subscriber sent that history: many clients opening one session at once would otherwise each
// serialize and gzip the same items again, holding up everybody else on the daemon's thread.
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { TranscriptItem } from '@cairn/protocol';
import { tryStringify } from '@cairn/transcript';
import type { StreamFrame } from './frames.js';

export interface HistoryChunking {
  /** Items per chunk after the first. */
  readonly per: number;
  /** Items of the first chunk. */
  readonly first: number;
  /** A history whose JSON is longer than this goes in chunks. */
  readonly inlineBytes: number;
  /** A chunk whose JSON is longer than this travels gzipped, in base64. */
  readonly gzipBytes: number;
}

/** What the frames of one history share: the session, its seq and the chunking they were cut by. */
export interface HistoryOf {
  readonly sid: string;
  readonly seq: number;
  readonly items: readonly TranscriptItem[];
}

/**
 * The chunk frames of one history (one list of items at one seq, cut one way). A frame is made the
 * first time a subscriber asks for it and kept for the next, up to `keepBytes` of gzipped payload;
 * past that a frame is made again for each, so that a huge history is not held twice in memory.
 */
export class HistoryChunks {
  readonly chunks: TranscriptItem[][] = [];
  /** How many chunk frames were made (serialized, gzipped when long): once each while kept. */
  made = 0;
  private readonly frames = new Map<number, Promise<StreamFrame>>();
  /** Each early chunk's JSON, made while telling whether the history fits in one frame, until its
   * frame is made. */
  private readonly texts = new Map<number, string | undefined>();
  private inline: boolean | undefined;
  private keptBytes = 0;
  /** The items' count when cut: a list grown in place since is another history. */
  private readonly itemCount: number;

  constructor(
    readonly history: HistoryOf,
    readonly chunking: HistoryChunking,
    private readonly keepBytes = KEEP_BYTES,
  ) {
    const { items } = history;
    const { first, per } = chunking;
    this.itemCount = items.length;
    for (let i = 0; i < items.length; i += i === 0 ? first : per)
      this.chunks.push(items.slice(i, i + (i === 0 ? first : per)));
  }

  /** Whether this is still the history `items` at `seq`, cut by `chunking`. */
  holds(history: HistoryOf, chunking: HistoryChunking): boolean {
    const a = this.chunking;
    return (
      this.history.items === history.items &&
      this.itemCount === history.items.length &&
      this.history.seq === history.seq &&
      this.history.sid === history.sid &&
      a.per === chunking.per &&
      a.first === chunking.first &&
      a.inlineBytes === chunking.inlineBytes &&
      a.gzipBytes === chunking.gzipBytes
    );
  }

  /**
   * Whether the history goes out whole in one frame. Each chunk's JSON is made only as far as
   * telling, so that a long history is not written out whole first; one that does not serialize
   * goes in chunks, so that only its bad chunk is refused.
   */
  fitsInline(): boolean {
    if (this.inline !== undefined) return this.inline;
    let length = 2 + Math.max(0, this.chunks.length - 1);
    for (const [index, chunk] of this.chunks.entries()) {
      if (length > this.chunking.inlineBytes) break;
      const text = tryStringify(chunk);
      this.texts.set(index, text);
      length = text === undefined ? Number.POSITIVE_INFINITY : length + text.length - 2;
    }
    this.inline = length <= this.chunking.inlineBytes;
    // A history that goes whole never needs its chunks' text again.
    if (this.inline) this.texts.clear();
    return this.inline;
  }

  /** The frame of chunk `index`: its items as they are, or gzipped when their JSON is long. */
  frame(index: number): Promise<StreamFrame> {
    const kept = this.frames.get(index);
    if (kept) return kept;
    const made = this.make(index);
    if (this.keptBytes < this.keepBytes) {
      this.frames.set(index, made);
      made.then(
        (frame) => {
          if (typeof frame.payload === 'string') this.keptBytes += frame.payload.length;
        },
        // A chunk that failed is made again for the next who asks, which reports it in turn.
        () => this.frames.delete(index),
      );
    }
    return made;
  }

  private make(index: number): Promise<StreamFrame> {
    this.made++;
    const chunk = this.chunks[index]!;
    const { sid, seq } = this.history;
    const base = {
      type: 'transcript_chunk',
      session_id: sid,
      seq,
      sessionId: sid,
      index,
      total: this.chunks.length,
    };
    const text = this.texts.has(index) ? this.texts.get(index) : tryStringify(chunk);
    this.texts.delete(index);
    if (text === undefined || text.length <= this.chunking.gzipBytes)
      return Promise.resolve({ ...base, messages: chunk });
    const frame = gzipAsync(text).then(
      (zipped): StreamFrame => ({ ...base, encoding: 'gzip-base64', payload: zipped.toString('base64') }),
    );
    // A send that stops early leaves its chunks unread: their failure is nobody's to report.
    frame.catch(() => undefined);
    return frame;
  }
}

const gzipAsync = promisify(gzip);

/** Gzipped payload a history keeps for its next subscribers (about a 300 MB session's worth). */
const KEEP_BYTES = 64 * 1024 * 1024;
