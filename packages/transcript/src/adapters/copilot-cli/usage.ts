// The token counts Copilot CLI records: only in `session.shutdown`, as each process's totals per
// model (`modelMetrics[model].usage`), never per request. A resumed session writes one shutdown
// per process, each counting that process alone, so the shutdowns of a file add up.
//
// ccusage 20.0.24 reads the same records: per shutdown and model, `inputTokens − cacheReadTokens −
// cacheWriteTokens` (never below 0) as its input, `outputTokens` as its output, the cache counts
// as they are, and for `gemini-*` models `reasoningTokens` on top (Gemini counts thoughts apart
// from the output; the other providers count them inside it). It keeps one entry per (shutdown
// id, model), the last one written. So cairn's inputTokens (cache included) is ccusage's input +
// cache read + cache write, and outputTokens (reasoning included) is ccusage's output plus, for
// Gemini, the reasoning.
//
// Where the two part on purpose: ccusage drops a whole shutdown line when any field it types is
// off (a count that is negative or not a whole number, `requests` written as a bare number); cairn
// keeps the well-formed counts of that line and notes the bad ones as invalid on the event.
import type { Usage } from '../../model.js';
import { countValue, type InvalidValue } from '../../values.js';
import { isObject } from './records.js';

const GEMINI = 'gemini-';

/** One model row of a shutdown's `modelMetrics` as cairn's Usage; undefined when it counts nothing. */
export function shutdownUsage(model: string, metrics: unknown, invalid?: InvalidValue[]): Usage | undefined {
  if (!isObject(metrics) || !isObject(metrics.usage)) return undefined;
  const u = metrics.usage;
  const count = (key: string) => countValue(u[key], `data.modelMetrics.${model}.usage.${key}`, invalid) ?? 0;
  const input = count('inputTokens');
  const output = count('outputTokens');
  const cacheRead = count('cacheReadTokens');
  const cacheWrite = count('cacheWriteTokens');
  const reasoning = count('reasoningTokens');
  // inputTokens includes both cache counts; a smaller one cannot, and the cache counts stand.
  const inputTokens = Math.max(input, cacheRead + cacheWrite);
  const outputTokens = output + (model.startsWith(GEMINI) ? reasoning : 0);
  if (inputTokens === 0 && outputTokens === 0) return undefined;
  const usage: Usage = {
    inputTokens,
    outputTokens,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  };
  if (u.reasoningTokens !== undefined && reasoning > 0) usage.reasoningTokens = reasoning;
  return usage;
}

/** The request count of a model row: `requests.count`, or a bare number some versions wrote. */
export function requestCount(metrics: unknown): number | undefined {
  if (!isObject(metrics)) return undefined;
  const r = metrics.requests;
  const v = isObject(r) ? r.count : r;
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : undefined;
}
