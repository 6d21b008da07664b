// What a session cost, priced offline by the catalog the server uses. A model the catalog has no
// price for leaves the cost unknown: it is shown as such, never as $0.
import { modelCost, PRICES_SOURCE } from '@cairn/server/pricing';
import type { ModelAndTime } from '@cairn/transcript';
import { dollars } from './format.js';

export interface Priced {
  /** Dollars; absent when a model that used tokens has no price, or no request recorded tokens. */
  usd?: number;
  /** The line `cairn summary` prints. */
  text: string;
  /** The catalog and its version. */
  source: string;
}

export function priced(agent: string, facts: ModelAndTime): Priced {
  const used = facts.models.filter((m) => m.inputTokens + m.outputTokens > 0);
  if (used.length === 0) return { text: '-  (no tokens recorded)', source: PRICES_SOURCE };
  let usd = 0;
  const unpriced: string[] = [];
  for (const m of used) {
    const cost = modelCost(agent, m);
    if (cost === undefined) unpriced.push(m.model);
    else usd += cost;
  }
  if (unpriced.length > 0)
    return { text: `-  (no price for ${unpriced.join(', ')} in ${PRICES_SOURCE})`, source: PRICES_SOURCE };
  return { usd, text: `${dollars(usd)}  (${PRICES_SOURCE})`, source: PRICES_SOURCE };
}
