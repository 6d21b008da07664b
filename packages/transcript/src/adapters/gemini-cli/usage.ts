// A gemini message's `tokens` as cairn's Usage, by the same rule ccusage applies to Gemini
// session files, so that the sums match it:
// - `input` is promptTokenCount, which already includes `cached`; ccusage only treats it as
//   excluding the cache when `total` says so (total = input + output + thoughts + tool + cached).
// - `tool` (toolUsePromptTokenCount) is prompt input too.
// - `thoughts` are reasoning output; ccusage adds whatever `total` has beyond the known parts to
//   reasoning (or to output when output is 0). cairn's outputTokens includes reasoning, so it is
//   output + thoughts + that remainder, and inputTokens + outputTokens = total whenever total
//   covers the parts.
// - all zeros means the CLI recorded no usage for the request (ccusage drops those): no Usage.
import type { Usage } from '../../model.js';
import { checkCount, countValue, type InvalidValue } from '../../values.js';
import { isObject } from './records.js';

export function geminiUsage(tokens: unknown, invalid?: InvalidValue[]): Usage | undefined {
  if (!isObject(tokens)) return undefined;
  // A count the contract cannot carry counts as not recorded; `invalid` says which and why.
  const count = (key: string) => countValue(tokens[key], `tokens.${key}`, invalid) ?? 0;
  const input = count('input');
  const output = count('output');
  const cached = count('cached');
  const thoughts = count('thoughts');
  const tool = count('tool');
  const total = checkCount(tokens.total)?.ok ? count('total') : undefined;
  const inclusive = input + output + thoughts + tool;
  const inputIncludesCache = cached > 0 && total === inclusive && total !== inclusive + cached;
  const uncachedInput = inputIncludesCache ? input - Math.min(input, cached) : input;
  const known = uncachedInput + tool + cached + output + thoughts;
  const remainder = total !== undefined && total > known ? total - known : 0;
  const inputTokens = uncachedInput + tool + cached;
  const outputTokens = output + thoughts + remainder;
  if (inputTokens === 0 && outputTokens === 0) return undefined;
  const usage: Usage = { inputTokens, outputTokens, cacheReadTokens: cached };
  if (thoughts > 0) usage.reasoningTokens = thoughts;
  return usage;
}
