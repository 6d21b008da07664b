// The contract between the library and one agent's adapter (the agent-kit contract's `Provider`).
// Adapters are a table (builtinSessionAdapters); a caller can pass more for one call as `providers`.
import type { SessionStoreRow } from './adapters/opencode/sqlite.js';
import type { LineSpan } from './lines.js';
import type {
  Capability,
  Lane,
  SessionHead,
  SessionSummaryWithPrompts,
  SkippedRecord,
  SourcePointer,
  TranscriptEvent,
  TranscriptSession,
} from './model.js';
import type { SessionPlatform } from './platform.js';
import type { ReadFailed, Result, SessionReadError, UnknownFormatGeneration } from './result.js';

/** A session file's bytes, decompressed when the file is compressed. */
export interface SourceFile {
  path: string;
  data: Uint8Array;
  /**
   * Where `data` starts in the file: set past 0 only for an incremental push that is handed just
   * the bytes after what earlier pushes read (a long file read from disk in parts). Offsets in
   * spans and pointers are always the file's own.
   */
  start?: number;
  /**
   * The number of `data`'s first line, when a part of the file is translated alone as though the
   * file began there (a preview of the records around one in a long file): a translation that names
   * records by their line counts lines from it, and so names them as a read of the whole file does.
   * Offsets still count from the part.
   */
  line?: number;
  codec?: 'zstd';
  /** Set when the platform checked that every byte of `data` is well-formed UTF-8. */
  wellFormedUtf8?: true;
  /**
   * A session kept in a SQLite store: its rows as read, in the order a whole export gives them
   * (`data` is then empty); message and part rows come with their data parsed. Pointers name a row
   * by table and rowid.
   */
  rows?: readonly SessionStoreRow[];
}

/** The file offset just past `file`'s bytes. */
export const fileEnd = (file: SourceFile): number => (file.start ?? 0) + file.data.length;

export interface AdapterContext {
  readonly platform: SessionPlatform;
  readonly signal?: AbortSignal;
  /** At most the first 128 KB of a file, decompressed when compressed. */
  readHead(path: string): Promise<Uint8Array>;
}

/** A root or file that could not be listed; the listing goes on past it. */
export interface ListFailure {
  ref: string;
  error: ReadFailed | UnknownFormatGeneration;
}

export type ListEntry = SessionHead | ListFailure;

/** A session known by where it is, found without reading what its files say. */
export interface FoundSession {
  agent: string;
  id: string;
  path: string;
}

export type DiscoverEntry = FoundSession | ListFailure;

/** What an adapter's translation makes of a session's files; the library numbers `seq` afterwards. */
export interface TranslatedSession {
  agentVersion?: string;
  agents: Lane[];
  capabilities: Capability[];
  events: TranscriptEvent[];
  session: TranscriptSession;
  skipped: SkippedRecord[];
}

/** What one push of newly read records did to a session's translation. */
export interface TranslationDelta {
  /** Index of the first event that is new or moved; every event before it kept its place. */
  from: number;
  /** The events the new records made, in transcript order. */
  added: TranscriptEvent[];
  /** Earlier events the new records changed in place: a request's usage, a compaction's shadow. */
  updated: TranscriptEvent[];
  /** Those of `updated` whose payload now reads differently (a message found to be a prompt, a
   * request's usage, a compaction's summary); the others only gained a mark (a compaction's
   * shadow, their request). */
  revised: TranscriptEvent[];
}

/**
 * A session's translation kept open between reads: each push translates only the records past
 * where the last one stopped, from the state it saved. Reading a session whole is one push.
 */
export interface IncrementalTranslation {
  /**
   * Translates what `files` (main file first) hold beyond what earlier pushes read; files only
   * grow by whole records. Answers 'rewrite' when the new bytes change what was translated before
   * in a way it does not patch (a file that shrank or moved, a record that reorders earlier ones):
   * the caller then translates the session again from the start. A file may hold only its bytes
   * from `start` on, never past where the last push stopped reading it.
   */
  push(files: readonly SourceFile[]): Result<TranslationDelta | 'rewrite', UnknownFormatGeneration>;
  /** The translation so far; its event list is the one later pushes extend. */
  snapshot(): TranslatedSession;
  /**
   * Optional: lets go of the first `count` events of the list the snapshot gives, which a reader in
   * parts has done with. Later pushes neither change nor look back at them; the list's first event
   * is then the session's `count`th (and so on, for every call).
   */
  letGo?(count: number): void;
}

