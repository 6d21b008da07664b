// What a session's requests cost in dollars, from the offline price catalog of genai-prices. A
// model the catalog does not know has no price: its cost is unknown, never $0.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Transcript } from '@cairn/transcript';
import { calcPrice } from '@pydantic/genai-prices';

/** Tokens one model used across a session; `inputTokens` includes cache reads and writes. */
export interface ModelUsage {
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

/** The catalog's name and version, shown wherever a cost is. */
export const PRICES_SOURCE = `genai-prices ${catalogVersion()}`;

function catalogVersion(): string {
  try {
    // The package exports no `./package.json`: it is found beside the entry point's folder.
    const entry = createRequire(import.meta.url).resolve('@pydantic/genai-prices');
    const manifest = join(dirname(entry), '..', 'package.json');
    return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown version';
  }
}

/** The provider whose prices apply to an agent's models. */
const PROVIDER: Readonly<Record<string, string>> = {
  'claude-code': 'anthropic',
  codex: 'openai',
  'gemini-cli': 'google',
};

/** Each model's tokens over every lane of a session, the most used model first. */
export function usageByModel(t: Transcript): ModelUsage[] {
  const byModel = new Map<string, ModelUsage>();
  for (const e of t.events) {
    if (e.kind !== 'request') continue;
    const { model, usage } = e.payload;
    if (model === undefined || usage === undefined) continue;
    let m = byModel.get(model);
    if (!m) {
      m = { model, requests: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
      byModel.set(model, m);
    }
    m.requests++;
    m.inputTokens += usage.inputTokens;
    m.outputTokens += usage.outputTokens;
    m.cacheReadTokens += usage.cacheReadTokens ?? 0;
    m.cacheWriteTokens += usage.cacheWriteTokens ?? 0;
  }
  return [...byModel.values()]
    .filter((m) => m.inputTokens + m.outputTokens > 0)
    .sort((a, b) => b.requests - a.requests || a.model.localeCompare(b.model));
}

/** The dollar cost of one model's tokens, or undefined when the catalog has no price for it. */
export function modelCost(agent: string, usage: ModelUsage): number | undefined {
  const providerId = PROVIDER[agent];
  const price = calcPrice(
    {
      input_tokens: usage.inputTokens,
      cache_read_tokens: usage.cacheReadTokens,
      cache_write_tokens: usage.cacheWriteTokens,
      output_tokens: usage.outputTokens,
    },
    usage.model,
    providerId === undefined ? {} : { providerId },
  );
  return price && Number.isFinite(price.total_price) ? price.total_price : undefined;
}

/** A session's cost: the sum over its models, undefined when any model with tokens has no price
 * (a partial sum would read as the whole). */
export function sessionCost(agent: string, usage: readonly ModelUsage[]): number | undefined {
  if (usage.length === 0) return undefined;
  let total = 0;
  for (const m of usage) {
    const cost = modelCost(agent, m);
    if (cost === undefined) return undefined;
    total += cost;
  }
  return total;
}
