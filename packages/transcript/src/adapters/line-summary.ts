// What the line-fed summary passes of the simpler JSONL agents share: running a pass over files
// held whole, and turning its tally into the numbers with the capabilities its events would show.
import type { SourceFile, SummaryPass } from '../adapter.js';
import { decodeUtf8, type LineSpan, type ParsedLine, splitLines } from '../lines.js';
import type { Capability, SessionSummaryWithPrompts } from '../model.js';
import { err, ok, type Result, type UnknownFormatGeneration } from '../result.js';
import type { SummaryTally } from '../tally.js';

/** A pass fed every line of files already in memory: what `summarize` is for a `summaryPass`. */
export function summarizeWholeFiles(
  pass: SummaryPass,
  files: readonly SourceFile[],
): Result<SessionSummaryWithPrompts, UnknownFormatGeneration> {
  for (const [index, file] of files.entries()) {
    pass.startFile(index, file.wellFormedUtf8 === true);
    for (const span of splitLines(file.data, 0)) {
      const failure = pass.line(file.data, span);
      if (failure) return err(failure);
    }
  }
  return pass.finish();
}

/** Which of shownCapabilities' answers the events would give, seen without the events. */
export class ShownCapabilities {
  requests = false;
  usage = false;
  compaction = false;
  durations = false;

  /** The list foldTranscript reads, in the contract's order (reasoning changes no number). */
  list(also: readonly Capability[] = []): Capability[] {
    const out: Capability[] = [...also];
    if (this.requests) out.push('requests');
    if (this.usage) out.push('usage');
    if (this.durations) out.push('durations');
    if (this.compaction) out.push('compaction');
    return out;
  }
}

/** The tally's numbers with every prompt in full, as `summarize` gives them. */
export function tallySummary(
  tally: SummaryTally,
  shown: ShownCapabilities,
  prompts: string[],
  subagents = 0,
  also: readonly Capability[] = [],
): Result<SessionSummaryWithPrompts, UnknownFormatGeneration> {
  const summary: SessionSummaryWithPrompts = tally.summary(shown.list(also), subagents);
  summary.prompts = prompts;
  return ok(summary);
}

/**
 * parseJsonLine without its depth bound: a line is usable or not by the same checks, and the
 * passes read nothing near MAX_VALUE_DEPTH levels down, so walking every value to bound it would
 * change no number.
 */
export function parseSummaryLine(data: Uint8Array, span: LineSpan): ParsedLine {
  const bytes = data.subarray(span.offset, span.offset + span.length);
  if (bytes.length === 0 || isBlank(bytes)) return { ok: false, reason: 'empty line' };
  if (bytes.indexOf(0) !== -1) return { ok: false, reason: 'NUL bytes' };
  const text = decodeUtf8(bytes);
  if (text === undefined) return { ok: false, reason: 'invalid UTF-8' };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, reason: span.unterminated ? 'truncated line' : 'invalid JSON' };
  }
}

function isBlank(bytes: Uint8Array): boolean {
  for (const b of bytes) if (b !== 32 && b !== 9 && b !== 13) return false;
  return true;
}
