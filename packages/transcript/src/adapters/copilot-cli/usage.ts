// The token counts Copilot CLI records: in `session.shutdown`, as each process's totals per model
// (`modelMetrics[model].usage`); a resumed session writes one shutdown per process, each counting
// that process alone, so the shutdowns of a file add up. Newer versions (1.0.102 does) also write a
// `session.usage_record` per model request (`data.usage`: the model and the same four counts, the
// input including the cache as in the totals), and the process's totals are their sums. cairn makes
// a request of each record and, at the shutdown, keeps of the totals only what no record counted
// (nothing, when the records are whole), so a session's tokens stay the shutdowns' sums.
//
// ccusage 20.0.24 reads the shutdowns alone: per shutdown and model, `inputTokens − cacheReadTokens −
// cacheWriteTokens` (never below 0) as its input, `outputTokens` as its output, the cache counts
// as they are, and for `gemini-*` models `reasoningTokens` on top (Gemini counts thoughts apart
// from the output; the other providers count them inside it). It keeps one entry per (shutdown
// id, model), the last one written. So cairn's inputTokens (cache included) is ccusage's input +
// cache read + cache write, and outputTokens (reasoning included) is ccusage's output plus, for
// Gemini, the reasoning.
//
// Where the two part on purpose: ccusage drops a whole shutdown line when any field it types is
// off (a count that is negative or not a whole number, `requests` written as a bare number); cairn
// keeps the well-formed counts of that line and notes the bad ones as invalid on the event. And
// ccusage reads no usage records: it dates a process's tokens at its shutdown, and counts none
// while the process runs; cairn dates each request when it was made (so a day's tokens can differ
// where a process ran past midnight) and counts a running session's requests (the sums agree once
// the shutdown is written).
import type { Usage } from '../../model.js';
import { countValue, type InvalidValue } from '../../values.js';
import { isObject, type JsonObject } from './records.js';

const GEMINI = 'gemini-';

/** A model's raw counts, as Copilot writes them (input including the cache). */
export interface CopilotCounts {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
  /** Whether `reasoningTokens` was written at all. */
  hasReasoning: boolean;
}

/** The counts of a `usage` object; a count left out or not a count is 0 (and noted when off). */
export function copilotCounts(u: JsonObject, field: string, invalid?: InvalidValue[]): CopilotCounts {
  const count = (key: string) => countValue(u[key], `${field}.${key}`, invalid) ?? 0;
  return {
    input: count('inputTokens'),
    output: count('outputTokens'),
    cacheRead: count('cacheReadTokens'),
    cacheWrite: count('cacheWriteTokens'),
    reasoning: count('reasoningTokens'),
    hasReasoning: u.reasoningTokens !== undefined,
  };
}

/** What `total` counts beyond `part`, count by count (never below 0). */
export function countsBeyond(total: CopilotCounts, part: CopilotCounts): CopilotCounts {
  return {
    input: Math.max(0, total.input - part.input),
    output: Math.max(0, total.output - part.output),
    cacheRead: Math.max(0, total.cacheRead - part.cacheRead),
    cacheWrite: Math.max(0, total.cacheWrite - part.cacheWrite),
    reasoning: Math.max(0, total.reasoning - part.reasoning),
    hasReasoning: total.hasReasoning,
  };
}

export function addCounts(a: CopilotCounts, b: CopilotCounts): CopilotCounts {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    reasoning: a.reasoning + b.reasoning,
    hasReasoning: a.hasReasoning || b.hasReasoning,
  };
}

/** A model's counts as cairn's Usage; undefined when they count nothing. */
export function countsUsage(model: string, c: CopilotCounts): Usage | undefined {
  // inputTokens includes both cache counts; a smaller one cannot, and the cache counts stand.
  const inputTokens = Math.max(c.input, c.cacheRead + c.cacheWrite);
  const outputTokens = c.output + (model.startsWith(GEMINI) ? c.reasoning : 0);
  if (inputTokens === 0 && outputTokens === 0) return undefined;
  const usage: Usage = {
    inputTokens,
    outputTokens,
    cacheReadTokens: c.cacheRead,
    cacheWriteTokens: c.cacheWrite,
  };
  if (c.hasReasoning && c.reasoning > 0) usage.reasoningTokens = c.reasoning;
  return usage;
}

/** One model row of a shutdown's `modelMetrics` as its raw counts; undefined when it has no usage. */
export function shutdownCounts(
  model: string,
  metrics: unknown,
  invalid?: InvalidValue[],
): CopilotCounts | undefined {
  if (!isObject(metrics) || !isObject(metrics.usage)) return undefined;
  return copilotCounts(metrics.usage, `data.modelMetrics.${model}.usage`, invalid);
}

/** One model row of a shutdown's `modelMetrics` as cairn's Usage; undefined when it counts nothing. */
export function shutdownUsage(model: string, metrics: unknown, invalid?: InvalidValue[]): Usage | undefined {
  const counts = shutdownCounts(model, metrics, invalid);
  return counts && countsUsage(model, counts);
}

/** The request count of a model row: `requests.count`, or a bare number some versions wrote. */
export function requestCount(metrics: unknown): number | undefined {
  if (!isObject(metrics)) return undefined;
  const r = metrics.requests;
  const v = isObject(r) ? r.count : r;
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}

/** One model of a shutdown's totals, and the usage it adds beyond the process's own records. */
export interface ShutdownRequest {
  readonly model: string;
  /** The model's row of `modelMetrics`, as written. */
  readonly row: unknown;
  readonly usage: Usage | undefined;
  /** The process wrote usage records: the row adds only what they did not count. */
  readonly beyondRecords: boolean;
}

/**
 * What one Copilot CLI process's usage records counted, by model, so that its shutdown adds only
 * what they did not: the translation, the summary and the request pass each keep one, by one rule.
 */
export class ProcessUsage {
  private recorded = new Map<string, CopilotCounts>();
  /** The records each shutdown took, by its id: a repeat of it is measured against the same ones. */
  private readonly recordedBy = new Map<string, Map<string, CopilotCounts>>();

  /** A usage record's counts for `model`. */
  record(model: string, counts: CopilotCounts): void {
    const before = this.recorded.get(model);
    this.recorded.set(model, before ? addCounts(before, counts) : counts);
  }

  /** The requests a shutdown adds, one per model its records did not count whole. */
  shutdown(data: JsonObject, recordId: string, invalid?: InvalidValue[]): ShutdownRequest[] {
    let recorded = recordId === '' ? undefined : this.recordedBy.get(recordId);
    if (!recorded) {
      recorded = this.recorded;
      this.recorded = new Map();
      if (recordId !== '') this.recordedBy.set(recordId, recorded);
    }
    const beyondRecords = recorded.size > 0;
    const out: ShutdownRequest[] = [];
    const metrics = isObject(data.modelMetrics) ? data.modelMetrics : {};
    for (const [model, row] of Object.entries(metrics)) {
      const totals = shutdownCounts(model, row, invalid);
      const seen = recorded.get(model);
      const usage = totals && countsUsage(model, seen ? countsBeyond(totals, seen) : totals);
      // The records counted every token of this model: the shutdown adds no request.
      if (beyondRecords && !usage) continue;
      out.push({ model, row, usage, beyondRecords });
    }
    return out;
  }
}
