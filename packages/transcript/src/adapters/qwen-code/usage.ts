// One assistant record's `usageMetadata` as cairn's Usage.
//
// Qwen Code talks to most providers through an OpenAI-compatible API and converts each response's
// usage into Gemini's field names: promptTokenCount is `prompt_tokens`, which already includes the
// cached tokens (cachedContentTokenCount is `prompt_tokens_details.cached_tokens`, a part of it),
// and candidatesTokenCount is `completion_tokens`, which already includes the reasoning tokens
// (thoughtsTokenCount). So input is promptTokenCount as is and output is candidatesTokenCount as
// is. Gemini's own API counts thoughts outside the candidates; when totalTokenCount says so (it
// equals prompt + candidates + thoughts), the thoughts are added to output.
//
// ccusage 20.0.24 reads the same fields: `inputTokens` = promptTokenCount, `cacheReadTokens` =
// cachedContentTokenCount (not subtracted from the input), `outputTokens` = candidatesTokenCount,
// thoughts counted into its totals on top, and whatever totalTokenCount has beyond the parts it
// knows goes to output when output is 0. So cairn's inputTokens equals ccusage's inputTokens (not
// inputTokens + cacheReadTokens as for the other agents: ccusage counts Qwen's cached tokens
// twice), and outputTokens equals ccusage's outputTokens. A record whose counts are all zero
// recorded no usage (ccusage drops it too).
import type { Usage } from '../../model.js';
import { checkCount, countValue, type InvalidValue } from '../../values.js';
import { isObject } from '../gemini-cli/records.js';

export function qwenUsage(meta: unknown, invalid?: InvalidValue[]): Usage | undefined {
  if (!isObject(meta)) return undefined;
  const count = (key: string) => countValue(meta[key], `usageMetadata.${key}`, invalid) ?? 0;
  const prompt = count('promptTokenCount');
  const candidates = count('candidatesTokenCount');
  const cached = count('cachedContentTokenCount');
  const thoughts = count('thoughtsTokenCount');
  const total = checkCount(meta.totalTokenCount)?.ok ? count('totalTokenCount') : undefined;
  // A cached count larger than the prompt cannot be a part of it; the prompt is at least that.
  const inputTokens = Math.max(prompt, cached);
  const thoughtsOutside = thoughts > 0 && (thoughts > candidates || total === prompt + candidates + thoughts);
  let outputTokens = candidates + (thoughtsOutside ? thoughts : 0);
  // No output count but a total beyond the input: the rest is output, as ccusage takes it.
  if (outputTokens === 0 && total !== undefined && total > inputTokens) outputTokens = total - inputTokens;
  if (inputTokens === 0 && outputTokens === 0) return undefined;
  const usage: Usage = { inputTokens, outputTokens };
  // Recorded as 0 is still recorded; a count the record leaves out stays absent.
  if (meta.cachedContentTokenCount !== undefined) usage.cacheReadTokens = cached;
  if (meta.thoughtsTokenCount !== undefined) usage.reasoningTokens = thoughts;
  return usage;
}
