// Requests and their token usage. Claude Code writes one line per content block of a response,
// each repeating message.id, requestId and a usage whose output_tokens grows as it streams.
import type { Usage } from '../../model.js';
import { countValue, type InvalidValue } from '../../values.js';
import { type Rec, rec, str } from './records.js';

/** The model name Claude Code gives messages it made up itself (API errors, interruptions). */
export const SYNTHETIC_MODEL = '<synthetic>';

/**
 * The key of the model request an assistant line belongs to: (message.id, requestId), or
 * message.id alone when a gateway dropped the request id. Undefined when the line is no request.
 */
export function requestKeyOf(record: Rec, message: Rec): string | undefined {
  if (message.model === SYNTHETIC_MODEL) return undefined;
  const messageId = str(message.id);
  if (messageId === undefined) return undefined;
  const requestId = str(record.requestId);
  return requestId === undefined ? messageId : `${messageId}\u0000${requestId}`;
}

/** cairn's usage of an Anthropic usage object: inputTokens includes cache reads and writes. */
export function usageOf(raw: unknown, invalid?: InvalidValue[]): Usage | undefined {
  const u = rec(raw);
  if (!u) return undefined;
  // A count the contract cannot carry counts as not recorded; `invalid` says which and why.
  const count = (v: unknown, key: string) => countValue(v, `message.usage.${key}`, invalid);
  const input = count(u.input_tokens, 'input_tokens') ?? 0;
  const cacheRead = count(u.cache_read_input_tokens, 'cache_read_input_tokens') ?? 0;
  const cacheWrite = cacheWriteOf(u, count);
  const usage: Usage = {
    inputTokens: input + cacheRead + cacheWrite,
    outputTokens: count(u.output_tokens, 'output_tokens') ?? 0,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
  };
  const oneHour = count(
    rec(u.cache_creation)?.ephemeral_1h_input_tokens,
    'cache_creation.ephemeral_1h_input_tokens',
  );
  if (oneHour !== undefined && oneHour > 0) usage.cacheWrite1hTokens = Math.min(oneHour, cacheWrite);
  const thinking = count(
    rec(u.output_tokens_details)?.thinking_tokens,
    'output_tokens_details.thinking_tokens',
  );
  if (thinking !== undefined) usage.reasoningTokens = thinking;
  return usage;
}

function cacheWriteOf(u: Rec, count: (v: unknown, key: string) => number | undefined): number {
  const total = count(u.cache_creation_input_tokens, 'cache_creation_input_tokens');
  if (total !== undefined) return total;
  // Without the total, the per-lifetime split is all there is.
  const split = rec(u.cache_creation);
  if (!split) return 0;
  return (
    (count(split.ephemeral_5m_input_tokens, 'cache_creation.ephemeral_5m_input_tokens') ?? 0) +
    (count(split.ephemeral_1h_input_tokens, 'cache_creation.ephemeral_1h_input_tokens') ?? 0)
  );
}

/** Whether `next` is a later, fuller snapshot of the same response's usage than `prev`. */
export const isLargerUsage = (next: Usage, prev: Usage | undefined): boolean =>
  prev === undefined ||
  next.outputTokens > prev.outputTokens ||
  (next.outputTokens === prev.outputTokens && next.inputTokens > prev.inputTokens);
