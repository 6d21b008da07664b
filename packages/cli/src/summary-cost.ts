// What a session cost, priced offline by the catalog the server uses. A model the catalog has no
// price for leaves the cost unknown: it is shown as such, never as $0.
import { modelCost, PRICES_SOURCE, usageByModel } from '@cairn/server/pricing';
import type { Transcript } from '@cairn/transcript';
import { dollars } from './format.js';

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
  const used = usageByModel(agent, t);
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
