// Costs priced request by request on the corpus's Claude Code sessions, against a count made here
// from the raw lines: each request (one message id and request id, its fullest usage line) priced
// by the catalog on its own, with its one-hour cache writes apart, then added up.
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { loadTranscript, nodePlatform } from '@cairn/transcript';
import { calcPrice } from '@pydantic/genai-prices';
import { describe, expect, it } from 'vitest';
import { corpus, corpusPath } from '../../transcript/test/corpus.js';
import { requestCost, sessionCost, usageByModel } from '../src/usage/pricing.js';

type Raw = Record<string, number | Record<string, number> | undefined>;

/** The session's files: the main file and its subagents' files. */
function sessionFiles(main: string): string[] {
  const dir = join(main.slice(0, -'.jsonl'.length), 'subagents');
  try {
    return [
      main,
      ...readdirSync(dir)
        .filter((f) => f.endsWith('.jsonl'))
        .map((f) => join(dir, f)),
    ];
  } catch {
    return [main];
  }
}

/** Each request's model and fullest usage, straight from the lines. */
function rawRequests(main: string): { model: string; usage: Raw }[] {
  const byKey = new Map<string, { model: string; usage: Raw }>();
  for (const file of sessionFiles(main))
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const r = JSON.parse(line);
      const m = r.message;
      if (r.type !== 'assistant' || !m?.usage || !m.id || m.model === '<synthetic>') continue;
      const key = `${m.id}/${r.requestId ?? ''}`;
      const before = byKey.get(key);
      if (!before || (m.usage.output_tokens ?? 0) > ((before.usage.output_tokens as number) ?? 0))
        byKey.set(key, { model: m.model, usage: m.usage });
    }
  return [...byKey.values()];
}

function handCount(main: string): { usd: number; oneHourWrites: number } {
  let usd = 0;
  let oneHourWrites = 0;
  for (const { model, usage: u } of rawRequests(main)) {
    const n = (v: unknown) => (typeof v === 'number' ? v : 0);
    const write = n(u.cache_creation_input_tokens);
    const read = n(u.cache_read_input_tokens);
    const oneHour = n((u.cache_creation as Record<string, number> | undefined)?.ephemeral_1h_input_tokens);
    oneHourWrites += oneHour;
    const price = calcPrice(
      {
        input_tokens: n(u.input_tokens) + read + write,
        cache_read_tokens: read,
        cache_write_tokens: write,
        cache_write_1h_tokens: oneHour,
        output_tokens: n(u.output_tokens),
      },
      model,
      { providerId: 'anthropic' },
    );
    if (!price) throw new Error(`no price for ${model}`);
    usd += price.total_price;
  }
  return { usd, oneHourWrites };
}

const claudeSessions = (): string[] => {
  const root = corpusPath('claude', 'projects');
  return readdirSync(root).flatMap((p) =>
    readdirSync(join(root, p))
      .filter((f) => f.endsWith('.jsonl'))
      .map((f) => join(root, p, f)),
  );
};

describe.skipIf(!corpus)('costs priced request by request', () => {
  const platform = nodePlatform({ env: {}, homeDir: '/nonexistent-home' });

  it('equal a count made from the raw lines for every Claude Code corpus session', async () => {
    const files = claudeSessions();
    expect(files.length).toBeGreaterThanOrEqual(5);
    let withOneHour = 0;
    for (const path of files) {
      const loaded = await loadTranscript(platform, { agent: 'claude-code', path });
      if (!loaded.ok) throw new Error(loaded.error.message);
      const hand = handCount(path);
      if (hand.oneHourWrites > 0) withOneHour++;
      const models = usageByModel('claude-code', loaded.value);
      expect(
        models.reduce((n, m) => n + m.cacheWrite1hTokens, 0),
        basename(path),
      ).toBe(hand.oneHourWrites);
      expect(sessionCost(models), basename(path)).toBeCloseTo(hand.usd, 9);
    }
    // The one-hour rate is exercised, not only the five-minute one.
    expect(withOneHour).toBeGreaterThanOrEqual(3);
  });

  it('prices one-hour cache writes above five-minute ones', () => {
    const five = { inputTokens: 100_000, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 100_000 };
    const hour = { ...five, cacheWrite1hTokens: 100_000 };
    // Claude Sonnet 4.5: $3.75 per million for five-minute writes, $6 for one-hour writes.
    expect(requestCost('claude-code', 'claude-sonnet-4-5', five)).toBeCloseTo(0.375, 9);
    expect(requestCost('claude-code', 'claude-sonnet-4-5', hour)).toBeCloseTo(0.6, 9);
  });

  it('applies the long-context rate only to a request whose own input passes the threshold', () => {
    const small = { inputTokens: 150_000, outputTokens: 1_000 };
    const large = { inputTokens: 250_000, outputTokens: 1_000 };
    // $3 and $15 per million up to 200K input tokens, $6 and $22.50 above.
    expect(requestCost('claude-code', 'claude-sonnet-4-5', small)).toBeCloseTo(0.45 + 0.015, 9);
    expect(requestCost('claude-code', 'claude-sonnet-4-5', large)).toBeCloseTo(1.5 + 0.0225, 9);
    // Two small requests summing past 200K stay at the lower rate.
    const m = usageByModel('claude-code', {
      events: [small, small].map((usage, i) => ({
        kind: 'request',
        id: `r${i}`,
        agentId: 'main',
        payload: { model: 'claude-sonnet-4-5', usage },
      })),
    } as never);
    expect(sessionCost(m)).toBeCloseTo(2 * (0.45 + 0.015), 9);
  });
});
