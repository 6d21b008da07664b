// Session numbers: the fold of a loaded transcript, or an adapter's fast pass giving the same.

import type { SummaryPass } from './adapter.js';
import { type LineSpan, splitLines } from './lines.js';
import { finishTranscript } from './load.js';
import type {
  SessionSummaryWithPrompts,
  SessionTarget,
  Transcript,
  TranscriptEvent,
  TranscriptEventOf,
} from './model.js';
import { findSession, type OpenOptions, openFailure, readSessionFiles } from './open.js';
import type { SessionPlatform } from './platform.js';
import { isZstd, readLines, readSourceFile } from './read.js';
import { err, type LoadTranscriptError, ok, type Result } from './result.js';
import { fileStamps, type SessionFileStamp } from './stamps.js';
import { SummaryTally } from './tally.js';

export interface SessionPromptsOptions {
  /** Keep at most this many prompts (the first ones). */
  readonly max?: number;
  /** Cut each prompt to this many characters. */
  readonly maxChars?: number;
}

export interface SummarizeSessionOptions extends OpenOptions {
  /** Also return the main lane's prompts. */
  readonly prompts?: SessionPromptsOptions | boolean;
  /** Told the stamps of the session's files, taken before any of them is read. */
  readonly onStamps?: (stamps: SessionFileStamp[]) => void;
}

const mainLane = (t: Transcript): string | undefined => t.agents.find((a) => a.parentId === undefined)?.id;

/** A user event on the main lane that the person typed: one turn. */
export const isPrompt = (
  e: TranscriptEvent,
  mainLaneId: string | undefined,
): e is TranscriptEventOf<'user'> => e.kind === 'user' && e.agentId === mainLaneId && !e.payload.synthetic;

/** The main lane's prompts, in order, by the prompt rule. */
export function sessionPrompts(t: Transcript, options: SessionPromptsOptions = {}): string[] {
  const main = mainLane(t);
  const prompts: string[] = [];
  for (const e of t.events) {
    if (!isPrompt(e, main)) continue;
    if (options.max !== undefined && prompts.length >= options.max) break;
    prompts.push(cutPrompt(e.payload.text, options.maxChars));
  }
  return prompts;
}

export const cutPrompt = (text: string, maxChars: number | undefined): string =>
  maxChars !== undefined && text.length > maxChars ? text.slice(0, maxChars) : text;

/** The summary of a loaded transcript. */
export function foldTranscript(
  t: Transcript,
  options: { prompts?: SessionPromptsOptions | boolean } = {},
): SessionSummaryWithPrompts {
  const main = mainLane(t);
  const tally = new SummaryTally();
  for (const e of t.events) {
    tally.time(e.timestamp);
    if (isPrompt(e, main)) tally.turns++;
    else if (e.kind === 'tool_result' && e.payload.isError) tally.failedTools++;
    else if (e.kind === 'compaction') tally.compactions++;
    else if (e.kind === 'request') tally.request(e.payload.usage, e.agentId === main);
  }
  const summary: SessionSummaryWithPrompts = tally.summary(t.capabilities, t.agents.length - 1);
  if (options.prompts) summary.prompts = sessionPrompts(t, options.prompts === true ? {} : options.prompts);
  return summary;
}

/**
 * The adapter's own summary pass when it has one, else foldTranscript of the loaded
 * transcript: the same numbers either way.
 */
export async function summarizeSession(
  platform: SessionPlatform,
  target: SessionTarget,
  options: SummarizeSessionOptions = {},
): Promise<Result<SessionSummaryWithPrompts, LoadTranscriptError>> {
  const found = await findSession(platform, target, options);
  if (!found.ok) return found;
  const { adapter, paths } = found.value;
  const wantPrompts = options.prompts ? (options.prompts === true ? {} : options.prompts) : undefined;
  // Stamped only for a caller that asks, or a pass that may stream a large file: a stat costs as much
  // as a small session's whole summary (a store's absent write-ahead log above all).
  const stamps = options.onStamps || adapter.summaryPass ? await fileStamps(platform, paths) : [];
  options.onStamps?.(stamps);
  let summary: SessionSummaryWithPrompts;
  if (adapter.summaryPass && stamps.some((s) => s.size >= STREAM_FROM_BYTES && !isZstd(s.path))) {
    const streamed = await streamSummary(platform, adapter.summaryPass(paths), paths, options);
    if (!streamed.ok) return streamed;
    summary = streamed.value;
  } else {
    const files = await readSessionFiles(platform, paths, options);
    if (!files.ok) return files;
    if (!adapter.summarize) {
      const translated = adapter.translate(files.value);
      if (!translated.ok) return translated;
      return ok(
        foldTranscript(finishTranscript(adapter.id, translated.value), { prompts: wantPrompts ?? false }),
      );
    }
    const fast = adapter.summarize(files.value);
    if (!fast.ok) return fast;
    summary = fast.value;
  }
  if (!wantPrompts) delete summary.prompts;
  else if (summary.prompts) {
    const cut = summary.prompts.map((p) => cutPrompt(p, wantPrompts.maxChars));
    summary.prompts = wantPrompts.max !== undefined ? cut.slice(0, wantPrompts.max) : cut;
  }
  return ok(summary);
}

/** Files at least this large are summarized a chunk at a time when the adapter can, not held whole. */
export const STREAM_FROM_BYTES = 32 * 1024 * 1024;

/** The pass over every file line by line; compressed files are read whole (their codec streams poorly). */
async function streamSummary(
  platform: SessionPlatform,
  pass: SummaryPass,
  paths: readonly string[],
  options: OpenOptions,
): Promise<Result<SessionSummaryWithPrompts, LoadTranscriptError>> {
  let bytes = 0;
  for (const [index, path] of paths.entries()) {
    try {
      if (isZstd(path)) {
        const file = await readSourceFile(platform, path, options.signal);
        pass.startFile(index, file.wellFormedUtf8 === true);
        for (const span of splitLines(file.data)) {
          const failure = pass.line(file.data, span);
          if (failure) return err(failure);
        }
        bytes += file.data.length;
        options.onProgress?.(bytes);
        continue;
      }
      pass.startFile(index, false);
      let chunk: Uint8Array | undefined;
      let wellFormed = false;
      for await (const { data, span } of readLines(platform, path, undefined, options.signal)) {
        // Each chunk is checked once, natively when the platform can; its lines inherit the answer.
        if (data !== chunk) {
          if (chunk) bytes += chunk.length;
          chunk = data;
          wellFormed = platform.isWellFormedUtf8?.(data) ?? false;
        }
        const failure = pass.line(data, span, wellFormed || isWellFormedLine(platform, data, span));
        if (failure) return err(failure);
      }
      options.onProgress?.(bytes);
    } catch (cause) {
      if (options.signal?.aborted) throw options.signal.reason;
      return err(openFailure(path, cause));
    }
  }
  return pass.finish();
}

/** A chunk that is not well-formed as a whole may end inside a character, or hold one bad line. */
const isWellFormedLine = (platform: SessionPlatform, data: Uint8Array, span: LineSpan): boolean =>
  platform.isWellFormedUtf8?.(data.subarray(span.offset, span.offset + span.length)) ?? false;
