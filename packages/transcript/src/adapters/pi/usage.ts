// One assistant message's `usage` as cairn's Usage.
//
// pi records, per model request, {input, output, cacheRead, cacheWrite, totalTokens, cost}, with
// the cache reads and writes counted apart from `input` for every provider it speaks to. So
// cairn's inputTokens is input + cacheRead + cacheWrite, and outputTokens is output (which already
// holds any reasoning: pi has no count of its own for it).
//
// ccusage 20.0.24 (`ccusage pi`) reads the same fields: its inputTokens is `input`, its
// cacheReadTokens `cacheRead`, its cacheCreationTokens `cacheWrite`, its outputTokens `output`;
// when `totalTokens` exceeds the four and `output` is 0, the rest is output; a message whose counts
// are all 0 is dropped. cairn follows each of those rules, so per session cairn's inputTokens equals
// ccusage's inputTokens + cacheReadTokens + cacheCreationTokens and outputTokens its outputTokens.
import type { Usage } from '../../model.js';
import { countValue, type InvalidValue } from '../../values.js';
import { isObject } from './records.js';

export function piUsage(usage: unknown, invalid?: InvalidValue[]): Usage | undefined {
  if (!isObject(usage)) return undefined;
  const count = (key: string) => countValue(usage[key], `usage.${key}`, invalid) ?? 0;
  const input = count('input');
  const cacheRead = count('cacheRead');
  const cacheWrite = count('cacheWrite');
  let output = count('output');
  const total = count('totalTokens');
  const known = input + output + cacheRead + cacheWrite;
  if (output === 0 && total > known) output = total - known;
  const inputTokens = input + cacheRead + cacheWrite;
  // All zero: an aborted or failed request that used nothing; ccusage leaves it out too.
  if (inputTokens === 0 && output === 0) return undefined;
  const out: Usage = { inputTokens, outputTokens: output };
  if (usage.cacheRead !== undefined) out.cacheReadTokens = cacheRead;
  if (usage.cacheWrite !== undefined) out.cacheWriteTokens = cacheWrite;
  return out;
}
