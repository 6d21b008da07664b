// What a session's requests cost in dollars, from the offline price catalog of genai-prices. A
// model the catalog does not know has no price: its cost is unknown, never $0. Each request is
// priced on its own and the prices added up: a long-context rate applies to the requests whose
// own input passed the threshold, never to a session because its sum did, and one-hour cache
// writes cost what they cost, not the five-minute rate.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Transcript, Usage } from '@cairn/transcript';
import { calcPrice } from '@pydantic/genai-prices';

/** Tokens one model used across a session; `inputTokens` includes cache reads and writes. */
export interface ModelUsage {
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Of cacheWriteTokens, those kept an hour. */
  cacheWrite1hTokens: number;
  reasoningTokens: number;
  /** Dollars over the requests the catalog prices, each priced on its own. */
  costUsd: number;
  /** Requests with tokens whose model the catalog has no price for. */
  unpricedRequests: number;
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

/** A request's tokens as the catalog takes them; `input_tokens` includes cache reads and writes. */
interface CatalogUsage {
  input_tokens: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  cache_write_1h_tokens?: number;
  output_tokens?: number;
}

/** Dollars per token of each kind, for requests of one model whose input falls in one tier. */
interface UnitPrices {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h: number;
  output: number;
}

/** A model's tier thresholds (a tier applies once a request's input passes its start) and the
 * unit prices of each band, learnt as requests need them. */
interface ModelPrices {
  starts: number[];
  bands: Map<number, UnitPrices>;
}

// The catalog takes tens of microseconds a call, too slow for every request of a large history.
// Within a band a price is linear in the token counts, so each band's unit prices are taken from
// the catalog itself once (a few calls) and every request is then a sum of products.
const byModel = new Map<string, ModelPrices | null>();

function catalogPrice(agent: string, model: string, usage: CatalogUsage): number | undefined {
  const providerId = PROVIDER[agent];
  try {
    const price = calcPrice({ ...usage }, model, providerId === undefined ? {} : { providerId });
    return price && Number.isFinite(price.total_price) ? price.total_price : undefined;
  } catch {
    return undefined;
  }
}

function modelPrices(agent: string, model: string): ModelPrices | null {
  const key = `${agent}\u0000${model}`;
  let found = byModel.get(key);
  if (found !== undefined) return found;
  found = null;
  const providerId = PROVIDER[agent];
  try {
    const price = calcPrice({ input_tokens: 1 }, model, providerId === undefined ? {} : { providerId });
    if (price && Number.isFinite(price.total_price)) {
      const starts = new Set<number>();
      for (const p of Object.values(price.model_price))
        if (p !== undefined && typeof p === 'object') for (const t of p.tiers) starts.add(t.start);
      found = { starts: [...starts].sort((a, b) => a - b), bands: new Map() };
    }
  } catch {
    // A model the catalog cannot price stays unpriced.
  }
  byModel.set(key, found);
  return found;
}

function bandPrices(agent: string, model: string, prices: ModelPrices, band: number): UnitPrices | undefined {
  const known = prices.bands.get(band);
  if (known) return known;
  // A request size inside the band: every probe keeps its whole input at this size.
  const r = band === 0 ? 1_000 : prices.starts[band - 1]! + 1;
  const probe = (u: Omit<CatalogUsage, 'input_tokens'>) =>
    catalogPrice(agent, model, { input_tokens: r, ...u });
  const input = probe({});
  const read = probe({ cache_read_tokens: r });
  const write = probe({ cache_write_tokens: r });
  const write1h = probe({ cache_write_tokens: r, cache_write_1h_tokens: r });
  const withOutput = probe({ output_tokens: r });
  if ([input, read, write, write1h, withOutput].some((p) => p === undefined)) return undefined;
  const unit: UnitPrices = {
    input: input! / r,
    cacheRead: read! / r,
    cacheWrite: write! / r,
    cacheWrite1h: write1h! / r,
    output: (withOutput! - input!) / r,
  };
  prices.bands.set(band, unit);
  return unit;
}

/**
 * The dollar cost of one request, or undefined when the catalog has no price for its model. Its
 * band is set by its own input (cache reads and writes included), as the catalog sets it.
 */
export function requestCost(agent: string, model: string, usage: Usage): number | undefined {
  const prices = modelPrices(agent, model);
  if (!prices) return undefined;
  let band = 0;
  while (band < prices.starts.length && usage.inputTokens > prices.starts[band]!) band++;
  const unit = bandPrices(agent, model, prices, band);
  if (!unit) return undefined;
  const read = usage.cacheReadTokens ?? 0;
  const write = usage.cacheWriteTokens ?? 0;
  const write1h = Math.min(usage.cacheWrite1hTokens ?? 0, write);
  const fresh = Math.max(0, usage.inputTokens - read - write);
  return (
    fresh * unit.input +
    read * unit.cacheRead +
    (write - write1h) * unit.cacheWrite +
    write1h * unit.cacheWrite1h +
    usage.outputTokens * unit.output
  );
}

/** An empty tally of one model's requests. */
export const emptyModelUsage = (model: string): ModelUsage => ({
  model,
  requests: 0,
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
  reasoningTokens: 0,
  costUsd: 0,
  unpricedRequests: 0,
});

/** Adds one request to its model's tally (`sign` -1 takes it back out). */
export function addRequest(agent: string, m: ModelUsage, usage: Usage, sign: 1 | -1 = 1): void {
  m.requests += sign;
  m.inputTokens += sign * usage.inputTokens;
  m.outputTokens += sign * usage.outputTokens;
  m.cacheReadTokens += sign * (usage.cacheReadTokens ?? 0);
  m.cacheWriteTokens += sign * (usage.cacheWriteTokens ?? 0);
  m.cacheWrite1hTokens += sign * (usage.cacheWrite1hTokens ?? 0);
  m.reasoningTokens += sign * (usage.reasoningTokens ?? 0);
  if (usage.inputTokens + usage.outputTokens === 0) return;
  const cost = requestCost(agent, m.model, usage);
  if (cost === undefined) m.unpricedRequests += sign;
  else m.costUsd += sign * cost;
}

/** Each model's tokens and cost over every lane of a session, the most used model first. */
export function usageByModel(agent: string, t: Transcript): ModelUsage[] {
  const models = new Map<string, ModelUsage>();
  for (const e of t.events) {
    if (e.kind !== 'request') continue;
    const { model, usage } = e.payload;
    if (model === undefined || usage === undefined) continue;
    let m = models.get(model);
    if (!m) {
      m = emptyModelUsage(model);
      models.set(model, m);
    }
    addRequest(agent, m, usage);
  }
  return [...models.values()]
    .filter((m) => m.inputTokens + m.outputTokens > 0)
    .sort((a, b) => b.requests - a.requests || a.model.localeCompare(b.model));
}

/** One model's cost, or undefined when any of its requests with tokens has no price. */
/** Dollars to the billionth: requests added and taken away in another order (a session read in
 * parts, a record changed later) give sums that differ in their last bits, which must not show. */
const toNanoUsd = (usd: number): number => Math.round(usd * 1e9) / 1e9;

export const modelCost = (m: ModelUsage): number | undefined =>
  m.unpricedRequests > 0 ? undefined : toNanoUsd(m.costUsd);

/** A session's cost: the sum over its models, undefined when any model with tokens has no price
 * (a partial sum would read as the whole). */
export function sessionCost(usage: readonly ModelUsage[]): number | undefined {
  if (usage.length === 0) return undefined;
  let total = 0;
  for (const m of usage) {
    const cost = modelCost(m);
    if (cost === undefined) return undefined;
    total += cost;
  }
  return toNanoUsd(total);
}
