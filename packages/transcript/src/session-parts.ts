// A session read a part of its main file at a time, as the views that print while they read (the
// events of `show`, a dump and the items a selection keeps) all read it: each step is the transcript
// so far and what its part added. What the reader is done with is its own to say: a step can let go
// of the events at the head of the list, which the translation then forgets.
import type { SourceFile } from './adapter.js';
import { type TranscriptDelta, Translator } from './incremental.js';
import { loadTranscript } from './load.js';
import type { SessionTarget, Transcript, TranscriptEvent } from './model.js';
import { findSession, openFailure, readSessionFiles } from './open.js';
import type { SessionPlatform } from './platform.js';
import { type FilePart, isPlainFileOf, readParts } from './read.js';
import { err, type LoadTranscriptError, ok, type Result } from './result.js';

/** Bytes of the main file read in each part, as loadTranscript reads a long session. */
export const PART_BYTES = 1024 * 1024;

export interface SessionPartsOptions {
  /** Bytes of the main file read in each part; smaller parts start the output sooner. */
  readonly partBytes?: number;
  readonly signal?: AbortSignal;
  /** Told the running total of bytes read. */
  readonly onProgress?: (bytes: number) => void;
}

export interface SessionStep {
  /** The transcript so far; its event list starts after the events let go of. */
  readonly t: Transcript;
  /** What this part did to the transcript. */
  readonly delta: TranscriptDelta;
  /** The first step: its delta holds every event. */
  readonly first: boolean;
  /** This step read the session's end. */
  readonly last: boolean;
  /** The main file's path, which event sources name. */
  readonly main: string;
  /** The adapter that read it. */
  readonly agent: string;
  /** Bytes of the main file read so far: where the next part starts. */
  readonly read: number;
  /**
   * Lets go of the first `count` events of the list, before the next step is asked for; false when
   * the translation cannot (it keeps every event, and the list stays whole). Only events that keep
   * their place (see `placed`) may be let go of.
   */
  letGo(count: number): boolean;
}

/** How many of the events keep their place whatever later parts of the main file add: those up to
 * the main file's latest one (a part's events land after it). */
export function placed(events: readonly TranscriptEvent[], main: string): number {
  for (let i = events.length - 1; i >= 0; i--) if (events[i]!.source.file === main) return i + 1;
  return 0;
}

/** The session must be read whole to go on, and why. */
export interface ReadWhole {
  readonly whole: string;
}

export type SessionPartStep = Result<SessionStep, LoadTranscriptError> | ReadWhole;

export const readsWhole = (step: SessionPartStep): step is ReadWhole => 'whole' in step;

/**
 * The session's transcript as it grows part by part. A session that cannot be read in parts
 * (compressed, small, or its adapter reads it whole) is one step. A failure ends the steps, and so
 * does a part that changed what earlier ones made in a way the translation does not patch (a
 * `ReadWhole`). An abort rejects with `signal.reason`.
 */
export async function* sessionParts(
  platform: SessionPlatform,
  target: SessionTarget,
  options: SessionPartsOptions = {},
): AsyncGenerator<SessionPartStep> {
  const partBytes = options.partBytes ?? PART_BYTES;
  const found = await findSession(platform, target, options);
  if (!found.ok) {
    yield found;
    return;
  }
  const { adapter, paths } = found.value;
  const [main, ...others] = paths as [string, ...string[]];
  const partwise = adapter.incremental !== undefined && adapter.readsInParts !== false;
  if (!partwise || !main || !(await isPlainFileOf(platform, main, partBytes))) {
    const loaded = await loadTranscript(platform, target, options);
    if (!loaded.ok) yield loaded;
    else {
      const t = loaded.value;
      yield ok({
        t,
        delta: { rewritten: true, from: 0, added: t.events, updated: [], revised: [] },
        first: true,
        last: true,
        main: main ?? target.path,
        agent: adapter.id,
        read: Number.POSITIVE_INFINITY,
        letGo: () => false,
      });
    }
    return;
  }
  // The other files (a Claude Code session's subagents) go with every part rather than the last:
  // their lanes are then known when the calls that started them are read, as in a whole read.
  const rest = await readSessionFiles(platform, others, options);
  if (!rest.ok) {
    yield rest;
    return;
  }
  const translator = new Translator(adapter);
  const letGo = (count: number) => translator.letGo(count);
  const parts = readParts(platform, main, partBytes, options.signal, undefined, adapter.keepWithNext);
  let bytes = rest.value.reduce((n, f) => n + f.data.length, 0);
  try {
    for (let first = true; ; first = false) {
      let next: IteratorResult<FilePart>;
      try {
        next = await parts.next();
      } catch (cause) {
        if (options.signal?.aborted) throw options.signal.reason;
        yield err(openFailure(main, cause));
        return;
      }
      if (next.done) {
        yield { whole: 'the main file ended before its last part' };
        return;
      }
      const part = next.value;
      bytes += part.data.length;
      options.onProgress?.(bytes);
      const files: SourceFile[] = [part, ...rest.value];
      const pushed = first ? translator.push(files) : translator.pushTail(files);
      if (!pushed.ok) {
        yield pushed;
        return;
      }
      if (pushed.value === 'rewrite' || (!first && pushed.value.rewritten)) {
        yield { whole: 'the translation started over' };
        return;
      }
      yield ok({
        t: translator.snapshot(),
        delta: pushed.value,
        first,
        last: part.last,
        main,
        agent: adapter.id,
        read: part.start + part.data.length,
        letGo,
      });
      if (part.last) return;
    }
  } finally {
    // A reader that stops early (it has what it wanted) closes the file.
    await parts.return(undefined);
  }
}
