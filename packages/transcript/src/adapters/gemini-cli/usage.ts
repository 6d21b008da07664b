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
import { isObject } from './records.js';

const count = (v: unknown): number =>
  typeof v === 'number' && Number.isFinite(v) && v > 0 ? Math.trunc(v) : 0;

export function geminiUsage(tokens: unknown): Usage | undefined {
  if (!isObject(tokens)) return undefined;
  const input = count(tokens.input);
  const output = count(tokens.output);
  const cached = count(tokens.cached);
  const thoughts = count(tokens.thoughts);
  const tool = count(tokens.tool);
  const total =
    typeof tokens.total === 'number' && Number.isFinite(tokens.total) ? count(tokens.total) : undefined;
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