export interface SessionAdapter {
  /** Catalog id: 'claude-code', 'codex', 'gemini-cli', 'qwen-code'. */
  readonly id: string;
  readonly aliases: readonly string[];
  /** Everything this agent's logs can record; a transcript lists the subset its files show. */
  readonly capabilities: readonly Capability[];
  /** Pure: this agent's home folders for an environment, in the order they are searched. */
  homes(platform: Pick<SessionPlatform, 'env' | 'homeDir' | 'join'>): string[];
  /** Whether `path` (with its first bytes) is one of this agent's session files. */
  detect(path: string, head: Uint8Array): boolean;
  /** Every session under one home; a bad file yields a ListFailure and the listing goes on. */
  list(ctx: AdapterContext, home: string): AsyncIterable<ListEntry>;
  /**
   * Optional: the sessions `list` gives, in the same order, found from names alone (a file's
   * first line where the name does not carry the id) for callers that read every file anyway.
   * It finds a head's session and also a file whose head `list` reports as a failure: reading
   * that session fails in its own right. A folder `list` cannot read is the same failure here.
   */
  discover?(ctx: AdapterContext, home: string): AsyncIterable<DiscoverEntry>;
  /** The files of the session whose main file is `path`, main file first. */
  sessionFiles(ctx: AdapterContext, path: string): Promise<Result<string[], SessionReadError>>;
  /**
   * Optional, pure: the time of the last record in a file's bytes that carries one, in whole ms.
   * Unless `whole`, `data` is the file's end and its first line may be cut. Listing and the
   * server's index take a session's last activity from it rather than from modification times.
   */
  lastRecordAt?(path: string, data: Uint8Array, whole: boolean): number | undefined;
  /** Pure translation of a session's files (main file first) into events. */
  translate(files: readonly SourceFile[]): Result<TranslatedSession, UnknownFormatGeneration>;
  /**
   * Optional: a translation that continues as the files grow, giving what translate gives for
   * the same bytes. Without it a growing session is translated whole on every read.
   */
  incremental?(): IncrementalTranslation;
  /**
   * Optional, pure: whether `path` is a document the agent rewrites whole at each change, which
   * `incremental` sets against the bytes it last read: a changed head is then no file written
   * anew, and the translation goes on from its last read.
   */
  rewrittenInPlace?(path: string): boolean;
  /**
   * Optional: false when a long session read in parts gains nothing over one read (a document is
   * one value; `incremental` goes over what it holds again at each push): loads then read it whole.
   */
  readonly readsInParts?: boolean;
  /**
   * Optional, pure: whether a read in parts should not end a part after this line (a record the
   * one after it settles the reading of), so that guessing at it and reading it again is left to
   * a live read that ends there.
   */
  keepWithNext?(line: Uint8Array): boolean;
  /**
   * An optional fast pass that computes the summary without building events. It must give the
   * same numbers as foldTranscript(translate(files)). It always returns every prompt in full
   * (`prompts`); the library cuts them to what the caller asked for.
   */
  summarize?(files: readonly SourceFile[]): Result<SessionSummaryWithPrompts, UnknownFormatGeneration>;
  /**
   * Optional, pure: `summarize` fed one line at a time (files main first, as `sessionFiles` gives
   * them), so that a file of any size can be read in chunks. The same numbers as `summarize`.
   */
  summaryPass?(paths: readonly string[]): SummaryPass;
}

/**
 * The contract's name for an adapter: what `LoadTranscriptOptions.providers` and
 * `SummarizeSessionOptions.providers` take. A provider whose id is a built-in adapter's replaces it
 * for that call; others join the table after the built-in ones.
 */
export type Provider = SessionAdapter;

/** A summary pass in progress: each file started in order, then its lines, then the numbers. */
export interface SummaryPass {
  /** `wellFormedUtf8` when the whole file is known to be well-formed UTF-8. */
  startFile(index: number, wellFormedUtf8: boolean): void;
  /** A line of the current file (`span` within `data`); an error ends the pass. The line's own
   * `wellFormedUtf8` replaces the file's when given. */
  line(data: Uint8Array, span: LineSpan, wellFormedUtf8?: boolean): UnknownFormatGeneration | undefined;
  finish(): Result<SessionSummaryWithPrompts, UnknownFormatGeneration>;
}

/** The pointer of one line of a source file. */
export const linePointer = (file: Pick<SourceFile, 'path' | 'codec'>, span: LineSpan): SourcePointer =>
  file.codec
    ? { file: file.path, offset: span.offset, length: span.length, line: span.line, codec: file.codec }
    : { file: file.path, offset: span.offset, length: span.length, line: span.line };
