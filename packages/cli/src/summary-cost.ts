// What a session cost, priced offline by the catalog the server uses. A model the catalog has no
// price for leaves the cost unknown: it is shown as such, never as $0.
import {
  addRequest,
  emptyModelUsage,
  type ModelUsage,
  modelCost,
  PRICES_SOURCE,
  usageByModel,
} from '@cairn/server/pricing';
import type { SummaryFacts, Transcript } from '@cairn/transcript';
import { dollars } from './format.js';

export { PRICES_SOURCE };

export interface Priced {
  /** Dollars; absent when a model that used tokens has no price, or no request recorded tokens. */
  usd?: number;
  /** The line `cairn summary` prints. */
  text: string;
  /** The catalog and its version. */
  source: string;
}

/** The session's cost, each request priced on its own (its model, cache lifetimes and size). */
export function priced(agent: string, t: Transcript): Priced {
  return pricedUsage(usageByModel(agent, t));
}

/** The cost of requests a worker read ({@link priced} for a session summed up elsewhere). */
export function pricedRequests(agent: string, requests: SummaryFacts['requests']): Priced {
  const models = new Map<string, ModelUsage>();
  for (const { model, usage } of requests) {
    let m = models.get(model);
    if (!m) {
      m = emptyModelUsage(model);
      models.set(model, m);
    }
    addRequest(agent, m, usage);
  }
  // The order usageByModel gives, so that the sum comes out the same to the last bit.
  const used = [...models.values()]
    .filter((m) => m.inputTokens + m.outputTokens > 0)
    .sort((a, b) => b.requests - a.requests || a.model.localeCompare(b.model));
  return pricedUsage(used);
}

function pricedUsage(used: readonly ModelUsage[]): Priced {
  if (used.length === 0) return { text: '-  (no tokens recorded)', source: PRICES_SOURCE };
  let usd = 0;
  const unpriced: string[] = [];
  for (const m of used) {
    const cost = modelCost(m);
    if (cost === undefined) unpriced.push(m.model);
    else usd += cost;
  }
  if (unpriced.length > 0)
    return { text: `-  (no price for ${unpriced.join(', ')} in ${PRICES_SOURCE})`, source: PRICES_SOURCE };
  return { usd, text: `${dollars(usd)}  (${PRICES_SOURCE})`, source: PRICES_SOURCE };
}
