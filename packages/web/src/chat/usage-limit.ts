// Whether a failed turn hit a usage or rate limit, from what the agent said. Each agent words it
// its own way over ACP, so the rules below are the agents', as they were seen answering a provider's
// 429: Claude Code fails the prompt with "API Error: Request rejected (429) · …" and the kind
// `rate_limit`; Codex fails it with "Quota exceeded…" and `usageLimitExceeded` for a spent quota,
// and for a rate limit ends the turn with the text "exceeded retry limit, last status: 429"; Gemini
// CLI fails it with Google's "Resource has been exhausted (e.g. check quota)" and code 429.
// OpenCode and Kilo fail it (-32603) with "Internal error: " and the provider's own message, once
// their retries are spent: OpenAI's "You exceeded your current quota…" or "Rate limit reached…
// Please try again in 20s.", Anthropic's "…would exceed your organization's usage limit." or "…the
// rate limit…". Qwen Code fails it with code 429 and "Rate limit exceeded. Try again later." for
// every 429, a spent quota too: it drops the provider's body, so only `rate` can be told. Copilot
// CLI ends the turn as if it had answered, its reply "Error: Failed to get response from the AI
// model; retried 5 times (…) Last error: 429 " and the provider's message. pi (through pi-acp)
// ends the turn `end_turn` with nothing said, but its session file keeps the provider's status and
// message, and the runner fails the turn with them from there: "429 You exceeded your current
// quota…", "429 Rate limit reached… Please try again in 1s.". The providers' own error types are
// matched too, for agents that pass the body on as it came.

export interface UsageLimit {
  /** `usage`: a quota or plan limit, spent until it resets; `rate`: too many requests for now. */
  readonly kind: 'usage' | 'rate';
  /** When it resets, as the agent said it (an instant, or a wait such as "20s"); absent if it did not. */
  readonly resets?: string;
}

const USAGE_RULES: readonly RegExp[] = [
  /usageLimitExceeded/,
  /insufficient_quota/,
  /quota exceeded|exceeded your current quota|usage limit/i,
  /RESOURCE_EXHAUSTED|resource has been exhausted/i,
];

const RATE_RULES: readonly RegExp[] = [
  /rate_limit_exceeded|rate_limit_error|\(rate_limit\)/,
  /rate limit|too many requests/i,
  /\(429\)|status:? 429\b|\b429 too many|"code":\s*429\b/i,
];

const RESET_RULES: readonly RegExp[] = [
  // Claude Code's own usage-limit line: "Claude AI usage limit reached|1767225600".
  /usage limit reached\|(\d{10})/i,
  /(?:resets?|reset at|resets at)\s+(?:at\s+)?([0-9][^.;)\n]{0,40})/i,
  /try again (?:at|on)\s+([^.;)\n]{1,40})/i,
  /(?:try again|retry) in\s+([0-9][0-9.]*\s*(?:ms|s|sec|seconds?|m|min|minutes?|h|hours?)\b)/i,
];

/**
 * The limit a turn's error names (or its reply, for the agents that answer a limit with a reply:
 * see {@link isLimitReply}); null for any other failure.
 */
export function usageLimitOf(text: string | undefined): UsageLimit | null {
  if (text === undefined || text.trim() === '') return null;
  const kind = USAGE_RULES.some((r) => r.test(text))
    ? 'usage'
    : RATE_RULES.some((r) => r.test(text))
      ? 'rate'
      : null;
  if (kind === null) return null;
  const resets = resetOf(text);
  return resets === undefined ? { kind } : { kind, resets };
}

/**
 * The replies of agents that end a limited turn as if they had answered: Codex's line alone, and
 * Copilot CLI's line last (its own warnings, such as one on an unknown model, may come before it,
 * run on without a break).
 */
const LIMIT_REPLIES: readonly RegExp[] = [
  /^exceeded retry limit, last status: 429\b/,
  /(?:^|[\n.!?])\s*Error: Failed to get response from the AI model; retried \d+ times\b[^\n]*Last error: 429\b[^\n]*$/,
];

/** Whether a turn's reply is the agent's word that a limit stopped it, not an answer. */
export const isLimitReply = (reply: string): boolean => {
  const text = reply.trim();
  return LIMIT_REPLIES.some((r) => r.test(text));
};

function resetOf(text: string): string | undefined {
  for (const rule of RESET_RULES) {
    const m = rule.exec(text);
    if (!m?.[1]) continue;
    if (/^\d{10}$/.test(m[1])) return new Date(Number(m[1]) * 1000).toLocaleString();
    return m[1].trim();
  }
  return undefined;
}

/** The card's heading. */
export const limitTitle = (limit: UsageLimit): string =>
  limit.kind === 'usage' ? 'Usage limit reached' : 'Rate limit reached';
