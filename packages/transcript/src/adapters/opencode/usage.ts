// A message's or step's `tokens` as cairn's Usage. OpenCode records `input` without the cache
// (cache.read and cache.write are counted apart) and `output` without the reasoning tokens, so
// inputTokens = input + cache.read + cache.write and outputTokens = output + reasoning.
//
// ccusage 20.0.24 reads the same `tokens` of each assistant message (`message.data` in the store,
// `storage/message/**.json` in the tree) that names a modelID and a providerID: its inputTokens is
// `input`, its cache columns `cache.read`/`cache.write`, its outputTokens `output` (reasoning left
// out). So cairn's inputTokens equals ccusage's inputTokens + cacheReadTokens +
// cacheCreationTokens, and cairn's outputTokens equals ccusage's outputTokens where no reasoning
// is recorded. Both date a request by its message's `time.created`.
//
// Where the two differ, on purpose:
// - reasoning: OpenCode takes it out of the model's output count (`output` = output − reasoning);
//   cairn adds it back, as the model billed it, ccusage does not;
// - a message naming its model but no providerID: cairn counts it (as `ccusage kilo` does), while
//   `ccusage opencode` leaves it out of its periods, and in its session report falls back to the
//   session row's own sums for a session none of whose messages it counted;
// - a child session (`parent_id`) is a lane of its parent, so its tokens are in the parent's
//   session row; ccusage lists the child apart (the periods agree);
// - a message of several steps (older stores) keeps its last step's tokens; cairn counts every
//   step-finish part, ccusage the message once.
import type { Usage } from '../../model.js';
import { countValue, type InvalidValue } from '../../values.js';
import { isObject } from '../gemini-cli/records.js';

export function openCodeUsage(
  tokens: unknown,
  invalid?: InvalidValue[],
  field = 'tokens',
): Usage | undefined {
  if (!isObject(tokens)) return undefined;
  const cache = isObject(tokens.cache) ? tokens.cache : {};
  const input = countValue(tokens.input, `${field}.input`, invalid);
  const output = countValue(tokens.output, `${field}.output`, invalid);
  const reasoning = countValue(tokens.reasoning, `${field}.reasoning`, invalid);
  const read = countValue(cache.read, `${field}.cache.read`, invalid);
  const write = countValue(cache.write, `${field}.cache.write`, invalid);
  const inputTokens = (input ?? 0) + (read ?? 0) + (write ?? 0);
  const outputTokens = (output ?? 0) + (reasoning ?? 0);
  // All zero is no usage recorded (an aborted step; ccusage drops it too).
  if (inputTokens === 0 && outputTokens === 0) return undefined;
  const usage: Usage = { inputTokens, outputTokens };
  if (read !== undefined) usage.cacheReadTokens = read;
  if (write !== undefined) usage.cacheWriteTokens = write;
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  return usage;
}
