// loadTranscript: every file of a session into one Transcript.
import type { Provider, SessionAdapter, SourceFile, TranslatedSession } from './adapter.js';
import { lineParts, Translator } from './incremental.js';
import type { SessionTarget, Transcript } from './model.js';
import { findSession, type OpenOptions, openFailure, readSessionFiles } from './open.js';
import type { SessionPlatform } from './platform.js';
import { type FilePart, isPlainFileOf, readParts } from './read.js';
import { err, type LoadTranscriptError, ok, type Result } from './result.js';

export interface LoadTranscriptOptions extends OpenOptions {
  /** Told the running total of bytes read across the session's files. */
  readonly onProgress?: (bytes: number) => void;
  /** Adapters for this call besides the built-in ones (one with a built-in id replaces it). */
  readonly providers?: readonly Provider[];
  readonly signal?: AbortSignal;
}

/**
 * Reads every file of a session into one Transcript. Expected failures are values; an abort
 * rejects with `signal.reason`.
 */
export async function loadTranscript(
  platform: SessionPlatform,
  target: SessionTarget,
  options: LoadTranscriptOptions = {},
): Promise<Result<Transcript, LoadTranscriptError>> {
  const found = await findSession(platform, target, options);
  if (!found.ok) return found;
  const { adapter, paths } = found.value;
  const partwise = adapter.incremental !== undefined && adapter.readsInParts !== false;
  // A plain main file of a part or more is read from disk a part at a time, never whole.
  if (partwise && paths[0] && (await isPlainFileOf(platform, paths[0], LOAD_PART_BYTES))) {
    const inParts = await loadInParts(platform, adapter, paths, options);
    if (inParts !== 'rewrite') return inParts;
  }
  const files = await readSessionFiles(platform, paths, options);
  if (!files.ok) return files;
  // A long file held whole (decompressed, or read again after its parts could not be kept) still
  // goes in parts through the translation, so that only a part's parsed lines are alive at once.
  if (partwise && (files.value[0]?.data.length ?? 0) > LOAD_PART_BYTES) {
    const translator = new Translator(adapter);
    for (const part of lineParts(files.value, LOAD_PART_BYTES, adapter.keepWithNext)) {
      const pushed = translator.push(part);
      if (!pushed.ok) return pushed;
    }
    return ok(translator.snapshot());
  }
  const translated = adapter.translate(files.value);
  if (!translated.ok) return translated;
  return ok(finishTranscript(adapter.id, translated.value));
}

/**
 * Bytes of a long file's main file read in each part. Small, so that a part's parsed lines die
 * while still young: with parts of 16 MB they outlived the young generation, and a 256 MB rollout
 * spent twice as long collecting garbage and peaked 150 MB higher.
 */
const LOAD_PART_BYTES = 1024 * 1024;

/**
 * The session with its main file read and translated a part at a time, so that only one part's
 * bytes are held at once; the other files join whole with the last part. 'rewrite' when a part
 * changes what earlier ones made in a way the translation does not patch: the caller reads the
 * session whole instead.
 */
async function loadInParts(
  platform: SessionPlatform,
  adapter: SessionAdapter,
  paths: readonly string[],
  options: OpenOptions,
): Promise<Result<Transcript, LoadTranscriptError> | 'rewrite'> {
  const [main, ...others] = paths as [string, ...string[]];
  const translator = new Translator(adapter);
  const parts = readParts(platform, main, LOAD_PART_BYTES, options.signal, undefined, adapter.keepWithNext);
  let bytes = 0;
  for (let first = true; ; first = false) {
    let next: IteratorResult<FilePart>;
    try {
      next = await parts.next();
    } catch (cause) {
      if (options.signal?.aborted) throw options.signal.reason;
      return err(openFailure(main, cause));
    }
    if (next.done) return ok(translator.snapshot());
    const part = next.value;
    bytes += part.data.length;
    options.onProgress?.(bytes);
    let files: SourceFile[] = [part];
    if (part.last) {
      const rest = await readSessionFiles(platform, others, options, bytes);
      if (!rest.ok) return rest;
      files = [part, ...rest.value];
    }
    const pushed = first ? translator.push(files) : translator.pushTail(files);
    if (!pushed.ok) return pushed;
    if (pushed.value === 'rewrite') return 'rewrite';
  }
}

/** Numbers events in order and marks results whose call is nowhere in the transcript. */
export function finishTranscript(agent: string, t: TranslatedSession): Transcript {
  const callIds = new Set<string>();
  for (const e of t.events) if (e.kind === 'tool_call') callIds.add(e.payload.callId);
  t.events.forEach((e, i) => {
    e.seq = i;
    if (e.kind === 'tool_result' && !callIds.has(e.payload.callId)) e.payload.orphan = true;
  });
  const transcript: Transcript = {
    agent,
    agents: t.agents,
    capabilities: t.capabilities,
    events: t.events,
    session: t.session,
    skipped: t.skipped,
  };
  if (t.agentVersion !== undefined) transcript.agentVersion = t.agentVersion;
  return transcript;
}
